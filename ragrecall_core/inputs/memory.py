"""Gold and runs held in memory, loaded through the same SQL checks as files.

Accepted gold: a long-form DataFrame (``query_id, chunk_id[, grade, query, ...]``), a dict
``{qid: [ids]}`` or ``{qid: {id: grade}}``, a list of seed records (``{"id", "query",
"relevant_ids", ...}``), a ranx ``Qrels`` and an ir_measures qrels iterable (named tuples
``query_id, doc_id, relevance``). Accepted runs: a long-form DataFrame (``query_id,
chunk_id, rank[, score]``), a dict ``{qid: [ids]}`` (list order) or ``{qid: {id: score}}``
(score descending, ties by id descending, as trec_eval), a list of seed records (``{"id",
"retrieved": [...]}``), a ranx ``Run`` and an ir_measures run iterable (``query_id,
doc_id, score``). ranx and ir_measures are recognised by their shape, never imported.

Dicts and records become one JSON object per query, a DataFrame stays a table; either is
staged in DuckDB and checked by the loaders' own checks (:mod:`.gold`, :mod:`.runs`). JSON
keeps Python's types, so an integer id or a NaN score is refused, never converted. A
problem names its input (``gold``, ``run 'name'``) and the query instead of a file line.
In a DataFrame, a missing value (NaN, None) is missing, as pandas means it, and counts as an
empty cell of a file: no score, grade 1 for a listed chunk.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from ragrecall_core.errors import InputError, Problem, raise_if_any
from ragrecall_core.inputs import gold as gold_files
from ragrecall_core.inputs import readers
from ragrecall_core.inputs import runs as run_files
from ragrecall_core.inputs.checks import run_checks, string_field

if TYPE_CHECKING:  # imported where data arrives: a file-only command never needs pandas
    import pandas as pd

GOLD_LABEL = "gold"

# seed records need query text; the dict forms carry none
DICT_GOLD_CHECKS = [
    check for check in gold_files.JSONL_CHECKS if check not in string_field("query")
] + string_field("query", required=False)

# the items of staged run records, as runs.py's validating JSON-lines loader stages them
RUN_ITEMS_SQL = """
CREATE OR REPLACE TEMP TABLE run_items AS
SELECT line, query_id, unnest(items) AS item, generate_subscripts(items, 1) AS pos
FROM (SELECT line, j->>'$.id' AS query_id, json_extract(j, '$.retrieved[*]') AS items
      FROM run_stage WHERE json_type(j, '$.retrieved') = 'ARRAY')
"""

# {order}: a constant of this module (list order, or score as trec_eval orders it)
RUN_JSON_TABLE = """
CREATE TABLE {table} AS
SELECT query_id AS qid, item->>'$.chunk_id' AS docno, (item->>'$.rank')::BIGINT AS rank,
       (item->>'$.score')::DOUBLE AS score, true AS typed,
       row_number() OVER (PARTITION BY query_id ORDER BY {order}) AS position
FROM run_items
UNION ALL
SELECT j->>'$.id', NULL, NULL, NULL, true, NULL FROM run_stage
WHERE json_array_length(j, '$.retrieved') = 0
"""
LIST_ORDER = "coalesce((item->>'$.rank')::BIGINT, pos), pos"
SCORE_ORDER = "(item->>'$.score')::DOUBLE DESC, item->>'$.chunk_id' DESC"

# the lines of staged records for the typed read of runs.py (its fast path for files)
RECORD_LINES = """
SELECT j->'$.id' AS id,
       json_transform(j->'$.retrieved', '[{"chunk_id": "JSON", "rank": "JSON", "score": "JSON"}]')
           AS retrieved
FROM run_stage
"""

# a scored run's positions by score, as trec_eval (the typed read numbers them in list order)
SCORE_POSITIONS = """
CREATE OR REPLACE TABLE {table} AS
SELECT * REPLACE (CASE WHEN docno IS NOT NULL THEN row_number() OVER (
                      PARTITION BY qid ORDER BY score DESC, docno DESC) END AS position)
