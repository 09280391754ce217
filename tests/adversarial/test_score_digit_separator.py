"""A score written with a digit separator (``1_0``) is refused, on the fast (typed) read and
on the validating read alike: DuckDB's cast (and Python's ``float``) read it as 10, trec_eval's
``atof`` as 1, so no reading of it is the one its writer meant. Before, both reads took 10.

Ranks written so are refused already (``canonical_rank``, tests/adversarial/
test_fast_path_typing.py); this holds the same for scores."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.adversarial.test_fast_path_typing import HEADER, loaded
from tests.helpers import write_text

CASES = [
    ("run.csv", HEADER + "q1,a,1,1_0\nq1,b,2,2\n", 2),
    ("run.trec", "q1 Q0 a 1 1_0 t\nq1 Q0 b 2 2 t\n", 1),
    ("late.trec", "q1 Q0 a 1 20 t\nq1 Q0 b 2 1_0 t\n", 2),
    ("decimal.csv", HEADER + "q1,a,1,2.5\nq1,b,2,1_0.5\n", 3),
    ("exponent.trec", "q1 Q0 a 1 1e1_0 t\n", 1),
]


@pytest.mark.parametrize(("name", "content", "line"), CASES)
def test_a_score_with_a_digit_separator_is_refused_on_both_reads(tmp_path, name, content, line):
    path = write_text(tmp_path / name, content)
    fast, validating = loaded(path, False), loaded(path, True)
    assert fast == validating
    assert [(p_line, "_" in value) for p_line, value, _ in fast] == [(line, True)]
    assert "finite numeric score" in fast[0][2]


def test_a_text_score_column_in_parquet_is_refused_alike(tmp_path):
    path = tmp_path / "run.parquet"
    columns = {"query_id": ["q1", "q1"], "chunk_id": ["a", "b"], "rank": [1, 2]}
    pq.write_table(pa.table({**columns, "score": ["2", "1_0"]}), path)
    fast, validating = loaded(path, False), loaded(path, True)
    assert fast == validating
    assert [value for _, value, _ in fast] == ["score 1_0"]


@pytest.mark.parametrize("score", ["10", "+10", "1e1", "10.", ".5", "-0.0", "5e-324"])
def test_plain_spellings_of_a_score_still_load(tmp_path, score):
    path = write_text(tmp_path / "run.csv", HEADER + f"q1,a,1,{score}\n")
    fast = loaded(path, False)
    assert fast == loaded(path, True)
    assert fast[0][3] == float(score)
