"""A JSON grades file's grade ``-0`` loaded as 0 (stop 49), though a grade is written 0, 1
or 2 in every format (CSV refuses the cell ``-0``): refused now, naming the file, the line
and the value as written."""

from __future__ import annotations

import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs.db import connect
from ragrecall_core.inputs.grades import load_grades
from tests.helpers import write_text


def refused(call) -> str:
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("written", ["-0", "-1", "0.0", "-0.0"])
def test_a_json_grade_written_otherwise_than_0_1_2_is_refused(tmp_path, written):
    sheet = write_text(
        tmp_path / "kim.jsonl",
        '{"query_id": "q1", "chunk_id": "a", "grade": 1}\n'
        f'{{"query_id": "q1", "chunk_id": "b", "grade": {written}}}\n',
    )
    text = refused(lambda: load_grades(connect(), sheet))
    assert f"{sheet}:2: got '\"grade\": {written}'" in text


def test_a_json_grade_0_still_loads(tmp_path):
    sheet = write_text(tmp_path / "kim.jsonl", '{"query_id": "q1", "chunk_id": "a", "grade": 0}\n')
    con = connect()
    assert load_grades(con, sheet) == 1
    assert con.execute("SELECT grade FROM grades").fetchall() == [(0,)]
