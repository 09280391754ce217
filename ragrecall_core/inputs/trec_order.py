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
# Every tie group whole: its tied rows and the row before the first (one query's rows of one
# score are neighbours in the writer's order), read from the table by row id.
TIES_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_ties AS
SELECT rowid AS row, qid, docno, rank, score FROM {table}
WHERE rowid IN (SELECT row FROM {table}_pass WHERE tied
                UNION ALL SELECT row - 1 FROM {table}_pass WHERE tied)
"""
PASS_STEPS = (PASS_SQL, TIES_SQL)

WRITERS_ORDER_SQL = "SELECT NOT EXISTS (SELECT 1 FROM {table}_pass WHERE NOT in_order)"
# trec_eval's order: the writer's, with every tied row's docno below the one before it
TREC_ORDER_SQL = f"""
SELECT ({WRITERS_ORDER_SQL})
       AND NOT EXISTS (SELECT 1 FROM {{table}}_ties tied JOIN {{table}}_ties before
                       ON before.row = tied.row - 1 AND before.qid = tied.qid
                          AND before.score = tied.score
                       WHERE tied.docno >= before.docno)
"""
# Each row of a tie group gets as rank its place in trec_eval's order of its group, where
# that differs: the position the rank gives is then right without a column of positions
# being written. A group's rows are ranked over a span (joining the whole table on the
# groups' query and score instead: 0.75 -> 0.25 s CPU, 7M lines).
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


def in_trec_order(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether every query's ranks in a TREC run ``table`` are 1..n in trec_eval's order
    (read from the rows :func:`trec_positions_hold`'s pass kept)."""
    return bool(con.execute(TREC_ORDER_SQL.format(table=table)).fetchone()[0])


def ties_renumbered(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether a TREC run ``table`` is in the writer's order (read from the rows the pass
    kept); if so its tied rows are numbered again (:data:`RENUMBER_TIES_SQL`), the file
    neither read again nor sorted."""
    if not con.execute(WRITERS_ORDER_SQL.format(table=table)).fetchone()[0]:
        return False
    con.execute(RENUMBER_TIES_SQL.format(table=table))
    return True


def trec_positions_hold(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether a TREC run ``table``'s positions (its ranks) are right without a sort: its
    queries are blocks ranked 1..n (:data:`BLOCKS_SQL`) in trec_eval's order, or in the
    writer's order with the ties numbered again, decided from one pass of the rows. The
    pass's tables go whatever fails (a step that fails leaves the ones before it)."""
    try:
        blocks = con.execute(BLOCKS_SQL.format(table=table)).fetchone()[0]
        for step in PASS_STEPS if blocks else (OUT_OF_ORDER_SQL, TIES_SQL):
            con.execute(step.format(table=table))
        return in_trec_order(con, table) or ties_renumbered(con, table)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {table}_pass; DROP TABLE IF EXISTS {table}_ties")
