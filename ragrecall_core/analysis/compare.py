"""Comparing two runs on the same queries, labels and k.

>>> c = compare(Workspace.open("data_samples"), "bm25", "hybrid-rrf", k=5)  # doctest: +SKIP
>>> c.deltas[["measure", "baseline", "candidate", "delta", "p_value"]]     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ragrecall_core.analysis.bootstrap import percentile_bounds, resample_means
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE
from ragrecall_core.analysis.pass_rule import pass_measure as rule_measure
from ragrecall_core.analysis.run_choice import (
    cutoff_problems,
    pair_problems,
    policy_problems,
    require_query_ids,
    run_depths,
)
from ragrecall_core.analysis.significance import sign_flip_p_values
from ragrecall_core.errors import one_line, raise_if_any
from ragrecall_core.inputs.configs import FACTORS, changed_factors
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import parse_measure, parse_requests
from ragrecall_core.output.text import plural
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.policy import Policy, listed_items

COMPARE_MEASURES = ("Recall@{k}", "Hit@{k}", "MRR@{k}", "P@{k}", "nDCG@{k}", "Harm@{k}")


@dataclass
class Comparison:
    """Everything a comparison shows; ``to_dict()`` feeds the CLI's JSON."""

    baseline: str
    candidate: str
    k: int
    pass_measure: str
    deltas: pd.DataFrame
    per_query: pd.DataFrame
    outcomes: pd.DataFrame
    by_group: pd.DataFrame
    config_diff: pd.DataFrame
    factors_changed: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> pd.DataFrame:
        return self.outcomes[self.outcomes.outcome == "regression"]

    @property
    def improvements(self) -> pd.DataFrame:
        return self.outcomes[self.outcomes.outcome == "improvement"]

    @property
    def unchanged_failures(self) -> pd.DataFrame:
        return self.outcomes[self.outcomes.outcome == "still failing"]

    @property
    def factor_warning(self) -> str | None:
        if len(self.factors_changed) > 1:
            return (
                f"{len(self.factors_changed)} retrieval factors changed at once "
                f"({', '.join(self.factors_changed)}): the difference cannot be attributed "
                "to any one of them"
            )
        return None

    def to_frame(self) -> pd.DataFrame:
        return self.deltas.copy()

    def to_text(self) -> str:
        """A terminal rendering: deltas, outcomes, config diff and notes; run names, query
        ids and config values escaped (:func:`.one_line`)."""
        fmt = {
            c: "{:.4f}".format
            for c in ("baseline", "candidate", "delta", "ci_low", "ci_high", "p_value")
        }
        names = f"{self.candidate} (candidate) vs {self.baseline} (baseline), k = {self.k}"
        lines = [one_line(names), ""]
        lines.append(self.deltas.to_string(index=False, formatters=fmt, na_rep="-"))
        lines.append("")
        lines.append("p_value: paired randomization test; ci: bootstrap 95% of the mean delta")
        for name, frame in (
            ("regressions", self.regressions),
            ("improvements", self.improvements),
            ("still failing", self.unchanged_failures),
        ):
            ids = id_list(frame.query_id) or "none"
            lines.append(f"{name} ({self.pass_measure} = 1 is a pass): {len(frame)}: {ids}")
        if len(self.config_diff):
            shown = self.config_diff.map(lambda v: one_line(v) if isinstance(v, str) else v)
            lines += ["", "config diff:", shown.to_string(index=False)]
        if self.factor_warning:
            lines.append(f"warning: {self.factor_warning}")
        lines += [one_line(f"note: {n}") for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "k": self.k,
            "pass_measure": self.pass_measure,
            "deltas": _records(self.deltas),
            "regressions": list(self.regressions.query_id),
            "improvements": list(self.improvements.query_id),
            "still_failing": list(self.unchanged_failures.query_id),
            "config_diff": _records(self.config_diff),
            "factors_changed": self.factors_changed,
            "factor_warning": self.factor_warning,
            "notes": self.notes,
        }


