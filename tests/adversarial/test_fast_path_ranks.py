"""Files built to slip a repeated rank past the typed (fast) read of a run (issue 14).

The fast read finds a repeated rank in the sort that numbers the positions (each rank
against the previous one given), not with a hash table of the whole run; a list with an
unranked item sorted between two equal ranks, or equal ranks far apart in the file, must
still be refused, with the line, by the validating read.
"""

from __future__ import annotations

import pytest

from tests.helpers import gold_row, load_problems, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]


def item(chunk, rank=None, score=None):
    entry = {"chunk_id": chunk}
    if rank is not None:
        entry["rank"] = rank
    if score is not None:
        entry["score"] = score
    return entry


@pytest.mark.parametrize(
    "retrieved",
    [
        # the unranked item at position 2 sorts between the two rank-2 items
        [item("a", 2), item("b"), item("c", 2)],
        [item("a", 1), item("b", 3), item("c"), item("d", 3)],
        [item("a", 5), *[item(f"x{i}", i + 6) for i in range(50)], item("z", 5)],
    ],
)
def test_jsonl_repeated_rank_is_refused_with_its_line(tmp_path, retrieved):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q2", "retrieved": [item("b", 1)]}, {"id": "q1", "retrieved": retrieved}],
    )
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [2]
    assert problems[0].expected.startswith("a rank in this ranked list not used")


def test_long_form_repeated_rank_far_apart_is_refused(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    rows = ["q1,a,3,0.9", "q2,b,1,0.8", "q1,b,1,0.7", "q1,c,3,0.1"]
    run = write_text(tmp_path / "run.csv", "query_id,chunk_id,rank,score\n" + "\n".join(rows))
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [5]
    assert "rank in this query's list" in problems[0].expected


def test_unranked_items_do_not_clash_with_ranks(tmp_path):
    """No rank is no rank: an unranked item beside a ranked one with its position loads."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q1", "retrieved": [item("a", 2), item("b"), item("c", 1)]}],
    )
    from ragrecall_core import Workspace

    workspace = Workspace.from_files(gold, [run])
    order = workspace.con.execute(
        "SELECT chunk_id FROM runs WHERE query_id = 'q1' ORDER BY rank"
    ).fetchall()
    assert [c for (c,) in order] == ["c", "a", "b"]  # by rank, else position; ties by position
