"""The one place that opens DuckDB connections, creates the schema and locks them down.

A DuckDB connection is not thread-safe: callers that share a connection across
threads (Streamlit sessions) take their own ``cursor()`` from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

# What the evaluation sees of reviewers while no judgment store is attached: the files'
# grades and resolutions (inputs/store.py widens both views to the store when attached).
FILE_ONLY_VIEWS = """
CREATE OR REPLACE VIEW all_grades AS
    SELECT query_id, chunk_id, grade, harmful, reason, annotator, source FROM grades;
CREATE OR REPLACE VIEW all_resolutions AS SELECT *, 0 AS id FROM resolutions;
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    query_id VARCHAR PRIMARY KEY, query VARCHAR, query_type VARCHAR,
    section VARCHAR, split VARCHAR, require_all BOOLEAN, metadata JSON, line INTEGER);
CREATE TABLE IF NOT EXISTS qrels (
    query_id VARCHAR, chunk_id VARCHAR, grade INTEGER, rationale VARCHAR);
CREATE OR REPLACE VIEW runs AS
    SELECT NULL::VARCHAR AS run, NULL::VARCHAR AS query_id, NULL::VARCHAR AS chunk_id,
           NULL::BIGINT AS rank, NULL::DOUBLE AS score WHERE false;
CREATE TABLE IF NOT EXISTS run_queries (run VARCHAR, query_id VARCHAR);
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
CREATE TABLE IF NOT EXISTS corpus (
    chunk_id VARCHAR PRIMARY KEY, doc_id VARCHAR, section VARCHAR, text VARCHAR,
    metadata JSON);
"""


def connect(database: str | Path = ":memory:") -> duckdb.DuckDBPyConnection:
    """Open a DuckDB connection with ragrecall's schema in place."""
    con = duckdb.connect(str(database))
    con.execute("SET enable_progress_bar = false")
    con.execute(SCHEMA)
    con.execute(FILE_ONLY_VIEWS)
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
    con.execute("SET allowed_directories = []")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
