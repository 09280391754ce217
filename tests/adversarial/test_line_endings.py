"""Line endings DuckDB's line reader cannot split: lines ended both "\\r\\n" and "\\n" in one
file, or a carriage return alone. Before, such a file was refused with DuckDB's "CSV Parser
state machine reached an invalid state" and no line; now a file whose lines end either way
loads exactly as the same file with "\\n" endings, and a carriage return inside a line is
refused by line, as that line's text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core.errors import shortened
from ragrecall_core.inputs import readers
from tests.helpers import load_problems, run_table, write_jsonl, write_text

GOLD_ROWS = [
    {"id": "q1", "query": "one", "relevant_ids": ["c1"]},
    {"id": "q2", "query": "two", "relevant_ids": ["c3"]},
]
JSONL_RUN = [
    '{"id": "q1", "retrieved": [{"chunk_id": "c1", "rank": 1, "score": 0.9}, '
    '{"chunk_id": "c2", "rank": 2, "score": 0.5}]}',
    '{"id": "q2", "retrieved": [{"chunk_id": "c3", "rank": 1, "score": 0.7}]}',
    '{"id": "q3", "retrieved": []}',
]
TREC_RUN = ["q1 Q0 c1 1 0.9 t", "q1 Q0 c2 2 0.5 t", "q2 Q0 c3 1 0.7 t"]
# each line's ending, in turn
ENDINGS = {
    "first CRLF": ["\r\n", "\n", "\n"],
    "last CRLF": ["\n", "\n", "\r\n"],
    "alternating": ["\r\n", "\n", "\r\n"],
    "no final ending": ["\r\n", "\n", ""],
}


def ended(lines: list[str], endings: list[str], bom: bool = False) -> str:
    text = "".join(line + end for line, end in zip(lines, endings, strict=False))
    return ("\ufeff" if bom else "") + text


@pytest.fixture
def gold(tmp_path):
    return write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)


@pytest.mark.parametrize("endings", list(ENDINGS))
@pytest.mark.parametrize("bom", [False, True], ids=["", "bom"])
@pytest.mark.parametrize("fmt", ["jsonl", "trec"])
def test_lines_ended_both_ways_load_as_lines_ended_one_way(tmp_path, endings, bom, fmt):
    lines = JSONL_RUN if fmt == "jsonl" else TREC_RUN
    mixed = write_text(tmp_path / f"mixed.{fmt}", ended(lines, ENDINGS[endings], bom))
    plain = write_text(tmp_path / f"plain.{fmt}", ended(lines, ["\n"] * len(lines), bom))
    assert readers.ends_mixed(mixed)
    assert not readers.ends_mixed(plain)
    expected = run_table(plain, validating=True)
    assert isinstance(expected[0][1], str), expected  # rows, not problems
    assert run_table(mixed, validating=False) == expected
    assert run_table(mixed, validating=True) == expected


@pytest.mark.parametrize("fmt", ["jsonl", "trec"])
def test_lines_ended_by_carriage_returns_alone_load_as_lines_ended_one_way(tmp_path, fmt):
    """Every line ended "\r" (old Mac files): one ending throughout, which the line reader
    reads; not taken for a file ended both ways."""
    lines = JSONL_RUN if fmt == "jsonl" else TREC_RUN
    cr = write_text(tmp_path / f"cr.{fmt}", ended(lines, ["\r"] * len(lines)))
    plain = write_text(tmp_path / f"plain.{fmt}", ended(lines, ["\n"] * len(lines)))
    assert not readers.ends_mixed(cr)
    expected = run_table(plain, validating=True)
    assert run_table(cr, validating=False) == expected
    assert run_table(cr, validating=True) == expected


def test_gold_lines_ended_both_ways_load(tmp_path):
    rows = [
        '{"id": "q1", "query": "one", "relevant_ids": ["c1"]}',
        '{"id": "q2", "query": "two", "relevant_ids": ["c3"]}',
    ]
    gold = write_text(tmp_path / "gold.jsonl", ended(rows, ["\r\n", "\n"]))
    run = write_text(tmp_path / "run.jsonl", ended(JSONL_RUN, ["\n"] * 3))
    from ragrecall_core import Workspace

    workspace = Workspace.from_files(gold, [run])
    assert workspace.con.execute("SELECT count(*) FROM queries").fetchone()[0] == 2


def test_a_carriage_return_between_two_objects_is_refused_by_line(tmp_path, gold):
    text = JSONL_RUN[0] + "\r" + JSONL_RUN[1] + "\n"
    problems = load_problems(gold, [write_text(tmp_path / "run.jsonl", text)])
    assert [(p.line, p.expected) for p in problems] == [(1, "one JSON object per line")]
    # the value is the whole line, both objects and the "\r" between them (cut as every
    # long problem value is, in its middle: the "\r" is counted, not shown)
    assert problems[0].value == shortened(JSONL_RUN[0] + "\r" + JSONL_RUN[1])


def test_a_carriage_return_inside_a_string_is_refused_by_line(tmp_path):
    text = '{"id": "q1", "query": "a\rb", "relevant_ids": ["c1"]}\n'
    gold = write_text(tmp_path / "gold.jsonl", text)
    run = write_text(tmp_path / "run.jsonl", ended(JSONL_RUN, ["\n"] * 3))
    problems = load_problems(gold, [run])
    assert [(p.file, p.line) for p in problems] == [(str(gold), 1)]


def test_a_crlf_across_the_scan_s_slices_is_one_ending(tmp_path):
    """The "\\r" last in one slice the scan reads, its "\\n" first in the next."""
    first = "x" * (readers.SCAN_SLICE - 1) + "\r\n"
    path = write_text(tmp_path / "a.txt", first + "y\r\n")
    assert not readers.ends_mixed(path)
    path = write_text(tmp_path / "b.txt", first + "y\n")
    assert readers.ends_mixed(path)
    path = write_text(tmp_path / "c.txt", "x" * (readers.SCAN_SLICE - 1) + "\ry\n")
    assert readers.ends_mixed(path)


CSV_RUN = ["query_id,chunk_id,rank,score", "q1,c1,1,0.9", "q1,c2,2,0.5", "q2,c3,1,0.7"]


def test_a_csv_run_ended_both_ways_is_refused_by_line(tmp_path, gold):
    """DuckDB's CSV reader takes one line ending per file (its sniffer refused such a file
    without a line); each line ended otherwise than line 1 is named."""
    text = ended(CSV_RUN, ["\r\n", "\n", "\r\n", "\n"])
    problems = load_problems(gold, [write_text(tmp_path / "run.csv", text)])
    assert [(p.line, p.value) for p in problems] == [(2, "q1,c1,1,0.9"), (4, "q2,c3,1,0.7")]
    assert problems[0].expected == (
        "one line ending throughout the file: this line ends LF, line 1 CRLF"
    )


def test_a_carriage_return_inside_a_csv_line_is_refused_by_line(tmp_path, gold):
    text = CSV_RUN[0] + "\n" + CSV_RUN[1] + "\r" + CSV_RUN[2] + "\n" + CSV_RUN[3] + "\n"
    problems = load_problems(gold, [write_text(tmp_path / "run.csv", text)])
    assert [(p.line, p.value) for p in problems] == [(2, "q1,c1,1,0.9\rq1,c2,2,0.5")]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_a_csv_run_ended_one_way_loads(tmp_path, end):
    path = write_text(tmp_path / "run.csv", ended(CSV_RUN, [end] * 4))
    assert run_table(path, validating=False) == run_table(path, validating=True)
    assert len(run_table(path, validating=True)) == 3


@settings(max_examples=300)
@given(text=st.text(alphabet="\r\nx", max_size=40), size=st.integers(1, 5))
def test_line_ends_counted_in_slices_say_what_the_whole_text_says(text, size):
    """LineEnds sees the file slice by slice and counts only the slices holding a carriage
    return (or following one): its verdicts are those of the whole text's own counts."""
    data = text.encode()
    ends = readers.LineEnds()
    for start in range(0, len(data), size):
        ends.add(bytearray(data[start : start + size]))
    returns, newlines, crlf = text.count("\r"), text.count("\n"), text.count("\r\n")
    assert ends.one_way == (returns == crlf and crlf in (0, newlines))
    assert ends.mixed == (returns > 0 and newlines > 0 and not returns == crlf == newlines)
