"""A DataFrame's number columns of every NumPy width, built to slip past the frame's fast
path (issue 30, stop 44).

A number column NumPy holds as integers or floats is handed to DuckDB as it is; any other is
read value by value, each an int or a float as its text, exactly. DuckDB has no 16-bit or
extended-precision float: before, a float16 column loaded 0.1 as 0.099975586 (neither the
value it holds, 0.0999755859375, nor what the same values read one by one load), and a
longdouble (float128) column raised DuckDB's NotImplementedException out of the loader. Now
only the widths DuckDB reads as they are take the fast path; each column here loads what
the same values in an object column (the value-by-value read) load, or is refused the same
way with an InputError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ragrecall_core import InputError, Workspace

GOLD = {"q1": ["a"], "q2": ["b"]}
WIDTHS = [np.float16, np.float32, np.float64, np.longdouble, np.int8, np.uint16, np.uint64]


def loaded(frame: pd.DataFrame) -> list[tuple] | list[str]:
    """The run's rows, or its problems' values and what they expected."""
    try:
        workspace = Workspace.from_memory(GOLD, {"r": frame})
    except InputError as error:
        return [f"{p.value}: {p.expected}" for p in error.problems]
    sql = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY ALL"
    return workspace.con.execute(sql).fetchall()


def frame(**columns) -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["q1", "q1", "q2"], "chunk_id": ["a", "c", "b"], **columns})


def as_objects(values: np.ndarray) -> pd.Series:
    """The same values, read one by one (an object column of NumPy scalars)."""
    return pd.Series(list(values), dtype=object)


@pytest.mark.parametrize("width", WIDTHS, ids=lambda width: np.dtype(width).name)
def test_a_score_column_of_any_width_loads_as_its_values_one_by_one(width):
    kind = np.dtype(width).kind
    scores = np.array([0.1, 0.2, 0.3] if kind == "f" else [3, 2, 1], dtype=width)
    fast = loaded(frame(rank=[1, 2, 1], score=scores))
    assert fast == loaded(frame(rank=[1, 2, 1], score=as_objects(scores)))
    assert isinstance(fast[0], tuple), fast


@pytest.mark.parametrize("width", WIDTHS, ids=lambda width: np.dtype(width).name)
def test_a_rank_column_of_any_width_loads_as_its_values_one_by_one(width):
    ranks = np.array([1, 2, 1], dtype=width)
    fast = loaded(frame(rank=ranks, score=[0.5, 0.4, 0.3]))
    assert fast == loaded(frame(rank=as_objects(ranks), score=[0.5, 0.4, 0.3]))


def test_a_longdouble_beyond_a_float64_is_refused_as_its_value_is_one_by_one():
    """Read as inf, refused by the checks as a score of inf is, without a warning."""
    scores = np.array([np.longdouble("1e4000"), 0.2, 0.3], dtype=np.longdouble)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast = loaded(frame(rank=[1, 2, 1], score=scores))
    assert fast == loaded(frame(rank=[1, 2, 1], score=as_objects(scores)))
    assert fast == ["query 'q1': score inf: a finite numeric score"]


def test_a_gold_grade_column_of_float16_loads_as_its_values_one_by_one():
    grades = np.array([1.0, 2.0], dtype=np.float16)

    def gold_rows(column) -> list[tuple]:
        gold = pd.DataFrame({"query_id": ["q1", "q2"], "chunk_id": ["a", "b"], "grade": column})
        workspace = Workspace.from_memory(gold, {"r": {"q1": ["a"], "q2": ["b"]}})
        return workspace.con.execute("SELECT * FROM qrels ORDER BY ALL").fetchall()

    assert gold_rows(grades) == gold_rows(as_objects(grades))