def id_list(ids) -> str:
    """Query ids joined by ``", "``, each escaped (:func:`one_line`); all quoted when one
    holds a comma or starts or ends with a space, so the list reads one way only.

    >>> id_list(["q1", "q2"]), id_list(["a, b", "c"])
    ('q1, q2', "'a, b', 'c'")
    """
    shown = [one_line(i) for i in ids]
    if any("," in i or i != i.strip(" ") or not i for i in shown):
        shown = [repr(i) for i in shown]
    return ", ".join(shown)


def _records(frame: pd.DataFrame) -> list[dict]:
    return [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
        for row in frame.to_dict("records")
    ]


def compare(
    workspace: Workspace,
    baseline: str,
    candidate: str,
    k: int = 5,
    measures: Sequence[str] | None = None,
    policy: Policy | None = None,
    query_ids: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
) -> Comparison:
    """Compare ``candidate`` against ``baseline`` query by query; regressions and
    improvements follow the pass ``rule`` (:mod:`.pass_rule`)."""
    problems = cutoff_problems(k) + policy_problems(policy)
    problems += pair_problems(workspace, {"BASELINE": baseline, "CANDIDATE": candidate})
    raise_if_any(problems)
    require_query_ids(workspace, query_ids)
    policy = policy or Policy()
    # measures as asked for (names, or measure objects such as ir_measures'), each once; the
    # pass measure is added unless asked for, and then goes by the label it was asked by
    requests = parse_requests(measures or [m.format(k=k) for m in COMPARE_MEASURES])
    (passing,) = parse_requests(rule_measure(rule, k))
    label_of = {r.measure: r.label for r in requests}
    pass_measure = label_of.get(passing.measure, passing.label)
    requests += [passing] if passing.measure not in label_of else []
    labels = [r.label for r in requests]
    evaluation = evaluate(
        workspace, requests, policy, runs=[baseline, candidate], query_ids=query_ids
    )
    # a query's value goes by its own name (RR@5 where MRR@5 was asked: never a mean's), the
    # means of the deltas by the name asked
    per_query = paired(evaluation.per_query, baseline, candidate)
    by_label = per_query.assign(measure=per_query.measure.map(evaluation.asked))
    deltas = delta_table(by_label, labels)
    outcomes = pass_outcomes(by_label[by_label.measure == pass_measure])
    queries = (
        workspace.cursor().execute("SELECT query_id, query, query_type, section FROM queries").df()
    )
    outcomes = outcomes.merge(queries, on="query_id", how="left")
    configs = workspace.configs()
    base_cfg, cand_cfg = configs.get(baseline, {}), configs.get(candidate, {})
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        k=k,
        pass_measure=pass_measure,
        deltas=deltas,
        per_query=per_query,
        outcomes=outcomes,
        by_group=group_deltas(by_label.merge(queries, on="query_id", how="left")),
        config_diff=config_diff(base_cfg, cand_cfg),
        # a run without a config states no factor: which changed is unknown (a note says so)
        factors_changed=changed_factors(base_cfg, cand_cfg) if base_cfg and cand_cfg else [],
        notes=comparability_notes(
            workspace, baseline, candidate, k, base_cfg, cand_cfg, query_ids, policy
        )
        + few_queries_notes(deltas),
    )


def paired(per_query: pd.DataFrame, baseline: str, candidate: str) -> pd.DataFrame:
    """``(query_id, measure, baseline, candidate, delta)`` for queries both runs are scored on."""
    wide = per_query.pivot_table(
        index=["query_id", "measure"], columns="run", values="value", aggfunc="first"
    ).reset_index()
    wide = wide.rename(columns={baseline: "baseline", candidate: "candidate"})
    wide = wide.dropna(subset=["baseline", "candidate"])
    wide["delta"] = wide.candidate - wide.baseline
    return wide[["query_id", "measure", "baseline", "candidate", "delta"]]


