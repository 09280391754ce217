"""The per-query rows under the sidebar's pass rule, and the line that states the rule.

:meth:`Context.query_table` is built under the default rule; a page that shows passes and
failures takes its rows from here, so ``failing`` and the failure classes follow the rule
chosen in the sidebar (``rule`` in the URL).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import Context
from ragrecall_core.analysis.compare import Comparison, compare
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, rule_line
from ragrecall_core.analysis.query_table import QueryTable, build_query_table, filter_table
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy

GROUP_FILTERS = ("split", "query_type", "section")


@st.cache_resource(show_spinner=False, max_entries=8)
def _ruled_table(key: str, k: int, policy: Policy, rule: str, _ws: Workspace) -> QueryTable:
    """Shared, not copied, like the context's table: read-only."""
    return build_query_table(_ws, k, policy, rule=rule)


def ruled_table(ctx: Context) -> QueryTable:
    """The per-query table under the sidebar's pass rule (the context's own for the default)."""
    s = ctx.state
    if s.pass_rule == DEFAULT_RULE:
        return ctx.query_table()
    with st.spinner(f"Scoring every run at k = {s.k} …"):
        return _ruled_table(ctx.key, s.k, ctx.policy, s.pass_rule, ctx.ws)


def ruled_rows(
    ctx: Context,
    runs: Sequence[str] | None = None,
    failing: bool | None = None,
    group_filters: bool = True,
) -> pd.DataFrame:
    """:meth:`Context.rows` under the sidebar's pass rule."""
    s = ctx.state
    filters = s.filters()
    if not group_filters:
        filters = {c: v for c, v in filters.items() if c in GROUP_FILTERS}
    return filter_table(
        ruled_table(ctx).table,
        filters,
        list(runs or s.runs),
        s.failing_only if failing is None else failing,
    )


@st.cache_resource(show_spinner=False, max_entries=8)
def _ruled_comparison(
    key: str, base: str, cand: str, k: int, policy: Policy, rule: str, ids, _ws: Workspace
) -> Comparison:
    return compare(
        _ws, base, cand, k, policy=policy, query_ids=None if ids is None else list(ids), rule=rule
    )


def ruled_comparison(ctx: Context, base: str, cand: str, ids: tuple | None) -> Comparison:
    """The comparison whose regressions and improvements follow the sidebar's pass rule."""
    s = ctx.state
    if s.pass_rule == DEFAULT_RULE:
        return analyses.comparison(ctx.key, base, cand, s.k, ctx.policy, ids, ctx.ws)
    return _ruled_comparison(ctx.key, base, cand, s.k, ctx.policy, s.pass_rule, ids, ctx.ws)


def rule_note(ctx: Context) -> None:
    """One compact line: the pass rule the page's passes and failures follow."""
    st.caption(rule_line(ctx.state.pass_rule, ctx.state.k))
