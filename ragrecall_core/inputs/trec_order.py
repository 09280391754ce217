"""trec_eval's order of a scored list, and whether a TREC run read as written is in it.

trec_eval ignores a TREC run's rank column: it ranks each query's rows by score descending,
ties by docno descending. Most runs are written with ranks 1..n, each query one block, the
score falling or holding: in trec_eval's order, or in the writer's (ties in any docno order:
Anserini, Pyserini, most scripts). Then a row's position is its rank, once each tie group out
of trec_eval's order is numbered again, and the run needs no sort. A run that is in neither
order is sorted by the caller.
"""

from __future__ import annotations

import duckdb

# The one home of trec_eval's order: every read that numbers positions by score uses it
# (TREC files, the sorted and the validating reads, scored data in memory).
TIE_ORDER = "docno DESC"
TREC_ORDER = f"score DESC, {TIE_ORDER}"

# Each query is one block of rows whose ranks are 1..n in row order: its rows' ids are a span
# as long as its row count, every rank its row id's distance from the span's first, plus one.
# Read from the table's spans (row_tests.SPANS_SQL: a parallel aggregate the pair test and
# the list lengths read too, with these BLOCK_SPANS), not a window over every row in one
# sequence.
BLOCK_SPANS = ", min(rank - rowid) AS low, max(rank - rowid) AS high, min(rank) AS lowest"
BLOCKS_SQL = """
SELECT count(*) FILTER (WHERE rows <> last - first + 1 OR low <> high OR lowest <> 1) = 0
FROM {table}_spans
"""

# Within the blocks, one pass of the rows in row order keeps each row not in the writer's
# order (a score above the one before it, or a pass that met the rows out of row order) and
# each row that ties the row before it: two numbers per row (the query, rank and docno of
# each row read in the pass cost 0.40 s of one core on 7M rows, this 0.07 s). A file
# without ties keeps nothing.
PASS_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_pass AS
SELECT row, in_order, tied
FROM (SELECT rowid AS row,
             coalesce(rank = 1 OR lag(rowid) OVER pass = rowid - 1
                                  AND score <= lag(score) OVER pass, false) AS in_order,
             coalesce(rank <> 1 AND score = lag(score) OVER pass, false) AS tied
      FROM {table} WINDOW pass AS ())
WHERE NOT in_order OR tied
"""
# a run whose queries are not such blocks is out of order at once
OUT_OF_ORDER_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_pass AS
SELECT NULL::BIGINT AS row, false AS in_order, false AS tied
"""
# Which way the tie groups' docnos run: each tied row's docno against the row before it.
# Every one below: trec_eval's order. Every one above: the writer's order of Anserini and
# Pyserini (ties by docid ascending), each group trec_eval's reversed. Read from the tie
# groups' rows (TIES_SQL) when few rows tie (1% of 7M: 0.11 CPU s, on both cores), from one
# more pass of the rows when more than MANY_TIES of them do (15%: 0.12-0.19 s on one core,
# against 0.8 s for the groups' rows read by row id and 0.3 s for the join). That pass counts
# the rows it met out of row order (filtering its scan by a test of the first pass made
# DuckDB hand its window the rows out of order): any, and the groups are sorted.
MANY_TIES = 0.02
TIED_SHARE_SQL = """
SELECT count(*) FILTER (WHERE tied) / greatest((SELECT count(*) FROM {table}), 1)
FROM {table}_pass
"""
TIE_DIRECTIONS_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_directions AS
SELECT count(*) FILTER (WHERE before_row <> row - 1) AS unordered,
       count(*) FILTER (WHERE tied AND NOT coalesce(docno < before, false)) AS not_falling,
       count(*) FILTER (WHERE tied AND NOT coalesce(docno > before, false)) AS not_rising
FROM (SELECT rowid AS row, lag(rowid) OVER pass AS before_row, docno,
             lag(docno) OVER pass AS before,
             coalesce(rank <> 1 AND score = lag(score) OVER pass, false) AS tied
      FROM {table} WINDOW pass AS ())
"""
# Every tie group whole: its tied rows and the row before the first (one query's rows of one
# score are neighbours in the writer's order), read from the table by row id.
TIES_SQL = """
CREATE TEMP TABLE IF NOT EXISTS {table}_ties AS
SELECT rowid AS row, qid, docno, rank, score FROM {table}
WHERE rowid IN (SELECT row FROM {table}_pass WHERE tied
                UNION ALL SELECT row - 1 FROM {table}_pass WHERE tied)
