from ragrecall_core.measures.base import NONE, MeasureDef, register

FIRST_RANK = register(
    MeasureDef(
        "FirstRank",
        "Rank of the first relevant item in the whole list; no value when none is "
        "retrieved (its mean covers the queries where one was found).",
        cutoff=NONE,
        aliases=("FirstRelRank",),
        higher_is_better=False,
        missing=None,
    )
)
