"""TREC run lines with an empty field, built to slip past the typed (fast) read (issue 14).

The typed read splits lines on single spaces (or tabs), so two separators in a row make an
empty field, which DuckDB reads as NULL; a NULL score or rank once passed every whole-table
test and the file loaded. trec_eval and the validating read split on runs of whitespace:
such a line has five fields and is refused, naming the line. Each case must be refused the
same way whichever line it is on.
"""

from __future__ import annotations

import pytest

from tests.helpers import load_problems

GOOD = ["q1 Q0 d1 1 3.0 t", "q1 Q0 d2 2 2.0 t", "q2 Q0 d9 1 1.0 t"]
EMPTY_FIELD = {
    "no score (two spaces)": "q1 Q0 d3 3  t",
    "no rank (two spaces)": "q1 Q0 d3  1.0 t",
    "no Q0 (two spaces)": "q1  d3 3 1.0 t",
    "no tag (trailing space)": "q1 Q0 d3 3 1.0 ",
    "no score (two tabs)": "q1\tQ0\td3\t3\t\tt",
    "no rank (two tabs)": "q1\tQ0\td3\t\t1.0\tt",
}


def write_run(tmp_path, lines):
    path = tmp_path / "run.trec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq2 0 d9 1\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("bad", EMPTY_FIELD.values(), ids=EMPTY_FIELD.keys())
@pytest.mark.parametrize("at", [0, 2, 3])
def test_a_line_with_an_empty_field_is_refused_at_its_line(tmp_path, qrels, bad, at):
    lines = GOOD[:at] + [bad] + GOOD[at:]
    if "\t" in bad:  # one separator for the whole file, as a tab-separated run has
        lines = [line.replace(" ", "\t") for line in lines]
    problems = load_problems(qrels, [write_run(tmp_path, lines)])
    assert [p.line for p in problems] == [at + 1], problems
    assert "6 fields" in problems[0].expected


def test_single_separators_still_load(tmp_path, qrels):
    from ragrecall_core import Workspace

    ws = Workspace.from_files(qrels, [write_run(tmp_path, GOOD)])
    rows = ws.con.execute("SELECT query_id, chunk_id, rank FROM runs ORDER BY ALL").fetchall()
    assert rows == [("q1", "d1", 1), ("q1", "d2", 2), ("q2", "d9", 1)]
