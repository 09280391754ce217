"""The typed reads' test of a rank's text (``runs.canonical_rank``) against the validating
checks' (``checks.positive_whole_number``), on texts built to be read differently (issue 30).

The typed read takes a rank only as its BIGINT writes it: digits, no leading zero, at most
2^53 (``0`` and a negative rank too, which the whole-table tests refuse); every such text
from 1 up is one the validating read takes too, with the same value; every other text
(``01``, ``+1``, ``1.0``, ``1e0``, ``0x1``, ``1_0``, a digit of another script, a space)
leaves the file to the validating read.
"""

from __future__ import annotations

import re

import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragrecall_core.inputs.checks import positive_whole_number
from ragrecall_core.inputs.runs import MAX_EXACT_RANK, canonical_rank

SETTINGS = settings(max_examples=300)
# what DuckDB's casts or the checks' regular expression read their own way
PIECES = ["0", "1", "7", "9", "+", "-", ".", "e", "E", "_", "x", " ", "\t", "\v", "٣", "１"]
RANK_TEXT = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
    st.integers(-5, 2**64).map(str),
    st.integers(2**53 - 3, 2**53 + 3).map(str),
)


@pytest.fixture(scope="module")
def con():
    return duckdb.connect()


def as_bigint_writes_it(text: str) -> bool:
    plain = re.fullmatch(r"-?(0|[1-9][0-9]*)", text, re.ASCII) and text != "-0"
    return bool(plain) and -(2**63) <= int(text) <= MAX_EXACT_RANK


@SETTINGS
@given(text=RANK_TEXT)
@example(text="0")
@example(text="-1")
@example(text=str(MAX_EXACT_RANK))
@example(text=str(MAX_EXACT_RANK + 1))
def test_a_typed_rank_is_written_as_its_bigint_and_the_checks_read_it_alike(con, text):
    typed, checked, typed_value, checked_value = con.execute(
        f"SELECT coalesce({canonical_rank('$t')}, false), {positive_whole_number('$t')}, "
        "TRY_CAST($t AS BIGINT), TRY_CAST(TRY_CAST($t AS DOUBLE) AS BIGINT)",
        {"t": text},
    ).fetchone()
    assert typed == as_bigint_writes_it(text)
    if typed and int(text) >= 1:
        assert checked and typed_value == checked_value == int(text)