def delta_table(per_query: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Per measure: mean delta, a paired randomization test and a bootstrap 95% CI.

    All measures at once, on one ``(query, measure)`` grid (NaN: not paired for that
    measure): the tests' sign assignments and the bootstrap's resamples are the same for
    every measure, drawn once.
    """
    measures = list(measures)
    grid = per_query.pivot(index="query_id", columns="measure").reindex(
        columns=pd.MultiIndex.from_product([["baseline", "candidate", "delta"], measures])
    )
    base, cand, diff = (grid[part].to_numpy(float) for part in ("baseline", "candidate", "delta"))
    paired_queries = (~np.isnan(diff)).sum(axis=0)
    ci_low, ci_high = percentile_bounds(resample_means(diff))
    # one delta resampled is that delta every time: a CI of width 0, not a 95% interval
    ci_low, ci_high = (np.where(paired_queries < 2, np.nan, b) for b in (ci_low, ci_high))
    # a win is a change for the better: for Harm@k (lower is better) that is a decrease
    direction = np.array([1.0 if higher_is_better(m) else -1.0 for m in measures])
    better = diff * direction
    with np.errstate(invalid="ignore"):
        means = {
            name: np.nansum(values, axis=0) / paired_queries
            for name, values in (("baseline", base), ("candidate", cand), ("delta", diff))
        }
    return pd.DataFrame(
        {
            "measure": measures,
            "queries": paired_queries,
            **means,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "p_value": sign_flip_p_values(diff),
            "wins": (better > 0).sum(axis=0),
            "ties": (better == 0).sum(axis=0),
            "losses": (better < 0).sum(axis=0),
        }
    )


# the sign-flip test's smallest p-value is 2 / 2**n for n differing queries: >= 0.0625 at 5
FEWEST_FOR_SIGNIFICANCE = 6


def few_queries_notes(deltas: pd.DataFrame) -> list[str]:
    """A note when no measure has enough paired queries for its test to find any change
    significant at 0.05: "not significant" would then say nothing about the change."""
    most = int(deltas["queries"].max()) if len(deltas) else 0
    if not 0 < most < FEWEST_FOR_SIGNIFICANCE:
        return []
    return [
        f"only {plural(most, 'paired query', 'paired queries')}: the randomization test's "
        f"smallest p-value is 2 / 2^{most} = {2 / 2**most:.4g}, so no change can show "
        "significant at 0.05, whatever its size"
    ]


def higher_is_better(measure: str) -> bool:
    return parse_measure(measure).definition.higher_is_better


def pass_outcomes(rows: pd.DataFrame) -> pd.DataFrame:
    """Outcomes of the pass measure's rows: a query passes when its value is 1."""
    passed_before = rows.baseline >= 1.0
    passed_now = rows.candidate >= 1.0
    outcome = np.select(
        [passed_before & ~passed_now, ~passed_before & passed_now, ~passed_before & ~passed_now],
        ["regression", "improvement", "still failing"],
        default="still passing",
    )
    return rows.assign(outcome=outcome)[["query_id", "baseline", "candidate", "delta", "outcome"]]


def group_deltas(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean delta per measure within each query type and each corpus section."""
    frames = []
    for column, label in (("query_type", "query type"), ("section", "section")):
        grouped = (
            rows.assign(group=rows[column].fillna("(none)"))
            .groupby(["measure", "group"], sort=True)
            .agg(
                queries=("delta", "size"),
                baseline=("baseline", "mean"),
                candidate=("candidate", "mean"),
                delta=("delta", "mean"),
            )
            .reset_index()
        )
        frames.append(grouped.assign(by=label))
    return pd.concat(frames, ignore_index=True)[
        ["by", "group", "measure", "queries", "baseline", "candidate", "delta"]
    ]


def config_diff(baseline: dict, candidate: dict) -> pd.DataFrame:
    """Keys whose values differ, each with the factor it belongs to."""
    factor_of = {key: factor for factor, keys in FACTORS.items() for key in keys}
    rows = [
        {
            "key": key,
            "factor": factor_of.get(key, ""),
            "baseline": _show(baseline.get(key)),
            "candidate": _show(candidate.get(key)),
        }
        for key in sorted(set(baseline) | set(candidate))
        if key != "name" and baseline.get(key) != candidate.get(key)
    ]
    return pd.DataFrame(rows, columns=["key", "factor", "baseline", "candidate"])


def _show(value) -> str:
    import json

    return "" if value is None else value if isinstance(value, str) else json.dumps(value)


COVERAGE_SQL = """
WITH scope AS (SELECT query_id FROM queries WHERE $all OR list_contains($ids, query_id)),
listed AS (
    SELECT DISTINCT run, query_id FROM runs
    WHERE run IN ($a, $b) AND query_id IN (SELECT query_id FROM scope)),
only_one AS (SELECT query_id FROM listed GROUP BY query_id HAVING count(DISTINCT run) = 1)
SELECT (SELECT count(*) FROM scope),
       count(*) FILTER (WHERE run = $a), count(*) FILTER (WHERE run = $b),
       (SELECT count(*) FROM only_one)
FROM listed
"""


def comparability_notes(
    workspace: Workspace,
    baseline: str,
    candidate: str,
    k: int,
    base_cfg: dict,
    cand_cfg: dict,
    query_ids: Sequence[str] | None = None,
    policy: Policy | None = None,
) -> list[str]:
    """Plain sentences on what makes the two runs not fully comparable, within the
    compared queries (``query_ids``: a split or a filter; ``None``: every gold query); list
    depths in the ``policy``'s unit (documents under ``--unit doc``)."""
    notes = []
    scope, qa, qb, differ = (
        workspace.cursor()
        .execute(
            COVERAGE_SQL,
            {"a": baseline, "b": candidate, "all": query_ids is None, "ids": list(query_ids or [])},
        )
        .fetchone()
    )
    if query_ids is not None:
        notes.append(
            f"{plural(scope, 'gold query', 'gold queries')} compared: {baseline} lists "
            f"{qa} of them, {candidate} {qb}"
        )
    if differ:
        notes.append(
            f"the runs cover different queries: {plural(differ, 'query', 'queries')} of the "
            f"compared ones {'is' if differ == 1 else 'are'} listed by one run only; a query a "
            "run lacks scores 0 for it"
        )
    depths, items = (
        run_depths(workspace, [baseline, candidate], query_ids, policy),
        listed_items(policy),
    )
    da, db = depths[baseline], depths[candidate]
    if min(da, db) < k:
        notes.append(
            f"a run lists fewer than k = {k} {items} ({baseline}: {da}, "
            f"{candidate}: {db}); measures at k compare unequal list depths"
        )
    return notes + config_notes({baseline: base_cfg, candidate: cand_cfg})


def config_notes(configs: dict[str, dict]) -> list[str]:
    """What the two runs' configs (``{run: config}``, baseline first) leave unknown or say
    differs: a run without one states no factor, and a corpus version stated by one run
    only is not a different one."""
    missing = [run for run, config in configs.items() if not config]
    notes = [
        f"{run} has no run config (a .config.json beside the run): which retrieval factors "
        "differ between the runs is unknown"
        for run in missing
    ]
    if missing:
        return notes
    versions = {run: config.get("corpus_version") for run, config in configs.items()}
    stated = {run: v for run, v in versions.items() if v is not None}
    if len(stated) == 1:
        ((run, version),) = stated.items()
        notes.append(
            f"only {run} states its corpus version ({version}): whether both runs' chunk ids "
            "match the gold labels is unknown"
        )
    elif len(set(map(str, stated.values()))) > 1:
        shown = " vs ".join(map(str, stated.values()))
        notes.append(
            f"the runs were made on different corpus versions ({shown}): chunk ids may not "
            "match the gold labels for both"
        )
    return notes
