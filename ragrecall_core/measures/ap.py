from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    # cum: the relevant items ranked at or above the row
    return FamilySQL(
        f"sum({c.cum} / rank) FILTER (WHERE {c.within}{c.relevant})",
        c.share_of_relevant(),
        cumulative=c.relevant,
    )


AP = register(
    MeasureDef(
        "AP",
        "Mean of the precision at each relevant item's rank (within the top k if given), "
        "over all relevant items; its mean over queries is MAP.",
        cutoff=OPTIONAL,
        mean_name="MAP",
        trec_eval=("map", "map_cut_k"),
        sql=sql,
    )
)
