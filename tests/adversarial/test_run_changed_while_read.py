"""A run file that changes while it is read (issue 30, stop 44).

The typed (fast) reads trust what a scan of the file's bytes proved: a large JSON-lines
run's bytes are counted from before the gold is loaded (``runs.counts_begun``), a TREC or
CSV run's are scanned beside its read. A file written again in between was read with the
proof of its earlier bytes: a chunk id written as the number 5 loaded as the text "5",
which no read of either version loads. Now a run file whose size, times, inode or device
moved from before its first byte was read (its count's too) to the end of its read is
refused, named, and never loaded by halves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core.inputs import runs
from ragrecall_core.inputs.db import connect
from tests.helpers import write_text

STRINGS = '{"id": "q1", "retrieved": [{"chunk_id": "5", "rank": 1, "score": 0.5}]}\n'
NUMBER = '{"id": "q1", "retrieved": [{"chunk_id": 5, "rank": 1, "score": 0.5}]}\n'


def rewrite(path: Path, text: str) -> None:
    """``path`` holding ``text`` as a new file (another inode: its times may not move
    within a clock tick)."""
    path.unlink()
    write_text(path, text)


def changed(read: runs.ReadRun) -> bool:
    return [(p.file, p.line, p.expected) for p in read.file_problems] == [
        (str(read.path), None, runs.UNCHANGED)
    ]


def test_a_run_written_again_after_its_bytes_were_counted_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)
    monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    path = write_text(tmp_path / "run.jsonl", STRINGS)
    counted = runs.counts_begun([path])[path]
    counted()  # counted while the gold loads
    rewrite(path, NUMBER)
    con = connect()
    read = runs.read_run(con, path, "run_table_0", counted)
    assert changed(read), read.file_problems
    tables = "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'run_table_0%'"
    assert con.execute(tables).fetchone()[0] == 0  # nothing of it kept


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("run.jsonl", STRINGS),
        ("run.trec", "q1 Q0 a 1 0.5 t\n"),
        ("run.csv", "query_id,chunk_id,rank,score\nq1,a,1,0.5\n"),
    ],
)
def test_a_run_written_again_while_it_is_read_is_refused(tmp_path, monkeypatch, name, text):
    path = write_text(tmp_path / name, text)
    load_table = runs._load_table

    def writing(con, path, *args):
        found = load_table(con, path, *args)
        rewrite(path, text)  # the same bytes: it moved all the same
        return found

    monkeypatch.setattr(runs, "_load_table", writing)
    assert changed(runs.read_run(connect(), path, "run_table_0"))


def test_a_run_left_alone_loads(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)
    monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    path = write_text(tmp_path / "run.jsonl", STRINGS)
    read = runs.read_run(connect(), path, "run_table_0", runs.counts_begun([path])[path])
    assert read.file_problems == []
