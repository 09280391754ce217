"""Failures: queries failing under the pass rule grouped six ways (those the data carries,
and the meeting's verdicts); click a bar or a group to open them on the Queries page, which
names the filter in a banner with a way back (one behaviour for every grouping)."""

import streamlit as st

from ragrecall_app.context import current, go, missing_notes, new_selection, state_key
from ragrecall_app.figures import figure
from ragrecall_app.render import escape_markdown, notes, policy_note, table_height
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.pass_rule import pass_measure
from ragrecall_core.analysis.query_table import MISSING
from ragrecall_core.views import charts, scope
from ragrecall_core.views.failure_groups import (
    ALL_DIMENSIONS,
    NO_VERDICT,
    failure_groups,
    missing_dimensions,
)
from ragrecall_core.views.plot_events import point_run_and_label, selected_points, selected_rows

QUERIES_PAGE = "pages/queries.py"
# dimension -> ViewState field its group filters on the Queries page
TARGET = {
    "failure_class": "failure_class",
    "query_type": "query_type",
    "section": "section",
    "doc_length": "doc_length",
    "reason": "reason",
    "verdict": "verdict",
}

ctx = current()
s = ctx.state
rows = ctx.rows(failing=False, group_filters=False)
measure = pass_measure(s.pass_rule, s.k)

st.title("Failures")
scope_note(ctx, scope.FAILURES)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
rule_note(ctx)
answerable = rows[rows["relevant"] > 0]
failing = answerable[answerable["failing"]]
st.caption(
    f"k = {s.k} · queries with {measure} < 1, per run (failing / answerable): "
    + " · ".join(
        f"{escape_markdown(run)} {int(g['failing'].sum())} / {len(g)}"
        for run, g in answerable.groupby("run", sort=False)
    )
    + " · labels give failing / queries in the group (rate), so a small group that "
    "always fails stands out"
)

# the meeting's reason is offered when the rows carry the verdicts (Context.rows attaches them)
labels = {key: label for key, (column, label) in ALL_DIMENSIONS.items() if column in rows.columns}
missing = missing_dimensions(rows)
st.segmented_control(
    "Group failing queries by",
    list(labels),
    format_func=lambda key: labels[key] + (" (not in this data)" if key in missing else ""),
    key=state_key("group_by"),
    selection_mode="single",
)
dimension = s.group_by  # the view state puts a deselected control back on the default
if dimension in missing:
    st.info(f"No {labels[dimension]} in this data: {missing[dimension]}.")
    st.stop()
groups = failure_groups(rows, dimension)


def open_group(run: str, group: str) -> None:
    """Open the group's failing queries on Queries; ``opened_from`` names the filter set, so
    the banner there names it too (also a sidebar one: query type, section) with a way back.
    The filters an earlier group set are replaced, not combined."""
    field = TARGET[dimension]
    value = MISSING if dimension == "verdict" and group == NO_VERDICT else group
    changes = {**s.without_group_filters(), "opened_from": field, field: value}
    go(QUERIES_PAGE, focus=run, failing_only=True, query_id="", **changes)


if groups.empty:
    st.success(f"No failing queries at k = {s.k} in this view.")
    st.stop()

trace_runs = list(dict.fromkeys(groups["run"]))
title = f"Failing queries ({measure} < 1) by {labels[dimension]}"
fig = figure(charts.failure_bars, groups, ctx.colors, labels[dimension], s.k, title)
event = st.plotly_chart(
    fig, key="failures_chart", on_select="rerun", selection_mode="points", width="stretch"
)
points = selected_points(event)
if new_selection("failures_chart", points):
    run, group = point_run_and_label(points[0], trace_runs, "y")
    open_group(run, group)

st.subheader("Groups")
st.caption("Select a row to open its failing queries on the Queries page.")
table = groups.rename(columns={"group": labels[dimension]}).drop(columns="dimension")
picked = selected_rows(
    st.dataframe(
        table,
        key="failures_groups",
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        width="stretch",
        height=table_height(len(table), most=20),
        column_config={
            "rate": st.column_config.ProgressColumn(
                "rate", format="percent", min_value=0.0, max_value=1.0
            )
        },
    )
)
if new_selection("failures_groups", picked):
    chosen = groups.iloc[picked[0]]
    open_group(str(chosen["run"]), str(chosen["group"]))
