from ragrecall_core.measures.base import MeasureDef, register

PRECISION_MAX = register(
    MeasureDef(
        "Pmax",
        "Precision at k if every unjudged chunk in the top k were relevant: (relevant + "
        "unjudged in the top k) / k. With P@k it bounds the precision band "
        "(unjudged as not relevant ... unjudged as relevant).",
        aliases=("PrecisionMax", "P_unjudged_relevant"),
    )
)
