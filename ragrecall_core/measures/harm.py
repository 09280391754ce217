from ragrecall_core.measures.base import MeasureDef, register
from ragrecall_core.measures.sql import Columns, FamilySQL


def sql(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}harmful)",
        f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END",
    )


HARM = register(
    MeasureDef(
        "Harm",
        "1 if a chunk that a reviewer flagged harmful (convincing but outdated or "
        "contradicting) is in the top k, else 0; its mean is the share of queries harmed. "
        "No-answer queries count too.",
        higher_is_better=False,
        covers_no_answer=True,
        takes_rel=False,
        sql=sql,
    )
)
