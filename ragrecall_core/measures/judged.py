from ragrecall_core.measures.base import MeasureDef, register

JUDGED = register(
    MeasureDef(
        "Judged",
        "Share of the top-k positions that carry any judgment (gold or manual); a list "
        "shorter than k is judged on the positions it has; an empty list has no value.",
        missing=None,
        takes_rel=False,
    )
)
