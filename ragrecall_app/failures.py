"""The Failures page's sections as widgets: the counts line, the grouping picker, the bar
chart and the table of groups, a bar or a row opening its failing queries on Queries. The
groups come from :mod:`ragrecall_core.views.failure_groups`, the words around them from
:mod:`ragrecall_core.views.failures_text`; ``pages/failures.py`` puts the sections in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from ragrecall_app.chart import chart as draw_chart
from ragrecall_app.context import Context, current, new_selection, state_key
from ragrecall_app.group_click import clicked, open_queries
from ragrecall_app.render import escape_markdown, table_height
from ragrecall_core.analysis.pass_rule import pass_measure
from ragrecall_core.views import charts
from ragrecall_core.views import failures_text as ft
from ragrecall_core.views.failure_groups import COLUMNS, failure_groups, missing_dimensions
from ragrecall_core.views.plot_events import selected_rows

if TYPE_CHECKING:
    import plotly.graph_objects as go


def open_group(ctx: Context, dimension: str, run: str, group: str) -> None:
    """Open the group's failing queries on Queries, the filter named there in a banner (also
    a sidebar one: query type, section) with a way back."""
    field, value = ft.group_filter(dimension, group)
    open_queries(ctx, run, field, value, failing_only=True)


@dataclass(frozen=True)
class FailuresView:
    """The Failures page of one view and grouping: built once, shared by reruns and
    sessions (read-only)."""

    caption: str  # failing / answerable queries per run
    labels: dict[str, str]  # the groupings the rows carry -> their labels
    missing: dict[str, str]  # the groupings the data lacks -> what would enable each
    groups: pd.DataFrame  # failing queries per group and run (empty: none failing)
    chart: go.Figure | None = None  # None: no group
    trace_runs: tuple[str, ...] = ()


def view(ctx: Context) -> FailuresView:
    """The Failures page of the view on screen and its grouping (the sidebar's ``group_by``)."""
    s = ctx.state
    return ctx.memo("failures", lambda: _build(ctx), s.group_by, ctx.verdicts_version())


def _build(ctx: Context) -> FailuresView:
    s = ctx.state
    rows = ctx.rows(failing=False, group_filters=False)
    measure = pass_measure(s.pass_rule, s.k)
    labels = ft.grouping_labels(rows.columns)
    missing = missing_dimensions(rows)
    caption = ft.counts_caption(rows, s.k, measure, escape_markdown)
    if s.group_by in missing:
        return FailuresView(caption, labels, missing, pd.DataFrame(columns=COLUMNS))
    groups = failure_groups(rows, s.group_by)
    if groups.empty:
        return FailuresView(caption, labels, missing, groups)
    label = labels[s.group_by]
    title = ft.chart_title(measure, label)
    chart = charts.failure_bars(groups, ctx.colors, label, s.k, title)
    runs = tuple(dict.fromkeys(groups["run"]))
    return FailuresView(caption, labels, missing, groups, chart, runs)


def follow_click(ctx: Context, shown: FailuresView) -> None:
    """A bar or a row picked on the last run opens its group's queries on Queries: before
    this page draws anything (its chart and table would be sent only to be replaced)."""
    bar = clicked("failures_chart", shown.trace_runs, "y")  # horizontal bars: groups on y
    if bar:
        open_group(ctx, ctx.state.group_by, *bar)
    picked = selected_rows(st.session_state.get("failures_groups"))
    if new_selection("failures_groups", picked) and picked[0] < len(shown.groups):
        chosen = shown.groups.iloc[picked[0]]
        open_group(ctx, ctx.state.group_by, str(chosen["run"]), str(chosen["group"]))


def _on_click() -> None:
    """The chart's and the table's callback: a bar or a row picked switches to Queries
    before this page's script runs again (streamlit runs callbacks first, and a switch
    there skips the run), with the view the click was made on (:func:`follow_click` again:
    the page's own call finds the selection seen and does nothing)."""
    ctx = current()
    follow_click(ctx, view(ctx))


def pick_grouping(shown: FailuresView) -> None:
    """The grouping picker (a grouping the data lacks is named so)."""
    labels, missing = shown.labels, shown.missing
    st.segmented_control(
        "Group failing queries by",
        list(labels),
        format_func=lambda key: ft.option_label(labels[key], key in missing),
        key=state_key("group_by"),
        selection_mode="single",
    )


def chart(shown: FailuresView) -> None:
    """Failing queries per group and run as bars; a click opens the bar's queries
    (:func:`follow_click`, on the next run)."""
    draw_chart(shown.chart, key="failures_chart", on_select=_on_click)


def group_table(shown: FailuresView, label: str) -> None:
    """The groups as a table with their rate; picking a row opens its queries."""
    st.subheader("Groups")
    st.caption(ft.GROUPS_CAPTION)
    table = shown.groups.rename(columns={"group": label}).drop(columns="dimension")
    st.dataframe(
        table,
        key="failures_groups",
        on_select=_on_click,
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
