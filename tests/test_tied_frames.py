"""Ties in memory follow the one tie rule files follow (issue 28).

A scored run without ranks -- a frame under ragrecall's, ranx's or ir_measures' column names,
a ``{qid: {id: score}}`` dict, a ranx ``Run``, ir_measures ``ScoredDoc`` tuples -- is ordered
exactly as the same run written as a TREC file (trec_eval's order: score descending, ties by
docno descending, ``runs.TREC_ORDER``), whichever order the file's lines are in (trec_eval's,
the writer's with ties in any order, shuffled) and on its fast and its validating read. A
frame with a rank column that repeats a rank is read as the CSV file with the same cells is:
refused, naming the same query and value.
"""

from __future__ import annotations

import random

import duckdb
import pandas as pd
import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs import db, memory, readers, runs
from tests.peer_shapes import Run, ScoredDoc
from tests.test_one_contract_memory import validating_read, write_csv, write_trec

# (query, chunk, score): tie groups of ids whose text order is not their number order, case
# and non-ASCII ids, -0.0 beside 0.0, an int beside its float, a tie across the cutoff 2
TIED = [
    ("q1", "9", 2.0), ("q1", "10", 2.0), ("q1", "1", 2.0), ("q1", "x", 3.5),
    ("q1", "B", 0.0), ("q1", "a", -0.0), ("q1", "é", 0.0), ("q1", "z", 0.0),
    ("q2", "d1", 1), ("q2", "d2", 1.0), ("q2", "d3", 1), ("q2", "d0", 0.25),
    ("q3", "only", 7.0),
    ("q4", "p", 0.1 + 0.2), ("q4", "q", 0.3), ("q4", "r", 0.30000000000000004),
]  # fmt: skip


def table(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple]:
    return con.execute(
        "SELECT query_id, chunk_id, rank, score FROM runs WHERE run = $r ORDER BY query_id, rank",
        {"r": name},
    ).fetchall()


def trec_eval_order(rows: list[tuple]) -> list[tuple]:
    """``rows`` as trec_eval sorts them (in Python, independent of the SQL under test)."""
    by_id_descending = sorted(rows, key=lambda r: r[1].encode("utf-8"), reverse=True)
    return sorted(by_id_descending, key=lambda r: (r[0], -r[2]))


def writers_order(rows: list[tuple]) -> list[tuple]:
    """Each query's block by score descending, its ties in ascending id order (as many
    scripts write them; not trec_eval's)."""
    by_id = sorted(rows, key=lambda r: r[1].encode("utf-8"))
    return sorted(by_id, key=lambda r: (r[0], -r[2]))


def shuffled(rows: list[tuple]) -> list[tuple]:
    mixed = list(rows)
    random.Random(28).shuffle(mixed)
    return mixed


def expected_table() -> list[tuple]:
    ordered = trec_eval_order(TIED)
    ranks: dict[str, int] = {}
    out = []
    for q, c, s in ordered:
        ranks[q] = ranks.get(q, 0) + 1
        out.append((q, c, ranks[q], float(s)))
    return out


def frame(columns: tuple[str, str, str], rows: list[tuple], numeric: bool) -> pd.DataFrame:
    scores = [r[2] for r in rows]
    return pd.DataFrame(
        {
            columns[0]: pd.Series([r[0] for r in rows], dtype=object),
            columns[1]: pd.Series([r[1] for r in rows], dtype=object),
            columns[2]: pd.Series(scores, dtype="float64" if numeric else object),
        }
    )


def in_memory(value) -> list[tuple]:
    con = db.connect()
    memory.load_memory_run(con, "m", value)
    return table(con, "m")


MEMORY_SHAPES = {
    "frame": lambda rows: frame(("query_id", "chunk_id", "score"), rows, True),
    "frame, object scores": lambda rows: frame(("query_id", "chunk_id", "score"), rows, False),
    "ranx frame": lambda rows: frame(("q_id", "doc_id", "score"), rows, True),
    "ir_measures frame": lambda rows: frame(("query_id", "doc_id", "score"), rows, True),
    "trec frame": lambda rows: frame(("qid", "docno", "score"), rows, True),
    "dict of scores": lambda rows: {
        q: {c: s for qq, c, s in rows if qq == q} for q in dict.fromkeys(r[0] for r in rows)
    },
    "ranx Run": lambda rows: Run(
        {q: {c: s for qq, c, s in rows if qq == q} for q in dict.fromkeys(r[0] for r in rows)},
        "r",
    ),
    "ir_measures ScoredDocs": lambda rows: [ScoredDoc(*r) for r in rows],
}
ORDERS = {"trec_eval's": trec_eval_order, "the writer's": writers_order, "shuffled": shuffled}


