"""The whole-table tests of a run read by a typed (fast) path: no bad row, no pair repeated.

A typed read loads a run only when every row is one the validating read would load as it is
(:data:`BAD_TYPED_ROW` names the rest) and each (query, chunk) pair occurs once; anything
else sends the file to the validating read, which names each problem with its line. A hash
collision only does that too: the validating read compares the ids themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from ragrecall_core.inputs.beside import in_background, on_cursor


def blank(column: str) -> str:
    """SQL: ``column`` is empty or whitespace only (what ``trim`` removes), with ``trim`` run
    only where the first character could be whitespace: no character from '0' to U+007F is,
    and ids mostly start with one (a 7M-line run's test 0.28 -> 0.08 s). The range is also
    one a table's statistics can rule out: see :data:`BAD_TYPED_ROW`."""
    return f"(({column} < '0' OR {column} >= chr(128)) AND trim({column}) = '')"


# A row without a chunk is allowed only as the one row of a query whose list is empty
# (JSON lines: it has no position). Each term is a comparison of one column, or starts with
# one (a score's isfinite with its range): DuckDB's statistics of each column (the least and
# greatest value of each group of rows, whether it holds NULL) rule most of them out for a
# whole table without reading a row, and a count of the rows that fail takes ~0.01 s
# instead of 0.26 s of CPU for a 7M-line run.
BAD_TYPED_ROW = f"""qid IS NULL OR {blank("qid")} OR {blank("docno")}
    OR (docno IS NULL AND position IS NOT NULL) OR rank < 1
    OR ((score >= 'inf'::DOUBLE OR score <= '-inf'::DOUBLE) AND NOT isfinite(score))
    OR typed = false"""

# No bad row: for the sorted read after the unsorted one (the pairs are the same rows) and
# before the hashes are fetched.
ROWS_OK_SQL = f"SELECT count(*) = 0 FROM {{table}} WHERE {BAD_TYPED_ROW}"
# and every (query, chunk) pair once, in one call: the bad rows counted apart, in a WHERE
# whose statistics rule them out, not as a FILTER beside the pairs' count that reads every
# row's terms (698,000 rows: 133 -> 71 ms; 100,000: 34 -> 13 ms)
TYPED_OK_SQL = f"""
SELECT ({ROWS_OK_SQL})
       AND (SELECT count(DISTINCT hash(qid, docno)) FILTER (WHERE docno IS NOT NULL)
                   = count(docno) FROM {{table}})
"""

# Each query's rows in a typed read's table, in one parallel aggregate (7M rows: 0.13 s of
# CPU) that the pair test, the read's order test and the run's list lengths all read: the
# first and last row id, how many rows, how many list a chunk, and what the caller's order
# test asks besides (``extra``: more aggregates over the query's rows). Its rows are one span
# when ``last - first + 1 = rows``. Dropped with its table (:func:`drop`), or once the run's
# list lengths are recorded (runs.record_run_queries).
SPANS_SQL = """
CREATE OR REPLACE TABLE {table}_spans AS
SELECT qid, min(rowid) AS first, max(rowid) AS last, count(*) AS rows,
       count(docno) AS listed{extra}
FROM {table} GROUP BY qid
"""
WHOLE_SPANS_SQL = "SELECT qid, first, rows, last - first + 1 = rows AS whole FROM {table}_spans"
# Each row's chunk hashed, in row id order (a SELECT from one table keeps its rows' order:
# DuckDB's "order preservation"); a query's row without a chunk hashes NULL, one per query.
# Half the hash, 32 bits: a query's list repeats one by chance once in ~10,000 lists of 1,000
# chunks, and such a query is tested again on its ids (REPEATS_SQL); the 7M hashes of a
# 7M-row run held 28 MB instead of 56 (their fetch had set a JSONL read's peak).
CHUNKS_SQL = "SELECT (hash(docno) >> 32)::UINTEGER AS chunk FROM {table}"
# whether none of the queries whose rows are the spans {spans} lists a chunk twice, read
# from the ids themselves; a span is ``rowid BETWEEN $first_<i> AND $last_<i>``
# (SPAN_ROWS_SQL), which the table's scan takes as a filter on row ids: it reads the row
# groups that hold them, not the whole table (a qid list took 0.07-0.2 s of a 7M-row run,
# the spans 0.003-0.007 s)
REPEATS_SQL = """
SELECT count(*) = 0 FROM (
    SELECT qid FROM {table} WHERE ({spans}) AND docno IS NOT NULL
    GROUP BY qid HAVING count(docno) <> count(DISTINCT docno))
"""
SPAN_ROWS_SQL = "rowid BETWEEN $first_{i} AND $last_{i}"
# at most this many spans in one query (a run of long lists repeats half hashes more often)
REPEAT_SPANS_AT_ONCE = 64
# each (query, chunk) pair hashed: for queries whose rows are not one span each
PAIRS_SQL = "SELECT hash(qid, docno) AS pair FROM {table}"
# (the parameters typed as the hash is: untyped, they made the fetch 5x slower)
PAIRS_IN_PART_SQL = """
SELECT hash(qid, docno) AS pair FROM {table}
WHERE hash(qid, docno) % $parts::UBIGINT = $part::UBIGINT
"""

# From this many rows the pairs' hashes are sorted rather than counted: DuckDB's
# count(DISTINCT ...) holds a hash table of every pair (~230 MB more peak and 0.6 s for a
# 7M-line run, against 0.2 s and nothing above the read's peak for fetching the 8-byte
# hashes, whose sort then runs beside the caller's next queries; at 70M lines under a 3GB
# limit its peak moved between 3.2 and 4.0 GB from run to run). Below it the count is as
# quick and numpy is not imported.
SORT_PAIRS_FROM = 1_000_000
# At most this many hashes are fetched at once (128 MB; held by numpy, outside DuckDB's
# memory limit): a larger run's are sorted in parts, split by hash, each a scan, each
# sorted while the next is fetched.
SORTED_PART_ROWS = 16_000_000
# Spans of one length are sorted this many hashes at a time (8 MB).
SPAN_BATCH = 1_000_000
# From this many hashes in spans of one length, half the spans are sorted in a second
# thread (numpy's sort lets go of Python's lock): the read's caller waits for this sort with
# nothing else to do, and the other core would idle meanwhile.
SPLIT_SORT_FROM = 1_000_000
# A text file of this many bytes may hold SORT_PAIRS_FROM rows: its read imports numpy beside
# it (runs.read_run), not after it on the tests' path. A Parquet file's footer tells its rows
# (short ids compress to 2 bytes a row: 2M rows in 4 MB, whose tests waited 0.1 s for numpy).
NUMPY_FROM_BYTES = 10_000_000
PARQUET_ROWS_SQL = "SELECT sum(num_rows) FROM parquet_file_metadata($path)"


def may_sort_pairs(con: duckdb.DuckDBPyConnection, path, parquet: bool) -> bool:
    """Whether the run file at ``path`` may hold :data:`SORT_PAIRS_FROM` rows, whose tests
    sort their pairs with numpy: a Parquet file's footer says (False when it cannot be read:
    the read itself then fails and says why), another file's size (:data:`NUMPY_FROM_BYTES`)."""
    if not parquet:
        return path.stat().st_size >= NUMPY_FROM_BYTES
    try:
        rows = con.execute(PARQUET_ROWS_SQL, {"path": str(path)}).fetchone()[0]
    except duckdb.Error:
        return False
    return (rows or 0) >= SORT_PAIRS_FROM


def make_spans(con: duckdb.DuckDBPyConnection, table: str, extra: str = "") -> int:
    """``{table}_spans``: :data:`SPANS_SQL` of ``table``, with the ``extra`` aggregates;
    return the table's row count (asked in the same call: each call waits to take the
    interpreter's lock back, ~5-15 ms beside a busy thread: db.connect)."""
    made = f"{SPANS_SQL.format(table=table, extra=extra)}; SELECT count(*) FROM {table}"
    return con.execute(made).fetchone()[0]


def spans_exist(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether ``table``'s spans are in the connection's own database (not in a database it
    has attached, such as a load cache file)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = $name",
        {"name": f"{table}_spans"},
    )
    return bool(found.fetchone()[0])


def drop(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Drop a run's ``table`` and its spans, where they exist."""
    con.execute(f"DROP TABLE IF EXISTS {table}; DROP TABLE IF EXISTS {table}_spans")


def typed_tests(con: duckdb.DuckDBPyConnection, table: str, rows: int) -> Callable[[], bool]:
    """Start the whole-table tests of a run read by a typed path into ``table`` of ``rows``
    rows (its spans made: :func:`make_spans`); return the function that waits for their
    verdict. From SORT_PAIRS_FROM rows the hashes are sorted in a thread of their own, so the
    caller's next queries run on the other core meanwhile."""
    if rows < SORT_PAIRS_FROM:
        ok = bool(con.execute(TYPED_OK_SQL.format(table=table)).fetchone()[0])
        return lambda: ok
    parts = -(-rows // SORTED_PART_ROWS)
    if parts > 1:
        return _pairs_in_parts(con, table, parts)
    if not con.execute(ROWS_OK_SQL.format(table=table)).fetchone()[0]:
        return lambda: False
    spans = con.execute(WHOLE_SPANS_SQL.format(table=table)).fetchnumpy()
    firsts, lengths = spans["first"], spans["rows"]
    if spans["whole"].all() and firsts.min() == 0 and (firsts + lengths).max() == rows:
        chunks = con.execute(CHUNKS_SQL.format(table=table)).fetchnumpy()["chunk"]
        return in_background(on_cursor, _spans_clear, con, table, chunks, spans)
    pairs = con.execute(PAIRS_SQL.format(table=table)).fetchnumpy()["pair"]
    return in_background(_all_different, pairs)


def _pairs_in_parts(con: duckdb.DuckDBPyConnection, table: str, parts: int) -> Callable[[], bool]:
    """:data:`TYPED_OK_SQL`'s tests for a run in several parts: rows tested once, then each
    part's pair hashes fetched while the previous part's sort runs (two parts held at most);
    the last part's sort is left running."""
    if not con.execute(ROWS_OK_SQL.format(table=table)).fetchone()[0]:
        return lambda: False
    in_part = PAIRS_IN_PART_SQL.format(table=table)
    previous = None
    for part in range(parts):
        hashes = con.execute(in_part, {"parts": parts, "part": part}).fetchnumpy()["pair"]
        if previous is not None and not previous():
            return lambda: False
        previous = in_background(_all_different, hashes)
    return previous


def _spans_clear(con: duckdb.DuckDBPyConnection, table: str, chunks, spans: dict) -> bool:
    """Whether no query of ``table`` lists a chunk twice, its queries' rows the ``spans``
    (:data:`WHOLE_SPANS_SQL`) and ``chunks`` its rows' :data:`CHUNKS_SQL`: the queries whose
    hashes repeat are tested again on their ids."""
    import numpy as np

    repeating = np.isin(spans["first"], spans_repeating(chunks, spans["first"], spans["rows"]))
    firsts, lengths = spans["first"][repeating], spans["rows"][repeating]
    step = REPEAT_SPANS_AT_ONCE
    return all(
        _ids_clear(con, table, firsts[at : at + step], lengths[at : at + step])
        for at in range(0, len(firsts), step)
    )


def _ids_clear(con: duckdb.DuckDBPyConnection, table: str, firsts, lengths) -> bool:
    """Whether none of the queries whose rows are the spans from row ``firsts`` (of
    ``lengths`` rows) lists a chunk twice, read from the ids themselves."""
    spans = " OR ".join(SPAN_ROWS_SQL.format(i=i) for i in range(len(firsts)))
    params = {}
    for i, (first, rows) in enumerate(zip(firsts.tolist(), lengths.tolist(), strict=True)):
        params |= {f"first_{i}": first, f"last_{i}": first + rows - 1}
    return bool(con.execute(REPEATS_SQL.format(table=table, spans=spans), params).fetchone()[0])


def spans_repeating(chunks, firsts, lengths):
    """The first rows of the spans of ``chunks`` (from row ``firsts``, of ``lengths``; the
    spans tile the rows) in which a value repeats: each span sorted alone, the spans of one
    length as the rows of one array, in batches (7M rows in spans of 1,000: 0.09 s with
    64-bit hashes, against 0.45 s for one sort of every pair's hash); spans all of one
    length, from :data:`SPLIT_SORT_FROM` hashes, half of them in a thread of their own."""
    import numpy as np

    if (lengths == lengths[0]).all():  # the spans tile the rows in order
        length = int(lengths[0])
        spans = chunks.reshape(len(lengths), length)
        if len(chunks) < SPLIT_SORT_FROM or len(spans) < 2:
            return np.flatnonzero(_repeats(spans)) * length
        half = len(spans) // 2
        second = in_background(_repeats, spans[half:])
        first = _repeats(spans[:half])
        return np.flatnonzero(np.concatenate([first, second()])) * length
    found = []
    for length in np.unique(lengths[lengths > 1]):
        starts = firsts[lengths == length]
        for batch in np.array_split(starts, -(-len(starts) * int(length) // SPAN_BATCH)):
            found.append(batch[_repeats(chunks[batch[:, None] + np.arange(length)])])
    return np.concatenate(found) if found else np.empty(0, firsts.dtype)


def _repeats(spans):
    """For each row of ``spans``, whether a value repeats in it (the rows sorted in place)."""
    spans.sort(axis=1)
    return (spans[:, 1:] == spans[:, :-1]).any(axis=1)


def _all_different(hashes) -> bool:
    hashes.sort()
    return not (hashes[1:] == hashes[:-1]).any()
