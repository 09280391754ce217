"""Loading retriever runs into the ``runs`` table.

Accepted: seed JSON lines (``{"id", "retrieved": [{"chunk_id", "rank", "score"}]}``),
TREC run files (``qid Q0 docno rank score tag``) and CSV / Parquet in long form
(``query_id, chunk_id, rank, score``).

Order: JSON lines and long form follow ``rank`` (the list position when a JSON
item has none); TREC runs follow trec_eval (score descending, ties by docno
descending; the rank column is ignored). The stored ``rank`` is the 1-based
position in that order.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from . import readers
from .checks import Check, duplicate_key, run_checks, string_field
from .configs import load_config, run_stem
from .errors import raise_if_any

NUMBER_TYPES = "('BIGINT', 'UBIGINT', 'DOUBLE')"
INT_TYPES = "('BIGINT', 'UBIGINT')"

JSONL_LINE_CHECKS = [
    *string_field("id"),
    Check(
        "json_type(j, '$.retrieved') IS DISTINCT FROM 'ARRAY'",
        "'\"retrieved\": ' || coalesce(json_extract(j, '$.retrieved')::VARCHAR, 'missing')",
        '"retrieved" to be a list of {"chunk_id", "rank", "score"} objects',
    ),
    duplicate_key("'\"id\": ' || (j->>'$.id')", "j->>'$.id'", "query id"),
]

ITEM = "'\"' || query_id || '\" retrieved[' || pos || ']: '"
JSONL_ITEM_CHECKS = [
    Check(
        "json_type(item) <> 'OBJECT'", ITEM + " || item", 'an object {"chunk_id", "rank", "score"}'
    ),
    Check(
        "json_type(item) = 'OBJECT' AND (json_type(item, '$.chunk_id') IS DISTINCT FROM 'VARCHAR'"
        " OR trim(item->>'$.chunk_id') = '')",
        ITEM + " || item",
        'a non-empty string "chunk_id"',
    ),
    Check(
        "json_type(item, '$.rank') NOT IN " + INT_TYPES + " AND json_type(item, '$.rank') <> 'NULL'"
        " OR (json_type(item, '$.rank') IN "
        + INT_TYPES
        + " AND TRY_CAST(item->>'$.rank' AS HUGEINT) < 1)",
        ITEM + " || '\"rank\": ' || json_extract(item, '$.rank')",
        "a rank that is a positive integer",
    ),
    Check(
        "json_type(item, '$.score') NOT IN "
        + NUMBER_TYPES
        + " AND json_type(item, '$.score') <> 'NULL'",
        ITEM + " || '\"score\": ' || json_extract(item, '$.score')",
        "a numeric score",
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

TREC_RUN_CHECKS = [
    Check("fields < 6", "text", "6 fields: query_id Q0 chunk_id rank score tag"),
    Check("fields >= 6 AND score IS NULL", "'score ' || score_text", "a numeric score"),
    Check(
        "fields >= 6 AND coalesce(TRY_CAST(rank_text AS BIGINT), 0) < 1",
        "'rank ' || rank_text",
        "a rank that is a positive integer",
    ),
    duplicate_key("qid || ' ' || docno", "qid, docno", "chunk id in this query's ranked list"),
]

LONG_CHECKS = [
    Check("query_id IS NULL OR trim(query_id) = ''", "coalesce(query_id, '')", "a query_id"),
    Check("chunk_id IS NULL OR trim(chunk_id) = ''", "coalesce(chunk_id, '')", "a chunk_id"),
    Check(
        "coalesce(TRY_CAST(rank AS BIGINT), 0) < 1",
        "'rank ' || coalesce(rank, '')",
        "a rank that is a positive integer",
    ),
    Check(
        "score IS NOT NULL AND TRY_CAST(score AS DOUBLE) IS NULL",
        "'score ' || score",
        "a numeric score",
    ),
    duplicate_key(
        "query_id || ' ' || chunk_id", "query_id, chunk_id", "chunk id in this query's ranked list"
    ),
    duplicate_key("query_id || ' rank ' || rank", "query_id, rank", "rank in this query's list"),
]


def load_run(con: duckdb.DuckDBPyConnection, path: Path, name: str | None = None) -> str:
    """Load one run file into ``runs``; return the run's name.

    The name is ``name``, else the config sidecar's ``name``, else the file stem.
    """
    readers.require_file(path)
    config = load_config(path)
    run = name or str(config.get("name") or run_stem(path))
    fmt = readers.detect_format(path)
    if fmt == readers.JSONL:
        _load_jsonl(con, path, run)
    elif fmt in (readers.TREC_RUN, readers.TREC_QRELS):
        _load_trec(con, path, run)
        fmt = readers.TREC_RUN
    else:
        _load_long(con, path, fmt, run)
    con.execute(
        "INSERT INTO run_files VALUES ($run, $path, $fmt, $config)",
        {"run": run, "path": str(path), "fmt": fmt, "config": _json(config)},
    )
    return run


def _json(value: dict) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _load_jsonl(con: duckdb.DuckDBPyConnection, path: Path, run: str) -> None:
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
        """
        INSERT INTO runs
        SELECT $run, query_id, item->>'$.chunk_id',
               row_number() OVER (PARTITION BY query_id
                                  ORDER BY coalesce((item->>'$.rank')::BIGINT, pos), pos),
               (item->>'$.score')::DOUBLE
        FROM run_items
        """,
        {"run": run},
    )
    con.execute(
        "INSERT INTO run_queries SELECT DISTINCT $run, j->>'$.id' FROM run_stage", {"run": run}
    )
    con.execute("DROP TABLE run_items; DROP TABLE run_stage")


def _load_trec(con: duckdb.DuckDBPyConnection, path: Path, run: str) -> None:
    readers.stage_whitespace_fields(con, path, "run_stage", TREC_COLUMNS)
    raise_if_any(run_checks(con, "run_stage", TREC_RUN_CHECKS, path))
    con.execute(
        """
        INSERT INTO runs
        SELECT $run, qid, docno,
               row_number() OVER (PARTITION BY qid ORDER BY score DESC, docno DESC), score
        FROM run_stage
        """,
        {"run": run},
    )
    con.execute("INSERT INTO run_queries SELECT DISTINCT $run, qid FROM run_stage", {"run": run})
    con.execute("DROP TABLE run_stage")


def _load_long(con: duckdb.DuckDBPyConnection, path: Path, fmt: str, run: str) -> None:
    columns = readers.stage_table_file(con, path, fmt, "run_stage")
    readers.require_columns(path, columns, ("query_id", "chunk_id", "rank"))
    if "score" not in columns:
        con.execute("ALTER TABLE run_stage ADD COLUMN score VARCHAR")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE run_stage AS SELECT line, "
        "CAST(query_id AS VARCHAR) AS query_id, CAST(chunk_id AS VARCHAR) AS chunk_id, "
        "CAST(rank AS VARCHAR) AS rank, CAST(score AS VARCHAR) AS score FROM run_stage"
    )
    raise_if_any(run_checks(con, "run_stage", LONG_CHECKS, path))
    con.execute(
        """
        INSERT INTO runs
        SELECT $run, query_id, chunk_id,
               row_number() OVER (PARTITION BY query_id ORDER BY CAST(rank AS BIGINT)),
               CAST(score AS DOUBLE)
        FROM run_stage
        """,
        {"run": run},
    )
    con.execute(
        "INSERT INTO run_queries SELECT DISTINCT $run, query_id FROM run_stage", {"run": run}
    )
    con.execute("DROP TABLE run_stage")
