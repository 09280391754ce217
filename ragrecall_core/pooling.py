"""Pooling (seed 002): what to judge next, so every run is measured on judged chunks.

The pool of a query is the union of the chosen runs' top-d chunks minus those
already judged for it (gold or reviewers). It carries no run name, rank or
score, and its order is shuffled with a fixed seed, so judging is blind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .errors import InputError, Problem
from .workspace import Workspace

DEFAULT_DEPTH = 10
SEED = "ragrecall-pool"

POOL_SQL = """
WITH judged AS (
    SELECT query_id, chunk_id FROM qrels
    UNION SELECT query_id, chunk_id FROM all_grades
    WHERE $annotator IS NULL OR annotator = $annotator),
pooled AS (
    SELECT DISTINCT r.query_id, r.chunk_id FROM runs r
    WHERE r.rank <= $depth AND list_contains($runs, r.run)
      AND (len($queries) = 0 OR list_contains($queries, r.query_id)))
SELECT p.query_id, p.chunk_id, q.query, c.text
FROM pooled p ANTI JOIN judged j ON j.query_id = p.query_id AND j.chunk_id = p.chunk_id
LEFT JOIN queries q ON q.query_id = p.query_id
LEFT JOIN corpus c ON c.chunk_id = p.chunk_id
ORDER BY md5($seed || p.query_id || chr(31) || p.chunk_id)
"""

COVERAGE_SQL = """
WITH judged AS (
    SELECT query_id, chunk_id FROM qrels
    UNION SELECT query_id, chunk_id FROM all_grades),
pool AS (
    SELECT DISTINCT query_id, chunk_id FROM runs
    WHERE rank <= $depth AND list_contains($runs, run)),
top AS (
    SELECT r.run, j.chunk_id IS NOT NULL AS judged, p.chunk_id IS NOT NULL AS pooled
    FROM runs r
    LEFT JOIN judged j ON j.query_id = r.query_id AND j.chunk_id = r.chunk_id
    LEFT JOIN pool p ON p.query_id = r.query_id AND p.chunk_id = r.chunk_id
    WHERE r.rank <= $k AND r.query_id IN (SELECT query_id FROM queries)
      AND (len($queries) = 0 OR list_contains($queries, r.query_id)))
SELECT run, list_contains($runs, run) AS in_pool,
       CASE WHEN list_contains($runs, run) THEN $depth END AS pool_depth,
       avg(judged::INTEGER) AS judged_before, avg((judged OR pooled)::INTEGER) AS judged_after
FROM top GROUP BY run ORDER BY run
"""


def _check(workspace: Workspace, runs: Sequence[str], depth: int, k: int) -> None:
    problems = [
        Problem("--run", None, r, f"one of {workspace.run_names}")
        for r in runs
        if r not in workspace.runs
    ]
    if depth < k:
        problems.append(Problem("--depth", None, str(depth), f"a depth d >= k = {k}"))
    if problems:
        raise InputError(problems)


def build_pool(
    workspace: Workspace,
    runs: Sequence[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    query_ids: Sequence[str] | None = None,
    k: int = 1,
    annotator: str | None = None,
) -> pd.DataFrame:
    """``(query_id, chunk_id, query, text)`` to judge, shuffled with a fixed seed.

    With ``annotator``, only what that annotator has not judged yet is left out, so a
    second annotator judges the same pool independently (and resumes where they stopped).
    """
    runs = list(runs or workspace.run_names)
    _check(workspace, runs, depth, k)
    params = {
        "depth": depth,
        "runs": runs,
        "queries": list(query_ids or []),
        "seed": SEED,
        "annotator": annotator,
    }
    return workspace.cursor().execute(POOL_SQL, params).df()


def pool_coverage(
    workspace: Workspace,
    runs: Sequence[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    k: int = 5,
    query_ids: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per run: pool depth and the judged share of its top k before and after judging."""
    runs = list(runs or workspace.run_names)
    _check(workspace, runs, depth, k)
    return (
        workspace.cursor()
        .execute(
            COVERAGE_SQL, {"depth": depth, "k": k, "runs": runs, "queries": list(query_ids or [])}
        )
        .df()
    )


def write_pool(pool: pd.DataFrame, path: Path) -> int:
    """Write the pool as JSON lines (no run, rank or score); return the line count."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for row in pool.itertuples(index=False):
            record = {"query_id": row.query_id, "chunk_id": row.chunk_id}
            if isinstance(row.query, str):
                record["query"] = row.query
            if isinstance(row.text, str):
                record["text"] = row.text
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(pool)
