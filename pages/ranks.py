"""Ranks: where the first relevant item lands, per run, and Hit@k as k grows."""

import streamlit as st

from ragrecall_app.context import current, go, missing_notes, new_selection, put_state, rerun_with
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_core.output.literal import as_words
from ragrecall_core.views import charts, ranks
from ragrecall_core.views.plot_events import point_run_and_label, selected_points, selected_rows

ctx = current()
s = ctx.state
rows = ctx.rows(failing=False, group_filters=False)
depth = max([ctx.depths.get(r, 1) for r in s.runs] or [1])

st.title("Ranks")
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
if s.failing_only:
    rule_note(ctx)
st.caption(
    "Answerable queries only (no-answer queries have no relevant item): "
    + escape_markdown(ranks.answerable_counts(rows))
    + ". Click a bar to list its queries."
)

hist = ranks.first_rank_counts(rows, depth)
trace_runs = list(dict.fromkeys(hist["run"]))
event = st.plotly_chart(
    charts.first_rank_histogram(hist, ctx.colors),
    key="ranks_hist",
    on_select="rerun",
    selection_mode="points",
    width="stretch",
)
points = selected_points(event)
if new_selection("ranks_hist", points):
    run, label = point_run_and_label(points[0], trace_runs, "x")
    rerun_with(focus=run, rank_bin=label)

if s.rank_bin:
    binned = ranks.with_bins(rows[rows["run"] == s.focus], depth)
    listed = binned[binned["bin"] == s.rank_bin]
    if s.failing_only:
        listed = listed[listed["failing"]]
    head, clear = st.columns([5, 1])
    head.subheader(
        f"First relevant rank {escape_markdown(s.rank_bin)} · run "
        f"{escape_markdown(s.focus)} · {len(listed)} queries"
    )
    clear.button("Close list", key="ranks_clear", on_click=put_state, kwargs={"rank_bin": ""})
    # a column the data never fills (no query text, type or section) is left out
    columns = ranks.given_columns(
        rows, ["query_id", "query", "query_type", "section", "FirstRank", "failure_class"]
    )
    shown = listed[columns].rename(columns={"FirstRank": "first rank"})
    shown = as_words(shown, {"first rank": ("{:.0f}", "not found")})
    picked = selected_rows(
        st.dataframe(
            shown.reset_index(drop=True),
            key="ranks_list",
            on_select="rerun",
            selection_mode="single-row",
            hide_index=True,
            width="stretch",
        )
    )
    st.caption("Select a query to open it on the Queries page.")
    if new_selection("ranks_list", picked) and picked[0] < len(shown):
        go("pages/queries.py", query_id=str(shown.iloc[picked[0]]["query_id"]))

curve = ranks.hit_rate_by_depth(rows, {r: ctx.depths.get(r, 1) for r in s.runs})
st.plotly_chart(charts.hit_curve(curve, ctx.colors, s.k), key="ranks_curve", width="stretch")
