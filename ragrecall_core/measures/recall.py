from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), c.share_of_relevant())


RECALL = register(
    MeasureDef(
        "Recall",
        "Share of the query's relevant items found in the top k.",
        aliases=("R",),
        trec_eval=("recall_k",),
        sql=sql,
    )
)
