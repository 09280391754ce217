from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"coalesce(a.{c.agg}, 0) / {c.k}")


PRECISION = register(
    MeasureDef(
        "P",
        "Relevant items in the top k divided by k (a short list counts as padded).",
        aliases=("Precision",),
        trec_eval=("P_k",),
        sql=sql,
    )
)
