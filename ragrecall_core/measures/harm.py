from ragrecall_core.measures.base import MeasureDef, register

HARM = register(
    MeasureDef(
        "Harm",
        "1 if a chunk that a reviewer flagged harmful (convincing but outdated or "
        "contradicting) is in the top k, else 0; its mean is the share of queries harmed. "
        "No-answer queries count too.",
        higher_is_better=False,
        covers_no_answer=True,
        takes_rel=False,
    )
)
