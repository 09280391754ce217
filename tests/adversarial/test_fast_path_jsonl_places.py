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
from tests.helpers import assert_read_as_validating, gold_row, write_jsonl

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


# A rank given as its place's text is taken without its cast (runs.JSONL_ITEMS_SQL:
# ``at_place``); any other text of that number, and anything that is no integer, still
# goes through the canonical test and the validating read's refusal.
RANK_TEXTS = [
    "{place}", "{place}.0", "{place}e0", "1{place}e-1", '"{place}"', "true", "null",
    "-{place}", "0", "-0", " {place} ", "9223372036854775808", "18446744073709551616",
    "{place}.5", "[{place}]", '{{"r": {place}}}',
]  # fmt: skip


@pytest.mark.parametrize("text", RANK_TEXTS)
@pytest.mark.parametrize("counted_from", [0, None])
def test_a_rank_written_at_its_place_loads_as_the_validating_read(tmp_path, text, counted_from):
    """Each rank text at its own place (and a plain rank beside it), with the chunk ids read
    as text (the byte count deciding) or as JSON."""
    items = [
        f'{{"chunk_id": "{chunk}", "rank": {text.format(place=place)}, "score": 0.5}}'
        for place, chunk in enumerate("ab", 1)
    ]
    path = tmp_path / "run.jsonl"
    lines = [f'{{"id": "q1", "retrieved": [{", ".join(items)}]}}', '{"id": "q2", "retrieved": []}']
    path.write_text("\n".join(lines) + "\n")
    patched = {"COMMAS_COUNTED_FROM": counted_from} if counted_from is not None else {}
    assert_read_as_validating(path, **patched)
