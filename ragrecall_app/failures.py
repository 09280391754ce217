"""The Failures page's sections as widgets: the counts line, the grouping picker, the bar
chart and the table of groups, a bar or a row opening its failing queries on Queries. The
groups come from :mod:`ragrecall_core.views.failure_groups`, the words around them from
:mod:`ragrecall_core.views.failures_text`; ``pages/failures.py`` puts the sections in order."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ragrecall_app.context import Context, go, new_selection, state_key
from ragrecall_app.figures import figure
from ragrecall_app.render import escape_markdown, table_height
from ragrecall_core.views import charts
from ragrecall_core.views import failures_text as ft
from ragrecall_core.views.failure_groups import missing_dimensions
from ragrecall_core.views.plot_events import point_run_and_label, selected_points, selected_rows

QUERIES_PAGE = "pages/queries.py"


def open_group(ctx: Context, dimension: str, run: str, group: str) -> None:
    """Open the group's failing queries on Queries, the filter named there in a banner (also
    a sidebar one: query type, section) with a way back."""
    changes = ft.group_changes(dimension, group, ctx.state.without_group_filters())
    go(QUERIES_PAGE, focus=run, failing_only=True, query_id="", **changes)


def counts(ctx: Context, rows: pd.DataFrame, measure: str) -> None:
    """Failing / answerable queries per run, in one line."""
    st.caption(ft.counts_caption(rows, ctx.state.k, measure, escape_markdown))


def pick_grouping(rows: pd.DataFrame) -> tuple[dict[str, str], dict[str, str]]:
    """The grouping picker; the groupings' labels, and those the data lacks with what would
    enable each."""
    labels = ft.grouping_labels(rows.columns)
    missing = missing_dimensions(rows)
    st.segmented_control(
        "Group failing queries by",
        list(labels),
        format_func=lambda key: ft.option_label(labels[key], key in missing),
        key=state_key("group_by"),
        selection_mode="single",
    )
    return labels, missing


def chart(ctx: Context, groups: pd.DataFrame, dimension: str, label: str, measure: str) -> None:
    """Failing queries per group and run as bars; a click opens the bar's queries."""
    trace_runs = list(dict.fromkeys(groups["run"]))
    title = ft.chart_title(measure, label)
    fig = figure(charts.failure_bars, groups, ctx.colors, label, ctx.state.k, title)
    event = st.plotly_chart(
        fig, key="failures_chart", on_select="rerun", selection_mode="points", width="stretch"
    )
    points = selected_points(event)
    if new_selection("failures_chart", points):
        run, group = point_run_and_label(points[0], trace_runs, "y")
        open_group(ctx, dimension, run, group)


def group_table(ctx: Context, groups: pd.DataFrame, dimension: str, label: str) -> None:
    """The groups as a table with their rate; picking a row opens its queries."""
    st.subheader("Groups")
    st.caption(ft.GROUPS_CAPTION)
    table = groups.rename(columns={"group": label}).drop(columns="dimension")
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
        open_group(ctx, dimension, str(chosen["run"]), str(chosen["group"]))
