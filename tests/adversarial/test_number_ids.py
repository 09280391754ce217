"""A JSON number where a string id belongs is shown as the file writes it (stop 48, item 4).

``{"id": 2.10, ...}`` is refused (ids are strings), but the problem line said ``"id": 2.1``:
DuckDB's ``json_extract`` writes the number again its own way, and a user searching the file
for ``2.1`` does not find the line. Every JSONL reader (gold, run, grades; the typed read of
a run leaves a refused file to the validating read) now shows the field's text as written.
"""

from __future__ import annotations

import pytest

from tests.helpers import run_cli, run_table, write_jsonl, write_text

ITEM = '"retrieved": [{"chunk_id": "a", "rank": 1, "score": 1.0}]'
# (the field's text in the file, a line around it): each shown exactly as written
WRITTEN = [
    ("2.10", '{"id": ID, ' + ITEM + "}"),
    ("1E3", '{"id":ID, ' + ITEM + "}"),
    ("-0.0", '{"id" :  ID , ' + ITEM + "}"),
    ("123456789012345678901234567890", '{"id": ID, ' + ITEM + "}"),
    ("[1.50, 2.0]", '{"id": ID, ' + ITEM + "}"),
    ('{"a" : 1.0}', '{"id": ID, ' + ITEM + "}"),
    ("2.10", '{"meta": {"id": 7.50}, "note": "\\"id\\": 3.0", ' + ITEM + ', "id": ID}'),
    ("2.10", "{" + ITEM + ', "id": ID}'),
]


@pytest.mark.parametrize(("written", "line"), WRITTEN)
def test_a_run_id_that_is_no_string_is_shown_as_written_by_both_reads(tmp_path, con, written, line):
    path = write_text(tmp_path / "run.jsonl", line.replace("ID", written) + "\n")
    fast = run_table(path, validating=False, con=con)
    assert fast == run_table(path, validating=True, con=con)
    assert (1, f'"id": {written}', '"id" to be a string') in fast, fast


def test_a_gold_id_and_a_grade_query_id_are_shown_as_written(tmp_path, capsys):
    gold = write_text(
        tmp_path / "gold.jsonl",
        '{"id": 2.10, "query": "q", "relevant_ids": ["a"]}\n'
        '{"id": "q2", "query": 3.50, "relevant_ids": ["b"]}\n',
    )
    run = write_jsonl(tmp_path / "runs" / "r.jsonl", [{"id": "q2", "retrieved": []}])
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "Traceback" not in err
    assert "gold.jsonl:1: got '\"id\": 2.10'" in err, err
    assert "gold.jsonl:2: got '\"query\": 3.50'" in err, err
    grades = write_text(
        tmp_path / "grades" / "anna.jsonl",
        '{"query_id": 1.50, "chunk_id": "a", "grade": 1}\n',
    )
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "--grades", grades])
    assert code == 2 and "anna.jsonl:1: got '\"query_id\": 1.50'" in err, err


def test_a_run_of_many_lines_shows_each_as_written(tmp_path):
    lines = [f'{{"id": {i}.{i}0, {ITEM}}}' for i in range(1, 200)]
    path = write_text(tmp_path / "run.jsonl", "\n".join(lines) + "\n")
    fast = run_table(path, False, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True)
    assert fast == run_table(path, True)  # the byte count deciding the typed read
    values = {value for _, value, expected in fast if expected == '"id" to be a string'}
    assert values == {f'"id": {i}.{i}0' for i in range(1, 200)}


@pytest.fixture(scope="module")
def con():
    from ragrecall_core.inputs.db import connect

    return connect()
