"""TREC lines split as trec_eval splits them: on C's whitespace (space, tab, vertical tab,
form feed, carriage return; get_trec_results.c and get_qrels.c use isspace), runs of it one
separator, none of it a field at a line's ends; a line of whitespace alone is blank, and one
whose first field starts with "#" a comment.

Before, only spaces and tabs separated fields: a line starting with a tab was refused with a
shifted field ("rank c1"), a form feed before a query id stayed in the id, and a vertical tab
or a lone carriage return inside a line stayed inside a chunk id; trec_eval reads each of
these as its plain twin. Every file here must load, through the typed read and through the
validating read, exactly as its twin written with single spaces and line feeds.
"""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs.readers import detect_format
from tests.helpers import run_table, write_text

TWIN = "q1 Q0 c1 1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n"
RUNS = {
    "a line starting with a tab": "\tq1 Q0 c1 1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n",
    "a form feed before the query id": "\fq1 Q0 c1 1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n",
    "a vertical tab between fields": "q1\vQ0 c1 1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n",
    "a carriage return between fields": "q1 Q0 c1\r1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n",
    "a carriage return between fields, CRLF file": (
        "q1 Q0 c1\r1 0.9 t\r\nq1 Q0 c2 2 0.5 t\r\nq2 Q0 d 1 0.7 t\r\n"
    ),
    "tabs and spaces at the ends": "q1 Q0 c1 1 0.9 t \t\nq1 Q0 c2 2 0.5 t\t\nq2 Q0 d 1 0.7 t\n",
    "a line of whitespace alone": (
        "q1 Q0 c1 1 0.9 t\n\t \f\nq1 Q0 c2 2 0.5 t\n\v\nq2 Q0 d 1 0.7 t\n"
    ),
    "a comment after leading whitespace": (
        "\t# written by hand\nq1 Q0 c1 1 0.9 t\n  # two\nq1 Q0 c2 2 0.5 t\nq2 Q0 d 1 0.7 t\n"
    ),
}
# trec_eval reads "c1\r1" as two fields: the chunk c1, then the rank; whitespace inside what
# would be one id splits it too
PLAIN_SPLIT = "q1 Q0 c 1 1 0.9 t\nq2 Q0 d 1 0.7 t\n"
SPLIT_INSIDE = {
    "a carriage return": "q1 Q0 c\r1 1 0.9 t\nq2 Q0 d 1 0.7 t\n",
    "a carriage return, CRLF file": "q1 Q0 c\r1 1 0.9 t\r\nq2 Q0 d 1 0.7 t\r\n",
    "a vertical tab": "q1 Q0 c\v1 1 0.9 t\nq2 Q0 d 1 0.7 t\n",
    "a form feed": "q1 Q0 c\f1 1 0.9 t\nq2 Q0 d 1 0.7 t\n",
    "a tab": "q1 Q0 c\t1 1 0.9 t\nq2 Q0 d 1 0.7 t\n",
}


@pytest.mark.parametrize("validating", [False, True], ids=["typed read", "validating read"])
@pytest.mark.parametrize("case", SPLIT_INSIDE)
def test_whitespace_inside_an_id_splits_it_as_trec_eval_does(tmp_path, case, validating):
    twin = run_table(write_text(tmp_path / "twin.trec", PLAIN_SPLIT), validating=True)
    assert ("q1", "c", 1, 1.0, 1) in twin
    path = tmp_path / "run.trec"
    path.write_bytes(SPLIT_INSIDE[case].encode())
    assert run_table(path, validating) == twin


QRELS_TWIN = "q1 0 c1 1\nq1 0 c2 0\nq2 0 d 2\n"
QRELS = {
    "a line starting with a tab": "\tq1 0 c1 1\nq1 0 c2 0\nq2 0 d 2\n",
    "a vertical tab between fields": "q1\v0 c1 1\nq1 0 c2 0\nq2 0 d 2\n",
    "a carriage return between fields": "q1 0 c1\r1\nq1 0 c2 0\nq2 0 d 2\n",
    "a line of whitespace alone": "q1 0 c1 1\n\t\nq1 0 c2 0\nq2 0 d 2\n",
}


@pytest.mark.parametrize("case", QRELS)
def test_qrels_load_as_their_plain_twin(tmp_path, case):
    run = write_text(tmp_path / "run.trec", TWIN)
    rows = "SELECT * FROM qrels ORDER BY ALL"
    twin = Workspace.from_files(write_text(tmp_path / "twin.txt", QRELS_TWIN), [run])
    path = tmp_path / "qrels.txt"
    path.write_bytes(QRELS[case].encode())
    loaded = Workspace.from_files(path, [run])
    assert loaded.con.execute(rows).fetchall() == twin.con.execute(rows).fetchall()


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("q1 0 c1\r1\nq2 0 d 2\n", "trec_qrels"),  # trec_eval: four fields, not three
        ("\tq1\v0 c1 1\n", "trec_qrels"),
        ("q1 0 c\u00a01 1\n", "trec_qrels"),  # no C whitespace: one id
        ("q1 0 c1 1\rq2 0 d 2\r", "trec_qrels"),  # every line ended by "\r"
        ("q1 Q0 c1\r1 0.9 t\n", "trec_run"),
    ],
)
def test_a_file_is_told_qrels_or_run_by_trec_eval_fields(tmp_path, text, fmt):
    path = tmp_path / "file.txt"
    path.write_bytes(text.encode())
    assert detect_format(path) == fmt
