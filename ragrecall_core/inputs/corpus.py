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

from ragrecall_core.errors import raise_if_any
from ragrecall_core.inputs import readers
from ragrecall_core.inputs.checks import Check, duplicate_key, run_checks

KNOWN = ("chunk_id", "doc_id", "section", "text")

# a JSON merge patch drops every key it sets to null (RFC 7396)
DROP_KNOWN = json.dumps(dict.fromkeys(KNOWN))

# one parse per record: the known fields (NULL when absent) and the keys, in columns
FIELDS_SQL = (
    "CREATE OR REPLACE TEMP TABLE corpus_fields AS SELECT line, j, json_keys(j) AS keys, "
    "json_extract(j, [" + ", ".join(f"'$.{name}'" for name in KNOWN) + "]) AS known "
    "FROM corpus_stage"
)


def _field(name: str) -> str:
    """SQL of a known field's JSON value in ``corpus_fields`` (``name`` is one of KNOWN)."""
    return f"known[{KNOWN.index(name) + 1}]"


def _text(name: str) -> str:
    return f"({_field(name)}->>'$')"


def _string_check(name: str) -> Check:
    """A known field, when present and not null, is a string (never silently converted)."""
    return Check(
        f"json_type({_field(name)}) NOT IN ('VARCHAR', 'NULL')",
        f"'\"{name}\": ' || {_field(name)}",
        f'"{name}" to be a string',
        field=name,
    )


# keys named more than once on a line (JSON allows it; which value counts would be a guess)
REPEATED_KEYS = "list_distinct(list_filter(keys, lambda key, i: list_position(keys, key) < i))"
UNIQUE_CHUNK = duplicate_key(_text("chunk_id"), _text("chunk_id"), "chunk id")

JSONL_CHECKS = [
    Check(
        "len(keys) > len(list_distinct(keys))",
        f"array_to_string(list_sort({REPEATED_KEYS}), ', ')",
        "each key once per line",
    ),
    Check(
        f"coalesce(json_type({_field('chunk_id')}), 'NULL') = 'NULL'",
        "left(j::VARCHAR, 120)",
        'a field "chunk_id"',
    ),
    *map(_string_check, KNOWN),
    Check(
        f"json_type({_field('chunk_id')}) = 'VARCHAR' AND trim({_text('chunk_id')}) = ''",
        f"'\"chunk_id\": ' || {_field('chunk_id')}",
        'a non-empty "chunk_id"',
    ),
    UNIQUE_CHUNK,
]

# CSV cells are text; Parquet ids may be typed (an integer id reads as its digits)
TABLE_CHECKS = [
    Check(
        f"nullif(trim({_text('chunk_id')}), '') IS NULL",
        f"coalesce({_text('chunk_id')}, '')",
        "a chunk_id",
    ),
    UNIQUE_CHUNK,
]


def doc_of_sql(chunk: str) -> str:
    """SQL for the document of a chunk id when the corpus does not say: the part before '#'."""
    return f"split_part({chunk}, '#', 1)"


def load_corpus(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Load the corpus file into ``corpus``; return the number of chunks. Its staging
    tables go, whether it loads or not (:func:`~ragrecall_core.inputs.readers.staging`)."""
    readers.require_file(path)
    fmt = readers.detect_format(path)
    with readers.staging(con, STAGING_TABLES):
        _load(con, path, fmt)
    return con.execute("SELECT count(*) FROM corpus").fetchone()[0]


# the tables a corpus file's read stages its records in (readers.stage_*, FIELDS_SQL)
STAGING_TABLES = ("corpus_stage", "corpus_stage_all", "corpus_table", "corpus_fields")


def _load(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """Stage, check and insert the corpus file ``path`` of format ``fmt``."""
    if fmt == readers.JSONL:
        problems = readers.stage_json_lines(con, path, "corpus_stage")
        con.execute(FIELDS_SQL)
        problems += run_checks(con, "corpus_fields", JSONL_CHECKS, path)
        raise_if_any(sorted(problems, key=lambda p: p.line or 0))
    else:
        _stage_rows_as_json(con, path, fmt)
        con.execute(FIELDS_SQL)
        raise_if_any(run_checks(con, "corpus_fields", TABLE_CHECKS, path))
    con.execute(
        f"""
        INSERT INTO corpus
        SELECT {_text("chunk_id")}, coalesce({_text("doc_id")}, {doc_of_sql(_text("chunk_id"))}),
               {_text("section")}, {_text("text")}, json_merge_patch(j, $drop_known), line
        FROM corpus_fields
        """,
        {"drop_known": DROP_KNOWN},
    )


def _stage_rows_as_json(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """Stage ``corpus_stage(line, j)`` from a CSV or Parquet file: each row as a JSON object
    keyed by its headers (a header the file calls ``line`` stays part of the record)."""
    columns = readers.stage_table_rows(con, path, fmt, "corpus_table")
    readers.require_columns(path, columns, ("chunk_id",))
    raise_if_any(readers.own_name_type_problems(con, path, fmt, columns, ("chunk_id",)))
    con.execute(
        "CREATE OR REPLACE TEMP TABLE corpus_stage AS "
        "SELECT line, to_json(rec) AS j FROM corpus_table"
    )
