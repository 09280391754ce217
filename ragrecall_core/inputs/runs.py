"""Loading retriever runs into the ``runs`` table.

Accepted: seed JSON lines (``{"id", "retrieved": [{"chunk_id", "rank", "score"}]}``),
TREC run files (``qid Q0 docno rank score tag``) and CSV / Parquet in long form
(``query_id, chunk_id, rank, score``, or other tools' names for them:
:data:`readers.COLUMN_ALIASES`).

Order: JSON lines and long form follow ``rank`` (the list position when a JSON
item has none); TREC runs follow trec_eval (score descending, ties by docno
descending; the rank column is ignored), and so does a long-form run without a rank
column (an in-memory frame's too). The stored ``rank`` is the 1-based position in that
order.

Each run lives in a table of its own (``run_table_<n>``: ``qid, docno, rank`` as
given (but for a TREC run's tied rows, numbered as trec_eval orders them), ``score, typed,
position``), ranked while it is read, so a 7M-line run is
held once; the ``runs`` view unites them as ``(run, query_id, chunk_id, rank, score)``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import NamedTuple

import duckdb

from ragrecall_core.errors import InputError, Problem, gather, raise_if_any
from ragrecall_core.inputs import progress, readers, row_tests, trec_order
from ragrecall_core.inputs.beside import imported, in_background, on_cursor
from ragrecall_core.inputs.checks import (
    Check,
    ListItem,
    duplicate_key,
    is_finite_number,
    positive_whole_number,
    repeated_keys,
    run_checks,
    string_field,
    without_digit_separator,
)
from ragrecall_core.inputs.configs import load_config, run_stem
from ragrecall_core.inputs.row_tests import ROWS_OK_SQL, typed_tests
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.sql import quote_identifier
from ragrecall_core.inputs.trec_order import TREC_ORDER

NUMBER_TYPES = "('BIGINT', 'UBIGINT', 'DOUBLE')"
INT_TYPES = "('BIGINT', 'UBIGINT')"

# the keys read at a line's top and in an item, each refused when named twice (JSON parsers
# keep one of the values, each its own way); no other key is read, so naming one twice
# changes nothing
LINE_KEYS, ITEM_KEYS = ("id", "retrieved"), ("chunk_id", "rank", "score")
JSONL_LINE_CHECKS = [
    repeated_keys(only=LINE_KEYS),
    *string_field("id"),
    Check(
        "json_type(j, '$.retrieved') IS DISTINCT FROM 'ARRAY'",
        "'\"retrieved\": ' || coalesce(json_extract(j, '$.retrieved')::VARCHAR, 'missing')",
        '"retrieved" to be a list of {"chunk_id", "rank", "score"} objects',
    ),
    duplicate_key("'\"id\": ' || (j->>'$.id')", "j->>'$.id'", "query id"),
]

ITEM = "'\"' || query_id || '\" retrieved[' || pos || ']: '"
# an item of a line's "retrieved" list (run_items' rows) shown as the file writes it
WRITTEN_ITEM = ListItem("retrieved", "pos", "run_stage", "id")
JSONL_ITEM_CHECKS = [
    Check(
        "json_type(item) <> 'OBJECT'",
        ITEM + " || item",
        'an object {"chunk_id", "rank", "score"}',
        item=WRITTEN_ITEM,
    ),
    # the keys the typed read knows: it refuses an item naming one twice, and ignores others
    repeated_keys("item", "item", only=ITEM_KEYS),
    Check(
        "json_type(item) = 'OBJECT' AND (json_type(item, '$.chunk_id') IS DISTINCT FROM 'VARCHAR'"
        " OR trim(item->>'$.chunk_id') = '')",
        ITEM + " || item",
        'a non-empty string "chunk_id"',
        field="chunk_id",
        item=WRITTEN_ITEM,
    ),
    Check(
        "json_type(item, '$.rank') NOT IN " + INT_TYPES + " AND json_type(item, '$.rank') <> 'NULL'"
        " OR (json_type(item, '$.rank') IN "
        + INT_TYPES
        + " AND coalesce(TRY_CAST(item->>'$.rank' AS BIGINT), 0) < 1)",
        ITEM + " || '\"rank\": ' || json_extract(item, '$.rank')",
        "a rank that is a positive integer",
        field="rank",
        item=WRITTEN_ITEM,
    ),
    Check(
        "json_type(item, '$.score') <> 'NULL' AND NOT (json_type(item, '$.score') IN "
        + NUMBER_TYPES
        + " AND "
        + is_finite_number("item->>'$.score'")
        + ")",
        ITEM + " || '\"score\": ' || json_extract(item, '$.score')",
        "a finite numeric score",
        field="score",
        item=WRITTEN_ITEM,
    ),
    duplicate_key(
        ITEM + " || '\"chunk_id\": ' || (item->>'$.chunk_id')",
        "line, item->>'$.chunk_id'",
        "chunk id in this ranked list",
        order="pos",
    ),
    duplicate_key(
        ITEM + " || '\"rank\": ' || (item->>'$.rank')",
        "line, coalesce(item->>'$.rank', 'no rank at ' || pos)",
        "rank in this ranked list",
        order="pos",
    ),
]

TREC_COLUMNS = (
    "len(f) AS fields, array_to_string(f, ' ') AS text, f[1] AS qid, f[3] AS docno, "
    "f[4] AS rank_text, f[5] AS score_text, TRY_CAST(f[5] AS DOUBLE) AS score"
)

# trec_eval reads the first six fields of a line and ignores any after them (its own test run
# results.trunc has such); so does this read, and the typed read leaves such lines to it
TREC_RUN_CHECKS = [
    Check(
        "fields < 6",
        "text",
        "6 fields: query_id Q0 chunk_id rank score tag (more are ignored, as by trec_eval)",
    ),
    Check(
        f"fields >= 6 AND NOT {is_finite_number('score_text')}",
        "'score ' || score_text",
        "a finite numeric score",
    ),
    Check(
        f"fields >= 6 AND NOT {positive_whole_number('rank_text')}",
        "'rank ' || rank_text",
        "a rank that is a positive integer",
    ),
    duplicate_key("qid || ' ' || docno", "qid, docno", "chunk id in this query's ranked list"),
]

LONG_CHECKS = [
    Check("query_id IS NULL OR trim(query_id) = ''", "coalesce(query_id, '')", "a query_id"),
    Check("chunk_id IS NULL OR trim(chunk_id) = ''", "coalesce(chunk_id, '')", "a chunk_id"),
    Check(
        f"NOT {positive_whole_number('rank')}",
        "'rank ' || coalesce(rank, '')",
        "a rank that is a positive integer",
    ),
    Check(
        f"score IS NOT NULL AND NOT {is_finite_number('score')}",
        "'score ' || score",
        "a finite numeric score",
    ),
    duplicate_key(
        "query_id || ' ' || chunk_id", "query_id, chunk_id", "chunk id in this query's ranked list"
    ),
    duplicate_key("query_id || ' rank ' || rank", "query_id, rank", "rank in this query's list"),
]


@dataclass
class ReadRun:
    """A run file read into its table, with what naming and adding it needs: its format,
    its redacted config, and the problems of its config and of the file."""

    path: Path
    table: str
    fmt: str = ""
    config: dict = field(default_factory=dict)
    config_problems: list[Problem] = field(default_factory=list)
    file_problems: list[Problem] = field(default_factory=list)
    readable: bool = True
    # the columns read under other tools' names ({role: (alias, column)}): recorded in
    # ``column_mappings`` when the run is registered, never for a run that is refused
    mapping: dict[str, tuple[str, str]] = field(default_factory=dict)


def load_run(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    name: str | None = None,
    counted: Callable[[], JsonBytes] | None = None,
) -> str:
    """Load one run file into ``runs``; return the run's name.

    The name is ``name``, else the config sidecar's ``name``, else the file stem. The
    config's problems and the run file's are reported together (a bad config must not hide
    what else needs fixing); nothing is loaded unless both are clean. ``counted``: the
    file's bytes, when their count was begun earlier (:func:`counts_begun`).
    """
    table = f"run_table_{con.execute('SELECT count(*) FROM run_files').fetchone()[0]}"
    return register_run(con, read_run(con, path, table, counted), name)


def load_runs(
    con: duckdb.DuckDBPyConnection,
    paths: Sequence[Path],
    counted: dict[Path, Callable[[], JsonBytes]] | None = None,
) -> tuple[list[tuple[str, Path]], list[Problem]]:
    """Load every run file as :func:`load_run` does, in the given order: the ``(name, path)``
    of those loaded and the problems of all the others (``counted``: the bytes of those
    whose count was begun earlier, by path: :func:`counts_begun`).

    One file at a time: reading two at once, each on a cursor of its own, stopped paying
    once a read kept both cores busy (compare at 10k x 100 x 2: 2.33 s two at once, 2.36 s
    one at a time) and held ~90 MB more.
    """
    counted = counted or {}
    return gather(paths, lambda path: (load_run(con, path, counted=counted.get(path)), path))


def read_run(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    table: str,
    counted: Callable[[], JsonBytes] | None = None,
) -> ReadRun:
    """Read and check one run file into ``table``, keeping its problems (none raised);
    ``counted``: its bytes, when their count was begun earlier (:func:`counts_begun`)."""
    try:
        readers.require_file(path)
    except InputError as error:
        return ReadRun(path, table, file_problems=list(error.problems), readable=False)
    config, config_problems = _config_of(path)
    read = ReadRun(path, table, readers.detect_format(path), config, config_problems)
    discard(con, table)
    if row_tests.may_sort_pairs(con, path, read.fmt == readers.PARQUET):
        imported("numpy")
    stamp = readers.file_stamp(path)  # before any byte of it is read (but a count begun)
    try:
        with progress.shown(con, path), readers.within_memory(path):
            read.fmt, read.mapping = _load_table(con, path, read.fmt, table, counted)
    except InputError as error:
        read.file_problems = list(error.problems)
    except BaseException:
        with suppress(duckdb.Error):  # never in place of what stopped the read
            discard(con, table)
        raise
    if not _one_version(path, stamp, counted):
        read.file_problems = [
            Problem(redact_path(path), None, "changed while it was read", UNCHANGED)
        ]
    if read.file_problems:
        discard(con, table)
    return read


# The tables a run's read makes beside its run table: the typed read's spans
# (row_tests.SPANS_SQL) and the ordering pass's (trec_order), named after the run table; the
# validating reads' staging tables (readers.stage_*), one of each at a time
RUN_HELPER_TABLES = ("{table}_spans", "{table}_pass", "{table}_ties")
STAGING_TABLES = ("run_stage", "run_stage_all", "run_items")


def discard(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Drop the run table ``table`` and every table its read makes beside it, where they
    exist: a run that is refused, or whose read failed part way, leaves nothing behind (the
    next run read takes the same table name, and reads its list lengths from spans when
    they exist: :func:`_run_queries_sql`)."""
    names = [table, *(name.format(table=table) for name in RUN_HELPER_TABLES), *STAGING_TABLES]
    readers.drop_tables(con, names)


