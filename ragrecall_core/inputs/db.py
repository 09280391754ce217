"""The one place that opens DuckDB connections, creates the schema and locks them down.

A DuckDB connection is not thread-safe: callers that share a connection across
threads (Streamlit sessions) take their own ``cursor()`` from it.
"""

from __future__ import annotations

import os
import re
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

import duckdb

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs import progress
from ragrecall_core.inputs.secrets import redact_text

# the annotator names of model judges (``ragrecall judge``): a person's name never starts so,
# and their grades are kept out of ``all_grades`` (the humans' evidence) in ``judge_grades``
JUDGE_PREFIX = "judge:"
# What the evaluation sees of reviewers while no judgment store is attached: the files'
# grades and resolutions (inputs/store.py widens both views to the store when attached).
# a model judge's grades are no human's: never in all_grades, in judge_grades only
FILE_ONLY_VIEWS = f"""
CREATE OR REPLACE VIEW all_grades AS
    SELECT query_id, chunk_id, grade, harmful, reason, annotator, source FROM grades
    WHERE NOT starts_with(annotator, '{JUDGE_PREFIX}');
CREATE OR REPLACE VIEW judge_grades AS
    SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM grades
    WHERE starts_with(annotator, '{JUDGE_PREFIX}');
CREATE OR REPLACE VIEW all_resolutions AS SELECT *, 0 AS id FROM resolutions;
"""

# queries holds each id once: every gold read checks or groups its ids before it inserts
# (gold.py), so no key index is built (0.1 s of the read at 100,000 queries)
SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    query_id VARCHAR, query VARCHAR, query_type VARCHAR,
    section VARCHAR, split VARCHAR, require_all BOOLEAN, metadata JSON, line INTEGER);
CREATE TABLE IF NOT EXISTS qrels (
    query_id VARCHAR, chunk_id VARCHAR, grade INTEGER, rationale VARCHAR);
CREATE OR REPLACE VIEW runs AS
    SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS query_id, NULL::VARCHAR AS chunk_id,
           NULL::BIGINT AS rank, NULL::DOUBLE AS score WHERE false;
-- every query a run lists, with how many chunks it lists (0: an empty list)
CREATE TABLE IF NOT EXISTS run_queries (run VARCHAR, query_id VARCHAR, listed BIGINT);
CREATE TABLE IF NOT EXISTS run_files (
    run VARCHAR PRIMARY KEY, path VARCHAR, format VARCHAR, config JSON, tbl VARCHAR);
CREATE TABLE IF NOT EXISTS grades (
    query_id VARCHAR, chunk_id VARCHAR, grade INTEGER, harmful BOOLEAN,
    reason VARCHAR, annotator VARCHAR, source VARCHAR);
CREATE TABLE IF NOT EXISTS resolutions (
    query_id VARCHAR, chunk_id VARCHAR, grade INTEGER, harmful BOOLEAN, reason VARCHAR,
    resolver VARCHAR, created_at TIMESTAMP);
-- columns of CSV / Parquet inputs read under another tool's name (readers.record_mapping)
CREATE TABLE IF NOT EXISTS column_mappings (
    path VARCHAR, position INTEGER, source VARCHAR, target VARCHAR);
-- line: the record's line (row) in the corpus file: a document's chunks in file order
CREATE TABLE IF NOT EXISTS corpus (
    chunk_id VARCHAR PRIMARY KEY, doc_id VARCHAR, section VARCHAR, text VARCHAR,
    metadata JSON, line BIGINT);
