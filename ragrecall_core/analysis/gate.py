"""The release gate: requirements like ``Recall@5>=0.8`` and a regression budget.

>>> parse_requirement("Recall@5>=0.8")
Requirement(measure='Recall@5', op='>=', threshold=0.8)
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ragrecall_core.analysis.compare import paired, pass_outcomes
from ragrecall_core.analysis.gate_outputs import (
    Warnings,
    coverage_line,
    gate_junit,
    gate_markdown,
    regression_line,
    value_text,
)
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, pass_measure, rule_line
from ragrecall_core.analysis.run_choice import (
    cutoff_problems,
    pair_problems,
    policy_problems,
    run_depths,
)
from ragrecall_core.analysis.selection import default_split, query_ids, require_split
from ragrecall_core.errors import InputError, Problem, gather, one_line, raise_if_any
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import Measure, parse_measure
from ragrecall_core.scoring.evaluate import MISSING_SQL, evaluate
from ragrecall_core.scoring.policy import Policy, listed_items
from ragrecall_core.scoring.prepared import SCOPE_CTES, prepare, scope_params

OPERATORS = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}
# A mean within this relative distance of a threshold is the threshold: a mean is a float sum
# of per-query values, which misses an exact mean by far less (8 x 0.1 sums to
# 0.7999999999999999, so a mean of exactly 0.1 came out 0.09999999999999999 and failed
# "Recall@5>=0.1" while printed as 0.1000); a difference of one query in a billion is none
# a gate should act on. ABS_TOLERANCE does the same near zero.
REL_TOLERANCE = 1e-9
ABS_TOLERANCE = 1e-12
REQUIREMENT = re.compile(r"^\s*(?P<measure>.+?)\s*(?P<op>>=|<=|==|>|<)\s*(?P<value>[^<>=]+?)\s*$")


@dataclass(frozen=True)
class Requirement:
    measure: str
    op: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.measure}{self.op}{threshold_text(self.threshold)}"

    def holds(self, value: float) -> bool:
        """Whether ``value`` meets the requirement; one within :data:`REL_TOLERANCE` of the
        threshold counts as equal to it (met by >=, <= and ==; not by > and <)."""
        if math.isclose(value, self.threshold, rel_tol=REL_TOLERANCE, abs_tol=ABS_TOLERANCE):
            return self.op in (">=", "<=", "==")
        return OPERATORS[self.op](value, self.threshold)


def threshold_text(threshold: float) -> str:
    """The threshold as short as it reads back exactly: ``:g`` (``0.8``, ``1``, ``1e-05``)
    unless that drops digits the gate checks (``0.8333334`` is not ``0.833333``).

    >>> threshold_text(0.8), threshold_text(1.0), threshold_text(0.8333334)
    ('0.8', '1', '0.8333334')
    """
    short = f"{threshold:g}"
    return short if float(short) == threshold else repr(threshold).removesuffix(".0")


# ASCII decimal notation only: float() also reads "nan", "inf", "1_0" and non-ASCII digits
NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
COUNT = re.compile(r"[0-9]+")
NONZERO_DIGIT = re.compile(r"[1-9]")


def parse_requirement(text: str) -> Requirement:
    if not isinstance(text, str):
        expected = 'a requirement as text, like "Recall@5>=0.8"'
        raise InputError([Problem("--require", None, redact_text(repr(text)), expected)])
    match = REQUIREMENT.match(text)
    if not match:
        expected = 'a requirement like "Recall@5>=0.8"'
        raise InputError([Problem("--require", None, redact_text(text), expected)])
    measure = match.group("measure")
    low, high = parse_measure(measure, "--require").definition.value_range
    value = match.group("value")
    threshold = float(value) if NUMBER.fullmatch(value) else math.nan
    if threshold == 0 and NONZERO_DIGIT.search(value.lower().partition("e")[0]):
        threshold = math.nan  # 1e-400 reads as 0.0: a threshold nobody wrote
    if not math.isfinite(threshold):
        raise InputError(
            [
                Problem(
                    "--require",
                    None,
                    redact_text(text),
                    "a finite number after the operator, like 0.8",
                )
            ]
        )
    if not low <= threshold <= high:  # a gate that could never fail, or never pass
        within = f"{low:g} or more" if math.isinf(high) else f"between {low:g} and {high:g}"
        raise InputError(
            [
                Problem(
                    "--require",
                    None,
                    redact_text(text),
                    f"a threshold {within} ({measure}'s values)",
                )
            ]
        )
    return Requirement(measure, match.group("op"), threshold)


def parse_budget(text: str) -> int:
    """``--max-regressions``: how many regressed queries the gate allows."""
    if not COUNT.fullmatch(text.strip()):
        raise InputError(
            [
                Problem(
                    "--max-regressions",
                    None,
                    redact_text(text),
                    "a whole number >= 0 of regressed queries",
                )
            ]
        )
    return int(text)


def gate_problems(
    requirements: Sequence[str], baseline: str | None, max_regressions: int | None
) -> list[Problem]:
    """What makes a gate meaningless: nothing to check, or a budget with no baseline (or
    one that is no whole number: from Python, 1.5, True or "1" would be compared as is)."""
    if max_regressions is not None and (
        isinstance(max_regressions, bool) or not isinstance(max_regressions, int)
    ):
        return [Problem("--max-regressions", None, repr(max_regressions), "a whole number >= 0")]
    if max_regressions is not None and baseline is None:
        return [
            Problem(
                "--max-regressions",
                None,
                str(max_regressions),
                "a --baseline run to count regressions against",
            )
        ]
    if max_regressions is not None and max_regressions < 0:
        return [Problem("--max-regressions", None, str(max_regressions), "a whole number >= 0")]
    if not requirements and baseline is None:
        return [
            Problem(
                "check",
                None,
                "no --require and no --baseline",
                "at least one --require or a --baseline: there is nothing to check",
            )
        ]
    return []


@dataclass
class GateResult:
    run: str
    scope: str
    checks: list[dict] = field(default_factory=list)
    baseline: str | None = None
    regressions: list[str] = field(default_factory=list)
    max_regressions: int | None = None
    rule_line: str = ""
    coverage: list[dict] = field(default_factory=list)
    allow_missing: bool = False
    # cutoffs no list of a run reaches (:func:`depth_notes`): said, not failed
    notes: list[str] = field(default_factory=list)

    @property
    def budget_exceeded(self) -> bool:
        """The regression-budget rule: more regressed queries than allowed."""
        return self.max_regressions is not None and len(self.regressions) > self.max_regressions

    @property
    def passed(self) -> bool:
        return (
            all(c["ok"] for c in self.checks)
            and all(c["ok"] for c in self.coverage)
            and not self.budget_exceeded
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per requirement (``requirement, value, ok``), one per run's coverage
        (``requirement = "coverage of RUN"``, the count of gold queries it lacks as its
        value), then one per regressed query (``requirement = "no regression"``, the query
        id as its value)."""
        rows = [
            {"requirement": c["requirement"], "value": c["value"], "ok": c["ok"]}
            for c in self.checks
        ]
        rows += [
            {"requirement": f"coverage of {c['run']}", "value": c["missing"], "ok": c["ok"]}
            for c in self.coverage
        ]
        rows += [
            {"requirement": "no regression", "value": q, "ok": False} for q in self.regressions
        ]
        return pd.DataFrame(rows, columns=["requirement", "value", "ok"])

    def to_dict(self) -> dict:
        return {
            "run": self.run,
            "scope": self.scope,
            "passed": self.passed,
            "requirements": self.checks,
            "coverage": self.coverage,
            "allow_missing": self.allow_missing,
            "baseline": self.baseline,
            "regressions": self.regressions,
            "max_regressions": self.max_regressions,
            "pass_rule": self.rule_line,
            "notes": self.notes,
        }

    def to_markdown(self, warnings: Warnings | None = None) -> str:
        """A CI job summary (see :mod:`.gate_outputs`); file text shown as text. The gate
        computes no warning: ``warnings`` (run -> evaluate's texts) are the caller's."""
        return gate_markdown(self, warnings)

    def to_junit(self, warnings: Warnings | None = None) -> str:
        """JUnit XML: a test case per requirement, per run with a coverage gap and per
        regressed query; ``warnings`` in the suite's ``<system-err>``."""
        return gate_junit(self, warnings)

    def to_text(self) -> str:
        """The terminal verdict; every id and name escaped (:func:`.one_line`), so none can
        forge or erase a line."""
        lines = [f"release gate for {one_line(self.run)} on {one_line(self.scope)}"]
        for c in self.checks:
            value = f"{c['measure']} = {value_text(c)}"
            lines.append(f"{mark(c['ok'])} {one_line(c['requirement'])}: {one_line(value)}")
        lines += [f"{mark(c['ok'])} {one_line(coverage_line(c))}" for c in self.coverage]
        if self.baseline is not None:
            lines.append(f"{mark(not self.budget_exceeded)} {one_line(regression_line(self))}")
            lines += [f"     regressed: {one_line(q)}" for q in self.regressions]
            lines.append(f"     {one_line(self.rule_line)}")
        lines += [f"note: {one_line(note)}" for note in self.notes]
        lines.append("PASSED" if self.passed else "FAILED")
        return "\n".join(lines) + "\n"