"""
GROUP_DIRECTIONS_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_directions AS
SELECT 0 AS unordered,
       count(*) FILTER (WHERE NOT coalesce(tied.docno < before.docno, false)) AS not_falling,
       count(*) FILTER (WHERE NOT coalesce(tied.docno > before.docno, false)) AS not_rising
FROM {table}_ties tied JOIN {table}_ties before ON before.row = tied.row - 1
WHERE tied.row IN (SELECT row FROM {table}_pass WHERE tied)
"""
FEW_TIES_STEPS = (TIES_SQL, GROUP_DIRECTIONS_SQL)
NO_TIES_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_directions AS
SELECT 0 AS unordered, 0 AS not_falling, 0 AS not_rising
"""
PASS_STEPS = (PASS_SQL,)

WRITERS_ORDER_SQL = "SELECT NOT EXISTS (SELECT 1 FROM {table}_pass WHERE NOT in_order)"
# trec_eval's order: the writer's, with every tied row's docno below the one before it
TREC_ORDER_SQL = f"""
SELECT ({WRITERS_ORDER_SQL})
       AND (SELECT unordered = 0 AND not_falling = 0 FROM {{table}}_directions)
"""
# every tie group's docnos rising (and the pass in row order)
RISING_TIES_SQL = "SELECT unordered = 0 AND not_rising = 0 FROM {table}_directions"

# Each tie group reversed: its rows are a span of row ids, from the row before its first tied
# row (its head) to its last, so a row's place in trec_eval's order is its rank plus
# head + last - 2 * row: no docno, query or score read, no sort.
REVERSE_TIES_SQL = """
UPDATE {table} SET rank = rank + moved.shift
FROM (SELECT row, head + last - 2 * row AS shift
      FROM (SELECT unnest(range(head, last + 1)) AS row, head, last
            FROM (SELECT min(row) - 1 AS head, max(row) AS last
                  FROM (SELECT row, row - row_number() OVER (ORDER BY row) AS run
                        FROM {table}_pass WHERE tied)
                  GROUP BY run))
      WHERE head + last <> 2 * row) AS moved
WHERE {table}.rowid = moved.row
"""

# Groups in any other docno order: each row of a group (TIES_SQL, read once) gets as rank
# its place in trec_eval's order of its group, where that differs: the position the rank
# gives is then right without a column of positions being written. A group's rows are
# ranked over a span (joining the whole table on the groups' query and score instead:
# 0.75 -> 0.25 s CPU, 7M lines).
RENUMBER_TIES_SQL = f"""
UPDATE {{table}} SET rank = tied.position
FROM (SELECT row, position
      FROM (SELECT row, rank,
                   min(rank) OVER tie + row_number() OVER (tie ORDER BY {TIE_ORDER}) - 1
                       AS position
            FROM {{table}}_ties WINDOW tie AS (PARTITION BY qid, score))
      WHERE position <> rank) AS tied
WHERE {{table}}.rowid = tied.row
"""
RENUMBER_STEPS = (TIES_SQL, RENUMBER_TIES_SQL)
PASS_TABLES = ("pass", "directions", "ties")


def in_trec_order(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether every query's ranks in a TREC run ``table`` are 1..n in trec_eval's order
    (read from what :func:`trec_positions_hold`'s passes kept)."""
    return bool(con.execute(TREC_ORDER_SQL.format(table=table)).fetchone()[0])


def ties_renumbered(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether a TREC run ``table`` is in the writer's order (read from the rows the pass
    kept); if so its tied rows are numbered again, the file neither read again nor sorted:
    each group reversed when every group's docnos rise (:data:`REVERSE_TIES_SQL`), else
    each group sorted (:data:`RENUMBER_STEPS`)."""
    if not con.execute(WRITERS_ORDER_SQL.format(table=table)).fetchone()[0]:
        return False
    if con.execute(RISING_TIES_SQL.format(table=table)).fetchone()[0]:
        con.execute(REVERSE_TIES_SQL.format(table=table))
        return True
    for step in RENUMBER_STEPS:
        con.execute(step.format(table=table))
    return True


def trec_positions_hold(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether a TREC run ``table``'s positions (its ranks) are right without a sort: its
    queries are blocks ranked 1..n (:data:`BLOCKS_SQL`) in trec_eval's order, or in the
    writer's order with the ties numbered again, decided from one pass of the rows (two when
    some rows tie). The passes' tables go whatever fails (a step that fails leaves the ones
    before it)."""
    try:
        blocks = con.execute(BLOCKS_SQL.format(table=table)).fetchone()[0]
        for step in PASS_STEPS if blocks else (OUT_OF_ORDER_SQL,):
            con.execute(step.format(table=table))
        share = con.execute(TIED_SHARE_SQL.format(table=table)).fetchone()[0]
        steps = FEW_TIES_STEPS if share <= MANY_TIES else (TIE_DIRECTIONS_SQL,)
        for step in steps if share else (NO_TIES_SQL,):
            con.execute(step.format(table=table))
        return in_trec_order(con, table) or ties_renumbered(con, table)
    finally:
        con.execute("".join(f"DROP TABLE IF EXISTS {table}_{name};" for name in PASS_TABLES))
