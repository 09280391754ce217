"""A row missing its key is one problem, never also a "repeat" of another such row.

Two gold lines without an "id" were refused three times: twice for the missing field, and
once more as "got 'None', expected a query id not used at an earlier line", as if the two
missing ids were one id written twice. The same for run rows and grades rows missing a
chunk id. The missing field is the problem; a line per problem, none invented.
"""

from __future__ import annotations

from helpers import run_cli


def refused_lines(capsys, tmp_path, files: dict[str, str], argv: list[str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, argv)  # names relative to tmp_path, the working folder
    assert code == 2 and out == ""
    return [line for line in err.splitlines() if line.startswith(tuple(files))]


GOLD = '{"id": "q3", "query": "c", "relevant_ids": ["c"]}\n'
RUN = '{"id": "q3", "retrieved": [{"chunk_id": "c", "rank": 1}]}\n'


def test_gold_lines_without_an_id_are_two_problems(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold = '{"query": "a", "relevant_ids": ["a"]}\n{"query": "b", "relevant_ids": ["b"]}\n'
    lines = refused_lines(
        capsys,
        tmp_path,
        {"gold.jsonl": gold + GOLD, "run.jsonl": RUN},
        ["evaluate", "gold.jsonl", "run.jsonl"],
    )
    assert lines == [
        """gold.jsonl:1: got '{"query": "a", "relevant_ids": ["a"]}', expected a field "id\"""",
        """gold.jsonl:2: got '{"query": "b", "relevant_ids": ["b"]}', expected a field "id\"""",
    ]


def test_run_rows_without_a_chunk_id_are_two_problems(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = "query_id,chunk_id,rank\nq3,,1\nq3,,2\nq3,c,3\n"
    lines = refused_lines(
        capsys,
        tmp_path,
        {"gold.jsonl": GOLD, "run.csv": run},
        ["evaluate", "gold.jsonl", "run.csv"],
    )
    assert lines == [
        "run.csv:2: got '', expected a chunk_id",
        "run.csv:3: got '', expected a chunk_id",
    ]


def test_grade_rows_without_a_chunk_id_are_two_problems(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    grades = "query_id,chunk_id,grade\nq3,,2\nq3,,1\n"
    lines = refused_lines(
        capsys,
        tmp_path,
        {"gold.jsonl": GOLD, "run.jsonl": RUN, "anna.csv": grades},
        ["evaluate", "gold.jsonl", "run.jsonl", "--grades", "anna.csv"],
    )
    assert lines == [
        "anna.csv:2: got '', expected a chunk_id",
        "anna.csv:3: got '', expected a chunk_id",
    ]


def test_a_real_repeat_is_still_refused(capsys, tmp_path, monkeypatch):
    """The attack's other side: two rows with the same written key stay one problem more."""
    monkeypatch.chdir(tmp_path)
    run = "query_id,chunk_id,rank\nq3,c,1\nq3,c,2\n"
    lines = refused_lines(
        capsys,
        tmp_path,
        {"gold.jsonl": GOLD, "run.csv": run},
        ["evaluate", "gold.jsonl", "run.csv"],
    )
    assert lines == [
        "run.csv:3: got 'q3 c (first at line 2)', expected a chunk id in this query's ranked "
        "list not used at an earlier line"
    ]