FROM {table}
"""


def run_label(name: object) -> str:
    return f"run {name!r}"


def is_in_memory(value: object) -> bool:
    """Anything but a file name is data."""
    return not isinstance(value, str | Path)


# ---------------------------------------------------------------- gold
def load_memory_gold(con: duckdb.DuckDBPyConnection, gold: object) -> None:
    """Load in-memory ``gold`` into ``queries`` and ``qrels`` (problems: :class:`InputError`)."""
    import pandas as pd

    if isinstance(gold, pd.DataFrame):
        _load_gold_frame(con, gold)
        return
    if _is_ranx(gold, "qrels"):
        gold = gold.to_dict()
    if isinstance(gold, Mapping):
        records, key_problems = _gold_records(gold)
        _load_gold_records(con, records, DICT_GOLD_CHECKS, key_problems)
        return
    items = _items(gold, GOLD_LABEL)
    if items and _is_named_tuple(items[0]):
        frame = pd.DataFrame.from_records(items, columns=list(items[0]._fields))
        _load_gold_frame(con, frame.rename(columns={"doc_id": "chunk_id", "relevance": "grade"}))
        return
    _load_gold_records(con, items, gold_files.JSONL_CHECKS, _record_key_problems(items))


def _record_key_problems(records: list) -> list[Problem]:
    """Seed records' ``grades`` / ``rationale`` maps keyed by anything but strings."""
    return [
        problem
        for record in records
        if isinstance(record, Mapping)
        for field in ("grades", "rationale")
        if isinstance(record.get(field), Mapping)
        for problem in _key_problems(GOLD_LABEL, record.get("id"), record[field])
    ]


def _gold_records(gold: Mapping) -> tuple[list[dict], list[Problem]]:
    """One seed record per query of ``{qid: [ids]}`` / ``{qid: {id: grade}}``: listed ids
    are relevant (grade 1); a graded map keeps its grades, 0 included."""
    records, problems = [], []
    for qid, labels in gold.items():
        if isinstance(labels, Mapping):
            problems += _key_problems(GOLD_LABEL, qid, labels)
            records.append({"id": qid, "relevant_ids": [], "grades": dict(labels)})
        else:
            listed = list(labels) if isinstance(labels, list | tuple) else labels
            records.append({"id": qid, "relevant_ids": listed})
    return records, problems


def _key_problems(label: str, qid: object, mapping: Mapping) -> list[Problem]:
    """JSON would turn a key that is not a string into one silently: refused here."""
    return [
        Problem(label, None, f"query {qid!r}: key {key!r}", "chunk ids that are strings")
        for key in mapping
        if not isinstance(key, str)
    ]


def _load_gold_records(
    con: duckdb.DuckDBPyConnection, records: list, checks: list, found: list[Problem] = ()
) -> None:
    """Stage, check and insert seed records; ``found`` are problems already known."""
    _stage_records(con, records, "gold_stage")
    problems = run_checks(con, "gold_stage", checks, GOLD_LABEL)
    raise_if_any([*found, *_naming_queries(con, "gold_stage", "j->>'$.id'", problems)])
    gold_files.insert_json_gold(con)
    con.execute("DROP TABLE gold_stage")


def _load_gold_frame(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame) -> None:
    columns = _stage_frame(con, frame, "gold_stage", GOLD_LABEL)
    _require_columns(GOLD_LABEL, columns, ("query_id", "chunk_id"))
    readers.keep_as_text(con, "gold_stage", columns, gold_files.LONG_COLUMNS)
    problems = run_checks(con, "gold_stage", gold_files.LONG_CHECKS, GOLD_LABEL)
    raise_if_any(_naming_queries(con, "gold_stage", "query_id", problems))
    con.execute(gold_files.GOLD_LONG_INSERT)
    con.execute("DROP TABLE gold_stage")


