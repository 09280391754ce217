"""trec_eval's order of a scored list, and whether a TREC run read as written is in it.

trec_eval ignores a TREC run's rank column: it ranks each query's rows by score descending,
ties by docno descending. Most runs are written with ranks 1..n, each query one block, the
score falling or holding: in trec_eval's order, or in the writer's (ties in any docno order:
Anserini, Pyserini, most scripts). Then a row's position is its rank, once each tie group out
of trec_eval's order is numbered again, and the run needs no sort. A run that is in neither
order is sorted by the caller.
"""

from __future__ import annotations

from collections.abc import Callable

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
PASS_TEMPLATE = """
CREATE OR REPLACE TEMP TABLE {{table}}_pass AS
SELECT row, in_order, tied{kept}
FROM (SELECT rowid AS row,
             coalesce(rank = 1 OR lag(rowid) OVER pass = rowid - 1
                                  AND score <= lag(score) OVER pass, false) AS in_order,
             coalesce(rank <> 1 AND score = lag(score) OVER pass, false) AS tied{read}
      FROM {{table}} WINDOW pass AS ())
WHERE NOT in_order OR tied
"""
# Which way the tie groups' docnos run: each tied row's docno against the row before it,
# read in the same pass (DIRECTED_PASS_SQL). Every one below: trec_eval's order. Every one
# above: the writer's order of Anserini and Pyserini (ties by docid ascending), each group
# trec_eval's reversed. A row's directions are right wherever the pass met it in row order
# (``in_order``, which the writer's order needs of every row). Reading the docnos costs the
# pass 0.07-0.08 s more of one core (7M rows: 0.18 against 0.105 s), so the pass reads them
# when the file's first TIE_SAMPLE_ROWS rows tie (a file without ties keeps the plain pass),
# or when a plain pass found ties after them (then it runs again). One pass, where the
# directions were read by a second one (15% of the rows tied: 0.17 + 0.19 s, now 0.25 s) or
# from the tie groups' rows read by row id (1%: equal in time, 0.04 s more CPU).
DIRECTED_PASS_SQL = PASS_TEMPLATE.format(
    kept=", falling, rising",
    read=",\n             docno < lag(docno) OVER pass AS falling, "
    "docno > lag(docno) OVER pass AS rising",
)
PASS_SQL = PASS_TEMPLATE.format(kept="", read="")
TIE_SAMPLE_ROWS = 50_000
SAMPLE_TIES_SQL = """
SELECT coalesce(bool_or(rank <> 1 AND score = before), false)
FROM (SELECT rank, score, lag(score) OVER () AS before
      FROM (SELECT rank, score FROM {table} LIMIT $rows))
"""
ANY_TIED_SQL = "SELECT EXISTS (SELECT 1 FROM {table}_pass WHERE tied)"
DIRECTIONS_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_directions AS
SELECT count(*) FILTER (WHERE tied AND NOT coalesce(falling, false)) AS not_falling,
       count(*) FILTER (WHERE tied AND NOT coalesce(rising, false)) AS not_rising
FROM {table}_pass
"""
NO_TIES_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_directions AS SELECT 0 AS not_falling, 0 AS not_rising
"""
# Every tie group whole: its tied rows and the row before the first (one query's rows of one
# score are neighbours in the writer's order), read from the table by row id.
TIES_SQL = """
CREATE OR REPLACE TEMP TABLE {table}_ties AS
SELECT rowid AS row, qid, docno, rank, score FROM {table}
WHERE rowid IN (SELECT row FROM {table}_pass WHERE tied
                UNION ALL SELECT row - 1 FROM {table}_pass WHERE tied)
"""

WRITERS_ORDER_SQL = "SELECT NOT EXISTS (SELECT 1 FROM {table}_pass WHERE NOT in_order)"
# trec_eval's order: the writer's, with every tied row's docno below the one before it
TREC_ORDER_SQL = f"""
SELECT ({WRITERS_ORDER_SQL}) AND (SELECT not_falling = 0 FROM {{table}}_directions)
"""
# every tie group's docnos rising
RISING_TIES_SQL = "SELECT not_rising = 0 FROM {table}_directions"

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


def trec_positions_hold(
    con: duckdb.DuckDBPyConnection, table: str, spans_made: Callable[[], object] = lambda: None
) -> bool:
    """Whether a TREC run ``table``'s positions (its ranks) are right without a sort: its
    queries are blocks ranked 1..n (:data:`BLOCKS_SQL`, read from its spans once
    ``spans_made()`` returns: the pass, on one core, goes on while the other makes them) in
    trec_eval's order, or in the writer's order with the ties numbered again, decided from
    one pass of the rows (:func:`directed_pass`). The passes' tables go whatever fails (a
    step that fails leaves the ones before it)."""
    try:
        directed = directed_pass(con, table)
        spans_made()
        if not con.execute(BLOCKS_SQL.format(table=table)).fetchone()[0]:
            return False
        directions = DIRECTIONS_SQL if directed else NO_TIES_SQL
        con.execute(directions.format(table=table))
        return in_trec_order(con, table) or ties_renumbered(con, table)
    finally:
        con.execute("".join(f"DROP TABLE IF EXISTS {table}_{name};" for name in PASS_TABLES))


def directed_pass(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Make ``table``'s pass (:data:`PASS_SQL`), with the tied rows' directions
    (:data:`DIRECTED_PASS_SQL`) when its first rows tie or a pass without them found ties;
    whether it read them (it did wherever a row ties)."""
    sample = con.execute(SAMPLE_TIES_SQL.format(table=table), {"rows": TIE_SAMPLE_ROWS})
    directed = bool(sample.fetchone()[0])
    con.execute((DIRECTED_PASS_SQL if directed else PASS_SQL).format(table=table))
    if not directed and con.execute(ANY_TIED_SQL.format(table=table)).fetchone()[0]:
        con.execute(DIRECTED_PASS_SQL.format(table=table))
        directed = True
    return directed
