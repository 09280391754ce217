"""One grade per (query, chunk, annotator) in a grades sheet, the annotator as it is stored
(stop 46).

A row without an annotator (missing, null or blank) is stored as the file's stem. The
check for a repeated (query, chunk, annotator) used to compare the annotator as written,
so ``kim.csv`` with a row by ``kim`` and the same row with a blank annotator passed: both
were stored (the grade counted twice in exports and in the Agreement page's counts), and
two *different* grades of one chunk by kim were both stored, the later silently winning.
Both are refused now, naming the file, the line and the repeated triple, as a repeated
triple written out in full always was (the SPEC: a duplicate in a file is an error).
"""

from __future__ import annotations

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.db import connect
from ragrecall_core.inputs.grades import load_grades
from ragrecall_core.inputs.store import store_path
from tests.helpers import write_text
from tests.test_app_judge import seed002

HEADER = "query_id,chunk_id,grade,harmful,reason,annotator\n"
JSONL_KIM = '{"query_id": "q1", "chunk_id": "D", "grade": 2, "annotator": "kim"}\n'


def refused(load) -> str:
    with pytest.raises(InputError) as caught:
        load()
    return str(caught.value)


SHEETS = {
    # (file name, text): the line the repeat is reported on
    "csv same row, blank annotator": ("kim.csv", HEADER + "q1,D,2,false,,kim\nq1,D,2,false,,\n"),
    "csv conflict, blank annotator": ("kim.csv", HEADER + "q1,D,2,false,,kim\nq1,D,0,false,,\n"),
    "csv conflict, spaces only": ("kim.csv", HEADER + "q1,D,2,false,,  \nq1,D,0,false,,kim\n"),
    "csv no annotator column": ("kim.csv", "query_id,chunk_id,grade\nq1,D,2\nq1,D,2\n"),
    "jsonl same row, no annotator": (
        "kim.jsonl",
        JSONL_KIM + '{"query_id": "q1", "chunk_id": "D", "grade": 2}\n',
    ),
    "jsonl conflict, null annotator": (
        "kim.jsonl",
        JSONL_KIM + '{"query_id": "q1", "chunk_id": "D", "grade": 1, "annotator": null}\n',
    ),
    "jsonl conflict, blank annotator": (
        "kim.jsonl",
        JSONL_KIM + '{"query_id": "q1", "chunk_id": "D", "grade": 0, "annotator": " "}\n',
    ),
}


@pytest.mark.parametrize("name", SHEETS)
def test_a_sheet_grading_a_chunk_twice_by_one_annotator_is_refused(tmp_path, name):
    file_name, text = SHEETS[name]
    sheet = write_text(tmp_path / file_name, text)
    second = 3 if file_name.endswith(".csv") else 2
    text = refused(lambda: load_grades(connect(), sheet))
    assert f"{sheet}:{second}:" in text
    assert "q1 D by kim" in text and "(first at line" in text


@pytest.mark.parametrize("name", ["csv same row, blank annotator", "csv conflict, blank annotator"])
def test_an_import_of_such_a_sheet_stores_nothing(tmp_path, name):
    file_name, text = SHEETS[name]
    sheet = write_text(tmp_path / file_name, text)
    ws = Workspace.open(seed002(tmp_path / "ws"))
    assert "q1 D by kim" in refused(lambda: js.import_grades(ws, sheet))
    assert not store_path(ws).exists()  # nothing written, not even an empty store
    ws.con.close()


def test_a_workspace_with_such_a_grades_file_is_refused(tmp_path):
    folder = seed002(tmp_path / "ws")
    write_text(folder / "grades" / "kim.csv", SHEETS["csv conflict, blank annotator"][1])
    text = refused(lambda: Workspace.open(folder))
    assert f"{folder / 'grades' / 'kim.csv'}:3:" in text


def test_other_annotators_and_other_files_may_grade_the_same_chunk(tmp_path):
    """Only the same annotator twice in one file is refused: another annotator's row is
    theirs, and a blank annotator in another file is that file's stem."""
    sheet = write_text(tmp_path / "kim.csv", HEADER + "q1,D,2,false,,kim\nq1,D,0,false,,ann\n")
    other = write_text(tmp_path / "ann.csv", HEADER + "q1,D,1,false,,\n")
    con = connect()
    assert load_grades(con, sheet) == 2 and load_grades(con, other) == 1
    rows = con.execute("SELECT annotator, grade FROM grades ORDER BY ALL").fetchall()
    assert rows == [("ann", 0), ("ann", 1), ("kim", 2)]


ACROSS = {
    "conflicting": ("q1,D,2,false,,anna\n", "q1,D,0,false,,anna\n"),
    "agreeing": ("q1,D,2,false,,anna\n", "q1,D,2,false,,anna\n"),
    "one by its stem": ("q1,D,2,false,,anna\n", "q1,D,1,false,,\n"),  # anna.csv's stem
}


@pytest.mark.parametrize("name", ACROSS)
def test_two_files_grading_a_chunk_by_one_annotator_refuse_the_workspace(tmp_path, name):
    """Two grades files of one annotator that grade the same chunk (an export made twice,
    a re-judged round) counted as two votes of theirs in the reviewers' median, whether
    they agreed or not. Refused as a repeat within one file is, naming both files."""
    first, second = ACROSS[name]
    folder = seed002(tmp_path / "ws")
    a = write_text(folder / "grades" / "anna-round1.csv", HEADER + first)
    b = write_text(folder / "grades" / "anna.csv", HEADER + second)
    text = refused(lambda: Workspace.open(folder))
    assert "q1 D by anna" in text
    assert str(a) in text and str(b) in text
    assert "one grade per (query, chunk, annotator)" in text


def test_the_command_line_refuses_them_too(tmp_path, capsys):
    from ragrecall_core.cli import main

    folder = seed002(tmp_path / "ws")
    a = write_text(tmp_path / "a.csv", HEADER + "q1,D,2,false,,anna\n")
    b = write_text(tmp_path / "b.csv", HEADER + "q1,D,0,false,,anna\n")
    gold, run = folder / "gold.jsonl", next((folder / "runs").glob("*.jsonl"))
    argv = ["evaluate", str(gold), str(run), "--grades", str(a), "--grades", str(b)]
    assert main(argv) == 2
    assert "q1 D by anna" in capsys.readouterr().err


def test_agreement_over_grades_files_refuses_them_too(tmp_path, capsys):
    """``ragrecall agreement A B`` reads the files through the same rule: two files of one
    annotator are no pair of annotators, and their repeat is named, not merged."""
    from ragrecall_core.cli import main

    a = write_text(tmp_path / "a.csv", HEADER + "q1,D,2,false,,anna\n")
    b = write_text(tmp_path / "b.csv", HEADER + "q1,D,0,false,,anna\n")
    assert main(["agreement", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "q1 D by anna" in err and str(a) in err
