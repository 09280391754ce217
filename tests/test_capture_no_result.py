"""A capture where no answerable query got a result is a failed capture (exit 1, no run):
an empty index, a wrong collection name or a filter that matches nothing returns empty
lists without raising, and a run of empty lists would be measured as a retriever that
finds nothing, with exit 0."""

from __future__ import annotations

import json

import pytest

from ragrecall_core.analysis.capture import CaptureFailed, capture, progress_path
from tests.helpers import gold_row, write_jsonl, write_text
from tests.test_capture import run_cli_in


def gold(tmp_path, answerable=("q1", "q2", "q3"), no_answer=("q4",)):
    rows = [gold_row(q, [f"c-{q}"]) for q in answerable] + [gold_row(q, []) for q in no_answer]
    return write_jsonl(tmp_path / "gold.jsonl", rows)


def nothing(query: str) -> list:
    return []


def finds(query: str) -> list:
    return [{"id": "c-" + query.split()[-1], "score": 1.0}]


def test_no_result_for_any_answerable_query_fails_and_writes_no_run(tmp_path):
    output = tmp_path / "r.jsonl"
    with pytest.raises(CaptureFailed) as failed:
        capture(gold(tmp_path), nothing, output)
    assert not output.exists()
    result = failed.value.result
    assert set(result.errors) == {"q1", "q2", "q3"}  # the no-answer query's [] is right
    assert "no result" in str(failed.value)
    # the same capture with the retriever mended captures those queries again
    fixed = capture(gold(tmp_path), finds, output)
    assert fixed.errors == {}
    lines = {line["id"]: line for line in map(json.loads, output.read_text().splitlines())}
    assert lines["q1"]["retrieved"][0]["chunk_id"] == "c-q1"
    assert not progress_path(output).exists()


def test_the_command_exits_1_and_names_the_queries(tmp_path):
    write_text(tmp_path / "empty_retriever.py", "def search(query):\n    return []\n")
    code, out, err = run_cli_in(
        tmp_path,
        ["capture", gold(tmp_path), "--retriever", "empty_retriever:search", "-o", "r.jsonl"],
    )
    assert code == 1, (out, err)
    assert not (tmp_path / "r.jsonl").exists()
    assert "3 x no result" in out + err and "q1" in out + err


def test_a_gold_of_no_answer_queries_may_get_no_result(tmp_path):
    result = capture(gold(tmp_path, answerable=()), nothing, tmp_path / "r.jsonl")
    assert result.errors == {} and result.written


def test_some_answerable_queries_without_a_result_are_named_and_kept(tmp_path):
    def some(query: str) -> list:
        return [] if query.endswith("q2") else finds(query)

    result = capture(gold(tmp_path), some, tmp_path / "r.jsonl")
    assert result.errors == {} and result.written
    assert "1 answerable query returned no result: q2" in result.to_text()


def test_ids_the_gold_never_grades_are_said_to_make_every_measure_0(tmp_path):
    def uuids(query: str) -> list:  # a store keyed by its own ids: --id-key not given
        return [{"id": f"5f0c-{query.split()[-1]}", "score": 1.0}]

    result = capture(gold(tmp_path), uuids, tmp_path / "r.jsonl")
    assert result.written
    assert "none of the 4 retrieved ids is a chunk the gold grades" in result.to_text()
    assert (
        "chunk the gold grades"
        not in capture(gold(tmp_path), finds, tmp_path / "s.jsonl").to_text()
    )


def test_one_list_for_every_query_is_said(tmp_path):
    def same(query: str) -> list:  # the query never reaches the search
        return [{"id": "c-q1", "score": 1.0}, {"id": "c-q2", "score": 0.5}]

    result = capture(gold(tmp_path), same, tmp_path / "r.jsonl")
    assert result.written
    assert "every query with a result got the same list" in result.to_text()
    assert "same list" not in capture(gold(tmp_path), finds, tmp_path / "s.jsonl").to_text()
    two = capture(gold(tmp_path, answerable=("q1",), no_answer=("q2",)), same, tmp_path / "t.jsonl")
    assert "same list" not in two.to_text()  # two queries: too few to tell
