"""Which way a run's scores point: similarities (higher is better) or distances (lower).

A run is ordered by its ``rank``; its ``score`` is written as the retriever gave it. FAISS
L2, Chroma and pgvector give a *distance*, so a query's scores rise with rank, and every
reading of "a high top score = a confident answer" is inverted for such a run. The rule
lives here alone: per run, count the queries whose score rises from one rank to the next
and those whose score falls, over the head of each list (its first :data:`HEAD` ranks).

- falls only (or never changes): higher is better
- rises only: lower is better
- both: not ordered with rank (e.g. a reranker's order with the first stage's scores);
  read as higher is better, with a note

The direction is a fact of the run, not of a view: it is read over every query of the run,
from its own rows (its chunks, whatever unit the figures use), so no filter, cutoff, policy
or stored grade changes it, and the dashboard reads it once per run of a loaded workspace
(``ragrecall_app.analyses``). A filter that keeps only the queries whose first ranks look
the other way must not flip the reading of the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.prepared import run_scope

HIGHER = "higher_is_better"
LOWER = "lower_is_better"
NOT_ORDERED = "not_ordered"

# The head, not the whole list: the no-answer analysis reads the top score, and a window
# over every row of 10,000 queries x 100 x 4 runs took 3-6 s (on a loaded machine) against
# 0.3-0.5 s for the top scores themselves; over the first 10 ranks it is ~0.4 s.
HEAD = 10

# one pass of a window over the head's rows: a step is a score minus the one a rank above
# (a run's ranks are distinct within a list: a repeated rank is refused when it is read)
DIRECTION_SQL = """
WITH steps AS (
    SELECT run, query_id,
           score - lag(score) OVER (PARTITION BY run, query_id ORDER BY rank) AS step
    FROM runs
    WHERE rank <= $head AND score IS NOT NULL AND ($all_runs OR list_contains($runs, run))),
per_query AS (
    SELECT run, bool_or(step > 0) AS rises, bool_or(step < 0) AS falls
    FROM steps GROUP BY run, query_id)
SELECT run,
       count(*) FILTER (WHERE rises) AS rising_queries,
       count(*) FILTER (WHERE falls) AS falling_queries,
       CASE WHEN count(*) FILTER (WHERE rises) = 0 THEN $higher
            WHEN count(*) FILTER (WHERE falls) = 0 THEN $lower
            ELSE $not_ordered END AS score_direction
FROM per_query GROUP BY run
"""


def score_directions(workspace: Workspace, runs: Sequence[str] | None = None) -> pd.DataFrame:
    """``(run, rising_queries, falling_queries, score_direction)`` per run with a score
    (``runs``, or every run); a run absent from it has no score at all (read as
    :data:`HIGHER`: nothing to invert). Over the run's own rows, every query."""
    return (
        workspace.cursor()
        .execute(
            DIRECTION_SQL,
            {
                **run_scope(runs),
                "head": HEAD,
                "higher": HIGHER,
                "lower": LOWER,
                "not_ordered": NOT_ORDERED,
            },
        )
        .df()
    )


def run_directions(workspace: Workspace, runs: Sequence[str] | None = None) -> dict[str, str]:
    """Run -> its direction, for ``runs`` (each one, :data:`HIGHER` for a run without a
    score) or every run with a score."""
    found = score_directions(workspace, runs)
    read = dict(zip(found["run"], found["score_direction"], strict=True))
    return read if runs is None else {run: read.get(run, HIGHER) for run in runs}


def sign(direction: str) -> int:
    """The factor turning a score into confidence (higher = more confident): -1 for a
    distance, else 1 (a run not ordered with rank keeps today's reading)."""
    return -1 if direction == LOWER else 1


def reading(direction: str) -> str:
    """The words saying which reading a run's figures use.

    >>> reading(LOWER)
    'lower is better (scores rise with rank: distances); confident when top score <= threshold'
    """
    if direction == LOWER:
        return (
            "lower is better (scores rise with rank: distances); "
            "confident when top score <= threshold"
        )
    if direction == NOT_ORDERED:
        return (
            "not ordered with rank (scores both rise and fall down a list): read as higher "
            "is better, confident when top score >= threshold; the threshold may mean nothing"
        )
    return "higher is better (scores fall with rank); confident when top score >= threshold"
