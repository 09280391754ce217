"""Pooling: what to judge next, so every run is measured on judged chunks.

The pool of a query is the union of the chosen runs' top-d chunks minus those
already judged for it (gold or reviewers). It carries no run name, rank or
score, and its order is shuffled with a fixed seed, so judging is blind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ragrecall_core.errors import InputError, Problem, one_line
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import neutralise

DEFAULT_DEPTH = 10
SEED = "ragrecall-pool"

POOL_SQL = """
WITH judged AS (
    SELECT query_id, chunk_id FROM qrels WHERE NOT $include_judged
    UNION SELECT query_id, chunk_id FROM all_grades
    WHERE NOT $include_judged AND ($annotator IS NULL OR annotator = $annotator)),
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


def check_pool(workspace: Workspace, runs: Sequence[str], depth: int, k: int) -> None:
    """Every pooled run is loaded and the depth reaches k (an input error otherwise)."""
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
    include_judged: bool = False,
) -> pd.DataFrame:
    """``(query_id, chunk_id, query, text)`` to judge, shuffled with a fixed seed.

    With ``annotator``, only what that annotator has not judged yet is left out, so a
    second annotator judges the same pool independently (and resumes where they stopped).
    With ``include_judged``, nothing is left out: the whole pool (a model judge grades what
    the humans graded too, to be measured against them).
    """
    runs = list(runs or workspace.run_names)
    check_pool(workspace, runs, depth, k)
    params = {
        "depth": depth,
        "runs": runs,
        "queries": list(query_ids or []),
        "seed": SEED,
        "annotator": annotator,
        "include_judged": include_judged,
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
    check_pool(workspace, runs, depth, k)
    return (
        workspace.cursor()
        .execute(
            COVERAGE_SQL, {"depth": depth, "k": k, "runs": runs, "queries": list(query_ids or [])}
        )
        .df()
    )


POOL_COLUMNS = ["query_id", "chunk_id", "query", "text"]


def pool_format(path: Path) -> str:
    """The pool file format a file name asks for; an input error for any other ending, so a
    ``.csv`` name never holds JSON lines."""
    suffix = Path(path).suffix.lower()
    if suffix not in POOL_WRITERS:
        raise InputError([Problem("-o", None, str(path), "a file ending in .jsonl or .csv")])
    return suffix


def write_pool(pool: pd.DataFrame, path: Path) -> int:
    """Write the pool (no run, rank or score) as JSON lines or CSV; return the row count."""
    POOL_WRITERS[pool_format(path)](pool[POOL_COLUMNS], Path(path))
    return len(pool)


def _write_jsonl(pool: pd.DataFrame, path: Path) -> None:
    """One object per line; a query or text the inputs lack is left out, not null."""
    with path.open("w", encoding="utf-8") as handle:
        for record in pool.to_dict("records"):
            kept = {key: value for key, value in record.items() if isinstance(value, str)}
            handle.write(json.dumps(kept, ensure_ascii=False) + "\n")


def _write_csv(pool: pd.DataFrame, path: Path) -> None:
    """A sheet to judge in: empty cells where text is missing, no cell a spreadsheet runs."""
    pool.map(neutralise).to_csv(path, index=False, na_rep="", lineterminator="\n")


POOL_WRITERS = {".jsonl": _write_jsonl, ".csv": _write_csv}


def coverage_text(
    workspace: Workspace, depth: int, k: int, query_ids: Sequence[str] | None = None
) -> str:
    """Each run's judged share of its top k before and after judging, for the terminal."""
    coverage = pool_coverage(workspace, depth=depth, k=k, query_ids=query_ids)
    rows = [
        f"  {one_line(row.run)}: {_share(row.judged_before)} -> {_share(row.judged_after)}"
        + ("" if row.in_pool else " (not pooled)")
        for row in coverage.itertuples(index=False)
    ]
    heading = f"judged share of each run's top {k}, before -> after judging the pool:"
    return "\n".join([heading, *rows]) + "\n"


def _share(value) -> str:
    return "—" if pd.isna(value) else f"{value:.3f}"
