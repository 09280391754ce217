"""One number rule for a grade in every grades format (stop 48).

A CSV grades file used to accept ``2.0``, ``+2``, ``02`` and ``1.`` where JSON lines refuse
``2.0``: the same sheet exported two ways loaded in one and was refused in the other. A
grade is now written ``0``, ``1`` or ``2`` in both; a CSV cell may have spaces around it (as
JSON may around a value: they cannot change which grade is meant). Everything else is
refused with the file, the line and the value, all in one error.
"""

from __future__ import annotations

import duckdb
import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs.db import connect
from ragrecall_core.inputs.grades import load_grades
from tests.helpers import write_text

REFUSED = ["2.0", "+2", "02", "1.", "-0", "2e0", "0x2", "１"]


def grade_problems(path) -> list[tuple[int | None, str]]:
    """Load ``path`` into a fresh grades table; its problems as (line, value)."""
    con = connect()
    try:
        with pytest.raises(InputError) as caught:
            load_grades(con, path)
    finally:
        con.close()
    assert all(problem.file == str(path) for problem in caught.value.problems)
    return [(problem.line, problem.value) for problem in caught.value.problems]


def loaded(path) -> list[tuple]:
    con = connect()
    try:
        load_grades(con, path)
        return con.execute("SELECT chunk_id, grade FROM grades ORDER BY chunk_id").fetchall()
    finally:
        con.close()


def test_csv_grades_not_written_0_1_or_2_are_refused_all_at_once(tmp_path):
    rows = "".join(f'q1,c{n},"{grade}"\n' for n, grade in enumerate(REFUSED))
    sheet = write_text(tmp_path / "kim.csv", "query_id,chunk_id,grade\n" + rows)
    assert grade_problems(sheet) == [(n + 2, f"grade {grade}") for n, grade in enumerate(REFUSED)]


def test_jsonl_grades_not_written_0_1_or_2_are_refused_all_at_once(tmp_path):
    written = ["2.0", "2e0", '"2"', "true", "3"]
    lines = "".join(
        f'{{"query_id": "q1", "chunk_id": "c{n}", "grade": {grade}}}\n'
        for n, grade in enumerate(written)
    )
    sheet = write_text(tmp_path / "kim.jsonl", lines)
    assert [line for line, _ in grade_problems(sheet)] == list(range(1, len(written) + 1))
    assert [value for _, value in grade_problems(sheet)][:3] == [
        '"grade": 2.0',
        '"grade": 2e0',
        '"grade": "2"',
    ]


def test_a_csv_grade_with_spaces_around_it_is_the_grade(tmp_path):
    sheet = write_text(tmp_path / "kim.csv", 'query_id,chunk_id,grade\nq1,a," 2 "\nq1,b,0\n')
    assert loaded(sheet) == [("a", 2), ("b", 0)]


def write_parquet(sql: str, path) -> None:
    """``sql``'s rows as a Parquet file, on a connection of its own (duckdb's module-level
    one is the whole worker's: another test may have left a result open on it)."""
    with duckdb.connect() as con:
        con.sql(sql).write_parquet(str(path))


def test_a_parquet_grade_column_of_doubles_is_refused(tmp_path):
    """A DOUBLE 2.0 reads as ``2.0``: refused as the CSV cell ``2.0`` is, not rounded."""
    sheet = tmp_path / "kim.parquet"
    write_parquet(
        "SELECT * FROM (VALUES ('q1', 'a', 2.0::DOUBLE)) t(query_id, chunk_id, grade)", sheet
    )
    assert grade_problems(sheet) == [(1, "grade 2.0")]


def test_a_parquet_grade_column_of_integers_loads(tmp_path):
    sheet = tmp_path / "kim.parquet"
    write_parquet(
        "SELECT * FROM (VALUES ('q1', 'a', 2), ('q1', 'b', 1)) t(query_id, chunk_id, grade)", sheet
    )
    assert loaded(sheet) == [("a", 2), ("b", 1)]
