"""The typed read of a TREC run leaves out each row test that a byte absent from the whole
file decides (``runs.TREC_ROW_TESTS``: a digit separator, a comment, a Unicode space); a
file holding that byte anywhere is tested row by row as before (issue 30).

Each file here is plain but for one line: the fast read must still load exactly what the
validating read loads, or refuse with the same problems.
"""

from __future__ import annotations

import pytest

from ragrecall_core.inputs import readers, runs
from tests.helpers import run_table

PLAIN = ["q1 Q0 a 1 0.9 t", "q1 Q0 b 2 0.5 t", "q2 Q0 c 1 0.7 t"]
ODD_LINES = {
    "a comment line": "#q1 Q0 z 3 0.1 t",
    "a '#' inside a docno": "q2 Q0 c#1 2 0.6 t",
    "a digit separator in a score": "q2 Q0 z 2 0_5 t",
    "a '_' inside a docno": "q2 Q0 z_1 2 0.5 t",
    "a query id after an ideographic space": "\u3000q3 Q0 z 1 0.5 t",
    "a tag of one no-break space": "q3 Q0 z 1 0.5 \u00a0",
    "a docno outside ASCII": "q3 Q0 é 1 0.5 t",
}


@pytest.mark.parametrize("odd", list(ODD_LINES))
@pytest.mark.parametrize("at", [0, 3])
def test_one_odd_line_loads_as_the_validating_read(tmp_path, odd, at):
    lines = [*PLAIN]
    lines.insert(at, ODD_LINES[odd])
    path = tmp_path / "run.trec"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    assert run_table(path, validating=False) == run_table(path, validating=True)


@pytest.mark.parametrize("byte", [b"_", b"#", "é".encode()])
@pytest.mark.parametrize("at", [0, 65_535, 65_536, 200_000, (1 << 20) - 1, 1 << 20, 1_200_000])
def test_a_byte_anywhere_in_the_file_is_found(tmp_path, byte, at):
    """Before, at and past the end of the first slice the scan reads; the last byte too."""
    data = bytearray(b"q1 Q0 a 1 0.9 t\n" * (1_250_000 // 16))
    data[at : at + len(byte)] = byte
    path = tmp_path / "run.trec"
    path.write_bytes(bytes(data))
    held = readers.bytes_held(path, [b"_", b"#"])
    assert (None if byte == "é".encode() else byte) in held
    path.write_bytes(bytes(data[: at + len(byte)]))
    assert (None if byte == "é".encode() else byte) in readers.bytes_held(path, [b"_", b"#"])


def test_a_plain_file_holds_none_of_them(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("\n".join(PLAIN) + "\n")
    assert readers.bytes_held(path, [b"_", b"#"]) == set()
    assert "starts_with" not in runs.trec_rows_sql(set())
    assert "starts_with" in runs.trec_rows_sql({b"#"})


CSV_PLAIN = ["query_id,chunk_id,rank,score", "q1,a,1,0.9", "q1,b,2,0.5", "q2,c,1,0.7"]
CSV_ODD_LINES = {
    "a digit separator in a score": "q2,z,2,0_5",
    "a quoted digit separator in a score": 'q2,z,2,"1_0"',
    "a '_' inside a chunk id": "q2,z_1,2,0.5",
}


@pytest.mark.parametrize("odd", list(CSV_ODD_LINES))
@pytest.mark.parametrize("at", [1, 4])
def test_one_odd_csv_row_loads_as_the_validating_read(tmp_path, odd, at):
    lines = [*CSV_PLAIN]
    lines.insert(at, CSV_ODD_LINES[odd])
    path = tmp_path / "run.csv"
    path.write_text("\n".join(lines) + "\n")
    assert run_table(path, validating=False) == run_table(path, validating=True)


BIG_PLAIN = "".join(f"q{i} Q0 d 1 0.5 t\n" for i in range(70_000))  # past the first slice
LATE_LINES = {**ODD_LINES, "a tab between fields": "q2\tQ0\tz\t2\t0.5\tt"}


@pytest.mark.parametrize("odd", list(LATE_LINES))
def test_an_odd_line_past_the_first_slice_loads_as_the_validating_read(tmp_path, odd):
    """The typed read starts with the row tests the first slice's bytes call for, while the
    whole file is scanned: a byte found only later makes it read the file again."""
    assert len(BIG_PLAIN) > readers.SCAN_SLICE
    path = tmp_path / "run.trec"
    path.write_bytes((BIG_PLAIN + LATE_LINES[odd] + "\n").encode("utf-8"))
    assert run_table(path, validating=False) == run_table(path, validating=True)


BIG_CSV = "query_id,chunk_id,rank,score\n" + "".join(f"q{i},d,1,0.5\n" for i in range(100_000))


@pytest.mark.parametrize("odd", list(CSV_ODD_LINES))
def test_an_odd_csv_row_past_the_first_slice_loads_as_the_validating_read(tmp_path, odd):
    assert len(BIG_CSV) > readers.SCAN_SLICE
    path = tmp_path / "run.csv"
    path.write_text(BIG_CSV + CSV_ODD_LINES[odd] + "\n")
    assert run_table(path, validating=False) == run_table(path, validating=True)
