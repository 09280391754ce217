"""Files built to be typed differently by the fast (typed) reads of a run than by the
validating reads (issue 26, findings 1 and 4).

The validating read is the reference: a CSV file is read all as text, with an explicit
delimiter, and each rank and score is checked on its text. The fast read must load exactly
what it loads, or leave the file to it. It used to let DuckDB's sniffer type the columns:
ids ``2.10`` became ``2.1`` (and met gold ``2.1``), ``10:30`` became ``10:30:00``, and a rank
``0x1``, ``1e0`` or ``true`` was read as 1. A Parquet column's type says how its values are
written: ids are text or integers (a double ``1.0`` could have been written ``1``), ranks and
scores numbers or text, anything else is refused on both paths.

A long-form gold row whose chunk id is blank (whitespace) used to make its query a no-answer
query; only an empty chunk id means that.
"""

from __future__ import annotations

import decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core.inputs import runs
from ragrecall_core.inputs.db import connect
from tests.helpers import gold_row, load_problems, run_cli, write_jsonl, write_text

HEADER = "query_id,chunk_id,rank,score\n"


def loaded(path: Path, validating: bool):
    """The run table of ``path`` (``qid, docno, rank, score, position``) read by the typed
    path, or by the validating one with the typed reads switched off; or its problems."""
    con = connect()
    with pytest.MonkeyPatch.context() as patch:
        if validating:
            patch.setattr(runs, "read_typed", lambda *args: False)
        read = runs.read_run(con, path, "run_table_0")
    if read.file_problems:
        return [(p.line, p.value, p.expected) for p in read.file_problems]
    return con.execute(
        "SELECT qid, docno, rank, score, position FROM run_table_0 ORDER BY ALL"
    ).fetchall()