UNCHANGED = "a file that stays as it is while it is read (read it again once it is written)"


def _one_version(path: Path, stamp: tuple | None, counted: Callable[[], JsonBytes] | None) -> bool:
    """Whether the file at ``path`` is still the one whose :func:`readers.file_stamp` was
    ``stamp`` before its read, and its bytes' count (``counted``, begun earlier) was of that
    one too: a typed read trusts what a scan of the bytes proved, of one version only."""
    try:
        counted_stamp = counted().stamp if counted is not None else stamp
    except OSError:  # the count could not read it: it changed
        return False
    return stamp is not None and readers.file_stamp(path) == stamp == counted_stamp


def _name_taken(used_by: str, path: Path) -> str:
    """What a run whose name ``used_by``'s run took should have been: another name, or, for
    the same file given twice (``compare gold a a``), that file once."""
    if Path(used_by).resolve() == Path(path).resolve():
        return "each run file once: this file is given twice"
    return f'a run name not already used by {redact_path(used_by)} (set "name" in its .config.json)'


def register_run(con: duckdb.DuckDBPyConnection, read: ReadRun, name: str | None = None) -> str:
    """Name a read run and add it to ``runs``; with any problem, its table is dropped and
    every problem raised (the config's, a name already used, the file's)."""
    if not read.readable:
        raise InputError(read.file_problems)
    # every run loaded so far, read once: its name, path and table (the names each call
    # waits to take the interpreter's lock back: db.connect)
    loaded = {run: (path, tbl) for run, path, tbl in con.execute(REGISTERED_SQL).fetchall()}
    run = name or str(read.config.get("name") or _free_stem(loaded, read.path))
    problems = list(read.config_problems)
    if run in loaded:
        problems.append(
            Problem(redact_path(read.path), None, run, _name_taken(loaded[run][0], read.path))
        )
    problems += read.file_problems
    if problems:
        discard(con, read.table)
        raise InputError(problems)
    con.execute(
        "INSERT INTO run_files VALUES ($run, $path, $fmt, $config, $table)",
        {
            "run": run,
            "path": str(read.path),
            "fmt": read.fmt,
            "config": _json(read.config),
            "table": read.table,
        },
    )
    tables = [*(tbl for _, tbl in loaded.values()), read.table]
    con.execute(f"{_run_queries_sql(con, read.table)}; {runs_view_sql(tables)}")
    readers.record_mapping(con, read.path, read.mapping)
    return run


REGISTERED_SQL = "SELECT run, path, tbl FROM run_files"


