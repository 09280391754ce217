"""Counting a model judge's grades, honestly (issue 32).

By default a judge's grades are shown, never counted. Counted
(:attr:`.Policy.judge`), they judge the chunks neither the gold set nor a human judged,
and every mean then comes with a prediction-powered 95% interval (:mod:`.ppi`):

- ``f`` per query: the measure from the gold set and the judge's grades alone (humans'
  grades left out), for every query in the mean;
- ``y`` per query: the measure from the gold set and the humans' grades, on the
  *human-judged* queries: those where every chunk in every run's top ``depth`` (the
  largest cutoff of the measures asked, else 10) is judged by the gold set or a human;
- the interval: ``mean(f) - mean(f - y over the human-judged)`` ± 1.96 se, so a judge that
  overrates moves the interval down, not the truth up. Fewer than two human-judged
  queries: no interval (NaN), and the text says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ragrecall_core.analysis.pooling import DEFAULT_DEPTH
from ragrecall_core.analysis.ppi import ppi_mean
from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs import store
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import one_line, plural, text_table
from ragrecall_core.scoring.evaluate import Evaluation, as_requests, default_measures, evaluate
from ragrecall_core.scoring.policy import Policy

HUMAN_JUDGED_SQL = """
WITH judged AS (
    SELECT query_id, chunk_id FROM qrels UNION SELECT query_id, chunk_id FROM all_grades),
top AS (
    SELECT DISTINCT r.query_id, r.chunk_id FROM runs r
    WHERE r.rank <= $depth AND list_contains($runs, r.run))
SELECT q.query_id FROM queries q
WHERE NOT EXISTS (
    SELECT 1 FROM top t ANTI JOIN judged j USING (query_id, chunk_id)
    WHERE t.query_id = q.query_id)
ORDER BY q.query_id
"""
FILLED_SQL = """
SELECT count(*) FROM judge_grades j
WHERE annotator = $judge AND list_contains($queries, j.query_id)
  AND NOT EXISTS (SELECT 1 FROM qrels g WHERE g.query_id = j.query_id
                  AND g.chunk_id = j.chunk_id AND g.grade >= 0)
  AND NOT EXISTS (SELECT 1 FROM all_grades g WHERE g.query_id = j.query_id
                  AND g.chunk_id = j.chunk_id)
"""
COLUMNS = [
    "run",
    "measure",
    "mean",
    "ppi_mean",
    "ppi_low",
    "ppi_high",
    "judge_mean",
    "humans_mean",
    "queries",
    "human_judged_queries",
]


@dataclass
class JudgeCounted:
    """The evaluation with the judge counted, and each mean's prediction-powered interval."""

    evaluation: Evaluation
    judge: str
    intervals: pd.DataFrame
    depth: int
    filled: int  # pairs the judge's grades judged that no one else did

    def statement(self) -> str:
        """The sentence every output carries when a judge is counted."""
        return (
            f"judge grades counted: {one_line(self.judge)} judges "
            f"{plural(self.filled, 'chunk')} no one else judged; each mean has a "
            "prediction-powered 95% interval (the judge's mean corrected by its difference "
            f"from the humans on the queries humans judged to depth {self.depth})"
        )

    def to_text(self) -> str:
        shown = self.intervals.drop(columns=["judge_mean"])
        lines = [self.statement() + ":", text_table(shown, "no mean to show", digits=4)]
        if (self.intervals.human_judged_queries < 2).any():
            lines.append(
                "no interval where fewer than 2 queries are human-judged to that depth: "
                "judge more of the pool (`ragrecall pool`, the Judge page)"
            )
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        return {
            "judge_counted": {
                "judge": self.judge,
                "statement": self.statement(),
                "depth": self.depth,
                "judged_by_the_judge_alone": self.filled,
                "means": self.intervals.to_dict("records"),
            }
        }