def mark(ok: bool) -> str:
    return "ok  " if ok else "FAIL"


def check_gate(
    workspace: Workspace,
    run: str,
    requirements: str | Sequence[str],
    baseline: str | None = None,
    max_regressions: int | None = None,
    split: str | None = None,
    k: int = 5,
    policy: Policy | None = None,
    rule: str = DEFAULT_RULE,
    allow_missing: bool = False,
) -> GateResult:
    """Evaluate ``run`` against every requirement, on the held-out split by default.

    With a ``baseline`` and no ``max_regressions``, no regression is allowed: a gate that
    lists regressions and passes anyway would check nothing. A gold query that ``run`` or
    the ``baseline`` misses (or lists empty) fails the gate unless ``allow_missing``: it
    scores 0, so a baseline's gap hides the candidate's regression on it. One requirement
    may be passed alone, as a string.
    """
    if isinstance(requirements, str):
        requirements = [requirements]
    if isinstance(requirements, bytes) or not isinstance(requirements, Iterable):
        shown = repr(requirements)
        raise InputError([Problem("--require", None, shown, "a list of requirements (or [])")])
    requirements = list(requirements)
    parsed, problems = gather(requirements, parse_requirement)
    problems += gate_problems(requirements, baseline, max_regressions)
    problems += cutoff_problems(k) + policy_problems(policy)
    if not isinstance(allow_missing, bool):  # "no" is truthy: it would allow every gap
        problems.append(Problem("--allow-missing", None, repr(allow_missing), "True or False"))
    roles = {"RUN": run} if baseline is None else {"RUN": run, "--baseline": baseline}
    raise_if_any(problems + pair_problems(workspace, roles))
    require_split(workspace, split)
    if baseline is not None and max_regressions is None:
        max_regressions = 0
    chosen, scope = default_split(workspace, split)
    ids = query_ids(workspace, split=chosen)
    result = GateResult(
        run=run,
        scope=scope,
        baseline=baseline,
        max_regressions=max_regressions,
        rule_line=rule_line(rule, k),
        allow_missing=allow_missing,
    )
    roles = {run: "candidate", **({} if baseline is None else {baseline: "baseline"})}
    result.coverage = run_coverage(workspace, roles, policy, ids, allow_missing)
    if parsed:
        # each measure computed once, under the spelling of its first requirement; each
        # requirement reported under its own (P@5>=0.1 and P_5<=0.9 are one measure)
        measures = [parse_measure(r.measure, "--require") for r in parsed]
        label_of: dict[Measure, str] = {}
        for measure, requirement in zip(measures, parsed, strict=True):
            label_of.setdefault(measure, requirement.measure)
        evaluation = evaluate(workspace, list(label_of.values()), policy, runs=[run], query_ids=ids)
        for measure, requirement in zip(measures, parsed, strict=True):
            value = evaluation.value(run, label_of[measure])
            result.checks.append(
                {
                    "requirement": str(requirement),
                    "measure": requirement.measure,
                    "value": value,
                    "threshold": requirement.threshold,
                    "ok": requirement.holds(value),
                }
            )
    if baseline is not None:
        result.regressions = regressed_queries(workspace, baseline, run, k, policy, ids, rule)
    cutoffs = {r.measure: parse_measure(r.measure).cutoff for r in parsed}
    result.notes = depth_notes(workspace, run, baseline, ids, cutoffs, k, policy)
    return result


