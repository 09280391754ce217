"""Ranks: where the first relevant item lands, per run, and Hit@k as k grows."""

import streamlit as st

from ragrecall_app.context import current, go, missing_notes, new_selection
from ragrecall_app.figures import figure
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.views import charts, ranks, scope
from ragrecall_core.views.plot_events import point_run_and_label, selected_points

ctx = current()
s = ctx.state
rows = ctx.rows(failing=False, group_filters=False)
# the bins of the query table (its rank_bin column): up to the longest list of any run
depth = max(ctx.depths.values() or [1])

st.title("Ranks")
scope_note(ctx, scope.CHARTS)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
if s.failing_only:
    rule_note(ctx)
st.caption(
    "Answerable queries only (no-answer queries have no relevant item): "
    + escape_markdown(ranks.answerable_counts(rows))
    + ". Click a bar to open its queries on the Queries page."
)

hist = ranks.first_rank_counts(rows, depth)
trace_runs = list(dict.fromkeys(hist["run"]))
event = st.plotly_chart(
    figure(charts.first_rank_histogram, hist, ctx.colors),
    key="ranks_hist",
    on_select="rerun",
    selection_mode="points",
    width="stretch",
)
points = selected_points(event)
if new_selection("ranks_hist", points):
    # one behaviour for every bar: open its queries on Queries, the filter named in a banner
    run, label = point_run_and_label(points[0], trace_runs, "x")
    go(
        "pages/queries.py",
        focus=run,
        query_id="",
        **{**s.without_group_filters(), "opened_from": "rank_bin", "rank_bin": label},
    )

curve = ranks.hit_rate_by_depth(rows, {r: ctx.depths.get(r, 1) for r in s.runs})
st.plotly_chart(
    figure(charts.hit_curve, curve, ctx.colors, s.k), key="ranks_curve", width="stretch"
)
