"""A typed read's per-query spans (row_tests.SPANS_SQL) serve its pair test, its order test
and the run's list lengths, then go: every format, lists in order or sorted by the read, a
query with an empty list, and a file the typed read leaves to the validating one. The list
lengths recorded from them equal the run table's own counts, and no spans table is left in
the workspace (the load cache keeps exactly the tables a load makes)."""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import row_tests, runs
from tests.helpers import gold_row, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"]), gold_row("q3", ["c"])]
IN_ORDER = [("q1", "a", 1, 0.9), ("q1", "b", 2, 0.7), ("q2", "b", 1, 0.8)]
OUT_OF_ORDER = [("q1", "b", 2, 0.7), ("q2", "b", 1, 0.8), ("q1", "a", 1, 0.9)]


def write_run(folder, fmt: str, rows):
    if fmt == "trec":
        text = "".join(f"{q} Q0 {c or '-'} {r} {s} t\n" for q, c, r, s in rows)
        return write_text(folder / "run.trec", text)
    if fmt == "csv":
        body = "".join(f"{q},{c},{r},{s}\n" for q, c, r, s in rows)
        return write_text(folder / "run.csv", "query_id,chunk_id,rank,score\n" + body)
    lists: dict[str, list] = {"q3": []}  # q3: an empty list
    for q, c, r, s in rows:
        lists.setdefault(q, []).append({"chunk_id": c, "rank": r, "score": s})
    return write_jsonl(folder / "run.jsonl", [{"id": q, "retrieved": v} for q, v in lists.items()])


@pytest.mark.parametrize("sorting", ["counted", "sorted"])
@pytest.mark.parametrize("rows", [IN_ORDER, OUT_OF_ORDER], ids=["in order", "out of order"])
@pytest.mark.parametrize("fmt", ["trec", "csv", "jsonl"])
def test_list_lengths_come_from_the_spans_and_the_spans_go(
    tmp_path, monkeypatch, fmt, rows, sorting
):
    if sorting == "sorted":
        monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 0)
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_run(tmp_path, fmt, rows)
    assert_spans_gone_and_lengths_kept(Workspace.from_files(gold, [run]))


def test_a_file_left_to_the_validating_read_records_its_lengths(tmp_path, monkeypatch):
    """Two spaces between fields: the typed read (split on one space) leaves the file to the
    validating read, which makes no spans; the lengths are counted from its table."""
    validated = []
    validating = runs._load_trec_validating
    monkeypatch.setattr(runs, "_load_trec_validating", lambda *a: validated.append(validating(*a)))
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_text(tmp_path / "run.trec", "q1  Q0 a 1 0.9 t\nq1 Q0 b 2 0.7 t\nq2 Q0 b 1 0.8 t\n")
    assert_spans_gone_and_lengths_kept(Workspace.from_files(gold, [run]))
    assert len(validated) == 1


def assert_spans_gone_and_lengths_kept(ws: Workspace) -> None:
    con = ws.cursor()
    left = con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '%spans'")
    assert left.fetchall() == []
    table = con.execute("SELECT tbl FROM run_files").fetchone()[0]
    counted = f"SELECT qid, count(docno) FROM {table} GROUP BY qid ORDER BY qid"  # noqa: S608
    recorded = "SELECT query_id, listed FROM run_queries ORDER BY query_id"
    assert con.execute(recorded).fetchall() == con.execute(counted).fetchall()
