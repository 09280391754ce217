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
from ragrecall_core.inputs.secrets import redact_path, redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import neutralise, plural
from ragrecall_core.scoring.evaluate import ignored_queries_text

DEFAULT_DEPTH = 10
SEED = "ragrecall-pool"

# the gold queries (``$filtered``: only ``$queries``) and the chunks the chosen runs put in
# their top ``$depth`` for them. A run query the gold set lacks has no question to judge a
# chunk by: it is left out, as evaluation ignores it (:data:`IGNORED_SQL` reports it). An
# empty ``$queries`` under a filter is a filter nothing passed: nothing is pooled.
POOL_QUERIES = """
r.query_id IN (SELECT query_id FROM queries)
AND (NOT $filtered OR list_contains($queries, r.query_id))
"""
POOLED = f"""pooled AS (
    SELECT DISTINCT r.query_id, r.chunk_id FROM runs r
    WHERE r.rank <= $depth AND list_contains($runs, r.run) AND {POOL_QUERIES})"""

POOL_SQL = """
WITH judged AS (
    SELECT query_id, chunk_id FROM qrels WHERE NOT $include_judged
    UNION SELECT query_id, chunk_id FROM all_grades
    WHERE NOT $include_judged AND ($annotator IS NULL OR annotator = $annotator)),
{pooled}
SELECT p.query_id, p.chunk_id, q.query, c.text
FROM pooled p ANTI JOIN judged j ON j.query_id = p.query_id AND j.chunk_id = p.chunk_id
LEFT JOIN queries q ON q.query_id = p.query_id
LEFT JOIN corpus c ON c.chunk_id = p.chunk_id
ORDER BY md5($seed || p.query_id || chr(31) || p.chunk_id)
""".replace("{pooled}", POOLED)

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
    WHERE r.rank <= $k AND {pool_queries})
SELECT run, list_contains($runs, run) AS in_pool,
       CASE WHEN list_contains($runs, run) THEN $depth END AS pool_depth,
       avg(judged::INTEGER) AS judged_before, avg((judged OR pooled)::INTEGER) AS judged_after
FROM top GROUP BY run ORDER BY run
""".replace("{pool_queries}", POOL_QUERIES)

# per pooled run: its queries tied across the depth (rank d and d + 1 share a score: which
# of them is pooled depends on tie order, as a tie across k does for a measure @k)
TIES_AT_DEPTH_SQL = f"""
SELECT r.run, count(*) FROM runs r JOIN runs b
  ON b.run = r.run AND b.query_id = r.query_id AND b.rank = $depth + 1
WHERE r.rank = $depth AND r.score = b.score AND list_contains($runs, r.run) AND {POOL_QUERIES}
GROUP BY r.run ORDER BY r.run
"""

# per pooled run: its queries the gold set lacks (never pooled), the first few of them
IGNORED_SQL = """
SELECT run, count(DISTINCT query_id), list(DISTINCT query_id ORDER BY query_id)[1:5]
FROM runs WHERE list_contains($runs, run) AND query_id NOT IN (SELECT query_id FROM queries)
GROUP BY run ORDER BY run
"""


# per pooled run whose every list is shorter than the depth: its longest list's length (the
# pool holds all it has, and goes no deeper)
SHORTER_THAN_DEPTH_SQL = f"""
SELECT r.run, max(r.rank) FROM runs r
WHERE list_contains($runs, r.run) AND {POOL_QUERIES}
GROUP BY r.run HAVING max(r.rank) < $depth ORDER BY r.run
"""


def check_pool(workspace: Workspace, runs: Sequence[str], depth: int, k: int) -> None:
    """Every pooled run is loaded and the depth reaches k (an input error otherwise)."""
    problems = [
        Problem("--run", None, redact_text(str(r)), f"one of {workspace.run_names}")
        for r in runs
        if r not in workspace.runs
    ]
    if depth < k:
        problems.append(Problem("--depth", None, str(depth), f"a depth d >= k = {k}"))
    if problems:
        raise InputError(problems)


def query_params(query_ids: Sequence[str] | None) -> dict:
    """The bound parameters of :data:`POOL_QUERIES`: ``None`` is every gold query, a list
    (even an empty one, a filter nothing passed) only those."""
    return {"queries": list(query_ids or []), "filtered": query_ids is not None}


def pool_warnings(
    workspace: Workspace,
    depth: int,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> list[str]:
    """Per pooled run, what the pool's numbers do not show: run queries the gold set lacks
    (left out of the pool), lists all shorter than the depth (the pool goes no deeper than
    they do) and queries tied across the depth (the pool holds one of the tied chunks by
    tie order alone), each as one line naming the run."""
    runs = list(runs or workspace.run_names)
    con = workspace.cursor()
    lines = []
    for run, n, sample in con.execute(IGNORED_SQL, {"runs": runs}).fetchall():
        shown = [one_line(query_id) for query_id in sample]
        lines.append(f"{one_line(run)}: {ignored_queries_text(n, shown)}")
    params = {"depth": depth, "runs": runs, **query_params(query_ids)}
    for run, longest in con.execute(SHORTER_THAN_DEPTH_SQL, params).fetchall():
        lines.append(
            f"{one_line(run)}: its lists hold at most {plural(longest, 'result')}, fewer than "
            f"the pool depth {depth}: the pool holds all it has and goes no deeper"
        )
    for run, n in con.execute(TIES_AT_DEPTH_SQL, params).fetchall():
        lines.append(
            f"{one_line(run)}: {plural(n, 'query', 'queries')} {'has' if n == 1 else 'have'} "
            f"tied scores at ranks {depth} and {depth + 1}: which is pooled depends on tie order"
        )
    return lines


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
        **query_params(query_ids),
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
        .execute(COVERAGE_SQL, {"depth": depth, "k": k, "runs": runs, **query_params(query_ids)})
        .df()
    )


POOL_COLUMNS = ["query_id", "chunk_id", "query", "text"]


def pool_format(path: Path) -> str:
    """The pool file format a file name asks for; an input error for any other ending, so a
    ``.csv`` name never holds JSON lines."""
    suffix = Path(path).suffix.lower()
    if suffix not in POOL_WRITERS:
        raise InputError(
            [Problem("-o", None, redact_path(path), "a file ending in .jsonl or .csv")]
        )
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
    warnings = [f"warning: {line}" for line in pool_warnings(workspace, depth, None, query_ids)]
    return "\n".join([heading, *rows, *warnings]) + "\n"


def _share(value) -> str:
    return "—" if pd.isna(value) else f"{value:.3f}"