def record_run_queries(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Add each query of the run held in ``table`` (a generated name, registered in
    ``run_files``, which gives the run's name) to ``run_queries``, with the number of chunks
    its list holds."""
    con.execute(_run_queries_sql(con, table))


def _run_queries_sql(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """The SQL that adds the queries of the run registered with ``table`` to
    ``run_queries`` (from its spans, dropped then, when its typed read counted them)."""
    run = f"(SELECT run FROM run_files WHERE tbl = '{table}')"
    if row_tests.spans_exist(con, table):  # counted by the typed read: the same rows
        return (
            f"INSERT INTO run_queries SELECT {run}, qid, listed FROM {table}_spans; "
            f"DROP TABLE {table}_spans"
        )
    return f"INSERT INTO run_queries SELECT {run}, qid, count(docno) FROM {table} GROUP BY qid"


def _config_of(path: Path) -> tuple[dict, list[Problem]]:
    """The run's redacted config and, when it cannot be read, its problems (config ``{}``)."""
    try:
        return load_config(path), []
    except InputError as error:
        return {}, list(error.problems)


def _load_table(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    fmt: str,
    table: str,
    counted: Callable[[], JsonBytes] | None = None,
) -> tuple[str, dict[str, tuple[str, str]]]:
    """Read the run file into ``table``; return its format (a TREC file is always a run)
    and the columns it names as other tools do (long form only: :func:`_load_long`)."""
    if fmt == readers.JSONL:
        _load_jsonl(con, path, table, counted)
    elif fmt in (readers.TREC_RUN, readers.TREC_QRELS):
        _load_trec(con, path, table)
        fmt = readers.TREC_RUN
    else:
        return fmt, _load_long(con, path, fmt, table)
    return fmt, {}


def _free_stem(loaded: dict, path: Path) -> str:
    """The file stem, or the whole file name when another run already has that stem
    (``results.test`` and ``results.trunc`` both have the stem ``results``); ``loaded``: the
    runs loaded so far, by name."""
    stem = run_stem(path)
    return path.name if stem in loaded else stem


def refresh_runs_view(con: duckdb.DuckDBPyConnection) -> None:
    """``runs`` = every loaded run's table; table names are generated, never user text."""
    tables = [row[0] for row in con.execute("SELECT tbl FROM run_files").fetchall()]
    con.execute(runs_view_sql(tables))


def runs_view_sql(tables: list[str]) -> str:
    """The SQL that makes ``runs`` the union of the run ``tables`` (in their names' order;
    none: no rows, as db.connect makes it)."""
    parts = [
        f"SELECT (SELECT run FROM run_files WHERE tbl = '{t}') AS run, qid AS query_id, "
        f"docno AS chunk_id, position AS rank, score FROM {t} WHERE docno IS NOT NULL"
        for t in sorted(tables)
    ]
    return "CREATE OR REPLACE VIEW runs AS " + (" UNION ALL ".join(parts) or NO_RUNS)


NO_RUNS = (
    "SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS query_id, NULL::VARCHAR AS chunk_id, "
    "NULL::BIGINT AS rank, NULL::DOUBLE AS score WHERE false"
)


def _json(value: dict) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=False)


# Fast paths: a typed read plus cheap whole-table tests. A file that fails any of them is
# read again by the validating path, which names every problem with its line.
# Most writers number each query's list 1..n (TREC runs in trec_eval's order, long-form
# runs): then a row's position is its rank, a virtual column (no sort, nothing stored).
# trec_order.trec_positions_hold and dense_ranks decide whether a run is so numbered.
RANKS_AS_POSITIONS_STEPS = (
    """CREATE TABLE {table} (qid VARCHAR, docno VARCHAR, rank BIGINT, score DOUBLE,
                             typed BOOLEAN, position BIGINT AS (rank))""",
    "INSERT INTO {table} {rows}",
)

# The validating checks read a rank through DOUBLE (positive_whole_number): exact up to
# 2^53. A typed read leaves a larger rank to them.
MAX_EXACT_RANK = 2**53


def canonical_rank(text: str) -> str:
    """SQL: the text ``text`` is a rank written as its BIGINT writes it (``1``; not ``01``,
    ``+1``, ``1.0``, ``1e0``, ``0x1`` or ``1_0``, which DuckDB's casts read their own way and
    the validating checks read theirs), at most :data:`MAX_EXACT_RANK`. (A regular expression
    of digits instead took 0.72 s against 0.41 s for 7M ranks.)"""
    value = f"TRY_CAST({text} AS BIGINT)"
    return f"(CAST({value} AS VARCHAR) = {text} AND {value} <= {MAX_EXACT_RANK})"


# A TREC run's rows, each marked whether it is typed: read as the validating read reads the
# line (trimmed, split on runs of whitespace, the rank's and score's text checked), else
# left to it. All fields text, split on one separator, no quotes, no comments (a '#' inside
# a field is text; a line starting with '#' is left to the validating read); typed when
# - all six fields are present (an empty field between two separators reads as NULL;
#   trec_eval and the validating read split on runs of whitespace and see five fields);
# - no field holds what the validating read trims from the line's ends (the Unicode spaces
#   trim() removes: a first field starting with one, a tag of nothing else; the other
#   characters it splits on are looked for in the whole file: TREC_OTHER_SEPARATORS);
# - the rank is canonical (canonical_rank) and the score's text casts to DOUBLE, as the
#   validating checks cast it, with no digit separator (without_digit_separator).
# A test of each row that a byte absent from the whole file decides is left out (trec_rows_sql:
# TREC_ROW_TESTS); together they cost 0.6 s of CPU on a 7M-line run, the scan 0.05 s.
TREC_ALWAYS_TESTS = (
    f"{canonical_rank('rank')} AND TRY_CAST(score AS DOUBLE) IS NOT NULL "
    "AND q0 IS NOT NULL AND tag IS NOT NULL"
)
# each row test, and the bytes without which it holds for every row (None: non-ASCII bytes)
TREC_ROW_TESTS = (
    (without_digit_separator("score"), b"_"),
    ("NOT starts_with(qid, '#')", b"#"),  # the first field starts its line
    ("NOT (qid >= chr(128) AND ltrim(qid) <> qid) AND NOT (tag >= chr(128) AND trim(tag) = '')",
     None),
)  # fmt: skip
TREC_ROWS_SELECT = """
SELECT qid, docno, TRY_CAST(rank AS BIGINT) AS rank, TRY_CAST(score AS DOUBLE) AS score,
       coalesce({tests}, false) AS typed
FROM read_csv($path, delim=$delim, header=false, auto_detect=false, quote='', escape='',
              columns={{'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR',
                        'rank': 'VARCHAR', 'score': 'VARCHAR', 'tag': 'VARCHAR'}})
"""


def trec_rows_sql(held: set[bytes | None]) -> str:
    """The typed rows of a TREC run whose file holds the bytes ``held`` (None for a byte
    outside ASCII, :func:`~ragrecall_core.inputs.readers.bytes_held`): every row test but
    those such a file cannot fail."""
    tests = [TREC_ALWAYS_TESTS] + [test for test, needs in TREC_ROW_TESTS if needs in held]
    return TREC_ROWS_SELECT.format(tests=" AND ".join(tests))


# every row test: a file that may hold anything
TREC_ROWS_SQL = trec_rows_sql({needs for _, needs in TREC_ROW_TESTS})

# Any other order is sorted as trec_eval sorts: score descending, ties by docno descending.
RANKED_TREC_SQL = f"""
CREATE TABLE {{table}} AS
SELECT qid, docno, rank, score, typed,
       row_number() OVER (PARTITION BY qid ORDER BY {TREC_ORDER}) AS position
FROM ({{rows}})
"""


# The bytes a TREC run read split on a space (or a tab) must not hold: the other characters
# the validating read splits a line on, as trec_eval does (readers.FIELDS_SQL: tab or space,
# vertical tab, form feed; a carriage return but in a line's "\r\n" stops DuckDB's reader),
# and \x01, on which its line reader splits (refusing the line). Looked for in the whole file
# at memchr speed: a test of each row's fields took 0.45 s of CPU per million lines.
TREC_OTHER_SEPARATORS = {
    delim: (*(c.encode() for c in readers.TREC_SPACE_CHARS if c not in (delim, "\r")), b"\x01")
    for delim in (" ", "\t")
}


def read_trec_typed(
    con: duckdb.DuckDBPyConnection, table: str, params: dict, rows: str = TREC_ROWS_SQL
) -> bool:
    """The typed read of a TREC run split on ``$delim``: positions are ranks when the file
    is in trec_eval's order or in the writer's, its ties numbered again
    (:func:`~ragrecall_core.inputs.trec_order.trec_positions_hold`), else numbered by a
    second read that sorts them."""
    unsorted = [step.format(table=table, rows=rows) for step in RANKS_AS_POSITIONS_STEPS]
    ranked = RANKED_TREC_SQL.format(table=table, rows=rows)
    # the order test runs on one core while the other fetches the pairs (it may number tied
    # rows again meanwhile: their ranks stay within their group's, all the tests read of them)
    return read_unsorted_first(
        con,
        table,
        unsorted,
        trec_order.trec_positions_hold,
        ranked,
        params,
        beside=True,
        spans=trec_order.BLOCK_SPANS,
    )


# ids read as JSON, not VARCHAR: a VARCHAR column would turn the number 5 into "5"; a large
# file's chunk ids are read as text, and its scores as DOUBLE, when its bytes prove each
# chunk id a string and each score a number (StringsTest: 7M items, 0.3-0.4 CPU s and ~27 MB
# of peak less than their JSON texts cut out for the chunk ids; ~0.3 CPU s for the scores,
# which a DOUBLE column takes as yyjson parsed them, not written out as text and cast back)
ITEMS_TYPE = 'STRUCT(chunk_id JSON, "rank" JSON, score JSON)[]'
TEXT_ITEMS_TYPE = 'STRUCT(chunk_id VARCHAR, "rank" JSON, score DOUBLE)[]'
JSONL_LINES = """
SELECT id, retrieved FROM read_json($path, format='newline_delimited',
                                    columns={{'id': 'JSON', 'retrieved': '{items}'}})
"""
JSONL_FILE_LINES = JSONL_LINES.format(items=ITEMS_TYPE)
JSONL_TEXT_LINES = JSONL_LINES.format(items=TEXT_ITEMS_TYPE)

# DuckDB's JSON reader accepts trailing commas and a vertical tab or a form feed at a line's
# ends or alone on a line (NOT_JSON_SPACES: C's whitespace, not JSON's); JSON does neither
# (the validating path names them). A key it reads named twice (a line's "id" or
# "retrieved", an item's "chunk_id", "rank" or "score", however escaped) fails the typed
# read itself, as the validating read refuses it; no other key is read by either. One pass
# over the lines, their text alone: none is parsed (the keys of every line took 0.2 of the
# pass's 0.44 CPU s over 280 MB). Most files are cleared without it by counting their commas
# (strict_json_test), unless they hold a byte of NOT_JSON_SPACES (LINE_READER_BYTES).
# (Each looked for by contains(): a regular expression of the two, alone or beside the
# trailing comma's, took 0.9 CPU s over 280 MB of lines, the whole pass 1.1 s against 0.4.)
NOT_JSON_SPACES = ("\v", "\f")
NOT_JSON_SPACE_SQL = " OR ".join(f"contains(text, chr({ord(c)}))" for c in NOT_JSON_SPACES)
STRICT_JSON_SQL = f"""
SELECT NOT EXISTS (SELECT 1 FROM ({readers.FAST_LINES_SQL})
                   WHERE regexp_matches(text, '{readers.TRAILING_COMMA}') OR {NOT_JSON_SPACE_SQL})
"""

# The items of the lines ({lines}: ``id`` JSON, ``retrieved`` a list of ITEMS_TYPE), one row
# each, read in the same statement that makes the run table: no table of lines between (7M
# items: 5.1 -> 3.0 s, peak -200 MB). What is wrong with a line or an item makes its row
# untyped (``item_typed``), so typed_tests send the file to the validating read: an id that is
# no string, a "retrieved" that is missing or null (the line keeps a row for that), an item
# whose chunk id / rank / score is wrongly typed. Each item's values are checked on their
# JSON text, which DuckDB writes in one canonical form: a string starts with '"'; an integer
# rank is exactly the text of its BIGINT (1.0, 1e2 and "3" are not); a score is any text that
# casts to DOUBLE (a quoted one does not). A line with an empty list keeps one row without a
# chunk (``empty``), so the run lists it. A chunk id's JSON text without a backslash (which
# every escape starts) is its quotes around its value: cut out, not parsed again (7M items:
# 0.15-0.4 s CPU less). A chunk id read as text and a score read as DOUBLE (JSONL_TEXT_LINES,
# VALUES_TYPED) are their values already.
# A rank written as its place's text (``at_place``: none given, or the text of ``pos``, which
# is canonical) is neither cast nor written back: most lists are so ranked, and the listed
# read needs no rank but whether each is at its place (7M items: ~0.1 s CPU less).
JSONL_ITEMS_SQL = """
SELECT id, pos, empty, docno, unranked, at_place, TRY_CAST(rank_text AS BIGINT) AS rank, score,
       line_typed AND (empty OR chunk_typed
       AND CASE WHEN at_place THEN true
                ELSE TRY_CAST(rank_text AS BIGINT)::VARCHAR IS NOT DISTINCT FROM rank_text END
       AND (unscored OR score IS NOT NULL)) AS item_typed
FROM (SELECT id, pos, empty, line_typed, {docno} AS docno, {chunk_typed} AS chunk_typed,
             r.rank IS NULL AS unranked, r.rank::VARCHAR AS rank_text,
             r.rank IS NULL OR r.rank::VARCHAR = pos::VARCHAR AS at_place,
             {score} AS score, r.score IS NULL AS unscored
      FROM (SELECT id, line_typed, empty, unnest(items) AS r, generate_subscripts(items, 1) AS pos
            FROM (SELECT id->>'$' AS id,
                         json_type(id) = 'VARCHAR' AND retrieved IS NOT NULL AS line_typed,
                         coalesce(len(retrieved) = 0, true) AS empty,
                         CASE WHEN len(retrieved) > 0 THEN retrieved ELSE [NULL] END AS items
                  FROM ({lines}))))
"""
# an item's chunk id and score, and whether the chunk id is typed, read as JSON (a string:
# its text starts with a quote; a score: a text that casts) and typed (JSONL_TEXT_LINES: a
# chunk id a string and a score a number by StringsTest, whatever their values)
VALUES_AS_JSON = {
    "docno": "CASE WHEN contains(r.chunk_id, '\\') THEN r.chunk_id->>'$' "
    "ELSE (r.chunk_id::VARCHAR)[2:-2] END",
    "chunk_typed": "coalesce(starts_with(r.chunk_id::VARCHAR, '\"'), false)",
    "score": "TRY_CAST(r.score::VARCHAR AS DOUBLE)",
}
VALUES_TYPED = {"docno": "r.chunk_id", "chunk_typed": "r.chunk_id IS NOT NULL", "score": "r.score"}

# Most lists are in rank order (each item's rank, where given, is its place in the list):
# then a row's position is its place, and nothing is sorted. Its rank is its position (a
# virtual column: the given rank is needed only to decide that, and 7M BIGINTs are 56 MB of
# the read's peak), so an item whose given rank is not its place keeps its place negated,
# and in_list_order sends the run to the sorted read (as a rank below 1, never a place: the
# sorted read's rows carry the ranks given, which the whole-table tests see). A place is a
# 32-bit INTEGER (a list the fast read takes is at most 2 MB long); the load cache keeps it
# as BIGINT. A typed item without a rank is typed NULL (the whole-table tests take it as
# typed; its rank is then NULL, as the validating read has it): the strict JSON test counts
# the ranks given (JSON_COMMAS_SQL).
LISTED_JSONL_STEPS = (
    """CREATE TABLE {table} (qid VARCHAR, docno VARCHAR,
                             rank BIGINT AS (CASE WHEN typed IS NOT NULL THEN abs(position) END),
                             score DOUBLE, typed BOOLEAN, position INTEGER)""",
    """INSERT INTO {table} (qid, docno, score, typed, position)
       SELECT id, docno, score,
              CASE WHEN item_typed AND unranked AND NOT empty THEN NULL ELSE item_typed END,
              CASE WHEN empty THEN NULL WHEN at_place THEN pos ELSE -pos END
       FROM ({items})""",
)
# every rank given is its item's place, and every query on one line (a query on two lines
# has more rows than its longest list; an empty list is one row): read from the table's spans,
# which also count each query's scores and typed ranks given (JSON_COMMAS_SQL)
LISTED_SPANS = (
    ", max(coalesce(position, 1)) AS longest, min(position) AS lowest, count(score) AS scored,"
    " count(docno) FILTER (WHERE typed) AS ranked"  # (not count(*): 0.08 s CPU more for 7M)
)
LISTED_OK_SQL = "SELECT count(*) = 0 FROM {table}_spans WHERE rows <> longest OR lowest < 0"

# Lists in any other order are sorted by rank (else list position); in the same sort, a
# repeated rank follows the rank given before it, and an id on two lines has more rows
# than its longest list.
RANKED_JSONL_SQL = """
CREATE TABLE {table} AS
SELECT id AS qid, docno, rank, score,
       item_typed AND NOT coalesce(rank = lag(rank IGNORE NULLS) OVER ranked, false)
       AND count(*) OVER query = max(pos) OVER query AS typed,
       CASE WHEN NOT empty THEN row_number() OVER ranked END AS position
FROM ({items})
WINDOW ranked AS (PARTITION BY id ORDER BY coalesce(rank, pos), pos), query AS (PARTITION BY id)
"""


# The commas a file of JSON lines read as listed may hold and be strict JSON with only "id"
# and "retrieved" at each line's top (strict_json_holds): a line's object has one comma
# fewer than its keys, its list one fewer than its items (an empty list one row, none),
# each item one fewer than its keys, which are at least "chunk_id" and each score and rank
# given (a typed item without a rank is typed NULL: LISTED_JSONL_STEPS): a row each (an
# item, or an empty list's line) and a score and a rank given each, summed over the table's
# spans (LISTED_SPANS: a scan of the whole table took ~0.1 s of a 7M-row run).
JSON_COMMAS = "coalesce(sum(rows) + sum(scored) + sum(ranked), 0)"
JSON_COMMAS_SQL = f"SELECT {JSON_COMMAS} FROM {{table}}_spans"
# A file's bytes prove each chunk id read as text a string (StringsTest) when it holds no
# backslash (each string is then two quotes around its bytes), no more commas than
# JSON_COMMAS_SQL allows (its keys are "id" and "retrieved" at each line's top, "chunk_id"
# and the ranks and scores given in each item), one brace per line and per item and one
# bracket per line (no value is an object or a list), and two quotes for each key, each id
# and each chunk id: a chunk id that is no string would leave two quotes missing, and no
# other value but a score read as DOUBLE can make up for them (a rank written as a string is
# untyped). A score read as DOUBLE takes "2" as 2 and true as 1: the file's "score" keys each
# followed by a number at once or after one space (JsonBytes.number_scores) must be as many
# as the scores read, so no score is a string, a boolean or anything but a number.
JSON_SHAPE_SQL = f"""
SELECT {JSON_COMMAS} AS commas, count(*) AS lines, coalesce(sum(listed), 0) AS items,
       coalesce(sum(scored) + sum(ranked), 0) AS given, coalesce(sum(scored), 0) AS scored
FROM {{table}}_spans
"""
# From a file of this many bytes (a million items or so) its bytes are counted (numpy, in
# 1 MiB slices, in a thread beside the typed read: 0.15-0.2 s CPU for 350 MB, against 1.3 s
# for the strict pass); below it the strict pass is as quick and numpy is not imported.
COMMAS_COUNTED_FROM = 50_000_000
# bytes after which the strict pass's line reader reads a line otherwise than DuckDB's JSON
# reader (or not at all): \x01 splits it, a byte outside ASCII may be UTF-8 that one of the
# two refuses; and a carriage return but in a file whose every line ends "\r\n" (one
# elsewhere, or lines ended both ways, break it); and the bytes DuckDB's JSON reader skips
# at a line's ends and JSON refuses (NOT_JSON_SPACES), which only the strict pass finds
LINE_READER_BYTES = (b"\x00", b"\x01", *(c.encode() for c in NOT_JSON_SPACES))


class JsonBytes(NamedTuple):
    """What a file of JSON lines holds, counted byte by byte (:func:`json_bytes`)."""

    commas: int
    quotes: int
    braces: int  # "{"
    brackets: int  # "["
    escapes: bool  # a backslash anywhere
    plain: bool  # the strict pass's line reader reads its lines as DuckDB's JSON reader does
    # each `e":` followed by a number's first byte (a digit or "-") at once or after one
    # space: in a file without a backslash, a key ending in "e" followed by a number
    number_scores: int = 0
    stamp: tuple | None = None  # readers.file_stamp before the count: the version counted


def counting(path: Path) -> Callable[[], JsonBytes] | None:
    """The bytes of a large file of JSON lines at ``path`` counted (:func:`json_bytes`) from
    now on, in a thread of its own: the function that waits for them; None for a small file,
    or one whose first line shows that its count cannot spare it a pass (:func:`bare_lines`)."""
    if path.stat().st_size < COMMAS_COUNTED_FROM or not bare_lines(path):
        return None
    return in_background(json_bytes, path)


def bare_lines(path: Path) -> bool:
    """Whether the file's first line (read from its first slice) holds only what the byte
    count of :func:`json_bytes` accounts for: the keys "id" and "retrieved", items of
    "chunk_id", "rank" and "score", no comma inside a string. A file of runs with text or
    metadata in its items (most RAG tools write them) has more commas and quotes than its
    keys and items need: the count (0.8 CPU s for 280 MB) could neither spare it the strict
    pass nor prove its chunk ids strings. A first line that is no such object, or not whole in
    the slice, leaves the count to decide."""
    import json

    with path.open("rb") as handle:
        head = handle.read(readers.SCAN_SLICE)
    line, ended, _ = head.partition(b"\n")
    try:
        record = json.loads(line) if ended else None
    except (ValueError, RecursionError):  # not JSON (or nested past Python's stack)
        return True
    if not isinstance(record, dict) or not isinstance(record.get("retrieved"), list):
        return True
    items = record["retrieved"]
    strings = [record.get("id"), *(i.get("chunk_id") for i in items if isinstance(i, dict))]
    return (
        set(record) <= set(LINE_KEYS)
        and all(isinstance(i, dict) and set(i) <= set(ITEM_KEYS) for i in items)
        and not any(isinstance(text, str) and "," in text for text in strings)
    )


def counts_begun(paths: Sequence[Path]) -> dict[Path, Callable[[], JsonBytes]]:
    """The bytes of each large file of JSON lines among the run files ``paths`` counted
    (:func:`counting`) from now on, by path: begun before the gold is loaded, whose load
    leaves a core idle, they are mostly counted when the run's read, which keeps both
    cores busy, starts (7M items: 0.16 s of CPU and numpy's import off the read's cores).
    A path that is no readable file is left to the read, which names its problem."""
    begun = {}
    for path in paths:
        try:
            readers.require_file(path)
            if readers.detect_format(path) == readers.JSONL and (waits := counting(path)):
                begun[path] = waits
        except (InputError, OSError, UnicodeError):
            continue
    return begun


def strict_json_test(
    counted: Callable[[], JsonBytes] | None,
) -> Callable[[duckdb.DuckDBPyConnection, str, dict], bool]:
    """The test of a file of JSON lines (``$path``) read as listed into a table: whether it
    is strict JSON, as far as the typed read must know (the test of :data:`STRICT_JSON_SQL`:
    no trailing comma, no whitespace but JSON's). Each comma beyond those a line's keys and
    items need is a trailing one, or follows a key beyond "id" and "retrieved" at a line's
    top: a file with no more commas (``counted``, :func:`counting`) than
    :data:`JSON_COMMAS_SQL` allows has no trailing one, and is not read again (a comma
    inside a string only adds to the count)."""

    def holds(con: duckdb.DuckDBPyConnection, table: str, params: dict) -> bool:
        counts = counted() if counted else None
        if counts is not None and counts.plain:
            if counts.commas <= con.execute(JSON_COMMAS_SQL.format(table=table)).fetchone()[0]:
                return True
        return read_typed(con, [STRICT_JSON_SQL], params)

    return holds


@dataclass
class StringsTest:
    """The test of a file of JSON lines read as listed with its chunk ids as text: the
    ``strict`` test, once its bytes (``counted``) prove each chunk id a string
    (:data:`JSON_SHAPE_SQL`). ``proven`` says whether they did: then the table is the one
    the chunk ids read as JSON make, and so is every test's outcome."""

    counted: Callable[[], JsonBytes]
    strict: Callable[[duckdb.DuckDBPyConnection, str, dict], bool]
    proven: bool = False

    def __call__(self, con: duckdb.DuckDBPyConnection, table: str, params: dict) -> bool:
        counts = self.counted()
        if not counts.escapes:
            shape = con.execute(JSON_SHAPE_SQL.format(table=table)).fetchone()
            commas, lines, items, given, scored = shape
            # the commas leave no key but "score" ending in "e", the braces no object to
            # hold one: each score read is a number when as many keys are followed by one
            self.proven = (
                counts.commas <= commas
                and counts.braces == lines + items
                and counts.brackets == lines
                and counts.quotes == 2 * (3 * lines + 2 * items + given)
                and counts.number_scores == scored
            )
        # proven, the file's commas are within JSON_COMMAS_SQL's: the strict test's own
        # count would hold, and only a file that is not plain needs its strict pass
        return self.proven and (counts.plain or self.strict(con, table, params))


def json_bytes(path: Path) -> JsonBytes:
    """The commas, quotes, braces and brackets in the file at ``path``, whether it holds a
    backslash, whether it is ``plain``: not when the strict pass's line reader could read
    it otherwise than DuckDB's JSON reader (:data:`LINE_READER_BYTES`, a byte outside
    ASCII, a carriage return but at the end of every line, a line of
    readers.FAST_LINE_BYTES or more), and its ``number_scores`` (:func:`number_scores`)."""
    import numpy as np

    stamp = readers.file_stamp(path)
    counts = np.zeros(4, np.int64)
    wanted = np.frombuffer(b',"{[', np.uint8)
    escapes, plain, line_start, offset, scores = False, True, 0, 0, 0
    tail = np.zeros(0, np.uint8)
    line_ends = readers.LineEnds()
    for data in readers.file_slices(path):
        held = np.frombuffer(data, np.uint8)
        counts += [np.count_nonzero(held == byte) for byte in wanted]
        # the keys begun in the last slice's last bytes (their ends are in this one), then
        # those this slice holds whole
        scores += number_scores(np.concatenate((tail, held[: SCORE_KEY_BYTES - 1])))
        scores += number_scores(held)
        tail = held[1 - SCORE_KEY_BYTES :].copy()  # the buffer is read into again
        escapes = escapes or data.find(b"\\") >= 0
        if plain:
            plain, line_start = _plain_slice(data, line_ends, line_start, offset)
        offset += len(data)
    plain = plain and offset - line_start < readers.FAST_LINE_BYTES and line_ends.one_way
    return JsonBytes(*(int(n) for n in counts), escapes, plain, scores, stamp)


# the longest key end number_scores looks for: `e": 1`
SCORE_KEY_BYTES = 5


def number_scores(held) -> int:
    """How many times ``held`` (a numpy array of bytes) holds `e":` followed by a digit or a
    "-" at once or after one space, begun where the whole of the longest such end fits
    (:data:`SCORE_KEY_BYTES`): the others are counted with the next slice's first bytes. In
    a file without a backslash each quote opens or closes a string, so such a quote closes
    a key ending in "e" (the "e" of a number or a literal is never followed by a quote),
    followed by a number (7M items: ~0.1 s CPU)."""
    import numpy as np

    starts = len(held) - (SCORE_KEY_BYTES - 1)
    if starts <= 0:
        return 0
    at = np.flatnonzero(held[:starts] == ord("e"))
    at = at[(held[at + 1] == ord('"')) & (held[at + 2] == ord(":"))]
    first = held[at + 3]
    first = np.where(first == ord(" "), held[at + 4], first)
    return int(np.count_nonzero(((first >= ord("0")) & (first <= ord("9"))) | (first == ord("-"))))


def _plain_slice(
    data: bytearray, line_ends: readers.LineEnds, line_start: int, offset: int
) -> tuple[bool, int]:
    """Whether a slice of a file (at ``offset``) keeps it plain (:func:`json_bytes`), and
    where its last line starts. Only a line that began before this slice can be too long:
    one within it is shorter than a slice (SCAN_SLICE < FAST_LINE_BYTES), so its first and
    last line feed tell (memchr: 0.10 s less for 350 MB than every line feed's place)."""
    if readers.slice_holds(data, LINE_READER_BYTES, outside_ascii=True):
        return False, line_start
    line_ends.add(data)
    first = data.find(b"\n")
    if first >= 0:
        if offset + first - line_start >= readers.FAST_LINE_BYTES:
            return False, line_start
        line_start = offset + data.rfind(b"\n") + 1
    return offset + len(data) - line_start < readers.FAST_LINE_BYTES, line_start


def in_list_order(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether, in a run ``table`` read as listed, every rank given is its item's place and
    every query is on one line."""
    return bool(con.execute(LISTED_OK_SQL.format(table=table)).fetchone()[0])


def read_jsonl_typed(
    con: duckdb.DuckDBPyConnection,
    table: str,
    lines: str,
    params: dict | None = None,
    also: Callable[[duckdb.DuckDBPyConnection, str, dict | None], bool] | None = None,
    values: dict = VALUES_AS_JSON,
) -> bool:
    """The typed read of JSON lines (``lines``: SQL giving ``id`` and ``retrieved``, its
    chunk ids and scores read as ``values`` says), with its whole-table tests and the
    ``also`` test of the file: positions are list places when the lists are in rank order,
    else numbered by a second read that sorts them."""
    items = JSONL_ITEMS_SQL.format(lines=lines, **values)
    listed = [step.format(table=table, items=items) for step in LISTED_JSONL_STEPS]
    ranked = RANKED_JSONL_SQL.format(table=table, items=items)
    return read_unsorted_first(
        con, table, listed, in_list_order, ranked, params, also, spans=LISTED_SPANS
    )


def read_unsorted_first(
    con: duckdb.DuckDBPyConnection,
    table: str,
    unsorted: list[str],
    in_order: Callable[[duckdb.DuckDBPyConnection, str], bool],
    sorted_read: str,
    params: dict | None,
    also: Callable[[duckdb.DuckDBPyConnection, str, dict | None], bool] | None = None,
    beside: bool = False,
    spans: str = "",
) -> bool:
    """A typed read that numbers positions without a sort when it can: the ``unsorted``
    steps make ``table`` and its spans (:func:`row_tests.make_spans`, with the ``spans``
    aggregates ``in_order`` reads there), its whole-table tests start (:func:`typed_tests`),
    ``also(con, table, params)`` (a test of the file) and ``in_order`` run; with ``beside``,
    ``in_order`` runs first, on a cursor in a thread of its own, while the others do, begun
    before the spans are made (it calls its ``spans_made`` argument to wait for them). When
    ``in_order`` says the positions hold, the whole-table tests decide; otherwise the table is
    made again by ``sorted_read``, sorting, and its rows tested again (the sort may find more
    wrong with them; the pairs are the same). An ``in_order`` that fails (a DuckDB error)
    leaves the file to the validating read, as a failed cast does. On failure the table and
    its spans are dropped."""
    if not read_typed(con, unsorted, params):
        return False  # the sorted read would cast the same values
    made = threading.Event()
    ordered = (
        in_background(on_cursor, _order_test, con, table, partial(in_order, spans_made=made.wait))
        if beside
        else None
    )
    try:
        try:
            rows = row_tests.make_spans(con, table, spans)
        finally:
            made.set()  # made or failed: the order test goes on (its own read of them fails)
        passed = typed_tests(con, table, rows)
        fits = _file_test_holds(also, con, table, params)
    finally:
        holds = ordered() if ordered else None  # never left running on a table to be dropped
    if not ordered and fits:  # not begun beside the others: its turn now
        holds = _order_test(con, table, in_order)
    if not fits or holds is None:
        passed()  # its last test may read the table: never left running on it
        return _kept(con, table, False)
    if holds:
        return _kept(con, table, passed())
    if not _kept(con, table, passed()):
        return False
    con.execute(f"DROP TABLE {table}")
    if not read_typed(con, [sorted_read], params):
        return _kept(con, table, False)
    return _kept(con, table, con.execute(ROWS_OK_SQL.format(table=table)).fetchone()[0])


def _order_test(
    con: duckdb.DuckDBPyConnection,
    table: str,
    in_order: Callable[[duckdb.DuckDBPyConnection, str], bool],
) -> bool | None:
    """``in_order(con, table)``, or None when it fails (a DuckDB error)."""
    try:
        return bool(in_order(con, table))
    except duckdb.Error:
        return None


def _file_test_holds(
    test: Callable[[duckdb.DuckDBPyConnection, str, dict | None], bool] | None,
    con: duckdb.DuckDBPyConnection,
    table: str,
    params: dict | None,
) -> bool:
    """``test(con, table, params)``, or True without one; False on a DuckDB error."""
    try:
        return test is None or test(con, table, params)
    except duckdb.Error:
        return False


def _kept(con: duckdb.DuckDBPyConnection, table: str, ok: bool) -> bool:
    """``ok``; the table (and its spans) dropped when it is False."""
    if not ok:
        row_tests.drop(con, table)
    return bool(ok)


def read_typed(con: duckdb.DuckDBPyConnection, steps: list[str], params: dict | None) -> bool:
    """Run a typed read's steps in turn: a ``SELECT`` step is a test that must hold.
    False as soon as the file does not fit (a parse or cast error, or a failed test)."""
    try:
        for call, test in _step_calls(steps):
            result = con.execute(call, params if "$path" in call else None)
            if test and not result.fetchone()[0]:
                return False
    except duckdb.Error:
        return False
    return True


def _step_calls(steps: list[str]) -> list[tuple[str, bool]]:
    """A typed read's ``steps`` in as few calls as the parameters allow (DuckDB binds them in
    a call's last statement only), each with whether it ends in a test (a ``SELECT``): each
    call waits to take the interpreter's lock back (db.connect)."""
    calls, pending = [], []
    for sql in steps:
        pending.append(sql)
        test = sql.lstrip().startswith("SELECT")
        if test or "$path" in sql:
            calls.append(("; ".join(pending), test))
            pending = []
    return calls + ([("; ".join(pending), False)] if pending else [])


def _load_jsonl(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    table: str,
    counted: Callable[[], JsonBytes] | None = None,
) -> None:
    """A large file whose first slice holds no escape is read with its chunk ids as text
    first; read again with them as JSON when its bytes do not prove each one a string.
    ``counted``: its bytes, when their count was begun earlier (:func:`counts_begun`)."""
    params = {"path": str(path)}
    counted = counted or counting(path)
    strict = strict_json_test(counted)
    # a file whose first slice holds an escape (json.dumps writes each character outside
    # ASCII as one) is read as JSON from the start
    if counted and b"\\" not in readers.bytes_held(path, [b"\\"], False, slices=1):
        strings = StringsTest(counted, strict)
        if read_jsonl_typed(con, table, JSONL_TEXT_LINES, params, strings, VALUES_TYPED):
            return
        row_tests.drop(con, table)
        if strings.proven:  # read as JSON, it would fail the same way
            return _load_jsonl_validating(con, path, table)
    if not read_jsonl_typed(con, table, JSONL_FILE_LINES, params, also=strict):
        row_tests.drop(con, table)
        _load_jsonl_validating(con, path, table)


def _load_jsonl_validating(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> None:
    problems = readers.stage_json_lines(con, path, "run_stage")
    problems += run_checks(con, "run_stage", JSONL_LINE_CHECKS, path)
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE run_items AS
        SELECT line, query_id, unnest(items) AS item, generate_subscripts(items, 1) AS pos
        FROM (SELECT line, j->>'$.id' AS query_id, json_extract(j, '$.retrieved[*]') AS items
              FROM run_stage WHERE json_type(j, '$.retrieved') = 'ARRAY')
        """
    )
    problems += run_checks(con, "run_items", JSONL_ITEM_CHECKS, path)
    raise_if_any(sorted(problems, key=lambda p: p.line or 0))
    con.execute(
        f"""
        CREATE TABLE {table} AS
        SELECT query_id AS qid, item->>'$.chunk_id' AS docno, (item->>'$.rank')::BIGINT AS rank,
               (item->>'$.score')::DOUBLE AS score, true AS typed,
               row_number() OVER (PARTITION BY query_id
                                  ORDER BY coalesce((item->>'$.rank')::BIGINT, pos), pos)
                   AS position
        FROM run_items
        UNION ALL
        SELECT j->>'$.id', NULL, NULL, NULL, true, NULL FROM run_stage
        WHERE json_array_length(j, '$.retrieved') = 0
        """
    )
    con.execute("DROP TABLE run_items; DROP TABLE run_stage")


def _load_trec(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> None:
    needles = [*{b for others in TREC_OTHER_SEPARATORS.values() for b in others}]
    needles += [b for _, b in TREC_ROW_TESTS if b]
    if not read_as_bytes_say(
        con, path, table, needles, lambda held: _read_trec_holding(con, path, table, held)
    ):
        _load_trec_validating(con, path, table)


def read_as_bytes_say(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    table: str,
    needles: list[bytes],
    read: Callable[[set[bytes | None]], bool],
    outside_ascii: bool = True,
    start: int = 0,
) -> bool:
    """``read(held)``, a typed read into ``table`` whose row tests the bytes the file at
    ``path`` holds decide (:func:`~ragrecall_core.inputs.readers.bytes_held` of
    ``needles``, from byte ``start`` on): started at once with the bytes of the file's first
    slice, while the whole file is scanned for them beside it (0.1-0.15 s for 250 MB, when
    one core was idle); a file holding a byte its first slice did not is read again. False,
    the table dropped, when the file does not fit the read."""
    scanned = in_background(readers.bytes_held, path, needles, outside_ascii, None, start)
    guess = readers.bytes_held(path, needles, outside_ascii, slices=1, start=start)
    try:
        if read(guess) and scanned() <= guess:
            return True
    finally:
        held = scanned()  # never left reading the file after this read
    row_tests.drop(con, table)
    if held <= guess or not read(held):
        row_tests.drop(con, table)
        return False
    return True


def _read_trec_holding(
    con: duckdb.DuckDBPyConnection, path: Path, table: str, held: set[bytes | None]
) -> bool:
    """The typed read of a TREC run whose file holds the bytes ``held``
    (:func:`~ragrecall_core.inputs.readers.bytes_held`), split on a space or a tab."""
    rows = trec_rows_sql(held)
    for delim, others in TREC_OTHER_SEPARATORS.items():
        if held.intersection(others):
            continue
        if read_trec_typed(con, table, {"path": str(path), "delim": delim}, rows):
            return True
        row_tests.drop(con, table)
    return False


def _load_trec_validating(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> None:
    readers.stage_whitespace_fields(con, path, "run_stage", TREC_COLUMNS)
    raise_if_any(run_checks(con, "run_stage", TREC_RUN_CHECKS, path))
    con.execute(
        f"""
        CREATE TABLE {table} AS
        SELECT qid, docno, CAST(CAST(rank_text AS DOUBLE) AS BIGINT) AS rank, score,
               true AS typed,
               row_number() OVER (PARTITION BY qid ORDER BY {TREC_ORDER}) AS position
        FROM run_stage
        """
    )
    con.execute("DROP TABLE run_stage")


# A long-form run's values, each row marked whether it is typed: read as the validating read
# reads them (readers.table_source: the same columns, all text for CSV), else left to it.
# Ids as text (an integer column's digits, as the validating read casts them); the rank and
# score as long_rows_sql() reads each column type.
LONG_ROWS_SQL = """
SELECT CAST({query_id} AS VARCHAR) AS qid, CAST({chunk_id} AS VARCHAR) AS docno,
       {rank} AS rank, {score} AS score, coalesce({typed}, false) AS typed
FROM {source}
"""

# Any other numbering is sorted by rank. The values are cast before the window, which then
# sorts the cast columns themselves (casting in the window's keys held a second copy of each:
# +40 MB on a 7M-line Parquet run).
RANKED_LONG_SQL = """
CREATE TABLE {table} AS
SELECT qid, docno, rank, score,
       typed AND rank IS DISTINCT FROM lag(rank) OVER ranked AS typed,
       row_number() OVER ranked AS position
FROM ({rows})
-- a repeated rank sorts next to its twin: found in the sort that numbers the positions
WINDOW ranked AS (PARTITION BY qid ORDER BY rank)
"""

# A long-form run's spans (row_tests.SPANS_SQL) hold its rank spans, and what tells whether
# each query is one block ranked 1..n in row order (trec_order.BLOCK_SPANS), as most files
# are written: its ranks are then 1..n without a count of them (a 7M-row Parquet run: two
# group-bys over its rows, ~0.2 s, become one query of its 7k spans).
LONG_SPANS = f"{trec_order.BLOCK_SPANS}, max(rank) AS highest"
# Otherwise: every query's ranks run from 1 to its row count (``lowest``, ``highest``,
# ``rows``), ...
RANK_SPANS_SQL = """
SELECT count(*) AS queries,
       count(*) FILTER (WHERE lowest IS DISTINCT FROM 1 OR highest IS DISTINCT FROM rows)
           AS others,
       max(highest) AS longest
FROM {table}_spans
"""
# ... with no rank repeated: as many distinct ranks as rows, counted as bits set in a bit
# string of the longest list's length per query (a ``count(DISTINCT rank)`` per query took 9x
# longer). Only asked when the rank spans hold, and their bit strings fit DENSE_BITS_LIMIT.
RANKS_DISTINCT_SQL = """
SELECT bool_and(bit_count(bits) = rows)
FROM (SELECT bitstring_agg(rank, 1, $longest::BIGINT) AS bits, count(*) AS rows
      FROM {table} GROUP BY qid)
"""
DENSE_BITS_LIMIT = 2**31  # 256 MB of bit strings


def dense_ranks(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether every query's ranks in ``table`` (its spans made with :data:`LONG_SPANS`) are
    exactly 1, 2, ..., its row count."""
    queries, others, longest = con.execute(RANK_SPANS_SQL.format(table=table)).fetchone()
    if others or not queries:
        return False
    if con.execute(trec_order.BLOCKS_SQL.format(table=table)).fetchone()[0]:
        return True  # each query one block ranked 1..n: no rank repeated
    if queries * longest > DENSE_BITS_LIMIT:
        return False
    distinct = RANKS_DISTINCT_SQL.format(table=table)
    return bool(con.execute(distinct, {"longest": longest}).fetchone()[0])


LONG_ROLES = ("query_id", "chunk_id", "rank", "score")
LONG_REQUIRED = ("query_id", "chunk_id", "rank")


def required_roles(roles: dict | list) -> tuple[str, ...]:
    """The roles a long-form run (a file or a DataFrame) needs, given those it has: a rank,
    unless a score orders its lists (as trec_eval orders a TREC run: :data:`SCORE_POSITIONS`)."""
    return LONG_REQUIRED if "rank" in roles or "score" not in roles else LONG_REQUIRED[:2]


def long_rows_sql(
    source: str,
    roles: dict[str, tuple[str, str]],
    types: dict[str, str],
    separators: bool = True,
) -> str | None:
    """:data:`LONG_ROWS_SQL` of a long-form run whose columns play ``roles``, of ``types``
    (:func:`readers.column_types`, each allowed its role: readers.column_type_problems); each
    named by its alias constant, quoted (``position`` is also an SQL keyword). None when the
    rank is a FLOAT, DOUBLE or DECIMAL column: the validating read checks its text. A text
    score is tested for a digit separator unless ``separators`` is False: a text file
    without the byte '_' (0.3 s CPU of a 7M-line CSV read)."""
    names = {role: quote_identifier(alias) for role, (alias, _) in roles.items()}
    type_of = {role: types.get(column, "VARCHAR") for role, (_, column) in roles.items()}
    rank = f"TRY_CAST({names['rank']} AS BIGINT)"
    if type_of["rank"] == "VARCHAR":
        typed = [canonical_rank(names["rank"])]
    elif type_of["rank"] in readers.INTEGER_TYPES:
        typed = [f"{rank} <= {MAX_EXACT_RANK}"]
    else:
        return None
    score = "NULL"
    if "score" in names:
        # the checks cast the score's text: a DOUBLE column's text casts back to its value
        value = (
            names["score"] if type_of["score"] == "DOUBLE" else f"CAST({names['score']} AS VARCHAR)"
        )
        score = f"TRY_CAST({value} AS DOUBLE)"
        if type_of["score"] == "VARCHAR" and separators:  # a number's text has none
            score_test = f"{score} IS NOT NULL AND {without_digit_separator(names['score'])}"
        else:
            score_test = f"{score} IS NOT NULL"
        typed.append(f"({names['score']} IS NULL OR {score_test})")
    return LONG_ROWS_SQL.format(
        source=source,
        query_id=names["query_id"],
        chunk_id=names["chunk_id"],
        rank=rank,
        score=score,
        typed=" AND ".join(typed),
    )


def read_long_typed(con: duckdb.DuckDBPyConnection, table: str, rows: str, params: dict) -> bool:
    """The typed read of a long-form run (``rows``: its :func:`long_rows_sql`): positions
    are ranks when the ranks allow (:func:`dense_ranks`), else numbered by a second read
    that sorts them."""
    dense = [step.format(table=table, rows=rows) for step in RANKS_AS_POSITIONS_STEPS]
    ranked = RANKED_LONG_SQL.format(table=table, rows=rows)
    return read_unsorted_first(con, table, dense, dense_ranks, ranked, params, spans=LONG_SPANS)


def _load_long(
    con: duckdb.DuckDBPyConnection, path: Path, fmt: str, table: str
) -> dict[str, tuple[str, str]]:
    """Read a long-form run (CSV, Parquet) into ``table``; return its columns by role
    (:func:`readers.column_roles`), which registering it records (:func:`register_run`)."""
    readers.require_unique_header(con, path, fmt)  # the typed read would rename a repeat
    source, _ = readers.table_source(path, fmt)
    try:
        types = readers.column_types(con, path, fmt)
    except duckdb.Error:  # the validating read names what is wrong
        types = {}
    roles = readers.column_roles(path, fmt, list(types), LONG_ROLES)
    if set(LONG_REQUIRED) <= roles.keys() and not readers.column_type_problems(path, types, roles):

        def read(held: set[bytes | None]) -> bool:
            rows = long_rows_sql(source, roles, types, separators=b"_" in held)
            return read_long_typed(con, table, rows, {"path": str(path)})

        if (  # a CSV text's digit separators are tested where its rows, after the header
            # ("query_id" holds a "_"), hold one
            read_as_bytes_say(con, path, table, [b"_"], read, False, readers.after_first_line(path))
            if fmt == readers.CSV
            else read({b"_"})
        ):
            return roles
    row_tests.drop(con, table)
    return _load_long_validating(con, path, fmt, table)


# a checked long-form run staged as run_stage (a file or a DataFrame) as run table {table}
RUN_LONG_TABLE = """
CREATE TABLE {table} AS
SELECT query_id AS qid, chunk_id AS docno, CAST(CAST(rank AS DOUBLE) AS BIGINT) AS rank,
       CAST(score AS DOUBLE) AS score, true AS typed,
       row_number() OVER (PARTITION BY query_id
                          ORDER BY CAST(CAST(rank AS DOUBLE) AS BIGINT)) AS position
FROM run_stage
"""
# A long-form run without a rank column is ordered by its scores, which it must then all
# have: each row's rank is first its place in its query's list (so the rank checks hold),
# then its position is numbered by score (SCORE_POSITIONS)
LIST_RANKS = """
CREATE OR REPLACE TEMP TABLE run_stage AS
SELECT * REPLACE (CAST(row_number() OVER (PARTITION BY query_id ORDER BY line) AS VARCHAR)
                  AS rank)
FROM run_stage
"""
SCORE_REQUIRED = Check(
    "score IS NULL", "'score missing'", "a score for each row (there is no rank column)"
)
# a scored run's positions in trec_eval's order (TREC_ORDER) for what has no ranks: a
# long-form run without a rank column, and scored data in memory ({qid: {id: score}}, ranx,
# ir_measures), whose reads number them in list order first
SCORE_POSITIONS = f"""
CREATE OR REPLACE TABLE {{table}} AS
SELECT * REPLACE (CASE WHEN docno IS NOT NULL THEN row_number() OVER (
                      PARTITION BY qid ORDER BY {TREC_ORDER}) END AS position)
FROM {{table}}
"""


def check_long_stage(
    con: duckdb.DuckDBPyConnection, label: Path | str, rankless: bool
) -> list[Problem]:
    """The problems of a long-form run staged as ``run_stage`` (``label`` names it); a run
    without ranks is given its list places first (:data:`LIST_RANKS`) and needs scores."""
    if rankless:
        con.execute(LIST_RANKS)
    checks = [*LONG_CHECKS, SCORE_REQUIRED] if rankless else LONG_CHECKS
    return run_checks(con, "run_stage", checks, label)


def create_long_table(con: duckdb.DuckDBPyConnection, table: str, rankless: bool) -> None:
    """Run table ``table`` from the checked ``run_stage``: by rank, or by score without one."""
    con.execute(RUN_LONG_TABLE.format(table=table))
    if rankless:
        con.execute(SCORE_POSITIONS.format(table=table))


def _load_long_validating(
    con: duckdb.DuckDBPyConnection, path: Path, fmt: str, table: str
) -> dict[str, tuple[str, str]]:
    columns = readers.stage_table_rows(con, path, fmt, "run_stage")
    roles = readers.column_roles(path, fmt, columns, LONG_ROLES)
    readers.require_roles(path, columns, roles, required_roles(roles))
    raise_if_any(readers.column_type_problems(path, readers.column_types(con, path, fmt), roles))
    readers.keep_as_text(con, "run_stage", columns, LONG_ROLES, roles)
    rankless = "rank" not in roles
    raise_if_any(check_long_stage(con, path, rankless))
    create_long_table(con, table, rankless)
    con.execute("DROP TABLE run_stage")
    return roles
