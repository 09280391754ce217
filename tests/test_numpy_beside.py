"""Whether a run's read starts importing numpy beside it (row_tests.may_sort_pairs): a Parquet
file's footer tells its rows, however few bytes they take."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core.inputs import row_tests
from ragrecall_core.inputs.db import connect


def parquet_of(path, rows: int):
    table = pa.table({"query_id": ["q1"] * rows, "chunk_id": ["c"] * rows})
    pq.write_table(table, path)
    return path


@pytest.fixture
def con():
    return connect()


def test_small_parquet_of_many_rows_sorts_pairs(tmp_path, con, monkeypatch):
    monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 50)
    path = parquet_of(tmp_path / "run.parquet", 60)
    assert path.stat().st_size < row_tests.NUMPY_FROM_BYTES
    assert row_tests.may_sort_pairs(con, path, parquet=True)


def test_parquet_of_few_rows_does_not(tmp_path, con, monkeypatch):
    monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 50)
    assert not row_tests.may_sort_pairs(con, parquet_of(tmp_path / "run.parquet", 40), True)


def test_unreadable_parquet_is_left_to_the_read(tmp_path, con):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"PAR1 not a footer")
    assert not row_tests.may_sort_pairs(con, path, parquet=True)


def test_text_files_go_by_their_size(tmp_path, con, monkeypatch):
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 c1 1 1.0 t\n" * 10)
    assert not row_tests.may_sort_pairs(con, path, parquet=False)
    monkeypatch.setattr(row_tests, "NUMPY_FROM_BYTES", 100)
    assert row_tests.may_sort_pairs(con, path, parquet=False)