@pytest.mark.parametrize("order", ORDERS)
def test_a_tied_trec_file_reads_as_trec_eval_orders_it(tmp_path, order):
    lines = [f"{q} Q0 {c} {i} {s!r} tag" for i, (q, c, s) in enumerate(ORDERS[order](TIED), 1)]
    path = write_trec(tmp_path / "run.trec", lines)
    con = db.connect()
    runs.load_run(con, path, "fast")
    validating_read(con, path, "validating")
    assert table(con, "fast") == table(con, "validating") == expected_table()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("shape", MEMORY_SHAPES)
def test_a_tied_run_in_memory_reads_as_its_trec_file(tmp_path, shape, order):
    rows = ORDERS[order](TIED)
    lines = [f"{q} Q0 {c} 1 {s!r} tag" for q, c, s in rows]
    con = db.connect()
    runs.load_run(con, write_trec(tmp_path / "run.trec", lines), "file")
    assert in_memory(MEMORY_SHAPES[shape](rows)) == table(con, "file") == expected_table()


def refusal(load) -> list[tuple]:
    """The (value, expected) of each problem ``load()`` raises (the place differs: a frame
    names its input and query, a file its path and line)."""
    with pytest.raises(InputError) as error:
        load()
    return [(p.value.removeprefix("query 'q1': "), p.expected) for p in error.value.problems]


@pytest.mark.parametrize("with_scores", [True, False])
def test_a_frame_with_tied_ranks_is_refused_as_its_csv_file(tmp_path, with_scores):
    rows = [("q1", "a", 1, 0.5), ("q1", "b", 1, 0.5), ("q1", "c", 2, 0.9), ("q2", "x", 1, 1.0)]
    header = ["query_id", "chunk_id", "rank", "score"][: 4 if with_scores else 3]
    cells = [r[: len(header)] for r in rows]
    path = write_csv(tmp_path / "run.csv", header, cells)
    data = pd.DataFrame(cells, columns=header)
    con = db.connect()
    from_file = refusal(lambda: runs.load_run(con, path, "file"))
    from_frame = refusal(lambda: memory.load_memory_run(con, "frame", data))
    # a frame's row 1 is the file's line 2 (its header is line 1)
    assert [(v.replace("line 1", "line 2"), e) for v, e in from_frame] == from_file
    assert len(from_file) == 1 and "rank 1" in from_file[0][0]


# ------------------------------------------------------------------ long form without ranks
def validating_long(con: duckdb.DuckDBPyConnection, path, name: str) -> None:
    """The validating read of a CSV or Parquet run, added as run ``name``."""
    table = f"run_table_{con.execute('SELECT count(*) FROM run_files').fetchone()[0]}"
    runs._load_long_validating(con, path, readers.detect_format(path), table)
    runs.register_run(con, runs.ReadRun(path, table, readers.detect_format(path)), name)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_long_form_file_without_ranks_reads_as_its_frame(tmp_path, suffix, order):
    """ranx's frame columns (``q_id, doc_id, score``) written as a file: ordered by score as
    the frame is, not refused for want of a rank."""
    data = frame(("q_id", "doc_id", "score"), ORDERS[order](TIED), True)
    path = tmp_path / f"run{suffix}"
    data.to_csv(path, index=False) if suffix == ".csv" else data.to_parquet(path, index=False)
    con = db.connect()
    runs.load_run(con, path, "fast")
    validating_long(con, path, "validating")
    assert table(con, "fast") == table(con, "validating") == in_memory(data) == expected_table()


@pytest.mark.parametrize(
    ("header", "cells", "scores"),
    [
        (["query_id", "chunk_id", "score"], [("q1", "a", "0.5"), ("q1", "b", "")], [0.5, None]),
        (["query_id", "chunk_id"], [("q1", "a"), ("q1", "b")], None),
    ],
)
def test_without_ranks_a_file_and_a_frame_refuse_alike(tmp_path, header, cells, scores):
    """Without a rank, every row needs a score; without either column, a rank is asked for."""
    path = write_csv(tmp_path / "run.csv", header, cells)
    columns = {"query_id": [c[0] for c in cells], "chunk_id": [c[1] for c in cells]}
    data = pd.DataFrame(columns if scores is None else {**columns, "score": scores})
    con = db.connect()
    from_file = refusal(lambda: runs.load_run(con, path, "file"))
    from_frame = refusal(lambda: memory.load_memory_run(con, "frame", data))
    assert from_frame == from_file
    assert len(from_file) == 1