# ---------------------------------------------------------------- runs
def load_memory_run(con: duckdb.DuckDBPyConnection, name: str, run: object) -> str:
    """Load in-memory ``run`` as run ``name``; return the name."""
    import pandas as pd

    label = run_label(name)
    # fetchall: a result left unfinished would block registering the data
    taken = con.execute("SELECT path FROM run_files WHERE run = $run", {"run": name}).fetchall()
    if taken:
        raise InputError([Problem(label, None, name, "a run name not already used")])
    table = f"run_table_{con.execute('SELECT count(*) FROM run_files').fetchall()[0][0]}"
    if isinstance(run, pd.DataFrame):
        _load_run_frame(con, run, label, table)
    else:
        records, order = _run_records(run, label)
        _load_run_records(con, records, order, label, table)
    con.execute(
        "INSERT INTO run_files VALUES ($run, $path, 'memory', '{}', $table)",
        {"run": name, "path": label, "table": table},
    )
    run_files.record_run_queries(con, name, table)
    run_files.refresh_runs_view(con)
    return name


def _run_records(run: object, label: str) -> tuple[list, str]:
    """Seed run records of ``run`` and the order of their items (``LIST_ORDER`` or
    ``SCORE_ORDER``)."""
    if _is_ranx(run, "run"):
        run = run.to_dict()
    if isinstance(run, Mapping):
        scored = any(isinstance(ranked, Mapping) for ranked in run.values())
        return [_run_record(qid, ranked) for qid, ranked in run.items()], (
            SCORE_ORDER if scored else LIST_ORDER
        )
    items = _items(run, label)
    if items and _is_named_tuple(items[0]):
        return _scored_doc_records(items), SCORE_ORDER
    return items, LIST_ORDER


def _run_record(qid: object, ranked: object) -> dict:
    if isinstance(ranked, Mapping):
        retrieved = [{"chunk_id": cid, "score": score} for cid, score in ranked.items()]
    elif isinstance(ranked, list | tuple):
        retrieved = [{"chunk_id": cid} for cid in ranked]
    else:
        retrieved = ranked  # refused by the checks, naming it
    return {"id": qid, "retrieved": retrieved}


def _scored_doc_records(items: list) -> list[dict]:
    """ir_measures ``ScoredDoc(query_id, doc_id, score)`` tuples, grouped by query."""
    by_query: dict = {}
    for item in items:
        by_query.setdefault(item.query_id, {})
        by_query[item.query_id].setdefault("retrieved", []).append(
            {"chunk_id": item.doc_id, "score": item.score}
        )
    return [{"id": qid, **ranked} for qid, ranked in by_query.items()]


def _load_run_records(
    con: duckdb.DuckDBPyConnection, records: list, order: str, label: str, table: str
) -> None:
    """The typed read of runs.py first (whole-table tests); when the records fail it, every
    check, naming each problem."""
    _stage_records(con, records, "run_stage")
    try:
        if not _read_typed_records(con, table):
            con.execute(f"DROP TABLE IF EXISTS {table}")
            _load_checked_records(con, order, label, table)
        elif order == SCORE_ORDER:
            con.execute(SCORE_POSITIONS.format(table=table))
    finally:
        con.execute("DROP TABLE run_stage")


def _read_typed_records(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return run_files.read_jsonl_typed(con, table, RECORD_LINES)


def _load_checked_records(
    con: duckdb.DuckDBPyConnection, order: str, label: str, table: str
) -> None:
    problems = run_checks(con, "run_stage", run_files.JSONL_LINE_CHECKS, label)
    con.execute(RUN_ITEMS_SQL)
    problems += run_checks(con, "run_items", run_files.JSONL_ITEM_CHECKS, label)
    problems = sorted(problems, key=lambda p: p.line or 0)
    try:
        raise_if_any(_naming_queries(con, "run_stage", "j->>'$.id'", problems))
        con.execute(RUN_JSON_TABLE.format(table=table, order=order))
    finally:
        con.execute("DROP TABLE run_items")


def _load_run_frame(
    con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, label: str, table: str
) -> None:
    columns = _stage_frame(con, frame, "run_stage", label)
    _require_columns(label, columns, ("query_id", "chunk_id", "rank"))
    wanted = ("query_id", "chunk_id", "rank", "score")
    readers.keep_as_text(con, "run_stage", columns, wanted)
    problems = run_checks(con, "run_stage", run_files.LONG_CHECKS, label)
    try:
        raise_if_any(_naming_queries(con, "run_stage", "query_id", problems))
        con.execute(run_files.RUN_LONG_TABLE.format(table=table))
    finally:
        con.execute("DROP TABLE run_stage")


# ---------------------------------------------------------------- staging
def _stage_records(con: duckdb.DuckDBPyConnection, records: list, table: str) -> None:
    """``table(line, j JSON)``: record ``i`` (from 1) as one JSON object, types kept."""
    import pandas as pd

    texts = pd.DataFrame(
        {"line": range(1, len(records) + 1), "text": [_json_text(r) for r in records]}
    )
    con.register("memory_records", texts)
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT line, text::JSON AS j "
            "FROM memory_records"
        )
    finally:
        con.unregister("memory_records")


