"""Gold and runs held in memory, loaded through the same SQL checks as files.

Accepted gold: a long-form DataFrame (``query_id, chunk_id[, grade, query, ...]``), a dict
``{qid: [ids]}`` or ``{qid: {id: grade}}``, a list of seed records (``{"id", "query",
"relevant_ids", ...}``), a ranx ``Qrels`` and an ir_measures qrels iterable (named tuples
``query_id, doc_id, relevance``). Accepted runs: a long-form DataFrame (``query_id,
chunk_id, rank[, score]``; without a rank, by score as trec_eval), a dict ``{qid: [ids]}``
(list order) or ``{qid: {id: score}}`` (score descending, ties by id descending, as
trec_eval), a list of seed records (``{"id", "retrieved": [...]}``), a ranx ``Run`` (or a
list of them, each named by its ``name``) and an ir_measures run iterable (``query_id,
doc_id, score``). ranx and ir_measures are recognised by their shape, never imported.

Each shape reads as the file it stands for: a DataFrame as a CSV file (other tools' column
names mapped as there: :data:`readers.COLUMN_ALIASES`), records and run dicts as JSON lines,
a gold dict, ranx ``Qrels`` or ir_measures qrels as a TREC qrels file (a negative grade is
in the pool but unjudged, as in trec_eval). The caller's objects are read in Python first,
into plain values:
an id must be a ``str`` (an ``int``, a float, a bool, a timestamp, bytes are refused, never
converted to text), a number an ``int`` or a ``float`` (not a bool), text valid UTF-8 (no
lone surrogates); whatever the object does while it is read (an ``__iter__`` that raises,
nesting 10^5 deep) ends as a problem, never another exception. The plain values are staged
in DuckDB and checked by the loaders' own checks (:mod:`.gold`, :mod:`.runs`). A problem
names its input (``gold``, ``run 'name'``) and the query instead of a file line. In a
DataFrame, a missing value (NaN, None, ``pd.NA``, ``NaT``) is an empty cell of a file: no
score, grade 1 for a listed chunk.
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import duckdb

from ragrecall_core.errors import MAX_VALUE_CHARS, InputError, Problem, raise_if_any, said_of
from ragrecall_core.inputs import gold as gold_files
from ragrecall_core.inputs import readers, row_tests
from ragrecall_core.inputs import runs as run_files
from ragrecall_core.inputs.checks import MAX_PROBLEMS, Check, run_checks
from ragrecall_core.inputs.secrets import redact_text

if TYPE_CHECKING:  # imported where data arrives: a file-only command never needs pandas
    import pandas as pd

T = TypeVar("T")
GOLD_LABEL = "gold"

# the items of staged run records, as runs.py's validating JSON-lines loader stages them
RUN_ITEMS_SQL = """
CREATE OR REPLACE TEMP TABLE run_items AS
SELECT line, query_id, unnest(items) AS item, generate_subscripts(items, 1) AS pos
FROM (SELECT line, j->>'$.id' AS query_id, json_extract(j, '$.retrieved[*]') AS items
      FROM run_stage WHERE json_type(j, '$.retrieved') = 'ARRAY')
"""

RUN_JSON_TABLE = """
CREATE TABLE {table} AS
SELECT query_id AS qid, item->>'$.chunk_id' AS docno, (item->>'$.rank')::BIGINT AS rank,
       (item->>'$.score')::DOUBLE AS score, true AS typed,
       row_number() OVER (PARTITION BY query_id
                          ORDER BY coalesce((item->>'$.rank')::BIGINT, pos), pos) AS position
FROM run_items
UNION ALL
SELECT j->>'$.id', NULL, NULL, NULL, true, NULL FROM run_stage
WHERE json_array_length(j, '$.retrieved') = 0
"""

# the lines of staged records for the typed read of runs.py (its fast path for files)
RECORD_LINES = """
SELECT j->'$.id' AS id,
       json_transform(j->'$.retrieved', '[{"chunk_id": "JSON", "rank": "JSON", "score": "JSON"}]')
           AS retrieved
