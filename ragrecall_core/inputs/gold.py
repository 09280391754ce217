"""Loading the labelled query set (gold) into ``queries`` and ``qrels``.

Accepted: seed JSON lines (``{"id", "query", "relevant_ids", ...}``), TREC
qrels (``qid iter docno rel``), and CSV / Parquet in long form (one row per
query and relevant chunk; a row with an empty ``chunk_id`` is a no-answer query; ``qid``,
``docno`` and other tools' names are read too: :data:`readers.COLUMN_ALIASES`).
A JSON-lines ``relevant_ids`` entry has grade 1 unless ``grades`` says otherwise;
``grades`` may also list judged non-relevant chunks (grade 0), and no other: a chunk it
grades 1 or more is listed in ``relevant_ids`` (else a no-answer query, ``[]``, would turn
answerable unseen).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from ragrecall_core.errors import raise_if_any
from ragrecall_core.inputs import progress, readers
from ragrecall_core.inputs.checks import (
    Check,
    duplicate_key,
    is_whole_number,
    repeated_keys,
    run_checks,
    string_field,
)

KNOWN_FIELDS = (
    "id",
    "query",
    "relevant_ids",
    "query_type",
    "section",
    "split",
    "grades",
    "rationale",
    "require_all",
)
INT_TYPES = "('BIGINT', 'UBIGINT')"


def keyed_by_chunk_ids(field: str) -> Check:
    """A map field (``grades``, ``rationale``) names each chunk id once, none empty: DuckDB
    reads a map with a repeated key as NULL, so the whole map would vanish silently."""
    keys = f"json_keys(j, '$.{field}')"
    return Check(
        f"json_type(j, '$.{field}') = 'OBJECT' AND (len({keys}) <> len(list_distinct({keys})) "
        f"OR list_bool_or(list_transform({keys}, lambda k: trim(k) = '')))",
        f"'\"{field}\": ' || json_extract(j, '$.{field}')",
        f'"{field}" keyed by non-empty chunk ids, each once',
    )


# the relevant ids that "grades" grades 0, looked up as map keys (never as a JSON path)
RELEVANT_GRADED_0 = (
    "list_filter(json_extract_string(j, '$.relevant_ids[*]'), lambda r: TRY_CAST(map_extract_value("
    "json_transform(j->'$.grades', '\"MAP(VARCHAR, JSON)\"'), r)::VARCHAR AS BIGINT) = 0)"
)

# the chunks "grades" grades 1 or more that relevant_ids does not list (keys, never paths;
# a blank key is refused on its own: keyed_by_chunk_ids)
GRADED_UNLISTED = (
    "list_filter(map_keys(json_transform(j->'$.grades', '\"MAP(VARCHAR, JSON)\"')), "
    "lambda c: TRY_CAST(map_extract_value(json_transform(j->'$.grades', "
    "'\"MAP(VARCHAR, JSON)\"'), c)::VARCHAR AS BIGINT) >= 1 AND trim(c) <> '' "
    "AND NOT list_contains(json_extract_string(j, '$.relevant_ids[*]'), c))"
)

JSONL_CHECKS = [
    repeated_keys(),
    *string_field("id"),
    *string_field("query"),
    Check(
        "json_type(j, '$.relevant_ids') IS NULL",
        "left(j::VARCHAR, 120)",
        'a field "relevant_ids" (a list of chunk ids; [] for a no-answer query)',
    ),
    Check(
        "json_type(j, '$.relevant_ids') NOT IN ('ARRAY')",
        "'\"relevant_ids\": ' || json_extract(j, '$.relevant_ids')",
        '"relevant_ids" to be a list of chunk ids',
        field="relevant_ids",
    ),
    Check(
        "json_type(j, '$.relevant_ids') = 'ARRAY' AND list_bool_or(list_transform("
        "json_extract(j, '$.relevant_ids[*]'), "
        "lambda e: json_type(e) <> 'VARCHAR' OR trim(e->>'$') = ''))",
        "'\"relevant_ids\": ' || json_extract(j, '$.relevant_ids')",
        "every relevant id to be a non-empty string",
        field="relevant_ids",
    ),
    Check(
        "json_type(j, '$.relevant_ids') = 'ARRAY' AND "
        "len(list_distinct(json_extract_string(j, '$.relevant_ids[*]'))) "
        "<> len(json_extract_string(j, '$.relevant_ids[*]'))",
        "'\"relevant_ids\": ' || json_extract(j, '$.relevant_ids')",
        "each relevant id listed once",
        field="relevant_ids",
    ),
    *string_field("query_type", required=False),
    *string_field("section", required=False),
    *string_field("split", required=False),
    Check(
        "json_type(j, '$.grades') NOT IN ('OBJECT', 'NULL') OR (json_type(j, '$.grades') = 'OBJECT'"
        f" AND list_bool_or(list_transform(map_values(json_transform(j->'$.grades', "
        f"'\"MAP(VARCHAR, JSON)\"')), lambda g: json_type(g) NOT IN {INT_TYPES} "
        "OR coalesce(TRY_CAST(g::VARCHAR AS INTEGER) < 0, true))))",
        "'\"grades\": ' || json_extract(j, '$.grades')",
        '"grades" to map chunk ids to whole-number grades, 0 or more',
        field="grades",
    ),
    keyed_by_chunk_ids("grades"),
    Check(
        # a listed relevant chunk graded 0 would silently stop being relevant
        f"json_type(j, '$.grades') = 'OBJECT' AND len({RELEVANT_GRADED_0}) > 0",
        f"'\"relevant_ids\" graded 0: ' || to_json({RELEVANT_GRADED_0})",
        'a grade of 1 or more for each chunk in relevant_ids (grade 0 only in "grades")',
    ),
    Check(
        # relevant_ids says which chunks are relevant; a chunk graded relevant only in
        # "grades" was made relevant silently (and a no-answer query, [], answerable)
        f"json_type(j, '$.grades') = 'OBJECT' AND json_type(j, '$.relevant_ids') = 'ARRAY' "
        f"AND len({GRADED_UNLISTED}) > 0",
        f'\'graded 1 or more in "grades", not in "relevant_ids": \' || to_json({GRADED_UNLISTED})',
        'each chunk graded 1 or more in "grades" listed in relevant_ids (a chunk only in '
        '"grades" is judged not relevant: grade 0; [] in relevant_ids is a no-answer query)',
    ),
    Check(
        "json_type(j, '$.rationale') NOT IN ('OBJECT', 'NULL')",
        "'\"rationale\": ' || json_extract(j, '$.rationale')",
        '"rationale" to map chunk ids to text',
        field="rationale",
    ),
    keyed_by_chunk_ids("rationale"),
    Check(
        "json_type(j, '$.require_all') NOT IN ('BOOLEAN', 'NULL')",
        "'\"require_all\": ' || json_extract(j, '$.require_all')",
        '"require_all" to be true or false',
        field="require_all",
    ),
    duplicate_key("'\"id\": ' || (j->>'$.id')", "j->>'$.id'", "query id"),
]

TREC_QRELS_COLUMNS = (
    "len(f) AS fields, array_to_string(f, ' ') AS text, f[1] AS qid, f[3] AS docno, "
    "f[4] AS grade_text, "
    f"CASE WHEN {is_whole_number('f[4]', negative=True)} THEN TRY_CAST(f[4] AS INTEGER) END "
    "AS grade"
)

TREC_QRELS_CHECKS = [
    Check("fields <> 4", "text", "4 fields: query_id iteration chunk_id grade"),
    # a negative grade is kept: trec_eval reads it as in the pool but unjudged
    Check("fields = 4 AND grade IS NULL", "grade_text", "an integer grade"),
    duplicate_key("qid || ' ' || docno", "qid, docno", "(query, chunk) pair"),
]

# the columns other tools name differently (readers.COLUMN_ALIASES: qid, docno, ...)
LONG_ROLES = ("query_id", "chunk_id")
# the roles read under other tools' names: the required ones and the grade (``relevance``)
LONG_MAPPED = (*LONG_ROLES, "grade")
LONG_COLUMNS = (
    "query_id",
    "chunk_id",
    "grade",
    "query",
    "query_type",
    "section",
    "split",
    "rationale",
)


def same_on_every_row(field: str) -> Check:
    """A query's ``field`` (a constant: query, query_type, section, split) is the same on
    each of its long-form rows that gives one; else one value would be kept at random (a
    split changes which queries a gate evaluates)."""
    first = f"first_value({field} IGNORE NULLS) OVER (PARTITION BY query_id ORDER BY line)"
    return Check(
        f"{field} IS NOT NULL AND {field} <> {first}",
        f"'{field} ' || {field}",
        f"one {field} per query, as on its first row that has one",
    )


LONG_CHECKS = [
    Check("query_id IS NULL OR trim(query_id) = ''", "coalesce(query_id, '')", "a query_id"),
    # only an empty chunk_id marks a no-answer query; a blank one is a value gone wrong
    Check(
        "chunk_id <> '' AND trim(chunk_id) = ''",
        "chunk_id",
        "a chunk_id that is not blank (leave it empty for a query without answers)",
    ),
    # a row without a chunk marks a query as having no answer: a relevant row beside it
    # would make it answerable unseen (a grade-0 row is a judged non-relevant chunk)
    Check(
        "nullif(trim(chunk_id), '') IS NULL AND bool_or(nullif(trim(chunk_id), '') IS NOT NULL "
        "AND coalesce(TRY_CAST(TRY_CAST(grade AS DOUBLE) AS INTEGER), 1) >= 1) "
        "OVER (PARTITION BY query_id)",
        "'query ' || query_id || ', its row without a chunk_id'",
        "no relevant chunk for a query an empty chunk_id marks as having no answer "
        "(grade its chunks 0, or drop the empty row)",
    ),
    *map(same_on_every_row, ("query", "query_type", "section", "split")),
    Check(
        f"grade IS NOT NULL AND NOT coalesce({is_whole_number('grade')} "
        "AND TRY_CAST(TRY_CAST(grade AS DOUBLE) AS INTEGER) IS NOT NULL, false)",
        "CAST(grade AS VARCHAR)",
        "a grade that is a whole number, 0 or more",
    ),
    duplicate_key("query_id || ' ' || chunk_id", "query_id, chunk_id", "(query, chunk) pair"),
]


JSON_QUERIES_SQL = """
INSERT INTO queries
SELECT j->>'$.id', j->>'$.query', j->>'$.query_type', j->>'$.section', j->>'$.split',
       coalesce(TRY_CAST(j->>'$.require_all' AS BOOLEAN), false),
       json_merge_patch(j, $drop_known), line
