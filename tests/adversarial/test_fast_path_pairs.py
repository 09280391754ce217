"""A chunk listed twice for one query, in every run format, through every way the typed
(fast) read tests the (query, chunk) pairs (issue 14).

Below ``row_tests.SORT_PAIRS_FROM`` rows DuckDB counts the distinct pairs; from it the
hashes are fetched and sorted (in a thread): each query's span of rows alone when every
query's rows are one span (spans of one length as one array, else in batches by length),
every pair together otherwise, and in parts split by hash when there are many, each sorted
while the next is fetched. Each test runs every way (lowered thresholds force the sorted
ways on these small files) on rows interleaved and in spans of one or of several lengths:
a repeated pair must reach the validating read and be refused with its line; a clean file
loads the same either way, and a bad row (here a blank chunk id) is caught on every way.
"""

from __future__ import annotations

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import row_tests
from tests.helpers import gold_row, load_problems, run_row, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]
PATHS = ["counted", "sorted", "sorted in two threads", "sorted in batches", "sorted in parts"]

# (query, chunk, rank, score); the repeated pair is the last row, on the file's last line
CLEAN = [("q1", "a", 1, 0.9), ("q2", "b", 1, 0.8), ("q1", "b", 2, 0.7), ("q1", "c", 3, 0.1)]
SHAPES = {  # clean rows, and with a pair repeated
    "interleaved": (CLEAN, [*CLEAN, ("q1", "a", 4, 0.05)]),
    "spans of one length": (
        [("q1", "a", 1, 0.9), ("q1", "b", 2, 0.7), ("q2", "b", 1, 0.8), ("q2", "c", 2, 0.1)],
        [("q1", "a", 1, 0.9), ("q1", "b", 2, 0.7), ("q2", "b", 1, 0.8), ("q2", "b", 2, 0.1)],
    ),
    "spans of two lengths": (
        [("q2", "b", 1, 0.8), ("q1", "a", 1, 0.9), ("q1", "b", 2, 0.7), ("q1", "c", 3, 0.1)],
        [("q2", "b", 1, 0.8), ("q1", "a", 1, 0.9), ("q1", "b", 2, 0.7), ("q1", "a", 3, 0.1)],
    ),
}


@pytest.fixture(params=PATHS)
def pair_test(request, monkeypatch):
    if request.param != "counted":
        monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 0)
    if request.param == "sorted in two threads":  # each half of the spans in a thread
        monkeypatch.setattr(row_tests, "SPLIT_SORT_FROM", 0)
    if request.param == "sorted in batches":  # one span per batch
        monkeypatch.setattr(row_tests, "SPAN_BATCH", 1)
    if request.param == "sorted in parts":  # these files' rows in parts of 2
        monkeypatch.setattr(row_tests, "SORTED_PART_ROWS", 2)
    return request.param


def write_run(folder, fmt: str, rows) -> tuple:
    """The run in ``fmt`` and the line its last row is on."""
    if fmt == "trec":
        text = "".join(f"{q} Q0 {c} {r} {s} tag\n" for q, c, r, s in rows)
        return write_text(folder / "run.trec", text), len(rows)
    if fmt == "csv":
        text = "query_id,chunk_id,rank,score\n" + "".join(
            f"{q},{c},{r},{s}\n" for q, c, r, s in rows
        )
        return write_text(folder / "run.csv", text), len(rows) + 1
    if fmt == "parquet":
        path = folder / "run.parquet"
        values = ", ".join(f"('{q}', '{c}', {r}, {s})" for q, c, r, s in rows)
        with duckdb.connect() as con:  # not the module's connection: the whole worker's
            con.execute(
                f"COPY (SELECT * FROM (VALUES {values}) v(query_id, chunk_id, rank, score)) "
                f"TO '{path}' (FORMAT parquet)"
            )
        return path, len(rows)  # a Parquet row's line is its row number
    by_query: dict[str, list] = {}
    for q, c, r, s in rows:
        by_query.setdefault(q, []).append({"chunk_id": c, "rank": r, "score": s})
    lines = [{"id": q, "retrieved": items} for q, items in by_query.items()]
    # the last row's query's list is its line
    return write_jsonl(folder / "run.jsonl", lines), list(by_query).index(rows[-1][0]) + 1


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet", "jsonl"])
def test_a_repeated_pair_is_refused_with_its_line(tmp_path, pair_test, fmt, shape):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run, line = write_run(tmp_path, fmt, SHAPES[shape][1])
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [line], problems
    assert "chunk id" in problems[0].expected
    assert "a" in problems[0].value


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet", "jsonl"])
def test_a_clean_run_loads_the_same_every_way(tmp_path, monkeypatch, fmt, shape):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    clean = SHAPES[shape][0]
    run, _ = write_run(tmp_path, fmt, clean)
    rows = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY ALL"
    counted = Workspace.from_files(gold, [run]).con.execute(rows).fetchall()
    assert len(counted) == len(clean)
    monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 0)
    assert Workspace.from_files(gold, [run]).con.execute(rows).fetchall() == counted
    monkeypatch.setattr(row_tests, "SPLIT_SORT_FROM", 0)
    assert Workspace.from_files(gold, [run]).con.execute(rows).fetchall() == counted
    monkeypatch.setattr(row_tests, "SPAN_BATCH", 1)
    assert Workspace.from_files(gold, [run]).con.execute(rows).fetchall() == counted