def judge_to_count(workspace: Workspace, judge: str | None = None) -> str:
    """The judge annotator to count: ``judge`` (with or without ``judge:``), else the one
    judge whose grades the inputs hold; an input error naming the ones there otherwise."""
    names = sorted(set(store.judge_grades(workspace).annotator))
    if judge is not None:
        wanted = judge if judge.startswith(store.JUDGE_PREFIX) else store.JUDGE_PREFIX + judge
        if wanted in names:
            return wanted
        problem = Problem(
            "--judge-grades", None, redact_text(judge), f"one of {names or 'no judge'}"
        )
        raise InputError([problem])
    if len(names) == 1:
        return names[0]
    expected = (
        "judge grades to count: run `ragrecall judge`, or give a grades file whose annotator "
        "is judge:NAME"
        if not names
        else f"the grades of one judge (the inputs hold {', '.join(names)})"
    )
    raise InputError([Problem("--judge-grades", None, "count", expected)])


def human_judged_queries(workspace: Workspace, depth: int, runs: Sequence[str]) -> list[str]:
    """Queries whose every chunk in each run's top ``depth`` the gold set or a human judged."""
    params = {"depth": depth, "runs": list(runs)}
    return [row[0] for row in workspace.cursor().execute(HUMAN_JUDGED_SQL, params).fetchall()]


def count_judge(
    workspace: Workspace,
    measures: Sequence | None = None,
    judge: str | None = None,
    policy: Policy | None = None,
    query_ids: Sequence[str] | None = None,
) -> JudgeCounted:
    """Evaluate with ``judge``'s grades counted, each mean with its PPI interval."""
    policy = policy or Policy()
    requests = as_requests(measures or default_measures())
    name = judge_to_count(workspace, judge)
    counted = evaluate(workspace, requests, replace(policy, judge=name), query_ids=query_ids)
    judge_only = replace(policy, judge=name, manual_grades=False)
    f = evaluate(workspace, requests, judge_only, query_ids=query_ids).per_query
    y = evaluate(workspace, requests, replace(policy, judge=None), query_ids=query_ids).per_query
    depth = max((r.measure.cutoff or 0 for r in requests), default=0) or DEFAULT_DEPTH
    labelled = set(human_judged_queries(workspace, depth, workspace.run_names))
    # a query's value goes by the measure's per-query name (RR@5 for MRR@5), its mean and
    # interval by the name asked
    as_asked = counted.asked
    rows = []
    for run, measure in (
        counted.per_query[["run", "measure"]].drop_duplicates().itertuples(index=False)
    ):
        row = {**interval_row(run, measure, f, y, labelled), "measure": as_asked[measure]}
        rows.append({**row, "mean": counted.value(run, as_asked[measure])})
    intervals = pd.DataFrame(rows, columns=COLUMNS)
    in_scope = (
        list(query_ids)
        if query_ids is not None
        else list(workspace.cursor().execute("SELECT query_id FROM queries").df().query_id)
    )
    filled = workspace.cursor().execute(FILLED_SQL, {"judge": name, "queries": in_scope})
    return JudgeCounted(counted, name, intervals, depth, filled.fetchone()[0])


def interval_row(run: str, measure: str, f: pd.DataFrame, y: pd.DataFrame, labelled) -> dict:
    """One mean's interval from the judge's (``f``) and the humans' (``y``) per-query
    values, on the ``labelled`` (human-judged) queries."""

    def values(frame: pd.DataFrame) -> pd.Series:
        rows = frame[(frame.run == run) & (frame.measure == measure)]
        return rows.set_index("query_id").value.dropna()

    judged, humans = values(f), values(y)
    both = sorted(set(judged.index) & set(humans.index) & labelled)
    result = ppi_mean(judged.to_numpy(), judged[both].to_numpy(), humans[both].to_numpy())
    return {
        "run": run,
        "measure": measure,
        "ppi_mean": result.estimate,
        "ppi_low": result.low,
        "ppi_high": result.high,
        "judge_mean": result.judge_mean,
        "humans_mean": float(humans.mean()) if len(humans) else np.nan,
        "queries": len(judged),
        "human_judged_queries": len(both),
    }
