"""Where judgments live: a DuckDB file that every submitted judgment is committed to.

The store is append-only. Judging a chunk again adds a row (the latest per
annotator counts); resolving a disagreement adds a resolution, never
overwriting the annotators' grades. The file sits in the workspace folder
(``judgments.duckdb``) or beside a loose gold file (``<gold>.judgments.duckdb``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .errors import InputError, Problem
from .workspace import Workspace

STORE = "judgment_store"

STORE_SCHEMA = f"""
CREATE SEQUENCE IF NOT EXISTS {STORE}.judgment_ids;
CREATE TABLE IF NOT EXISTS {STORE}.judgments (
    id BIGINT DEFAULT nextval('{STORE}.judgment_ids'), query_id VARCHAR NOT NULL,
    chunk_id VARCHAR NOT NULL, grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
    harmful BOOLEAN NOT NULL, reason VARCHAR, annotator VARCHAR NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp);
CREATE SEQUENCE IF NOT EXISTS {STORE}.resolution_ids;
CREATE TABLE IF NOT EXISTS {STORE}.resolutions (
    id BIGINT DEFAULT nextval('{STORE}.resolution_ids'),
    query_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL,
    grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
    harmful BOOLEAN NOT NULL, reason VARCHAR, resolver VARCHAR NOT NULL,
    created_at TIMESTAMP DEFAULT current_timestamp);
"""

# what the evaluation sees: file grades, plus each annotator's latest stored judgment
ALL_GRADES = f"""
CREATE OR REPLACE VIEW all_grades AS
SELECT query_id, chunk_id, grade, harmful, reason, annotator, source FROM grades
WHERE NOT EXISTS (SELECT 1 FROM {STORE}.judgments s WHERE s.query_id = grades.query_id
                  AND s.chunk_id = grades.chunk_id AND s.annotator = grades.annotator)
UNION ALL
SELECT query_id, chunk_id, arg_max(grade, id), arg_max(harmful, id), arg_max(reason, id),
       annotator, 'judge page'
FROM {STORE}.judgments GROUP BY query_id, chunk_id, annotator;
CREATE OR REPLACE VIEW all_resolutions AS
SELECT query_id, chunk_id, grade, harmful, reason, resolver, created_at, 0 AS id
FROM resolutions
UNION ALL
SELECT query_id, chunk_id, grade, harmful, reason, resolver, created_at, id
FROM {STORE}.resolutions;
"""


def store_path(workspace: Workspace) -> Path:
    if workspace.folder is not None:
        return workspace.folder / "judgments.duckdb"
    return workspace.gold.with_name(workspace.gold.name + ".judgments.duckdb")


def attach_store(workspace: Workspace, path: Path | None = None) -> Path:
    """Attach the judgment store to the workspace's database (once); return its path."""
    path = Path(path or store_path(workspace))
    con = workspace.con
    attached = {
        row[0] for row in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()
    }
    if STORE not in attached:
        con.execute(f"ATTACH $path AS {STORE}", {"path": str(path)})
        con.execute(STORE_SCHEMA)
        con.execute(ALL_GRADES)
    return path


def submit(
    workspace: Workspace,
    query_id: str,
    chunk_id: str,
    grade: int,
    annotator: str,
    harmful: bool = False,
    reason: str = "",
) -> None:
    """Commit one judgment now (auto-commit: once this returns, the write-ahead log holds it,
    so it survives a killed process)."""
    _require_valid("judgment", grade, annotator, "the annotator's name")
    _append(
        workspace, "judgments", "annotator", (query_id, chunk_id, grade, harmful, reason, annotator)
    )


def resolve(
    workspace: Workspace,
    query_id: str,
    chunk_id: str,
    grade: int,
    resolver: str,
    harmful: bool = False,
    reason: str = "",
) -> None:
    """Record how a disagreement was settled; the annotators' grades stay as they were."""
    _require_valid("resolution", grade, resolver, "the resolver's name")
    _append(
        workspace, "resolutions", "resolver", (query_id, chunk_id, grade, harmful, reason, resolver)
    )


def _append(workspace: Workspace, table: str, person_column: str, row: tuple) -> None:
    """Insert one row into a store table (``table`` and ``person_column`` are constants)."""
    query_id, chunk_id, grade, harmful, reason, person = row
    workspace.cursor().execute(
        f"INSERT INTO {STORE}.{table} (query_id, chunk_id, grade, harmful, reason, "
        f"{person_column}) VALUES ($q, $c, $g, $h, $r, $p)",
        {
            "q": query_id,
            "c": chunk_id,
            "g": grade,
            "h": harmful,
            "r": reason.strip(),
            "p": person.strip(),
        },
    )


def _require_valid(what: str, grade: int, person: str, expected_person: str) -> None:
    problems = []
    if grade not in (0, 1, 2):
        problems.append(Problem(what, None, str(grade), "a grade of 2, 1 or 0"))
    if not person or not person.strip():
        problems.append(Problem(what, None, repr(person), expected_person))
    if problems:
        raise InputError(problems)


def stored_judgments(workspace: Workspace, annotator: str | None = None) -> pd.DataFrame:
    return (
        workspace.cursor()
        .execute(
            f"SELECT * FROM {STORE}.judgments WHERE $a IS NULL OR annotator = $a ORDER BY id",
            {"a": annotator},
        )
        .df()
    )


def export_grades(workspace: Workspace) -> pd.DataFrame:
    """Every current grade (files and judge page) in SPEC.md's grades format."""
    return (
        workspace.cursor()
        .execute(
            "SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM all_grades "
            "ORDER BY annotator, query_id, chunk_id"
        )
        .df()
    )