def depth_notes(
    workspace: Workspace,
    run: str,
    baseline: str | None,
    ids: Sequence[str] | None,
    cutoffs: dict[str, int | None],
    k: int,
    policy: Policy | None = None,
) -> list[str]:
    """A requirement's cutoff (``cutoffs``: label -> k) or the pass rule's ``k`` that goes
    past every list of a run in scope: ``Recall@100`` of a run captured at top 10 is its
    Recall@10, which the gate must say (as compare does), not pass or fail silently. Lists
    are counted in the ``policy``'s unit (documents under ``--unit doc``)."""
    runs = [run] + ([] if baseline is None else [baseline])
    depth, items = run_depths(workspace, runs, ids, policy), listed_items(policy)
    notes = [
        f"{label} goes past every list of {run}, which lists at most {depth[run]} {items} per "
        f"query: it counts only those"
        for label, cutoff in cutoffs.items()
        if cutoff is not None and cutoff > depth[run]
    ]
    shallow = [f"{name} (at most {depth[name]})" for name in runs if depth[name] < k]
    if baseline is not None and shallow:
        notes.append(
            f"the pass rule's k = {k} goes past every list of {' and '.join(shallow)}: "
            f"a query passes or fails on the {items} its run lists"
        )
    return notes


def regressed_queries(
    workspace: Workspace,
    baseline: str,
    run: str,
    k: int,
    policy: Policy | None,
    ids: Sequence[str] | None,
    rule: str = DEFAULT_RULE,
) -> list[str]:
    """Queries that passed in ``baseline`` (the ``rule``'s measure = 1) and fail in ``run``:
    what ``compare`` calls regressions, without the significance tests the gate does not use."""
    measure = pass_measure(rule, k)
    evaluation = evaluate(workspace, [measure], policy, runs=[baseline, run], query_ids=ids)
    outcomes = pass_outcomes(paired(evaluation.per_query, baseline, run))
    return list(outcomes.query_id[outcomes.outcome == "regression"])


def run_coverage(
    workspace: Workspace,
    roles: dict[str, str],
    policy: Policy | None,
    ids: Sequence[str] | None,
    allow_missing: bool,
) -> list[dict]:
    """Per run (``roles``: run -> its role in the gate), the gold queries in scope it lacks
    or lists empty, counted and the first five named: what ``evaluate`` warns about
    (:data:`~ragrecall_core.scoring.evaluate.MISSING_SQL`, one rule for both)."""
    prepared = prepare(workspace, policy)
    rows = prepared.fetch(
        MISSING_SQL.replace("{scope}", SCOPE_CTES), scope_params(list(roles), ids)
    )
    gaps = {run: (count, list(sample)) for run, count, sample in rows}
    entries = []
    for run, role in roles.items():
        count, sample = gaps.get(run, (0, []))
        entries.append(
            {
                "run": run,
                "role": role,
                "missing": count,
                "examples": sample,
                "ok": allow_missing or count == 0,
            }
        )
    return entries
