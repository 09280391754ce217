"""A list that mixes items with a rank and items without one (stop 49): an item without a
rank takes its place in the list as its rank, and a given rank that collides with such a
place sorts after it, so "rank 2" is measured at position 3, silently. evaluate now says
so, naming the file and one query, whichever way the run was read (the JSON lines' typed
and validating reads, records in memory); a list whose ranks all sit at their places, or
that gives every rank or none, gets no word."""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.inputs import runs
from tests.helpers import gold_row, write_jsonl

MIXED = "1 query mixes items with and without a rank ('q1': rank 2 read as position 3)"


def lines(first: list[dict]) -> list[dict]:
    return [
        {"id": "q1", "retrieved": first},
        {"id": "q2", "retrieved": [{"chunk_id": "d", "rank": 1}, {"chunk_id": "e", "rank": 2}]},
    ]


COLLIDING = [{"chunk_id": "a"}, {"chunk_id": "b"}, {"chunk_id": "c", "rank": 2}]


def warnings_of(workspace: Workspace) -> list[str]:
    (run,) = workspace.run_names
    return [w for w in evaluate(workspace, ["Recall@5"]).warnings.get(run, []) if "mixes" in w]


@pytest.fixture
def gold(tmp_path):
    return write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c"]), gold_row("q2", ["d"])])


@pytest.mark.parametrize("read", ["typed", "validating"])
def test_a_rank_colliding_with_an_unranked_place_is_said(tmp_path, gold, monkeypatch, read):
    run = write_jsonl(tmp_path / "runs" / "run.jsonl", lines(COLLIDING))
    if read == "validating":
        monkeypatch.setattr(runs, "read_typed", lambda *args: False)
    (warning,) = warnings_of(Workspace.from_files(gold, [run]))
    assert warning.startswith(f"{run}: {MIXED}"), warning


def test_records_in_memory_say_it_too(gold):
    (warning,) = warnings_of(Workspace.from_memory(gold, {"mine": lines(COLLIDING)}))
    assert MIXED in warning, warning


@pytest.mark.parametrize(
    "first",
    [
        [{"chunk_id": "a"}, {"chunk_id": "b", "rank": 2}, {"chunk_id": "c"}],  # at its place
        [{"chunk_id": "a", "rank": 1}, {"chunk_id": "b", "rank": 2}],  # every rank given
        [{"chunk_id": "a"}, {"chunk_id": "b"}],  # none given
    ],
)
def test_ranks_at_their_places_or_all_or_none_get_no_word(tmp_path, gold, first):
    run = write_jsonl(tmp_path / "runs" / "run.jsonl", lines(first))
    assert warnings_of(Workspace.from_files(gold, [run])) == []


def test_both_warnings_follow_the_queries_measured(tmp_path, gold):
    """A warning names a query the evaluation measures: evaluate on q2 alone (a split, a
    dashboard filter) says nothing of q1's mixed or skipping ranks."""
    gapped = [{"chunk_id": "a", "rank": 2}, {"chunk_id": "b", "rank": 5}]
    for first in (COLLIDING, gapped):
        run = write_jsonl(tmp_path / "runs" / "run.jsonl", lines(first))
        workspace = Workspace.from_files(gold, [run])
        every = evaluate(workspace, ["Recall@5"]).warnings["run"]
        assert any("mixes" in w or "skip places" in w for w in every), every
        scoped = evaluate(workspace, ["Recall@5"], query_ids=["q2"]).warnings.get("run", [])
        assert not any("mixes" in w or "skip places" in w for w in scoped), scoped
