from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END")


HIT = register(
    MeasureDef(
        "Hit",
        "1 if any relevant item is in the top k, else 0.",
        aliases=("Success", "HitRate", "hit_rate"),
        trec_eval=("success_k",),
        sql=sql,
    )
)
