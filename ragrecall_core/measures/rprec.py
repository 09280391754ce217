from ragrecall_core.measures.base import NONE, MeasureDef, register

RPREC = register(
    MeasureDef(
        "Rprec",
        "Precision at rank R, where R is the number of relevant items of the query.",
        cutoff=NONE,
        aliases=("R-Precision", "RPrec"),
        trec_eval=("Rprec",),
    )
)
