import math

from ragrecall_core.measures.base import NONE, MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(f"min(rank) FILTER (WHERE {c.relevant})", f"a.{c.agg}")


FIRST_RANK = register(
    MeasureDef(
        "FirstRank",
        "Rank of the first relevant item in the whole list; no value when none is "
        "retrieved (its mean covers the queries where one was found).",
        cutoff=NONE,
        aliases=("FirstRelRank",),
        higher_is_better=False,
        missing=None,
        value_range=(1.0, math.inf),
        sql=sql,
    )
)
