"""No-answer queries: does the retriever still return something confident?

Scores of different models are on different scales, so every figure is per run,
never pooled across runs.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ragrecall_core.analysis.run_choice import cutoff_problems, policy_problems, run_problems
from ragrecall_core.analysis.score_direction import (
    HIGHER,
    LOWER,
    NOT_ORDERED,
    reading,
    run_directions,
    sign,
)
from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import MISSING, plural
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import SCOPE_CTES, prepare, scope_params

TOP_SCORES_SQL = """
WITH {scope},
answerable AS (
    SELECT DISTINCT query_id FROM {s}.judgments WHERE grade >= $level),
hit AS (
    SELECT run, query_id, min(rank) AS first_relevant_rank FROM {s}.judged_rows
    WHERE grade >= $level GROUP BY run, query_id)
SELECT rn.run, q.query_id,
       CASE WHEN a.query_id IS NULL THEN 'no answer' ELSE 'answerable' END AS kind,
       t.score AS top_score, t.item_id AS top_chunk, h.first_relevant_rank
FROM scope_runs rn CROSS JOIN scope_queries q
LEFT JOIN answerable a ON a.query_id = q.query_id
LEFT JOIN (SELECT run, query_id, item_id, score FROM {s}.ranked WHERE rank = 1) t
       ON t.run = rn.run AND t.query_id = q.query_id
LEFT JOIN hit h ON h.run = rn.run AND h.query_id = q.query_id
ORDER BY rn.run, q.query_id
"""

SWEEP_SQL = """
WITH totals AS (
    SELECT run, count(*) FILTER (WHERE kind = 'no answer') AS no_answer,
           count(*) FILTER (WHERE kind = 'answerable') AS answerable
    FROM top_scores GROUP BY run),
at_score AS (
    SELECT run, confidence, any_value(top_score) AS threshold,
           count(*) FILTER (WHERE kind = 'no answer') AS no_answer,
           count(*) FILTER (WHERE kind = 'answerable' AND relevant_in_top_k) AS covered
    FROM top_scores WHERE top_score IS NOT NULL GROUP BY run, confidence)
SELECT s.run, s.threshold,
       sum(s.no_answer) OVER above / nullif(t.no_answer, 0)::DOUBLE AS false_confidence,
       sum(s.covered) OVER above / nullif(t.answerable, 0)::DOUBLE AS answerable_coverage