FROM gold_stage
"""
JSON_QRELS_SQL = """
INSERT INTO qrels
WITH listed AS (
    SELECT j->>'$.id' AS query_id, unnest(json_extract_string(j, '$.relevant_ids[*]'))
           AS chunk_id, j FROM gold_stage),
graded AS (
    SELECT j->>'$.id' AS query_id, unnest(map_keys(g)) AS chunk_id,
           unnest(map_values(g)) AS grade
    FROM (SELECT j, json_transform(j->'$.grades', '"MAP(VARCHAR, INTEGER)"') AS g
          FROM gold_stage WHERE json_type(j, '$.grades') = 'OBJECT'))
SELECT coalesce(l.query_id, g.query_id), coalesce(l.chunk_id, g.chunk_id),
       coalesce(g.grade, 1),
       json_transform(s.j->'$.rationale', '"MAP(VARCHAR, VARCHAR)"')
           [coalesce(l.chunk_id, g.chunk_id)]
FROM listed l FULL JOIN graded g USING (query_id, chunk_id)
JOIN gold_stage s ON s.j->>'$.id' = coalesce(l.query_id, g.query_id);
"""


def load_gold(con: duckdb.DuckDBPyConnection, path: Path) -> str:
    """Load ``path`` into ``queries`` and ``qrels``; return the format it had. Its staging
    tables go, whether it loads or not (:func:`~ragrecall_core.inputs.readers.staging`)."""
    readers.require_file(path)
    fmt = readers.detect_format(path)
    with readers.staging(con, STAGING_TABLES):
        with progress.shown(con, path), readers.within_memory(path):
            if fmt == readers.JSONL:
                _load_jsonl(con, path)
            elif fmt in (readers.TREC_QRELS, readers.TREC_RUN):
                _load_trec(con, path)
                fmt = readers.TREC_QRELS
            else:
                _load_long(con, path, fmt)
    return fmt


# the tables a gold file's read stages its rows in (readers.stage_*)
STAGING_TABLES = ("gold_stage", "gold_stage_all")


def _load_jsonl(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    problems = readers.stage_json_lines(con, path, "gold_stage")
    problems += run_checks(con, "gold_stage", JSONL_CHECKS, path)
    raise_if_any(sorted(problems, key=lambda p: p.line or 0))
    insert_json_gold(con)


def insert_json_gold(con: duckdb.DuckDBPyConnection) -> None:
    """Queries and qrels from the checked JSON objects staged in ``gold_stage(line, j)``
    (from a file's lines or from records in memory)."""
    con.execute(JSON_QUERIES_SQL, {"drop_known": json.dumps(dict.fromkeys(KNOWN_FIELDS))})
    con.execute(JSON_QRELS_SQL)


def _load_trec(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    readers.stage_whitespace_fields(con, path, "gold_stage", TREC_QRELS_COLUMNS)
    raise_if_any(run_checks(con, "gold_stage", TREC_QRELS_CHECKS, path))
    con.execute(
        """
        INSERT INTO queries
        SELECT qid, NULL, NULL, NULL, NULL, false, '{}'::JSON, min(line)
        FROM gold_stage GROUP BY qid;
        INSERT INTO qrels SELECT qid, docno, grade, NULL FROM gold_stage;
        """
    )


# long-form gold staged as gold_stage (a file, a DataFrame, a BEIR qrels file) into the tables
GOLD_LONG_INSERT = """
INSERT INTO queries
SELECT query_id, any_value(query), any_value(query_type), any_value(section),
       any_value(split), false, '{}'::JSON, min(line)
FROM gold_stage GROUP BY query_id;
INSERT INTO qrels
SELECT query_id, chunk_id, coalesce(CAST(CAST(grade AS DOUBLE) AS INTEGER), 1), rationale
FROM gold_stage WHERE nullif(trim(chunk_id), '') IS NOT NULL;
"""


def _load_long(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    columns = readers.stage_table_rows(con, path, fmt, "gold_stage")
    roles = readers.column_roles(path, fmt, columns, LONG_MAPPED)
    readers.require_roles(path, columns, roles, LONG_ROLES)
    raise_if_any(readers.column_type_problems(path, readers.column_types(con, path, fmt), roles))
    readers.keep_as_text(con, "gold_stage", columns, LONG_COLUMNS, roles)
    raise_if_any(run_checks(con, "gold_stage", LONG_CHECKS, path))
    con.execute(GOLD_LONG_INSERT)
    readers.record_mapping(con, path, roles)
