"""Validation rules as data: a SQL condition that flags a bad row, the SQL of
the offending value, and what was expected instead, in plain words.

All checks of a file run in one query, so every problem is reported at once.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ragrecall_core.errors import Problem
from ragrecall_core.inputs.secrets import redact_path

MAX_PROBLEMS = 1000
# from a file of this many bytes, a Duplicate check runs only after a pre-test (_may_repeat)
PRETEST_FROM_BYTES = 1_000_000


# a line longer than this shows a field as DuckDB writes it, not as the file does (reading
# it again to find the field would cost more than a problem line is worth)
MAX_WRITTEN_BYTES = 1_000_000


@dataclass(frozen=True)
class ListItem:
    """Where a check of a list's items (one row each) finds an item's text as written: the
    item at ``place`` (SQL of its 1-based place) in the list ``name`` of its line's JSON
    text ``j`` in table ``lines`` (``line``, ``j``), shown after the line's ``key`` field
    (``"q1" retrieved[3]: ``)."""

    name: str
    place: str
    lines: str
    key: str


@dataclass(frozen=True)
class Check:
    """``condition`` flags a bad row, ``value`` is the SQL of what it shows, ``expected`` says
    what belonged there. With ``field``, the value shows that top-level field of the JSON
    text ``source`` as the file writes it (``"id": 2.10``): DuckDB writes a value it
    extracts again its own way (``2.1``), which a user searching the file would not find.
    With ``item``, the row is a list's item and the value shows its ``field`` (or, without
    one or when it is missing, the whole item) as written (:class:`ListItem`)."""

    condition: str
    value: str
    expected: str
    field: str | None = None
    source: str = "j"
    item: ListItem | None = None


@dataclass(frozen=True)
class Duplicate:
    """Flags every row whose key (comma-separated SQL expressions) repeats an earlier row's.

    A row whose ``value`` is NULL lacks a part of its key (a missing id: ``value`` joins the
    key's parts as text, so it is NULL exactly then); that is its own problem, found by the
    loader's check of the field, and two such rows are not one key written twice."""

    keys: str
    value: str
    expected: str
    order: str = "line"


def _check_sql(i: int, check: Check | Duplicate, table: str) -> str:
    if isinstance(check, Duplicate):
        # a hash aggregate finds the repeated keys; only those rows are joined back
        return (
            f"SELECT t.line, CAST(({check.value}) || ' (first at {check.order} ' || d.first || ')' "
            f"AS VARCHAR) AS value, {i} AS rule, NULL::BIGINT AS place "
            f"FROM (SELECT *, row({check.keys}) AS dup_key FROM {table}) t "
            f"JOIN (SELECT row({check.keys}) AS dup_key, min({check.order}) AS first FROM {table} "
            f"GROUP BY ALL HAVING count(*) > 1) d "
            f"ON t.dup_key IS NOT DISTINCT FROM d.dup_key AND t.{check.order} > d.first "
            f"WHERE ({check.value}) IS NOT NULL"
        )
    place = check.item.place if check.item else "NULL"
    return (
        f"SELECT line, value, {i} AS rule, place FROM (SELECT line, "
        f"CAST(({check.value}) AS VARCHAR) AS value, coalesce(({check.condition}), false) AS bad, "
        f"CAST(({place}) AS BIGINT) AS place FROM {table}) WHERE bad"
    )


def run_checks(
    con: duckdb.DuckDBPyConnection, table: str, checks: list[Check | Duplicate], path: Path
) -> list[Problem]:
    """Problems that ``checks`` find in staged ``table`` (which has a ``line`` column)."""
    pretest = not _small_file(path)
    active = [
        c
        for c in checks
        if not isinstance(c, Duplicate) or not pretest or _may_repeat(con, table, c)
    ]
    if not active:
        return []
    parts = [_check_sql(i, c, table) for i, c in enumerate(active)]
    rows = con.execute(
        " UNION ALL ".join(parts) + f" ORDER BY line, rule LIMIT {MAX_PROBLEMS}"
    ).fetchall()
    written = _written_fields(con, table, active, rows)
    return [
        Problem(
            redact_path(path),
            line,
            written.get((line, rule, place), str(value)),
            active[rule].expected,
        )
        for line, value, rule, place in rows
    ]


def _written_fields(
    con: duckdb.DuckDBPyConnection, table: str, checks: list, rows: list[tuple]
) -> dict[tuple[int, int, int | None], str]:
    """What the problems of checks with a ``field`` or an ``item`` show, by (line, rule,
    place): ``"name": <its text in the file>`` (:func:`_item_written` for an item). The
    lines' JSON text is read again (a few, at most MAX_PROBLEMS) and the field found in it."""
    wanted = [
        (line, rule, place)
        for line, _, rule, place in rows
        if getattr(checks[rule], "field", None) or getattr(checks[rule], "item", None)
    ]
    texts = {
        origin: _line_texts(con, *origin, {line for line, _, _ in wanted})
        for origin in {_text_origin(checks[rule], table) for _, rule, _ in wanted}
    }
    shown, items = {}, ItemTexts()
    for line, rule, place in wanted:
        check = checks[rule]
        text = texts[_text_origin(check, table)].get(line)
        if check.item is not None:
            value = _item_written(items, text, line, check, place)
        elif (member := member_text(text, check.field)) is not None:
            value = f'"{check.field}": {member}'
        else:
            value = None
        if value is not None:
            shown[(line, rule, place)] = value
    return shown


def _text_origin(check: Check, table: str) -> tuple[str, str]:
    """The table and the column of the JSON text ``check``'s values are found in."""
    return (check.item.lines, "j") if check.item else (table, check.source)


def _line_texts(
    con: duckdb.DuckDBPyConnection, table: str, source: str, lines: set[int]
) -> dict[int, str]:
    """The JSON text ``source`` of each of ``lines`` in ``table`` (none longer than
    MAX_WRITTEN_BYTES)."""
    return dict(
        con.execute(
            f"SELECT line, {source}::VARCHAR FROM {table} "
            f"WHERE line IN (SELECT unnest($lines)) "
            f"AND strlen({source}::VARCHAR) <= {MAX_WRITTEN_BYTES}",
            {"lines": sorted(lines)},
        ).fetchall()
    )


def _item_written(
    items: ItemTexts, text: str | None, line: int, check: Check, place: int | None
) -> str | None:
    """``<key> <list>[<place>]: "field": <its text>`` of an item of the line ``text``, all
    as written; the whole item when the check has no field or the item lacks it."""
    item = check.item
    key = member_text(text, item.key)
    element = items.at(text, line, item.name, place)
    if key is None or element is None:
        return None
    member = member_text(element, check.field) if check.field else None
    shown = f'"{check.field}": {member}' if member is not None else element
    return f"{key} {item.name}[{place}]: {shown}"


class ItemTexts:
    """The items of lists as written, each list's line split once (a line of many
    problems is not scanned again for each)."""

    def __init__(self) -> None:
        self.split: dict[tuple[int, str], list[str] | None] = {}

    def at(self, text: str | None, line: int, name: str, place: int | None) -> str | None:
        """The item at 1-based ``place`` of the list ``name`` of the JSON object ``text``."""
        if (line, name) not in self.split:
            self.split[(line, name)] = element_texts(member_text(text, name))
        elements = self.split[(line, name)]
        if elements is None or place is None or not 1 <= place <= len(elements):
            return None
        return elements[place - 1]


_SPACE = re.compile(r"[ \t\n\r]*")


def member_text(text: str | None, name: str) -> str | None:
    """The text of the first member ``name`` of the JSON object ``text`` as written (its
    number's digits, its spacing), or None when ``text`` is no such object.

    >>> member_text('{"meta": {"id": 7.50}, "id" :  2.10 }', "id")
    '2.10'
    """
    if text is None:
        return None
    decoder = json.JSONDecoder()
    at = _SPACE.match(text).end()
    if text[at : at + 1] != "{":
        return None
    at = _SPACE.match(text, at + 1).end()
    try:
        while text[at : at + 1] == '"':
            key, at = json.decoder.scanstring(text, at + 1)
            at = _SPACE.match(text, at).end()
            if text[at : at + 1] != ":":
                return None
            at = _SPACE.match(text, at + 1).end()
            _, end = decoder.raw_decode(text, at)
            if key == name:
                return text[at:end]
            at = _SPACE.match(text, end).end()
            if text[at : at + 1] != ",":
                return None
            at = _SPACE.match(text, at + 1).end()
    except (ValueError, RecursionError):
        return None
    return None


def element_texts(text: str | None) -> list[str] | None:
    """The text of each element of the JSON array ``text`` as written, or None when ``text``
    is no array.

    >>> element_texts('[ 1.50 ,{"a": [2]}, "x"]')
    ['1.50', '{"a": [2]}', '"x"']
    """
    if text is None:
        return None
    decoder = json.JSONDecoder()
    at = _SPACE.match(text).end()
    if text[at : at + 1] != "[":
        return None
    at = _SPACE.match(text, at + 1).end()
    elements = []
    try:
        while text[at : at + 1] not in ("]", ""):
            _, end = decoder.raw_decode(text, at)
            elements.append(text[at:end])
            at = _SPACE.match(text, end).end()
            if text[at : at + 1] == ",":
                at = _SPACE.match(text, at + 1).end()
            elif text[at : at + 1] != "]":
                return None
    except (ValueError, RecursionError):
        return None
    return elements if text[at : at + 1] == "]" else None


def _small_file(path: Path) -> bool:
    """Whether ``path`` is a file of fewer than :data:`PRETEST_FROM_BYTES` (not a label of
    data in memory): its repeated keys are looked for without the pre-test, one statement
    less (each waits to take the interpreter's lock back: db.connect)."""
    try:
        return os.stat(path).st_size < PRETEST_FROM_BYTES
    except (OSError, TypeError, ValueError):
        return False


def _may_repeat(con: duckdb.DuckDBPyConnection, table: str, check: Duplicate) -> bool:
    """A cheap exact pre-test: equal keys have equal hashes, so no repeated hash means no
    repeated key; only then is the costlier string-keyed search skipped."""
    return con.execute(
        f"SELECT EXISTS (SELECT hash({check.keys}) AS h FROM {table} GROUP BY h "
        "HAVING count(*) > 1)"
    ).fetchone()[0]


def is_whole_number(sql: str, negative: bool = False) -> str:
    """SQL: the value ``sql``, as text, is a whole number (``2``, ``+2``, ``2.0``; ``-2`` only
    when ``negative``). A test on the text, because DuckDB's casts round: ``'1.5'`` casts to
    the integer 2."""
    sign = "[+-]?" if negative else "[+]?"
    return f"regexp_full_match(trim(CAST(({sql}) AS VARCHAR)), '{sign}[0-9]+(\\.0*)?')"


def positive_whole_number(sql: str) -> str:
    """SQL: ``sql`` is a whole number from 1 to the largest BIGINT (never NULL)."""
    return (
        f"coalesce({is_whole_number(sql)} AND "
        f"TRY_CAST(TRY_CAST(({sql}) AS DOUBLE) AS BIGINT) >= 1, false)"
    )


def without_digit_separator(sql: str) -> str:
    """SQL: the text of ``sql`` has no digit separator. DuckDB's casts read ``1_0`` as 10 (so
    does Python's ``float``), trec_eval's ``atof`` as 1: no reading is surely the writer's,
    so a number written with one is refused (a typed read leaves it to the checks)."""
    return f"NOT contains(CAST(({sql}) AS VARCHAR), '_')"


def is_finite_number(sql: str) -> str:
    """SQL: ``sql`` is a number other than NaN and ±Infinity, written without a digit
    separator (:func:`without_digit_separator`) (never NULL)."""
    return (
        f"coalesce(isfinite(TRY_CAST(({sql}) AS DOUBLE)) AND {without_digit_separator(sql)}, false)"
    )


def string_field(name: str, required: bool = True, source: str = "j") -> list[Check]:
    """Checks that JSON field ``name`` is a non-empty string (when present, if optional)."""
    path = f"'$.{name}'"
    checks = [
        Check(
            f"json_type({source}, {path}) IS NOT NULL AND json_type({source}, {path}) <> 'VARCHAR'"
            f" AND json_type({source}, {path}) <> 'NULL'",
            f"'\"{name}\": ' || json_extract({source}, {path})",
            f'"{name}" to be a string',
            field=name,
            source=source,
        )
    ]
    if required:
        checks.insert(
            0,
            Check(
                f"json_type({source}, {path}) IS NULL OR json_type({source}, {path}) = 'NULL'",
                f"left({source}::VARCHAR, 120)",
                f'a field "{name}"',
            ),
        )
        checks.append(
            Check(
                f"json_type({source}, {path}) = 'VARCHAR' AND trim({source}->>{path}) = ''",
                f"'\"{name}\": \"' || ({source}->>{path}) || '\"'",
                f'a non-empty "{name}"',
            )
        )
    return checks


def repeated_keys(source: str = "j", unit: str = "line", only: tuple[str, ...] = ()) -> Check:
    """Flags a JSON object (``source``, SQL) that names a key more than once (of the keys
    ``only``, when given: constants of the loader). JSON allows it and every parser keeps one
    of the values, each its own way; which one counts would be a guess, so the object is
    refused, naming the repeated keys."""
    keys = f"json_keys({source})"
    if only:
        names = ", ".join(f"'{name}'" for name in only)
        keys = f"list_filter({keys}, lambda key: key IN ({names}))"
    repeated = f"list_distinct(list_filter({keys}, lambda key, i: list_position({keys}, key) < i))"
    return Check(
        f"json_type({source}) = 'OBJECT' AND len({keys}) <> len(list_distinct({keys}))",
        f"'repeated key ' || array_to_string(list_sort({repeated}), ', ')",
        f"each key once per {unit} (strict JSON)",
    )


def duplicate_key(key_sql: str, partition: str, label: str, order: str = "line") -> Duplicate:
    """Flags every row whose ``partition`` key repeats an earlier row's, naming the first one.

    ``order`` is the column that says which row came first (``line``, or ``pos`` in a list).
    """
    where = "an earlier line" if order == "line" else "an earlier position in the list"
    return Duplicate(partition, key_sql, f"a {label} not used at {where}", order)
