from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    # relevant minus judged in the top k; adding the top-k positions counts the unjudged
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}{c.relevant}) "
        f"- count(*) FILTER (WHERE {c.within}grade IS NOT NULL)",
        f"(coalesce(p.{c.positions}, 0) + coalesce(a.{c.agg}, 0)) / {c.k}",
        needs_positions=True,
    )


PRECISION_MAX = register(
    MeasureDef(
        "Pmax",
        "Precision at k if every unjudged chunk in the top k were relevant: (relevant + "
        "unjudged in the top k) / k. With P@k it bounds the precision band "
        "(unjudged as not relevant ... unjudged as relevant).",
        aliases=("PrecisionMax", "P_unjudged_relevant"),
        sql=sql,
    )
)
