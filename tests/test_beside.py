"""Work started beside a read (inputs/beside.py): its result or its error reaches whoever
waits for it, and a module imported beside is the module a plain import gives."""

from __future__ import annotations

import sys

import duckdb
import pytest

from ragrecall_core.inputs.beside import imported, in_background, on_cursor


def test_the_waiter_gets_the_result_and_the_error():
    assert in_background(sum, [1, 2, 3])() == 6
    with pytest.raises(ZeroDivisionError):
        in_background(divmod, 1, 0)()


def test_a_module_imported_beside_is_the_one_import_gives():
    module = imported("colorsys")()
    import colorsys

    assert module is colorsys is sys.modules["colorsys"]


def test_a_test_on_its_own_cursor_sees_the_committed_table():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS r FROM range(5)")
    rows = in_background(
        on_cursor, lambda cur, table: cur.sql(f"FROM {table}").fetchall(), con, "t"
    )
    assert len(rows()) == 5
