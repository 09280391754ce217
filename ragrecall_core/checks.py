"""Validation rules as data: a SQL condition that flags a bad row, the SQL of
the offending value, and what was expected instead, in plain words.

All checks of a file run in one query, so every problem is reported at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from .errors import Problem

MAX_PROBLEMS = 1000


@dataclass(frozen=True)
class Check:
    condition: str
    value: str
    expected: str


def run_checks(
    con: duckdb.DuckDBPyConnection, table: str, checks: list[Check], path: Path
) -> list[Problem]:
    """Problems that ``checks`` find in staged ``table`` (which has a ``line`` column)."""
    if not checks:
        return []
    parts = [
        f"SELECT line, value, {i} AS rule FROM (SELECT line, "
        f"CAST(({c.value}) AS VARCHAR) AS value, coalesce(({c.condition}), false) AS bad "
        f"FROM {table}) WHERE bad"
        for i, c in enumerate(checks)
    ]
    rows = con.execute(
        " UNION ALL ".join(parts) + f" ORDER BY line, rule LIMIT {MAX_PROBLEMS}"
    ).fetchall()
    return [
        Problem(str(path), line, str(value), checks[rule].expected) for line, value, rule in rows
    ]


def string_field(name: str, required: bool = True, source: str = "j") -> list[Check]:
    """Checks that JSON field ``name`` is a non-empty string (when present, if optional)."""
    path = f"'$.{name}'"
    checks = [
        Check(
            f"json_type({source}, {path}) IS NOT NULL AND json_type({source}, {path}) <> 'VARCHAR'"
            f" AND json_type({source}, {path}) <> 'NULL'",
            f"'\"{name}\": ' || json_extract({source}, {path})",
            f'"{name}" to be a string',
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


def duplicate_key(key_sql: str, partition: str, label: str) -> Check:
    """Flags every row whose key repeats an earlier row's, naming the first line."""
    return Check(
        f"count(*) OVER (PARTITION BY {partition}) > 1 AND "
        f"line > min(line) OVER (PARTITION BY {partition})",
        f"{key_sql} || ' (first at line ' || min(line) OVER (PARTITION BY {partition}) || ')'",
        f"a {label} not used on an earlier line",
    )
