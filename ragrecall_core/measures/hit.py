from ragrecall_core.measures.base import MeasureDef, register

HIT = register(
    MeasureDef(
        "Hit",
        "1 if any relevant item is in the top k, else 0.",
        aliases=("Success", "HitRate", "hit_rate"),
        trec_eval=("success_k",),
    )
)
