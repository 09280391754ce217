from ragrecall_core.measures.base import MeasureDef, register

F1 = register(
    MeasureDef(
        "F1",
        "Harmonic mean of P@k and Recall@k: 2 x relevant in the top k / (k + relevant "
        "items), as ranx's f1 (a short list counts as padded).",
    )
)
