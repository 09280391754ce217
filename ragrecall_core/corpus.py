"""Loading the optional corpus: ``chunk_id, doc_id, section, text`` plus metadata.

It gives chunk text to drill-downs, the chunk-to-document map and the section of
every retrieved chunk. Without a corpus, a chunk id ``doc#chunk`` still maps to
its document (see :func:`doc_of_sql`).

Every record is staged as one JSON object ``j`` (a JSON line as it is, a CSV or
Parquet row as ``to_json`` of the row), so the file's keys and headers stay data:
the known fields are read by constant paths and the metadata is the record minus
them. No key or header is ever spliced into SQL.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from . import readers
from .checks import Check, duplicate_key, run_checks, string_field
from .errors import raise_if_any

KNOWN = ("chunk_id", "doc_id", "section", "text")

# a JSON merge patch drops every key it sets to null (RFC 7396)
DROP_KNOWN = json.dumps(dict.fromkeys(KNOWN))
DROP_LINE = json.dumps({"line": None})

CHUNK_ID = "j->>'$.chunk_id'"
UNIQUE_CHUNK = duplicate_key(CHUNK_ID, CHUNK_ID, "chunk id")

JSONL_CHECKS = [
    *string_field("chunk_id"),
    *string_field("doc_id", required=False),
    *string_field("section", required=False),
    *string_field("text", required=False),
    UNIQUE_CHUNK,
]

# CSV cells are text; Parquet ids may be typed (an integer id reads as its digits)
TABLE_CHECKS = [
    Check(f"nullif(trim({CHUNK_ID}), '') IS NULL", f"coalesce({CHUNK_ID}, '')", "a chunk_id"),
    UNIQUE_CHUNK,
]


def doc_of_sql(chunk: str) -> str:
    """SQL for the document of a chunk id when the corpus does not say: the part before '#'."""
    return f"split_part({chunk}, '#', 1)"


def load_corpus(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Load the corpus file into ``corpus``; return the number of chunks."""
    readers.require_file(path)
    fmt = readers.detect_format(path)
    if fmt == readers.JSONL:
        problems = readers.stage_json_lines(con, path, "corpus_stage")
        problems += run_checks(con, "corpus_stage", JSONL_CHECKS, path)
        raise_if_any(sorted(problems, key=lambda p: p.line or 0))
    else:
        _stage_rows_as_json(con, path, fmt)
        raise_if_any(run_checks(con, "corpus_stage", TABLE_CHECKS, path))
    con.execute(
        f"""
        INSERT INTO corpus
        SELECT {CHUNK_ID}, coalesce(j->>'$.doc_id', {doc_of_sql(CHUNK_ID)}),
               j->>'$.section', j->>'$.text', json_merge_patch(j, $drop_known)
        FROM corpus_stage
        """,
        {"drop_known": DROP_KNOWN},
    )
    con.execute("DROP TABLE corpus_stage")
    return con.execute("SELECT count(*) FROM corpus").fetchone()[0]


def _stage_rows_as_json(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """Stage ``corpus_stage(line, j)`` from a CSV or Parquet file: each row as a JSON object
    keyed by its headers (the staged row number ``line`` is not part of the record)."""
    columns = readers.stage_table_file(con, path, fmt, "corpus_table")
    readers.require_columns(path, columns, ("chunk_id",))
    con.execute(
        "CREATE OR REPLACE TEMP TABLE corpus_stage AS "
        "SELECT line, json_merge_patch(to_json(r), $drop_line) AS j FROM corpus_table AS r",
        {"drop_line": DROP_LINE},
    )
    con.execute("DROP TABLE corpus_table")
