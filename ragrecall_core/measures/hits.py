from ragrecall_core.measures.base import MeasureDef, register

HITS = register(
    MeasureDef(
        "Hits",
        "Number of relevant items in the top k (ranx's hits; not Hit@k, which is 0 or 1).",
    )
)
