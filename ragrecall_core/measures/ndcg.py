from ragrecall_core.measures.base import OPTIONAL, MeasureDef, register

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
    )
)
