"""A query id on two JSON lines, built to slip past the typed (fast) read of a run (issue 14).

The fast read goes from the lines to the run table in one statement, with no table of
lines to count ids in: a query whose id is on two lines has more rows than its longest
list. Lists whose ranks do not clash, unranked lists and empty lists must still reach the
validating read and be refused at the second line, from a file and from records.
"""

from __future__ import annotations

import pytest

from ragrecall_core import InputError, Workspace
from tests.helpers import gold_row, load_problems, write_jsonl

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]


def line(qid, chunks, ranks=None):
    ranks = ranks or [None] * len(chunks)
    items = [
        {"chunk_id": c} | ({"rank": r} if r else {}) for c, r in zip(chunks, ranks, strict=True)
    ]
    return {"id": qid, "retrieved": items}


TWICE = {
    "ranks that do not clash": [line("q1", ["a"], [1]), line("q1", ["b"], [2])],
    "unranked lists": [line("q1", ["a", "c"]), line("q1", ["b"])],
    "an empty list, then a list": [line("q1", []), line("q1", ["a"])],
    "a list, then an empty list": [line("q1", ["a"]), line("q1", [])],
    "two empty lists": [line("q1", []), line("q1", [])],
}


@pytest.mark.parametrize("lines", TWICE.values(), ids=TWICE.keys())
def test_an_id_on_two_lines_is_refused_at_the_second(tmp_path, lines):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", [line("q2", ["b"], [1]), *lines])
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [3], problems
    assert "q1" in problems[0].value


@pytest.mark.parametrize("lines", TWICE.values(), ids=TWICE.keys())
def test_an_id_in_two_records_is_refused(lines):
    records = [{"query_id": r["id"], "retrieved": r["retrieved"]} for r in lines]
    with pytest.raises(InputError) as caught:
        Workspace.from_memory({"q1": ["a"]}, {"r": records})
    assert any("q1" in p.value for p in caught.value.problems), caught.value.problems


def test_one_line_per_id_loads_every_list(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    lines = [line("q1", ["a", "c"]), line("q2", []), line("q3", ["b"], [4])]
    run = write_jsonl(tmp_path / "run.jsonl", lines)
    ws = Workspace.from_files(gold, [run])
    listed = ws.con.execute("SELECT query_id, chunk_id, rank FROM runs ORDER BY ALL").fetchall()
    assert listed == [("q1", "a", 1), ("q1", "c", 2), ("q3", "b", 1)]
    queries = ws.con.execute("SELECT query_id, listed FROM run_queries ORDER BY ALL").fetchall()
    assert queries == [("q1", 2), ("q2", 0), ("q3", 1)]  # an empty list lists no chunk
