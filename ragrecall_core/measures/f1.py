from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        c.count_relevant(), f"coalesce(2.0 * a.{c.agg} / nullif({c.k} + s.{c.nrel}, 0), 0)"
    )


F1 = register(
    MeasureDef(
        "F1",
        "Harmonic mean of P@k and Recall@k: 2 x relevant in the top k / (k + relevant "
        "items), as ranx's f1 (a short list counts as padded).",
        sql=sql,
    )
)
