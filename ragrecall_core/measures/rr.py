from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"max(1.0 / rank) FILTER (WHERE {c.within}{c.relevant})", f"coalesce(a.{c.agg}, 0)"
    )


RR = register(
    MeasureDef(
        "RR",
        "1 / rank of the first relevant item in the top k (no cutoff: the whole list), "
        "else 0; its mean over queries is MRR.",
        cutoff=OPTIONAL,
        aliases=("RecipRank",),
        mean_name="MRR",
        trec_eval=("recip_rank",),
        sql=sql,
    )
)
