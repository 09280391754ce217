from ragrecall_core.measures.base import MeasureDef, register

PRECISION = register(
    MeasureDef(
        "P",
        "Relevant items in the top k divided by k (a short list counts as padded).",
        aliases=("Precision",),
        trec_eval=("P_k",),
    )
)
