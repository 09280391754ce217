import math

from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"CAST(coalesce(a.{c.agg}, 0) AS DOUBLE)")


HITS = register(
    MeasureDef(
        "Hits",
        "Number of relevant items in the top k (ranx's hits; not Hit@k, which is 0 or 1).",
        value_range=(0.0, math.inf),
        sql=sql,
    )
)