@pytest.mark.parametrize("chunk", ["", " ", "\u00a0", "\u3000 \u00a0"])
def test_a_blank_chunk_id_is_refused_on_both_paths(tmp_path, pair_test, chunk):
    """Blank is what ``trim`` removes (spaces, no-break and ideographic spaces too); the
    fast read tests it only on ids whose first character could be one."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a"]), run_row("q2", [chunk])])
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [2]
    assert "chunk_id" in problems[0].expected


@pytest.mark.parametrize(
    "text", ["", " ", "\t", "\u00a0", "\u3000", " a", "a ", "0", "/", "~", "\x7f", "é", "\u00a0x"]
)
def test_blank_is_trim_empty(text):
    sql = f"SELECT {row_tests.blank('$t')} IS TRUE, trim($t) = ''"
    with duckdb.connect() as con:
        fast, trimmed = con.execute(sql, {"t": text}).fetchone()
    assert fast == trimmed


def half_hash_twins() -> tuple[str, str]:
    """Two chunk ids whose hashes share their upper 32 bits (the half the sorted pair test
    compares), found by the birthday bound among 300,000 ids."""
    with duckdb.connect() as con:
        found = con.execute(
            "SELECT list(s ORDER BY s)[1:2] FROM (SELECT 'c' || range AS s FROM range(300000)) "
            "GROUP BY hash(s) >> 32 HAVING count(*) > 1 LIMIT 1"
        ).fetchone()
    assert found, "no two ids share half a hash"
    return tuple(found[0])


@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet", "jsonl"])
@pytest.mark.parametrize("repeated", [False, True])
@pytest.mark.parametrize("at_once", [1, row_tests.REPEAT_SPANS_AT_ONCE])
def test_ids_sharing_half_a_hash_are_told_apart_by_their_text(
    tmp_path, monkeypatch, fmt, repeated, at_once
):
    """The sorted pair test compares half of each chunk's hash: a query whose half hashes
    repeat is tested again on its ids (its rows read by their row ids, ``at_once`` queries
    in one test), so two ids that only share half a hash load, and a real repeat beside them
    (at its query's first and last row) is still refused with its line."""
    one, two = half_hash_twins()
    rows = [("q1", one, 1, 0.9), ("q1", two, 2, 0.8), ("q2", "b", 1, 0.7), ("q2", "c", 2, 0.6)]
    if repeated:
        rows.append(("q2", "b", 3, 0.5))
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run, line = write_run(tmp_path, fmt, rows)
    monkeypatch.setattr(row_tests, "SORT_PAIRS_FROM", 0)
    monkeypatch.setattr(row_tests, "REPEAT_SPANS_AT_ONCE", at_once)
    found, real = [], row_tests.spans_repeating
    spy = lambda *a: found.append(real(*a)) or found[-1]  # noqa: E731
    monkeypatch.setattr(row_tests, "spans_repeating", spy)
    if repeated:
        assert [p.line for p in load_problems(gold, [run])] == [line]
        assert len(found[0]) == 2  # both queries tested again on their ids
        return
    loaded = Workspace.from_files(gold, [run]).con.execute(
        "SELECT query_id, chunk_id, rank FROM runs ORDER BY ALL"
    )
    assert loaded.fetchall() == sorted((q, c, r) for q, c, r, _ in rows)
    assert [len(repeating) for repeating in found] == [1]  # q1, cleared on the fast read


@pytest.mark.parametrize("queries", [2, 3, 7])
def test_spans_sorted_in_two_threads_find_what_one_sort_finds(monkeypatch, queries):
    """Spans of one length are sorted half in a thread of their own from SPLIT_SORT_FROM
    hashes: a repeat in either half, at either end of a span, is found at its span's first
    row, as one sort finds it."""
    import numpy as np

    length = 5
    chunks = np.arange(queries * length, dtype=np.uint32) * 7
    planted = {0, queries // 2, queries - 1}  # the first span, the second half's first, last
    for span in planted:
        chunks[span * length + length - 1] = chunks[span * length]
    firsts = np.arange(queries, dtype=np.int64) * length
    lengths = np.full(queries, length, dtype=np.int64)
    one = row_tests.spans_repeating(chunks.copy(), firsts, lengths)
    monkeypatch.setattr(row_tests, "SPLIT_SORT_FROM", 0)
    two = row_tests.spans_repeating(chunks.copy(), firsts, lengths)
    assert one.tolist() == two.tolist() == sorted(span * length for span in planted)
