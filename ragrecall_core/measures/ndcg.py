from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns, gain: str = "grade") -> FamilySQL:
    """DCG over the ideal DCG; ``gain``: the gain of a grade (nDCG_burges: 2^grade - 1)."""
    return FamilySQL(
        f"sum({gain} / log2(rank + 1)) FILTER (WHERE {c.within}{c.gains})",
        f"coalesce(coalesce(a.{c.agg}, 0) / nullif(s.{c.idcg}, 0), 0)",
        gain=gain,
    )


NDCG = register(
    MeasureDef(
        "nDCG",
        "Graded DCG of the top k (gain = grade, discount log2(rank + 1)) over the ideal "
        "DCG from all judged grades of the query (no cutoff: the whole list). Every grade "
        "above 0 gains, whatever --rel-level (as trec_eval); with (rel=N), ranx's -lN, "
        "grades below N give no gain.",
        cutoff=OPTIONAL,
        aliases=("NDCG",),
        trec_eval=("ndcg", "ndcg_cut_k"),
        sql=sql,
    )
)
