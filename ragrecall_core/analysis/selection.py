"""Choosing the queries an evaluation covers: by split, type, section or id."""

from __future__ import annotations

from collections.abc import Sequence

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace

TEST_SPLIT = "test"


def query_ids(
    workspace: Workspace,
    split: str | None = None,
    query_types: Sequence[str] | None = None,
    sections: Sequence[str] | None = None,
) -> list[str] | None:
    """Ids of the gold queries that match every given filter; ``None`` when none is given."""
    if split is None and not query_types and not sections:
        return None
    rows = (
        workspace.cursor()
        .execute(
            """
        SELECT query_id FROM queries
        WHERE ($split IS NULL OR split = $split)
          AND (len($types) = 0 OR list_contains($types, query_type))
          AND (len($sections) = 0 OR list_contains($sections, section))
        ORDER BY line
        """,
            {"split": split, "types": list(query_types or []), "sections": list(sections or [])},
        )
        .fetchall()
    )
    return [r[0] for r in rows]


def splits(workspace: Workspace) -> list[str]:
    rows = (
        workspace.cursor()
        .execute("SELECT DISTINCT split FROM queries WHERE split IS NOT NULL ORDER BY split")
        .fetchall()
    )
    return [r[0] for r in rows]


def default_split(workspace: Workspace, split: str | None) -> tuple[str | None, str]:
    """The split a release decision uses: the one asked for, else ``test`` when the gold has it.

    Returns the split and a sentence saying why, for reports and gate output.
    """
    if split:
        return split, f"split {split!r} (asked for)"
    if TEST_SPLIT in splits(workspace):
        return TEST_SPLIT, "split 'test' (the held-out split, used by default)"
    return None, "all queries (the gold set has no 'test' split)"


def require_split(workspace: Workspace, split: str | None, source: str = "--split") -> None:
    """Refuse a split the gold set does not have: filtering on it would leave no query, and
    every number computed on no query is meaningless rather than zero."""
    known = splits(workspace)
    if split is not None and split not in known:
        expected = f"one of the gold set's splits: {', '.join(map(repr, known))}"
        raise InputError(
            [
                Problem(
                    source,
                    None,
                    redact_text(split),
                    expected if known else "no split: the gold set has none",
                )
            ]
        )
