from ragrecall_core.measures.base import MeasureDef, register

RECALL_CAP = register(
    MeasureDef(
        "RecallCap",
        "Relevant items in the top k divided by min(k, number of relevant items): 1 when the "
        "top k holds all it could, so a query with more relevant items than k can still pass.",
        aliases=("R_cap",),
    )
)
