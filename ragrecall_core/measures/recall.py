from ragrecall_core.measures.base import MeasureDef, register

RECALL = register(
    MeasureDef(
        "Recall",
        "Share of the query's relevant items found in the top k.",
        aliases=("R",),
        trec_eval=("recall_k",),
    )
)