def _stage_frame(
    con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, table: str, label: str
) -> list[str]:
    """``table(line, rec)`` from ``frame`` (row ``i`` from 1), as :func:`readers.stage_table_rows`
    stages a Parquet file; return the column names."""
    columns = [str(c) for c in frame.columns]
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    raise_if_any([Problem(label, None, c, "each column named once") for c in repeated])
    con.register("memory_frame", frame.set_axis(columns, axis=1))
    try:
        alias = readers.row_alias(columns)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT row_number() OVER () AS line, "
            f"{alias} AS rec FROM memory_frame AS {alias}"
        )
    finally:
        con.unregister("memory_frame")
    return columns


def _require_columns(label: str, columns: list[str], required: tuple[str, ...]) -> None:
    missing = [name for name in required if name not in columns]
    raise_if_any(
        [Problem(label, None, f"columns {columns}", f"a column named {name!r}") for name in missing]
    )


def _naming_queries(
    con: duckdb.DuckDBPyConnection, table: str, query_sql: str, problems: list[Problem]
) -> list[Problem]:
    """``problems`` with the query of their row in place of the row number. ``query_sql`` is
    a constant of this module."""
    lines = sorted({p.line for p in problems if p.line is not None})
    queries = dict(
        con.execute(
            f"SELECT line, {query_sql} FROM {table} WHERE list_contains($lines, line)",
            {"lines": lines},
        ).fetchall()
    )
    return [
        Problem(p.file, None, _with_query(queries.get(p.line), p.line, p.value), p.expected)
        for p in problems
    ]


def _with_query(query: str | None, line: int | None, value: str) -> str:
    where = f"query {query!r}" if query is not None else f"record {line}"
    return value if query is not None and query in value else f"{where}: {value}"


def _json_text(record: object) -> str:
    """``record`` as JSON text; only a record JSON cannot hold as it is goes through
    :func:`_jsonable` (the common case pays for one ``json.dumps``)."""
    try:
        return json.dumps(record, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(_jsonable(record))


def _jsonable(value: object) -> object:
    """``value`` for ``json.dumps`` with its type kept for the checks to see: a NaN or an
    infinity becomes the text ``"nan"`` / ``"inf"`` (refused where a number is expected), a
    NumPy scalar its Python value, any other object a JSON object naming it (refused)."""
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, str | int | float):
        return value
    if hasattr(value, "item") and callable(value.item):
        return _jsonable(value.item())
    return {"python object": repr(value)[:80]}


def _items(value: object, label: str) -> list:
    """A list of records from an iterable; anything else is refused."""
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
        raise InputError(
            [Problem(label, None, type(value).__name__, "a DataFrame, a dict or a list of records")]
        )
    return list(value)


def _is_named_tuple(item: object) -> bool:
    """An ir_measures ``Qrel`` / ``ScoredDoc``: a named tuple with ``query_id`` and ``doc_id``."""
    fields = getattr(item, "_fields", ())
    return isinstance(item, tuple) and "query_id" in fields and "doc_id" in fields


def _is_ranx(value: object, attribute: str) -> bool:
    """A ranx ``Qrels`` (``.qrels``) or ``Run`` (``.run``), which converts with ``to_dict()``."""
    return hasattr(value, attribute) and callable(getattr(value, "to_dict", None))