FROM run_stage
"""

# qrels in memory, staged as the fields of TREC qrels lines, so TREC's columns and checks
# read them; ids there cannot be blank (whitespace splits fields), here they could
QRELS_FIELDS_SQL = f"""
CREATE OR REPLACE TEMP TABLE gold_stage AS
SELECT line, {gold_files.TREC_QRELS_COLUMNS}
FROM (SELECT line, [qid, '0', docno, grade] AS f FROM memory_rows)
"""
BLANK_IDS = Check(
    "trim(qid) = '' OR trim(docno) = ''",
    "'\"' || qid || '\" \"' || docno || '\"'",
    "a query id and a chunk id that are not blank",
)
# the checked qrels as long-form gold (gold.GOLD_LONG_INSERT); a row without a chunk is a
# query with no judged chunk
QRELS_AS_LONG = """
CREATE OR REPLACE TEMP TABLE gold_stage AS
SELECT line, qid AS query_id, docno AS chunk_id, CAST(grade AS VARCHAR) AS grade,
       NULL::VARCHAR AS query, NULL::VARCHAR AS query_type, NULL::VARCHAR AS section,
       NULL::VARCHAR AS split, NULL::VARCHAR AS rationale
FROM gold_stage
"""

# a run ordered by score ({id: score}, ranx, ir_measures) needs every item's score
UNSCORED = "SELECT count(*) > 0 FROM {table} WHERE docno IS NOT NULL AND score IS NULL"
SCORED_ITEM = Check(
    "json_type(item) = 'OBJECT' AND coalesce(json_type(item, '$.score'), 'NULL') = 'NULL'",
    run_files.ITEM + " || item",
    "a score for each item (the list is ordered by score, as trec_eval orders it)",
    item=run_files.WRITTEN_ITEM,
)

READABLE = "data that can be read (reading it raised this)"
ID_TYPE = "an id that is a str (ids in memory are never converted to text)"
NUMBER_TYPE = "a number, int or float (not a bool, not text)"
GRADE_TYPE = "a whole-number grade, an int (a negative one: unjudged, as in trec_eval)"
UTF8 = "text without lone surrogates (valid UTF-8)"
JSON_TYPES = "str, int, float, bool, None, or lists and dicts of them (keys str)"
EACH_ITEM = "every item of the same shape as the first ({})"

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring = 2, MAX_VALUE_CHARS
_REPR.maxother = _REPR.maxlong = MAX_VALUE_CHARS


def shown(value: object) -> str:
    """``repr(value)``, short, never raising (an object's own ``__repr__`` may)."""
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - any object's repr
        return f"<{type(value).__name__} object>"


def run_label(name: object) -> str:
    return f"run {shown(name)}"


def is_in_memory(value: object) -> bool:
    """Anything but a file name is data."""
    return not isinstance(value, str | Path)


def guarded(label: str, read: Callable[[], T]) -> T:
    """``read()``, which reads the caller's objects in Python: whatever it raises (an object's
    ``__iter__`` or ``__eq__``, nesting too deep) is a problem of ``label``."""
    try:
        return read()
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - the caller's object raised it
        raise InputError([Problem(label, None, _raised(error), READABLE)]) from None


def _raised(error: BaseException) -> str:
    try:
        return f"{type(error).__name__}: {error}"  # Problem keeps its head and tail
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        return type(error).__name__


def named_memory_runs(runs: object, name: str | None) -> dict[object, object] | None:
    """Run name -> run for runs in memory: a dict of them, a list of ranx ``Run`` objects
    (each named by its ``name``, as ``ranx.compare`` takes them) or one run (named ``name``,
    else its own ``name``, else ``"run"``); None for a list of file names."""
    return guarded("runs", lambda: _named(runs, name))


def _named(runs: object, name: str | None) -> dict[object, object] | None:
    if name is None and isinstance(runs, Mapping):
        given = list(runs.items())
        bad = [run for run, _ in given if isinstance(run, str) and not _is_text(run)]
        raise_if_any([Problem(run_label(run), None, shown(run), UTF8) for run in bad])
        # a str subclass's name as plain text (its own __eq__ / __hash__ are never asked again)
        named = {(str.__str__(run) if isinstance(run, str) else run): data for run, data in given}
        if len(named) < len(given):
            raise InputError([Problem("runs", None, shown(list(runs)), "each run name once")])
        return named
    if name is None and isinstance(runs, list | tuple) and runs:
        if not any(map(is_in_memory, runs)):
            return None
        if all(_is_ranx(run, "run") for run in runs):
            return _ranx_runs(runs)
    if not is_in_memory(runs):
        return None
    own = getattr(runs, "name", None)
    return {name or (own if isinstance(own, str) and own else "run"): runs}


def _ranx_runs(runs: list | tuple) -> dict[str, object]:
    """ranx ``Run`` objects by name; a name missing, not a string or used twice is refused."""
    named, problems = {}, []
    for i, run in enumerate(runs, 1):
        own = getattr(run, "name", None)
        if not isinstance(own, str) or not own.strip() or own in named:
            where = f"run {i} of {len(runs)}: {shown(own)}"
            problems.append(Problem("runs", None, where, "each ranx Run named, each name once"))
        else:
            named[own] = run
    raise_if_any(problems)
    return named


# ---------------------------------------------------------------- gold
def load_memory_gold(con: duckdb.DuckDBPyConnection, gold: object) -> None:
    """Load in-memory ``gold`` into ``queries`` and ``qrels`` (problems: :class:`InputError`)."""
    kind, data, found = guarded(GOLD_LABEL, lambda: _plain_gold(gold))
    with readers.staging(con, gold_files.STAGING_TABLES):  # a refused gold leaves none
        if kind == "frame":
            _load_gold_frame(con, *data, found)
        elif kind == "qrels":
            _load_qrels_rows(con, data, found)
        else:
            _load_gold_records(con, data, found)


def _plain_gold(gold: object) -> tuple[str, object, list[Problem]]:
    """What kind of gold ``gold`` is (``frame``, ``qrels``, ``records``), read into plain
    values, with the problems found reading it."""
    import pandas as pd

    if isinstance(gold, pd.DataFrame):
        *plain, found = _plain_frame(gold, GOLD_LABEL, GOLD_FRAME)
        return "frame", plain, found
    if _is_ranx(gold, "qrels"):
        gold = gold.to_dict()
    if isinstance(gold, Mapping):
        return "qrels", *_mapping_rows(_not_empty(gold, GOLD_LABEL))
    items = _not_empty(_items(gold, GOLD_LABEL), GOLD_LABEL)
    if _is_named_tuple(items[0]):
        return "qrels", *_qrel_rows(items)
    return "records", *_encoded(items, GOLD_LABEL)


def _mapping_rows(gold: Mapping) -> tuple[list[tuple], list[Problem]]:
    """``(qid, chunk, grade text)`` rows of ``{qid: [ids]}`` (grade 1) / ``{qid: {id:
    grade}}``; a query with none is one row without a chunk (a no-answer query)."""
    rows, problems = [], []
    for qid, labels in gold.items():
        if not _is_text(qid):
            problems.append(Problem(GOLD_LABEL, None, f"query {shown(qid)}", _text_rule(qid)))
            continue
        if isinstance(labels, Mapping):
            pairs = list(labels.items())
        elif isinstance(labels, list | tuple):
            pairs = [(chunk, 1) for chunk in labels]
        else:
            expected = "a list of relevant ids or a {id: grade} dict"
            problems.append(Problem(GOLD_LABEL, None, f"query {qid!r}: {shown(labels)}", expected))
            continue
        problems += _qrels_pairs(qid, pairs, isinstance(labels, Mapping), rows)
    return rows, problems


def _qrels_pairs(qid: str, pairs: list, keyed: bool, rows: list[tuple]) -> list[Problem]:
    """Append the rows of query ``qid``'s ``(chunk, grade)`` pairs to ``rows``; return the
    pairs' problems. ``keyed``: the chunks are a dict's keys."""
    problems = []
    for chunk, grade in pairs:
        if not _is_text(chunk):
            value = (
                f"query {qid!r}: key {shown(chunk)}" if keyed else f"query {qid!r}: {shown(chunk)}"
            )
            keyed_rule = keyed and not isinstance(chunk, str)
            expected = "chunk ids that are strings" if keyed_rule else _text_rule(chunk)
            problems.append(Problem(GOLD_LABEL, None, value, expected))
        elif not isinstance(grade, Integral) or isinstance(grade, bool):
            value = f"query {qid!r}: {chunk!r}: {shown(grade)}"
            problems.append(Problem(GOLD_LABEL, None, value, GRADE_TYPE))
        else:
            rows.append((str.__str__(qid), str.__str__(chunk), str(int(grade))))
    if not pairs:
        rows.append((str.__str__(qid), None, "0"))
    return problems


def _qrel_rows(items: list) -> tuple[list[tuple], list[Problem]]:
    """Rows of an ir_measures qrels iterable (``Qrel(query_id, doc_id, relevance, ...)``)."""
    rows, problems = [], []
    for i, item in enumerate(items, 1):
        if not _is_named_tuple(item, "relevance"):
            shape = EACH_ITEM.format("query_id, doc_id, relevance")
            problems.append(Problem(GOLD_LABEL, None, f"item {i}: {shown(item)}", shape))
        elif not _is_text(item.query_id):
            value = f"item {i}: query_id {shown(item.query_id)}"
            problems.append(Problem(GOLD_LABEL, None, value, _text_rule(item.query_id)))
        else:
            problems += _qrels_pairs(item.query_id, [(item.doc_id, item.relevance)], False, rows)
    return rows, problems


def _load_qrels_rows(con: duckdb.DuckDBPyConnection, rows: list, found: list[Problem]) -> None:
    """Check qrels rows as a TREC qrels file's lines are checked, and insert them."""
    _register_rows(con, rows, ("qid", "docno", "grade"))
    try:
        con.execute(QRELS_FIELDS_SQL)
    finally:
        con.unregister("memory_rows")
    checks = [*gold_files.TREC_QRELS_CHECKS, BLANK_IDS]
    problems = run_checks(con, "gold_stage", checks, GOLD_LABEL)
    raise_if_any([*found, *_naming_queries(con, "gold_stage", "qid", problems)])
    con.execute(QRELS_AS_LONG)
    con.execute(gold_files.GOLD_LONG_INSERT)


def _load_gold_records(
    con: duckdb.DuckDBPyConnection, lines: list[tuple[int, str]], found: list[Problem]
) -> None:
    """Stage, check and insert seed records; ``found`` are problems already known."""
    _stage_lines(con, lines, "gold_stage")
    problems = run_checks(con, "gold_stage", gold_files.JSONL_CHECKS, GOLD_LABEL)
    raise_if_any([*found, *_naming_queries(con, "gold_stage", "j->>'$.id'", problems)])
    gold_files.insert_json_gold(con)


def _load_gold_frame(
    con: duckdb.DuckDBPyConnection,
    frame: pd.DataFrame,
    renamed: dict[str, str],
    found: list[Problem],
) -> None:
    columns = _stage_frame(con, frame, "gold_stage")
    readers.keep_as_text(con, "gold_stage", columns, gold_files.LONG_COLUMNS)
    problems = run_checks(con, "gold_stage", gold_files.LONG_CHECKS, GOLD_LABEL)
    problems = _unless_refused(found, problems)
    raise_if_any(_with_cells(found, _naming_queries(con, "gold_stage", "query_id", problems)))
    con.execute(gold_files.GOLD_LONG_INSERT)
    _record_mapping(con, GOLD_LABEL, renamed)


# ---------------------------------------------------------------- runs
def load_memory_run(con: duckdb.DuckDBPyConnection, name: str, run: object) -> str:
    """Load in-memory ``run`` as run ``name``; return the name."""
    label = run_label(name)
    # fetchall: a result left unfinished would block registering the data
    taken = con.execute("SELECT path FROM run_files WHERE run = $run", {"run": name}).fetchall()
    if taken:
        raise InputError([Problem(label, None, name, "a run name not already used")])
    table = f"run_table_{con.execute('SELECT count(*) FROM run_files').fetchall()[0][0]}"
    kind, data, scored, found = guarded(label, lambda: _plain_run(run, label))
    if kind == "frame":
        _load_run_frame(con, *data, label, table, found)
    else:
        _load_run_records(con, data, scored, label, table, found)
    con.execute(
        "INSERT INTO run_files VALUES ($run, $path, 'memory', '{}', $table)",
        {"run": name, "path": label, "table": table},
    )
    run_files.record_run_queries(con, table)
    run_files.refresh_runs_view(con)
    return name


def _plain_run(run: object, label: str) -> tuple[str, object, bool, list[Problem]]:
    """What kind of run ``run`` is (``frame``, ``records``), read into plain values, whether
    its lists are ordered by score (trec_eval), and the problems found reading it."""
    import pandas as pd

    if isinstance(run, pd.DataFrame):
        *plain, found = _plain_frame(run, label, RUN_FRAME)
        return "frame", plain, False, found
    if _is_ranx(run, "run"):
        run = run.to_dict()
    if isinstance(run, Mapping):
        ranked = _not_empty(list(run.items()), label)
        scored = [isinstance(listed, Mapping) for _, listed in ranked]
        problems = []
        if any(scored) and not all(scored):
            expected = "one form for every query: lists of ids, or {id: score} dicts"
            problems.append(Problem(label, None, "lists and dicts", expected))
        records = [_run_record(qid, listed) for qid, listed in ranked]
        lines, found = _encoded(records, label)
        return "records", lines, any(scored), problems + found
    items = _not_empty(_items(run, label), label)
    if _is_named_tuple(items[0]):
        records, problems = _scored_doc_records(items, label)
        lines, found = _encoded(records, label)
        return "records", lines, True, problems + found
    lines, found = _encoded(items, label)
    return "records", lines, False, found


def _run_record(qid: object, ranked: object) -> dict:
    if isinstance(ranked, Mapping):
        retrieved = [{"chunk_id": cid, "score": score} for cid, score in ranked.items()]
    elif isinstance(ranked, list | tuple):
        retrieved = [{"chunk_id": cid} for cid in ranked]
    else:
        retrieved = ranked  # refused by the checks, naming it
    return {"id": qid, "retrieved": retrieved}


def _scored_doc_records(items: list, label: str) -> tuple[list[dict], list[Problem]]:
    """ir_measures ``ScoredDoc(query_id, doc_id, score)`` tuples, grouped by query."""
    by_query: dict[str, list] = {}
    problems = []
    for i, item in enumerate(items, 1):
        if not _is_named_tuple(item, "score"):
            shape = EACH_ITEM.format("query_id, doc_id, score")
            problems.append(Problem(label, None, f"item {i}: {shown(item)}", shape))
        elif not _is_text(item.query_id):
            value = f"item {i}: query_id {shown(item.query_id)}"
            problems.append(Problem(label, None, value, _text_rule(item.query_id)))
        else:
            ranked = by_query.setdefault(str.__str__(item.query_id), [])
            ranked.append({"chunk_id": item.doc_id, "score": item.score})
    records = [{"id": qid, "retrieved": ranked} for qid, ranked in by_query.items()]
    return records, problems


def _load_run_records(
    con: duckdb.DuckDBPyConnection,
    lines: list[tuple[int, str]],
    scored: bool,
    label: str,
    table: str,
    found: list[Problem],
) -> None:
    """The typed read of runs.py first (whole-table tests); when the records fail it, every
    check, naming each problem. Scored lists are then ordered as trec_eval orders them."""
    _stage_lines(con, lines, "run_stage")
    try:
        typed = not found and run_files.read_jsonl_typed(con, table, RECORD_LINES)
        if not typed or scored and con.execute(UNSCORED.format(table=table)).fetchone()[0]:
            row_tests.drop(con, table)
            _load_checked_records(con, label, table, found, scored)
        if scored:
            con.execute(run_files.SCORE_POSITIONS.format(table=table))
    finally:
        con.execute("DROP TABLE run_stage")


def _load_checked_records(
    con: duckdb.DuckDBPyConnection, label: str, table: str, found: list[Problem], scored: bool
) -> None:
    problems = run_checks(con, "run_stage", run_files.JSONL_LINE_CHECKS, label)
    con.execute(RUN_ITEMS_SQL)
    item_checks = [*run_files.JSONL_ITEM_CHECKS, *([SCORED_ITEM] if scored else [])]
    problems += run_checks(con, "run_items", item_checks, label)
    problems = sorted(problems, key=lambda p: p.line or 0)
    try:
        raise_if_any([*found, *_naming_queries(con, "run_stage", "j->>'$.id'", problems)])
        con.execute(RUN_JSON_TABLE.format(table=table))
    finally:
        con.execute("DROP TABLE run_items")


def _load_run_frame(
    con: duckdb.DuckDBPyConnection,
    frame: pd.DataFrame,
    renamed: dict[str, str],
    label: str,
    table: str,
    found: list[Problem],
) -> None:
    columns = _stage_frame(con, frame, "run_stage")
    readers.keep_as_text(con, "run_stage", columns, run_files.LONG_ROLES)
    rankless = "rank" not in columns
    problems = run_files.check_long_stage(con, label, rankless)
    try:
        problems = _unless_refused(found, problems)
        raise_if_any(_with_cells(found, _naming_queries(con, "run_stage", "query_id", problems)))
        run_files.create_long_table(con, table, rankless)
    finally:
        con.execute("DROP TABLE run_stage")
    _record_mapping(con, label, renamed)


# ---------------------------------------------------------------- frames
# a frame's columns: the roles named as other tools name them (readers.COLUMN_ALIASES), the
# other columns a loader reads by their own name; text columns hold ids and labels
GOLD_FRAME = {
    "roles": gold_files.LONG_MAPPED,
    "required": lambda roles: gold_files.LONG_ROLES,
    "columns": gold_files.LONG_COLUMNS,
    "numbers": ("grade",),
}
RUN_FRAME = {
    "roles": run_files.LONG_ROLES,
    "required": run_files.required_roles,
    "columns": run_files.LONG_ROLES,
    "numbers": ("rank", "score"),
}


def _plain_frame(
    frame: pd.DataFrame, label: str, layout: dict
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The columns of ``frame`` a loader reads, under ragrecall's names, each holding ``str``
    / numbers / None only (a cell of any other type is refused, naming its query), and the
    columns read under another name (``{column: role}``)."""
    import pandas as pd

    names = list(frame.columns)
    raise_if_any(_column_name_problems(names, label))
    roles = _frame_roles(names, label, layout)
    source = {role: column for role, (_, column) in roles.items()}
    source |= {n: n for n in layout["columns"] if n in names and n not in source}
    problems: list[Problem] = []
    query_ids = _text_column(frame[source["query_id"]], "query_id", None, label, problems)
    clean = {"query_id": query_ids}
    for role, column in source.items():
        if role in layout["numbers"]:
            clean[role] = _number_column(frame[column], role, query_ids, label, problems)
        elif role != "query_id":
            clean[role] = _text_column(frame[column], role, query_ids, label, problems)
    renamed = {column: role for role, column in source.items() if column != role}
    return pd.DataFrame(clean), renamed, problems[:MAX_PROBLEMS]


def _with_cells(cells: list[Problem], checked: list[Problem]) -> list[Problem]:
    """The problems of a frame's cells (``line``: their row, whose cell was staged empty)
    first, then those of its checks (named by query) but on a row whose cell is refused (its
    empty cell found again)."""
    return [replace(p, line=None) for p in cells] + checked


def _unless_refused(cells: list[Problem], checked: list[Problem]) -> list[Problem]:
    bad_rows = {p.line for p in cells}
    return [p for p in checked if p.line not in bad_rows]


def _column_name_problems(names: list, label: str) -> list[Problem]:
    """Column names that are not text, empty, or repeated (ignoring case, as DuckDB
    compares them: :func:`readers.require_unique_header` says the same of a file)."""
    problems, first = [], {}
    for i, name in enumerate(names, 1):
        if not _is_text(name):
            value = f"column {i}: {_said_name(name)}"
            problems.append(Problem(label, None, value, "column names that are strings"))
        elif not name.strip():
            problems.append(Problem(label, None, f"column {i}: {name!r}", readers.EMPTY_NAME))
        elif first.setdefault(name.casefold(), i) != i:
            expected = f"each column named once (column {first[name.casefold()]} has this name)"
            problems.append(Problem(label, None, redact_text(name), expected))
    return problems


def _said_name(name: object) -> str:
    """A column name that is not text, as a problem quotes it: its whole ``repr`` redacted,
    then cut by the problem (:func:`shown` cuts first, through a token it may hold)."""
    try:
        text = repr(name)
    except Exception:  # noqa: BLE001 - any object's repr
        return shown(name)
    return redact_text(text)


def _frame_roles(names: list[str], label: str, layout: dict) -> dict[str, tuple[str, str]]:
    """The column playing each role, as a file's (:func:`readers.column_roles`); problems
    name the input, not a line."""
    try:
        roles = readers.column_roles(label, readers.PARQUET, names, layout["roles"])
        readers.require_roles(label, names, roles, layout["required"](roles))
    except InputError as error:
        raise InputError([replace(p, line=None) for p in error.problems]) from None
    return roles


def _text_column(
    column: pd.Series, role: str, query_ids: list | None, label: str, problems: list
) -> pd.Series | list:
    """``column`` as it is when its type holds only text (pandas' Arrow strings); else its
    values one by one: ``str`` kept, missing as None, anything else a problem."""
    import pandas as pd

    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        return column.to_numpy(dtype=object, na_value=None) if query_ids is None else column.array
    values = []
    for row, value in enumerate(column.astype(object), 1):
        if _missing(value):
            values.append(None)
        elif _is_text(value):
            values.append(str.__str__(value))
        else:
            values.append(None)
            where = _where(query_ids, row, label)
            kind = type(value).__name__
            value_text = f"{where}{role} {shown(value)} ({kind})"
            problems.append(Problem(label, row, value_text, _text_rule(value)))
    return values


def _number_column(
    column: pd.Series, role: str, query_ids: list, label: str, problems: list
) -> pd.Series | list:
    """``column`` as it is when NumPy holds it as integers, as float64 when it holds floats
    (each value exactly: DuckDB reads a float32 as its shortest text, a float16 through a
    float32, and no longdouble at all); else its values one by one: an int or a float (as
    its text, exactly), missing as None, anything else a problem."""
    import numpy as np

    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu":
        return column.to_numpy()
    if isinstance(column.dtype, np.dtype) and column.dtype.kind == "f":
        with np.errstate(over="ignore"):  # a longdouble beyond a float64's range: inf
            return column.to_numpy(dtype=np.float64)
    values = []
    for row, value in enumerate(column.astype(object), 1):
        if _missing(value):
            values.append(None)
        elif isinstance(value, Real) and not isinstance(value, bool | np.bool_):
            values.append(str(int(value)) if isinstance(value, Integral) else repr(float(value)))
        else:
            values.append(None)
            kind = type(value).__name__
            text = f"{_where(query_ids, row, label)}{role} {shown(value)} ({kind})"
            problems.append(Problem(label, row, text, NUMBER_TYPE))
    return values


def _where(query_ids: list | None, row: int, label: str) -> str:
    qid = query_ids[row - 1] if query_ids is not None else None
    return f"query {qid!r}: " if isinstance(qid, str) else f"row {row}: "


def _missing(value: object) -> bool:
    """A pandas missing value: None, NaN, ``pd.NA``, ``NaT``."""
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


# ---------------------------------------------------------------- plain values
def _is_text(value: object) -> bool:
    """A ``str`` that is valid UTF-8 (no lone surrogate)."""
    if not isinstance(value, str):
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text_rule(value: object) -> str:
    return UTF8 if isinstance(value, str) else ID_TYPE


def _encoded(records: list, label: str) -> tuple[list[tuple[int, str]], list[Problem]]:
    """Each record as ``(line, JSON text)`` (line from 1), with the problems of those JSON
    cannot hold as they are (they are left out)."""
    lines, problems = [], []
    for line, record in enumerate(records, 1):
        qid = record.get("id") if isinstance(record, Mapping) else None
        where = f"query {qid!r}: " if isinstance(qid, str) and _is_text(qid) else f"record {line}: "
        text, found = _json_text(record, where, label)
        problems += found
        if not found:
            lines.append((line, text))
        if len(problems) >= MAX_PROBLEMS:
            break
    return lines, problems


def _json_text(value: object, where: str, label: str) -> tuple[str, list[Problem]]:
    """``value`` as JSON text, written without recursion (any depth), with what JSON cannot
    hold as a problem: a key that is not a string, text with a lone surrogate, an object
    that is no JSON value. A NaN or an infinity becomes the text ``"nan"`` / ``"inf"``,
    refused by the checks where a number is expected; a NumPy scalar is its Python value."""
    import numpy as np

    out: list[str] = []
    problems: list[Problem] = []
    work: list = [value]
    while work:
        item = work.pop()
        if isinstance(item, _Literal):
            out.append(item.text)
        elif isinstance(item, str):
            if not _is_text(item):
                problems.append(Problem(label, None, where + shown(item), UTF8))
            out.append(json.dumps(item))
        elif item is None or isinstance(item, bool):
            out.append(json.dumps(item))
        elif isinstance(item, Integral) and not isinstance(item, np.generic):
            out.append(str(int(item)))
        elif isinstance(item, float):
            out.append(repr(float(item)) if math.isfinite(item) else json.dumps(repr(item)))
        elif isinstance(item, np.generic) and not isinstance(item, np.datetime64 | np.timedelta64):
            work.append(item.item())
        elif isinstance(item, Mapping):
            work += _mapping_work(list(item.items()), where, label, problems)
        elif isinstance(item, list | tuple):
            work += _sequence_work(item)
        else:
            value_text = f"{where}{shown(item)} ({type(item).__name__})"
            problems.append(Problem(label, None, value_text, JSON_TYPES))
            out.append("null")
    return "".join(out), problems


class _Literal:
    """JSON punctuation on the work stack of :func:`_json_text`."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _sequence_work(items: Iterable) -> list:
    """Work-stack entries (popped from the end) writing ``items`` as a JSON array."""
    work: list = [_Literal("]")]
    for i, item in enumerate(reversed(list(items))):
        work += [_Literal(",")] if i else []
        work.append(item)
    return [*work, _Literal("[")]


def _mapping_work(pairs: list, where: str, label: str, problems: list) -> list:
    """Work-stack entries writing ``pairs`` as a JSON object; a key that is not text is a
    problem (JSON would turn the key 5 into "5")."""
    work: list = [_Literal("}")]
    for key, item in reversed(pairs):
        if not _is_text(key):
            expected = "keys that are strings" if not isinstance(key, str) else UTF8
            problems.append(Problem(label, None, f"{where}key {shown(key)}", expected))
            continue
        work += [_Literal(",")] if len(work) > 1 else []
        work += [item, _Literal(json.dumps(key) + ":")]
    return [*work, _Literal("{")]


def _items(value: object, label: str) -> list:
    """A list of records from an iterable; anything else is refused."""
    text_like = isinstance(value, str | bytes | bytearray | Mapping)
    if text_like or not hasattr(type(value), "__iter__"):
        raise InputError(
            [Problem(label, None, type(value).__name__, "a DataFrame, a dict or a list of records")]
        )
    return list(value)


def _not_empty(value: T, label: str) -> T:
    """``value``, when it holds a query (an empty file is refused as well)."""
    if not value:
        empty = f"an empty {type(value).__name__}"
        raise InputError([Problem(label, None, empty, "at least one record")])
    return value


def _is_named_tuple(item: object, field: str | None = None) -> bool:
    """An ir_measures ``Qrel`` / ``ScoredDoc``: a named tuple with ``query_id`` and ``doc_id``
    (and ``field``, when given)."""
    fields = getattr(type(item), "_fields", ())
    wanted = {"query_id", "doc_id", *([field] if field else [])}
    return isinstance(item, tuple) and isinstance(fields, tuple) and wanted <= set(fields)


def _is_ranx(value: object, attribute: str) -> bool:
    """A ranx ``Qrels`` (``.qrels``) or ``Run`` (``.run``), which converts with ``to_dict()``."""
    return hasattr(value, attribute) and callable(getattr(value, "to_dict", None))


# ---------------------------------------------------------------- staging
def _stage_lines(con: duckdb.DuckDBPyConnection, lines: list[tuple[int, str]], table: str) -> None:
    """``table(line, j JSON)`` from ``(line, JSON text)`` pairs."""
    import pandas as pd

    texts = pd.DataFrame(
        {"line": [n for n, _ in lines], "text": pd.Series([t for _, t in lines], dtype=object)}
    )
    con.register("memory_records", texts)
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT line::BIGINT AS line, "
            "text::JSON AS j FROM memory_records"
        )
    finally:
        con.unregister("memory_records")


def _register_rows(con: duckdb.DuckDBPyConnection, rows: list[tuple], names: tuple) -> None:
    """Register ``rows`` (text or None) as ``memory_rows(line, <names>)``, line from 1."""
    import pandas as pd

    columns = {"line": range(1, len(rows) + 1)}
    columns |= {
        name: pd.Series([row[i] for row in rows], dtype=object) for i, name in enumerate(names)
    }
    con.register("memory_rows", pd.DataFrame(columns))


def _stage_frame(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, table: str) -> list[str]:
    """``table(line, rec)`` from a plain ``frame`` (row ``i`` from 1), as
    :func:`readers.stage_table_rows` stages a Parquet file; return the column names."""
    columns = list(frame.columns)
    con.register("memory_frame", frame)
    try:
        alias = readers.row_alias(columns)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT row_number() OVER () AS line, "
            f"{alias} AS rec FROM memory_frame AS {alias}"
        )
    finally:
        con.unregister("memory_frame")
    return columns


def _record_mapping(con: duckdb.DuckDBPyConnection, label: str, renamed: dict[str, str]) -> None:
    """Keep, for the caller to be told, each frame column read under another name."""
    roles = {role: (role, column) for column, role in renamed.items()}
    readers.record_mapping(con, label, roles)


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
    """``value`` said of its query (or record): unless it opens with it already, as a run
    item's value does (``"q1" retrieved[2]: ...``)."""
    if query is None:
        return said_of(f"record {line}: ", value)
    return (
        value if value.startswith(f'"{query}" retrieved[') else said_of(f"query {query!r}: ", value)
    )
