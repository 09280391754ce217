"""A row missing its key is one problem, never also a "repeat" of another such row.

Two gold lines without an "id" were refused three times: twice for the missing field, and
once more as "got 'None', expected a query id not used at an earlier line", as if the two
missing ids were one id written twice. The same for run rows and grades rows missing a
chunk id. The missing field is the problem; a line per problem, none invented.
"""

from __future__ import annotations

import pytest

from tests.helpers import run_cli

GOLD = '{"id": "q3", "query": "c", "relevant_ids": ["c"]}\n'
RUN = '{"id": "q3", "retrieved": [{"chunk_id": "c", "rank": 1}]}\n'
NO_IDS = '{"query": "a", "relevant_ids": ["a"]}\n{"query": "b", "relevant_ids": ["b"]}\n'
# (files written, the command's arguments after "evaluate", the problem lines expected)
CASES = {
    "gold lines without an id": (
        {"gold.jsonl": NO_IDS + GOLD, "run.jsonl": RUN},
        ["gold.jsonl", "run.jsonl"],
        [
            """gold.jsonl:1: got '{"query": "a", "relevant_ids": ["a"]}', expected a field "id\"""",
            """gold.jsonl:2: got '{"query": "b", "relevant_ids": ["b"]}', expected a field "id\"""",
        ],
    ),
    "run rows without a chunk id": (
        {"gold.jsonl": GOLD, "run.csv": "query_id,chunk_id,rank\nq3,,1\nq3,,2\nq3,c,3\n"},
        ["gold.jsonl", "run.csv"],
        ["run.csv:2: got '', expected a chunk_id", "run.csv:3: got '', expected a chunk_id"],
    ),
    "grade rows without a chunk id": (
        {
            "gold.jsonl": GOLD,
            "run.jsonl": RUN,
            "anna.csv": "query_id,chunk_id,grade\nq3,,2\nq3,,1\n",
        },
        ["gold.jsonl", "run.jsonl", "--grades", "anna.csv"],
        ["anna.csv:2: got '', expected a chunk_id", "anna.csv:3: got '', expected a chunk_id"],
    ),
    # the attack's other side: two rows with the same written key stay one problem more
    "a real repeat": (
        {"gold.jsonl": GOLD, "run.csv": "query_id,chunk_id,rank\nq3,c,1\nq3,c,2\n"},
        ["gold.jsonl", "run.csv"],
        [
            "run.csv:3: got 'q3 c (first at line 2)', expected a chunk id in this query's "
            "ranked list not used at an earlier line"
        ],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_each_problem_is_one_line_and_none_is_invented(case, capsys, tmp_path, monkeypatch):
    files, argv, expected = CASES[case]
    monkeypatch.chdir(tmp_path)  # the problems name the files as given: relative here
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run_cli(capsys, ["evaluate", *argv])
    assert code == 2 and out == ""
    assert [line for line in err.splitlines() if line.startswith(tuple(files))] == expected