"""


# tracked for progress.shown, never printed: DuckDB prints to stdout
PROGRESS_TRACKED = (
    "SET enable_progress_bar = true; SET enable_progress_bar_print = false; "
    "SET progress_bar_time = 100"
)
PROGRESS_OFF = "SET enable_progress_bar = false"

# DuckDB checkpoints a database once a commit leaves more than 16 MiB of log: in memory,
# that compresses every table again (a 7M-row run's strings among them) while the load
# waits. Renumbering 1.9M tied rows of a TREC run took 2.5 CPU s so, 0.4 without
# (benchmarks/README.md, "Issue 30: stop 51"). A judgment store attached to the workspace
# still writes every commit to its log, and is checkpointed when it is detached or closed.
NO_AUTO_CHECKPOINT = "SET checkpoint_threshold = '1TB'"

MEMORY_LIMIT_ENV = "RAGRECALL_MEMORY_LIMIT"
UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
SIZE = re.compile(r"([0-9]{1,9}(?:\.[0-9]{1,3})?) ?([A-Za-z]{1,3})")
SMALLEST, LARGEST = 16 * 10**6, 2**50  # under 16 MB DuckDB cannot read a row group
MEMORY_SIZE = "a memory size such as 4GB, 3.5GB or 512MiB (16MB to 1PiB; B, KB, MB, GB, TB, KiB...)"


def parse_memory_limit(text: str, source: str = "--memory-limit") -> str:
    """``text`` as a DuckDB ``memory_limit`` (unit spelled as DuckDB spells it), or an
    :class:`InputError` naming ``source``. A whole match of ASCII digits and a known unit:
    the value reaches DuckDB as a bound parameter, and only after this check."""
    found = SIZE.fullmatch(text) if text.isascii() else None
    unit = found and next((u for u in UNITS if u == found[2].lower()), None)
    if not found or not unit or not SMALLEST <= float(found[1]) * UNITS[unit] <= LARGEST:
        raise InputError([Problem(source, None, redact_text(text), MEMORY_SIZE)])
    spelled = unit.upper() if "i" not in unit else unit[0].upper() + "iB"
    return found[1] + spelled


def memory_limit_or_default(memory_limit: str | None) -> str | None:
    """The limit given, else ``$RAGRECALL_MEMORY_LIMIT``, else ``None``: DuckDB's own default
    (80% of the machine's memory)."""
    if memory_limit is not None:
        return parse_memory_limit(memory_limit)
    from_env = os.environ.get(MEMORY_LIMIT_ENV)
    return parse_memory_limit(from_env, MEMORY_LIMIT_ENV) if from_env is not None else None


def spill_folder() -> str:
    """A fresh, unguessable folder name for DuckDB to spill to. DuckDB creates it when the
    work first outgrows the memory limit and deletes it (it made it) when the connection
    closes, so a run that never spills leaves nothing behind."""
    return str(Path(tempfile.gettempdir()) / f"ragrecall-spill-{uuid.uuid4().hex}")


def connect(
    database: str | Path = ":memory:", memory_limit: str | None = None
) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB connection with ragrecall's schema in place, its memory limit
    (``memory_limit``, else ``$RAGRECALL_MEMORY_LIMIT``, else DuckDB's default of 80% of
    memory) and a spill folder of its own.

    Settings are made here, before :func:`lock_down` freezes them. Insertion order stays
    preserved: line numbers are ``row_number() OVER ()`` over a file's rows."""
    limit = memory_limit_or_default(memory_limit)
    con = duckdb.connect(str(database))
    if limit is not None:
        con.execute("SET memory_limit = $limit", {"limit": limit})
    # one call (its parameter bound in the last statement): each call waits to take the
    # interpreter's lock back, ~5-15 ms beside a busy thread (benchmarks/bench_open_beside.py)
    progress_bar = PROGRESS_TRACKED if progress.wanted() else PROGRESS_OFF
    con.execute(
        f"{progress_bar}; {NO_AUTO_CHECKPOINT}; {SCHEMA}; {FILE_ONLY_VIEWS}; "
        "SET temp_directory = $folder",
        {"folder": spill_folder()},
    )
    return con


# the files DuckDB keeps beside a database file: its write-ahead log and checkpoint logs
STORE_FILE_SUFFIXES = ("", ".wal", ".wal.checkpoint", ".wal.recovery")


def store_files(store: Path) -> list[Path]:
    """A DuckDB database file and the files DuckDB keeps beside it."""
    return [store.with_name(store.name + suffix) for suffix in STORE_FILE_SUFFIXES]


def lock_down(con: duckdb.DuckDBPyConnection, files: Sequence[Path]) -> None:
    """Confine ``con`` (and every cursor of it) to ``files`` for good: no other file can be
    read, written or attached, no extension installed, and no setting changed again.

    Defence in depth, should SQL ever be built from input. DuckDB fixes the allowed files
    when external access is turned off, so a workspace names them all before it loads
    anything: its inputs and its judgment store. Settings belong to the database instance,
    so other connections are not affected.
    """
    allowed = sorted({str(Path(path).resolve()) for path in files})
    con.execute("SET allowed_paths = $allowed", {"allowed": allowed})
    con.execute(
        "SET allowed_directories = []; SET enable_external_access = false; "
        "SET lock_configuration = true"
    )
