"""The typed read of JSON lines in list order against the validating read, on generated
ranks (issue 30).

A list in rank order is read without its given ranks (a row's rank is its place); an item
whose given rank is not its place keeps its place negated, which sends the run to the
sorted read. Whatever the ranks (none, in place, out of place, repeated, 0 or negative,
an empty list), the typed read must load what the validating read loads, or refuse the
file with the same problems.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core import Workspace
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import runs
from tests.helpers import gold_row, write_jsonl

SETTINGS = settings(max_examples=20)
QUERIES = ["q1", "q2"]
IDS = ["a", "b", "c", "d", "e"]


@st.composite
def lists(draw):
    """Per query a list of items: each rank its place, absent, or drawn (-1..6)."""
    lines = []
    for query in QUERIES:
        ids = draw(st.lists(st.sampled_from(IDS), max_size=5, unique=True))
        items = []
        for place, chunk in enumerate(ids, 1):
            rank = draw(st.sampled_from(["place", "place", "none", "drawn"]))
            item = {"chunk_id": chunk, "score": 1.0 / place}
            if rank == "place":
                item["rank"] = place
            elif rank == "drawn":
                item["rank"] = draw(st.integers(-1, 6))
            items.append(item)
        lines.append({"id": query, "retrieved": items})
    return lines


def outcome(gold, run) -> list[tuple] | list:
    try:
        workspace = Workspace.from_files(gold, [run])
    except InputError as error:
        return sorted(error.problems, key=str)
    sql = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY query_id, rank"
    return workspace.con.execute(sql).fetchall()


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gold")
    return write_jsonl(folder / "gold.jsonl", [gold_row(q, ["a"]) for q in QUERIES])


@SETTINGS
@given(lines=lists())
def test_listed_jsonl_loads_as_the_validating_read(gold, tmp_path_factory, lines):
    run = write_jsonl(tmp_path_factory.mktemp("run") / "run.jsonl", lines)
    fast = outcome(gold, run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "read_jsonl_typed", lambda *a, **k: False)  # the validating read
        validated = outcome(gold, run)
    assert fast == validated
    if fast and isinstance(fast[0], tuple):
        for query in QUERIES:
            ranks = [r for q, c, r, _ in fast if q == query and c is not None]
            assert ranks == list(range(1, len(ranks) + 1))
