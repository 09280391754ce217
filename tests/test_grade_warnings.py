"""Reviewers' grades of a query the gold set lacks (a trailing space, a query removed since)
count nowhere: evaluate says so, as it says of run queries the gold set lacks."""

from __future__ import annotations

import json

from ragrecall_core.cli import main
from tests.helpers import gold_row, run_row, write_jsonl


def grade(query_id: str, chunk_id: str, value: int = 2) -> dict:
    return {"query_id": query_id, "chunk_id": chunk_id, "grade": value, "annotator": "anna"}


def test_grades_of_queries_the_gold_lacks_are_said_ignored(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["b"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a", "c"]), run_row("q2", ["b"])])
    grades = write_jsonl(
        tmp_path / "anna.jsonl",
        [grade("q1", "c"), grade("q1 ", "c"), grade("q9", "a"), grade("q9", "b")],
    )
    code = main(["evaluate", str(gold), str(run), "--grades", str(grades), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (entry,) = out["runs"]
    (line,) = [w for w in entry["warnings"] if "grade" in w]
    assert line.startswith("3 grades name queries the gold set lacks")
    assert "'q1 '" in line and "'q9'" in line


def test_no_word_when_every_grade_names_a_gold_query(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a", "c"])])
    grades = write_jsonl(tmp_path / "anna.jsonl", [grade("q1", "c")])
    main(["evaluate", str(gold), str(run), "--grades", str(grades), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert not any("grade" in w for w in out["runs"][0]["warnings"])
