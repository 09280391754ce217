from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}grade IS NOT NULL)",
        f"coalesce(a.{c.agg}, 0) / p.{c.positions}",
        needs_positions=True,
    )


JUDGED = register(
    MeasureDef(
        "Judged",
        "Share of the top-k positions that carry any judgment (gold or manual); a list "
        "shorter than k is judged on the positions it has; an empty list has no value.",
        missing=None,
        takes_rel=False,
        sql=sql,
    )
)
