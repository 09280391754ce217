from ragrecall_core.measures import ndcg
from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return ndcg.sql(c, gain="(2 ** grade - 1)")


NDCG_BURGES = register(
    MeasureDef(
        "nDCG_burges",
        "nDCG with gain 2^grade - 1 (Burges et al.; ranx's ndcg_burges, ir_measures' "
        "nDCG(dcg='exp-log2')); the same as nDCG when grades are 0 or 1.",
        cutoff=OPTIONAL,
        sql=sql,
    )
)
