"""The one line that states what a page's numbers cover: its scope.

The sidebar holds the filters, and in presentation mode the sidebar is closed: a page that
shows a filtered slice without saying so is read as the whole set. Every page states its
scope in one line at the top (:func:`scope_line`) whenever anything is filtered; the line
names only what the page applies (``applies``: a Failures page does not apply the
failures-only switch, the Agreement page no run or k), and the view state it reads is the
one the page's URL carries, so a copied link shows the same line.

>>> s = ViewState(runs=("bm25", "dense"), focus="bm25", section="it-ops", failing_only=True)
>>> scope_line(s, ViewState(runs=("bm25", "dense"), focus="bm25"), QUERIES)
'Scope: run bm25 · k = 5 · section = it-ops · failures only · pass rule RecallCap@5 = 1'
>>> scope_line(ViewState(), ViewState(), QUERIES)  # nothing filtered: no line
''
"""

from __future__ import annotations

from collections.abc import Collection

from ragrecall_core.analysis.pass_rule import pass_measure
from ragrecall_core.views.dashboard_state import ViewState

# what a page can apply, in the order the line names it
RUN = "run"  # the one run of tables and detail (the sidebar's focus)
RUNS = "runs"  # the runs shown in charts
K = "k"
SPLIT = "split"
TYPE = "query_type"
SECTION = "section"
GROUPS = "groups"  # the filters a Failures group or a Ranks bar set (Queries only)
FAILING = "failing"  # the failures-only switch
RULE = "rule"  # the pass rule
JUDGE = "judge"  # a model judge's grades counted (issue 32): every measure must say so
# the parts that filter the queries (or change every measure): the line shows when one is set
FILTERING = (RUNS, SPLIT, TYPE, SECTION, GROUPS, FAILING, JUDGE)

QUERIES = (RUN, K, SPLIT, TYPE, SECTION, GROUPS, FAILING, RULE, JUDGE)
FAILURES = (RUNS, K, SPLIT, TYPE, SECTION, RULE, JUDGE)
CHARTS = (RUNS, K, SPLIT, TYPE, SECTION, JUDGE)  # Overview, Ranks, No-answer
COMPARE = (K, SPLIT, TYPE, SECTION, RULE, JUDGE)  # its pair of runs is on the page itself
QUERY_SUBSET = (SPLIT, TYPE, SECTION)  # Agreement, Judge
# group filter column -> its name in the line
GROUP_NAMES = {
    "failure_class": "failure class",
    "doc_length": "document length",
    "reason": "reviewer reason",
    "verdict": "verdict",
    "rank_bin": "first relevant rank",
    "query_type": "type",
    "section": "section",
}


def filtered(state: ViewState, default: ViewState, applies: Collection[str]) -> bool:
    """Whether ``state`` narrows the queries (or runs) a page with ``applies`` shows."""
    checks = {
        RUNS: set(state.runs) != set(default.runs),
        SPLIT: bool(state.split),
        TYPE: bool(state.query_type),
        SECTION: bool(state.section),
        GROUPS: bool(state.group_filters()),
        FAILING: state.failing_only,
        JUDGE: bool(state.judge_grades),
    }
    return any(checks[part] for part in FILTERING if part in applies)


def scope_parts(state: ViewState, applies: Collection[str]) -> list[str]:
    """The pieces of the scope line, in a fixed order, for the parts the page applies."""
    groups = state.group_filters() if GROUPS in applies else {}
    parts: list[str] = []
    if RUN in applies and state.focus:
        parts.append(f"run {state.focus}")
    if RUNS in applies and state.runs:
        parts.append(("run " if len(state.runs) == 1 else "runs ") + ", ".join(state.runs))
    if K in applies:
        parts.append(f"k = {state.k}")
    for part, value, name in (
        (SPLIT, state.split, "split"),
        (TYPE, state.query_type, "type"),
        (SECTION, state.section, "section"),
    ):
        # a sidebar filter a Failures group set is named with the group's filters below
        if part in applies and value and part not in groups:
            parts.append(f"{name} = {value}")
    parts += [f"{GROUP_NAMES.get(c, c)} = {v}" for c, v in groups.items()]
    if FAILING in applies and state.failing_only:
        parts.append("failures only")
    if RULE in applies:
        parts.append(f"pass rule {pass_measure(state.pass_rule, state.k)} = 1")
    if JUDGE in applies and state.judge_grades:
        parts.append(f"judge grades counted ({state.judge_grades})")
    return parts


def scope_line(state: ViewState, default: ViewState, applies: Collection[str]) -> str:
    """``Scope: …`` naming what the page applies, or ``''`` when nothing is filtered."""
    if not filtered(state, default, applies):
        return ""
    return "Scope: " + " · ".join(scope_parts(state, applies))
