"""The Overview's prediction-powered intervals when the sidebar counts a model judge's grades
(issue 32): the figures are :func:`ragrecall_core.analysis.judge_counting.count_judge`'s,
the table :func:`ragrecall_core.views.judge_marks.ppi_table`'s."""

from __future__ import annotations

import streamlit as st

from ragrecall_app.context import Context
from ragrecall_app.render import escape_markdown, literal_table
from ragrecall_core.analysis.judge_counting import JudgeCounted, count_judge
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views.judge_marks import ppi_measures, ppi_table


@st.cache_resource(show_spinner=False, max_entries=8)
def _counted(key: str, k: int, policy: Policy, ids: tuple | None, _ws: Workspace) -> JudgeCounted:
    """Shared, read-only; three evaluations (counted, the judge alone, the humans alone)."""
    ids_list = None if ids is None else list(ids)
    return count_judge(_ws, ppi_measures(k), policy.judge, policy, ids_list)


def ppi_intervals(ctx: Context) -> None:
    """Under the headline means, when a judge is counted: each mean's prediction-powered
    95% interval (the judge's mean corrected by its difference from the humans), on the
    queries the sidebar's filters choose. Nothing when no judge is counted."""
    if not ctx.policy.judge:
        return
    s = ctx.state
    ids = ctx.view_ids()
    with st.spinner("Correcting the judge's means by the humans' grades …"):
        counted = _counted(ctx.key, s.k, ctx.policy, ids, ctx.ws)
    st.markdown(f"**{escape_markdown(counted.judge)} counted: prediction-powered 95% intervals**")
    st.caption(escape_markdown(counted.statement()[0].upper() + counted.statement()[1:] + "."))
    literal_table(ppi_table(counted.intervals, ppi_measures(s.k), s.runs))
    if (counted.intervals.human_judged_queries < 2).any():
        st.caption(
            "— : no interval where fewer than 2 queries are human-judged to that depth; judge "
            "more of the pool on the Judge page."
        )