def test_decimal_looking_chunk_ids_do_not_pass_the_gate(tmp_path, capsys):
    """Chunk ids 2.10 / 3.10 are not gold's 2.1 / 3.1: the gate must fail (exit 1)."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["2.1", "3.1"])])
    cand = write_text(tmp_path / "cand.csv", HEADER + "q1,2.10,1,0.9\nq1,3.10,2,0.8\n")
    code, _, err = run_cli(capsys, ["check", gold, cand, "--require", "Recall@5>=1"])
    assert code == 1, err


@pytest.mark.parametrize(
    "ids",
    [
        ("1.50", "2.50"),
        ("1e5", "2e5"),
        ("10:30", "11:30"),
        ("2024-1-5", "2024-1-6"),
        ("0x10", "0x11"),
        ("007", "008"),
        ("2.10", "3.10"),
        (" 1", " 2"),
    ],
)
def test_ids_that_match_as_written_keep_matching(tmp_path, capsys, ids):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(i, [i]) for i in ids])
    rows = "".join(f"{i},{i},1,0.5\n" for i in ids)
    cand = write_text(tmp_path / "cand.csv", HEADER + rows)
    assert loaded(cand, False) == loaded(cand, True)
    code, out, err = run_cli(capsys, ["check", gold, cand, "--require", "Recall@5>=1"])
    assert code == 0, out + err


@pytest.mark.parametrize(
    ("name", "content", "value"),
    [
        ("run.csv", HEADER + "q1,a,0x1,0.5\n", "rank 0x1"),
        ("run.csv", HEADER + "q1,a,1e0,0.5\n", "rank 1e0"),
        ("run.csv", HEADER + "q1,a,true,0.5\n", "rank true"),
        ("run.csv", HEADER + "q1,a,1_0,0.5\n", "rank 1_0"),
        ("run.csv", HEADER + "q1,a,1,0x1\n", "score 0x1"),
        ("run.csv", HEADER + "q1,a,1,true\n", "score true"),
        ("run.trec", "q1 Q0 a 1e0 0.5 t\n", "rank 1e0"),
    ],
)
def test_ranks_and_scores_the_checks_refuse_are_refused(tmp_path, name, content, value):
    run = write_text(tmp_path / name, content)
    problems = loaded(run, False)
    assert problems == loaded(run, True)
    assert [(line, v) for line, v, _ in problems] == [(1 if name == "run.trec" else 2, value)]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("run.csv", "query_id;chunk_id;rank;score\nq1;a;1;0.5\n"),
        ("run.tsv", HEADER + "q1,a,1,0.5\n"),
    ],
)
def test_a_file_not_split_by_its_delimiter_is_refused(tmp_path, name, content):
    run = write_text(tmp_path / name, content)
    problems = loaded(run, False)
    assert problems == loaded(run, True)
    assert problems and all("a column named" in expected for _, _, expected in problems)


def parquet_run(tmp_path: Path, **columns) -> Path:
    values = {
        "query_id": pa.array(["q1"]),
        "chunk_id": pa.array(["a"]),
        "rank": pa.array([1]),
        "score": pa.array([0.5]),
    }
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(values | columns), path)
    return path


@pytest.mark.parametrize(
    ("column", "values", "type_name"),
    [
        ("query_id", pa.array([b"q1"], pa.binary()), "BLOB"),
        ("chunk_id", pa.array([1.0]), "DOUBLE"),
        ("chunk_id", pa.array([decimal.Decimal("1.50")]), "DECIMAL(3,2)"),
        ("query_id", pa.array([True]), "BOOLEAN"),
        ("query_id", pa.array([0], pa.timestamp("s")), "TIMESTAMP"),
        ("chunk_id", pa.array([0], pa.date32()), "DATE"),
        ("rank", pa.array([True]), "BOOLEAN"),
        ("rank", pa.array([0], pa.date32()), "DATE"),
        ("score", pa.array([True]), "BOOLEAN"),
        ("score", pa.array([b"1"], pa.binary()), "BLOB"),
    ],
)
def test_parquet_columns_of_a_type_that_is_not_their_value_are_refused(
    tmp_path, column, values, type_name
):
    run = parquet_run(tmp_path, **{column: values})
    problems = loaded(run, False)
    assert problems == loaded(run, True)
    assert [(v, expected) for _, v, expected in problems] == [
        (f"column {column} of type {type_name}", runs.readers.COLUMN_TYPES_EXPECTED[column])
    ]


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("rank", pa.array(["0x1"])),
        ("rank", pa.array(["1e0"])),
        ("score", pa.array(["0x1"])),
    ],
)
def test_parquet_text_ranks_and_scores_are_checked_as_csv_text_is(tmp_path, column, values):
    run = parquet_run(tmp_path, **{column: values})
    problems = loaded(run, False)
    assert problems == loaded(run, True)
    assert [v for _, v, _ in problems] == [f"{column} {values[0]}"]


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("score", pa.array([0.1], pa.float32())),
        ("score", pa.array([decimal.Decimal("0.10")])),
        ("score", pa.array([" 1e0"])),
        ("rank", pa.array([1.0], pa.float32())),
        ("rank", pa.array([decimal.Decimal("1.00")])),
        ("rank", pa.array([1], pa.uint8())),
        ("query_id", pa.array([7], pa.int16())),
    ],
)
def test_parquet_numbers_load_the_same_on_both_paths(tmp_path, column, values):
    run = parquet_run(tmp_path, **{column: values})
    table = loaded(run, False)
    assert table == loaded(run, True)
    assert len(table) == 1 and table[0][4] == 1, table


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_blank_gold_chunk_id_is_refused(tmp_path, suffix):
    """An empty chunk id marks a no-answer query; a whitespace one is a typo, refused with
    its line, not silently a query without answers."""
    import pandas as pd

    frame = pd.DataFrame({"query_id": ["q1", "q2"], "chunk_id": ["a", "  "]})
    gold = tmp_path / f"gold{suffix}"
    if suffix == ".csv":
        frame.to_csv(gold, index=False)
    else:
        frame.to_parquet(gold, index=False)
    run = write_text(tmp_path / "run.csv", HEADER + "q1,a,1,0.5\nq2,b,1,0.5\n")
    problems = load_problems(gold, [run])
    assert [(p.file, p.line, p.value) for p in problems] == [
        (str(gold), 3 if suffix == ".csv" else 2, "  ")
    ]
    assert "chunk_id" in problems[0].expected


def test_an_empty_gold_chunk_id_still_marks_a_no_answer_query(tmp_path):
    from ragrecall_core import Workspace

    gold = write_text(tmp_path / "gold.csv", "query_id,chunk_id\nq1,a\nq2,\n")
    run = write_text(tmp_path / "run.csv", HEADER + "q1,a,1,0.5\nq2,b,1,0.5\n")
    con = Workspace.from_files(gold, [run]).con
    assert con.execute("SELECT query_id FROM queries ORDER BY 1").fetchall() == [("q1",), ("q2",)]
    assert con.execute("SELECT query_id FROM qrels").fetchall() == [("q1",)]


def test_parquet_gold_ids_follow_the_same_column_type_rule(tmp_path):
    gold = tmp_path / "gold.parquet"
    pq.write_table(pa.table({"query_id": pa.array([1.0]), "chunk_id": pa.array(["a"])}), gold)
    run = write_text(tmp_path / "run.csv", HEADER + "1.0,a,1,0.5\n")
    problems = load_problems(gold, [run])
    assert [(p.value, p.expected) for p in problems] == [
        ("column query_id of type DOUBLE", runs.readers.COLUMN_TYPES_EXPECTED["query_id"])
    ]


@pytest.mark.parametrize(
    "content",
    [
        "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.5 t extra fields\n",
        "q1\tQ0\ta\t1\t0.9\tt\nq1\tQ0\tb\t2\t  0.5\tt more junk\n",  # trec_eval's results.trunc
    ],
)
def test_trec_fields_after_the_tag_are_ignored_on_both_paths(tmp_path, content):
    """trec_eval reads a run line's first six fields and ignores the rest; the typed read
    (split on tabs) once read "t more junk" as the tag and the validating read refused the
    line: now both read it as trec_eval does."""
    run = write_text(tmp_path / "run.trec", content)
    assert (
        loaded(run, False)
        == loaded(run, True)
        == [
            ("q1", "a", 1, 0.9, 1),
            ("q1", "b", 2, 0.5, 2),
        ]
    )


@pytest.mark.parametrize(
    "line",
    [
        "q1 Q0 a\x01 1 0.5 t",  # the validating line reader splits on \x01 and refuses it
        'q1 Q0 "a b" 1 0.5 t',  # a quote is text: three fields, not one
        "q1 Q0 a\tb 1 0.5 t",  # a tab splits a field, as trec_eval splits it
        "\u3000q1 Q0 a 1 0.5 t",  # trimmed from the line, not part of the id
        "q1 Q0 a 1 0.5 \u3000",  # a tag of nothing but a trimmed space: five fields
        "q1 Q0 a\fb 1 0.5 t\tx",  # with a tab in the line, a form feed splits too
        "q1 Q0 a\rb 1 0.5 t",  # a lone carriage return ends a line for both readers
        "# a comment line",
        "q1 Q0 a#b 1 0.5 t",  # '#' inside a field is text
    ],
)
def test_trec_fields_split_as_the_validating_read_splits_them(tmp_path, line):
    run = write_text(tmp_path / "run.trec", f"q0 Q0 z 1 0.9 t\n{line}\n")
    assert loaded(run, False) == loaded(run, True)
