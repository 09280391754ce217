from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        c.count_relevant(), f"coalesce(a.{c.agg} / nullif(least({c.k}, s.{c.nrel}), 0), 0)"
    )


RECALL_CAP = register(
    MeasureDef(
        "RecallCap",
        "Relevant items in the top k divided by min(k, number of relevant items): 1 when the "
        "top k holds all it could, so a query with more relevant items than k can still pass.",
        aliases=("R_cap",),
        sql=sql,
    )
)