FROM at_score s JOIN totals t USING (run)
WINDOW above AS (PARTITION BY s.run ORDER BY s.confidence DESC ROWS UNBOUNDED PRECEDING)
ORDER BY s.run, s.confidence
"""


CONFIDENT_WHEN = {LOWER: "top_score <= threshold"}  # else "top_score >= threshold"


@dataclass
class NoAnswerReport:
    """Top-1 scores per query and the threshold sweep, per run.

    Thresholds are in each run's own units; a run whose scores are distances
    (``top_scores.score_direction`` is :data:`LOWER`) is confident when its top score is at
    most the threshold, so its sweep runs the other way (see :mod:`.score_direction`)."""

    top_scores: pd.DataFrame
    sweep: pd.DataFrame
    k: int
    # run -> what may make its direction wrong: a rankless run whose scores rise as given
    # (evaluate's warning, :func:`.evaluate.rising_warnings`), shown beside its reading
    warnings: dict[str, list[str]] = field(default_factory=dict)

    @property
    def directions(self) -> dict[str, str]:
        """Run -> its score direction (a frame without the column: higher is better)."""
        tops = self.top_scores
        if "score_direction" not in tops.columns:
            return dict.fromkeys(tops["run"].drop_duplicates(), HIGHER)
        runs = tops.drop_duplicates("run")
        return dict(zip(runs["run"], runs["score_direction"], strict=True))

    def confidence(self, frame: pd.DataFrame, column: str = "threshold") -> pd.Series:
        """``frame[column]`` (a run's scores) as confidence: negated for a distance run."""
        lower = [run for run, d in self.directions.items() if sign(d) < 0]
        return frame[column].where(~frame["run"].isin(lower), -frame[column])

    def to_frame(self) -> pd.DataFrame:
        """The threshold sweep: per run and threshold, false confidence and coverage."""
        return self.sweep.copy()

    def pick(self, max_false_confidence: float = 0.1) -> pd.DataFrame:
        """Per run, the least confident threshold whose false confidence is at most the
        given share (the lowest score; for a distance run the highest distance)."""
        max_false_confidence = require_share(max_false_confidence)
        ok = self.sweep[self.sweep.false_confidence <= max_false_confidence]
        ok = ok.assign(_confidence=self.confidence(ok)).sort_values("_confidence", kind="stable")
        return (
            ok.groupby("run", sort=False).head(1).drop(columns="_confidence").reset_index(drop=True)
        )

    def to_text(self, max_false_confidence: float = 0.1) -> str:
        data = self.to_dict(max_false_confidence)
        lines = [
            f"no-answer queries, per run (scores are not comparable across runs); k = {self.k}"
        ]
        for run, entry in data["runs"].items():
            lines.append("")
            count = plural(entry["no_answer_queries"], "no-answer query", "no-answer queries")
            lines.append(
                f"{one_line(run)}: {count}, "
                f"{entry['no_answer_with_results']} still returned something"
            )
            lines.append(f"  scores: {reading(entry['score_direction'])}")
            lines += [f"  warning: {one_line(text)}" for text in entry["warnings"]]
            for query, score in entry["no_answer_top_scores"].items():
                shown = "nothing" if score is None else f"{score:.4f}"
                lines.append(f"  {one_line(query)}: top score {shown}")
            pick = entry["threshold"]
            if not entry["no_answer_queries"]:
                lines.append("  the gold set has no no-answer query: nothing to threshold")
            elif pick:
                sense = (
                    " (confident when top score <= it)" if entry["score_direction"] == LOWER else ""
                )
                lines.append(
                    f"  threshold {pick['threshold']:.4f}{sense}: false confidence "
                    f"{_percent(pick['false_confidence'])} (at most "
                    f"{share_text(max_false_confidence)}), answerable coverage "
                    f"{_percent(pick['answerable_coverage'])}"
                )
            else:
                shown = share_text(max_false_confidence)
                lines.append(f"  no threshold keeps false confidence <= {shown}")
        return "\n".join(lines) + "\n"

    def to_dict(self, max_false_confidence: float = 0.1) -> dict:
        picked = self.pick(max_false_confidence)
        directions = self.directions
        runs = {}
        for run, scores in self.top_scores.groupby("run", sort=False):
            na = scores[scores.kind == "no answer"]
            choice = picked[picked.run == run]
            direction = directions.get(run, HIGHER)
            runs[run] = {
                "score_direction": direction,
                "note": reading(direction) if direction == NOT_ORDERED else None,
                "warnings": list(self.warnings.get(run, [])),
                "no_answer_queries": len(na),
                "answerable_queries": int((scores.kind == "answerable").sum()),
                "no_answer_with_results": int(na.top_score.notna().sum()),
                "no_answer_top_scores": {
                    q: _num(s) for q, s in zip(na.query_id, na.top_score, strict=True)
                },
                "threshold": None
                if choice.empty
                else {
                    "max_false_confidence": max_false_confidence,
                    "threshold": float(choice.threshold.iloc[0]),
                    "confident_when": CONFIDENT_WHEN.get(direction, "top_score >= threshold"),
                    "false_confidence": float(choice.false_confidence.iloc[0]),
                    "answerable_coverage": _num(choice.answerable_coverage.iloc[0]),
                },
            }
        return {"k": self.k, "runs": runs}


SHARE = re.compile(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def parse_share(text: str, source: str = "--max-false-confidence") -> float:
    """A share between 0 and 1 in plain decimal notation: ``nan`` would pick no threshold
    and ``inf`` every one, both silently."""
    value = float(text) if SHARE.fullmatch(text.strip()) else math.nan
    if value == 0 and re.search("[1-9]", text.lower().partition("e")[0]):
        value = math.nan  # 1e-400 reads as 0.0: a share nobody wrote
    if not 0 <= value <= 1:
        raise InputError(
            [Problem(source, None, redact_text(text), "a share between 0 and 1, like 0.1")]
        )
    return value


def require_share(value: object, source: str = "--max-false-confidence") -> float:
    """A share from Python: a real number from 0 to 1 (``nan`` would pick no threshold,
    silently; a bool or a string is no share)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        shown = value if isinstance(value, str) else repr(value)
        raise InputError(
            [Problem(source, None, redact_text(shown), "a share between 0 and 1, like 0.1")]
        )
    return float(value)


def share_text(share: float) -> str:
    """The share asked for, as a percentage that reads back as it: ``10%``, ``12.5%``,
    ``0.5%`` (``:.0%`` showed 0.005 as "0%").

    >>> share_text(0.1), share_text(0.125), share_text(0.005)
    ('10%', '12.5%', '0.5%')
    """
    short = f"{share:.0%}"
    return short if float(short[:-1]) / 100 == share else f"{share * 100:.10g}%"


def _num(value) -> float | None:
    return None if pd.isna(value) else float(value)


def _percent(share: float | None) -> str:
    """``12.5%``; no answerable query leaves coverage without a value: a dash, not nan%."""
    return MISSING if share is None else f"{share:.1%}"


def no_answer_report(
    workspace: Workspace,
    k: int = 5,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> NoAnswerReport:
    """Top-1 scores of answerable vs no-answer queries and the false-confidence sweep.

    For a threshold t: false confidence = share of no-answer queries whose top score
    is >= t; answerable coverage = share of answerable queries whose top score is
    >= t and that have a relevant item in the top k. Every distinct top score is a
    threshold; the shares are running counts down the scores (one sort per run, not a
    join of every threshold with every query). For a run whose scores are distances
    (they rise with rank) read <= for >=: the sweep runs on confidence = -score.
    """
    problems = cutoff_problems(k) + policy_problems(policy)
    if isinstance(runs, str | bytes):  # one name, never read letter by letter
        runs = [runs]
    problems += run_problems(workspace, [("RUN", name) for name in runs or []])
    raise_if_any(problems)
    report = report_at(top_scores(workspace, policy, runs, query_ids), k, workspace)
    report.warnings = direction_warnings(workspace, policy, runs)
    return report


def direction_warnings(
    workspace: Workspace, policy: Policy | None, runs: Sequence[str] | None
) -> dict[str, list[str]]:
    """Run -> the warnings that say its scores' direction may be read wrong: a run without
    ranks is ordered by score, highest first, so its direction reads "higher is better"
    whatever its scores are; when they rise as given (distances), evaluate's warning, said
    as every output of a warning says it (:func:`said_by_run`): no-answer's text, JSON and
    page show these alone."""
    from ragrecall_core.scoring.evaluate import ranked_runs, rising_warnings, said_by_run

    prepared = prepare(workspace, policy)
    return said_by_run(rising_warnings(prepared, ranked_runs(prepared, runs)))


def top_scores(
    workspace: Workspace,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    directions: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Per run and query: answerable or not, the top-1 score and chunk, the rank of the
    first relevant item (none: NaN) and the run's score direction (over all its queries:
    a filter picking a few must not turn a reranked run into an ordered one). It holds
    for every k: :func:`report_at` cuts it. ``directions``: each run's, when read already
    (the dashboard reads them once per run, :func:`.score_direction.run_directions`)."""
    prepared = prepare(workspace, policy)
    tops = prepared.query(
        TOP_SCORES_SQL.replace("{scope}", SCOPE_CTES),
        {**scope_params(runs, query_ids), "level": prepared.policy.rel_level},
    )
    if directions is None:
        directions = run_directions(workspace, runs)
    direction = tops["run"].map(dict(directions)).astype(object)  # no score: higher
    return tops.assign(score_direction=direction.where(direction.notna(), HIGHER))


def report_at(scores: pd.DataFrame, k: int, workspace: Workspace) -> NoAnswerReport:
    """The report at cutoff ``k`` from :func:`top_scores` (which is not changed)."""
    within_k = scores["first_relevant_rank"].le(k).fillna(False).astype(bool)
    top = scores.drop(columns="first_relevant_rank").assign(relevant_in_top_k=within_k)
    report = NoAnswerReport(top_scores=top, sweep=pd.DataFrame(), k=k)
    con = workspace.cursor()
    con.register("top_scores", top.assign(confidence=report.confidence(top, "top_score")))
    report.sweep = con.execute(SWEEP_SQL).df()
    con.unregister("top_scores")
    return report


def texts_of(
    workspace: Workspace, query_ids: Sequence[str], chunk_ids: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(query_id, query)`` of the given queries and ``(chunk_id, text)`` of the chunks."""
    con = workspace.cursor()
    queries = con.execute(
        "SELECT query_id, query FROM queries SEMI JOIN (SELECT unnest($q) AS query_id) "
        "USING (query_id) ORDER BY query_id",
        {"q": sorted(set(query_ids))},
    ).df()
    chunks = con.execute(
        "SELECT chunk_id, text FROM corpus SEMI JOIN (SELECT unnest($c) AS chunk_id) "
        "USING (chunk_id) ORDER BY chunk_id",
        {"c": sorted(set(chunk_ids))},
    ).df()
    return queries, chunks
