"""The Queries page's sections as widgets: the title row, the reading view of the open query
(a fragment, J / K stepping through the failing queries), the bar over the table, the
banner of a group opened from Failures or Ranks, and the table itself. The rows and the
words around them come from :mod:`ragrecall_core.views.queries_text`; ``pages/queries.py``
puts the sections in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import (
    Context,
    new_selection,
    put_state,
    set_page_state,
    state_value,
    sync_url,
)
from ragrecall_app.reading import query_html, reading_view
from ragrecall_app.render import escape_markdown, policy_note, table_height
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_app.verdict_form import verdict_form
from ragrecall_core.analysis.query_table import failing_ids, neighbour
from ragrecall_core.output.literal import as_words
from ragrecall_core.views import queries_text as qt
from ragrecall_core.views import scope
from ragrecall_core.views.dashboard_state import ViewState
from ragrecall_core.views.highlight import query_terms
from ragrecall_core.views.plot_events import selected_rows
from ragrecall_core.views.table_widths import text_width


@dataclass(frozen=True)
class QueriesView:
    """The table of one view (run, k, policy, rule, filters, failures-only, verdicts) as it
    is shown: built once, then shared by reruns and sessions (read-only), so a row click or
    a step reruns only the reading view, never the table's filtering and formatting."""

    rows: pd.DataFrame  # the focus run's rows under every filter
    shown: pd.DataFrame  # the table's rows in review order (a row position -> its query)
    # ``shown`` as the table shows it (numbers as text, missing as words), as the Arrow table
    # streamlit sends: converted once per view, not on every rerun (a pandas frame is
    # converted again each time: 10,000 rows x 17 columns, ~50 ms of each rerun at 10k)
    cells: pa.Table
    triage: tuple[str, ...]  # the failing queries in triage order (J / K)
    caption: str  # the line over the table
    id_width: int  # the query_id column's width in pixels


def view(ctx: Context) -> QueriesView:
    """The Queries table of the view on screen (built on the view's first rerun)."""
    s = ctx.state
    groups = tuple(sorted(s.filters().items()))
    return ctx.memo(
        "queries", lambda: _build(ctx), s.focus, s.failing_only, groups, ctx.verdicts_version()
    )


def _build(ctx: Context) -> QueriesView:
    s = ctx.state
    rows = ctx.rows(runs=[s.focus])
    harm = analyses.view_harm(ctx)
    # the meeting's triage order; J / K step through the failing queries in it
    display = qt.display(rows, ctx.query_table().table, harm, s.k, s.runs)
    shown = qt.in_review_order(display, s.k)
    return QueriesView(
        rows=rows,
        shown=shown,
        cells=pa.Table.from_pandas(as_words(shown, qt.formats(s.k)), preserve_index=False),
        triage=tuple(failing_ids(display)),
        caption=qt.table_caption(s.focus, s.k, rows, escape_markdown),
        id_width=text_width(shown["query_id"]),
    )


def head(ctx: Context) -> None:
    """The title, the scope line and (behind a button) the policy and pass rule in one row:
    the reading view's chunks start high enough for a 1280x720 shared screen (the reading
    view makes an "rr_title" smaller)."""
    row = st.container(horizontal=True, vertical_alignment="center", key="rr_title_queries")
    row.title("Queries", width="content")
    with row:
        scope_note(ctx, scope.QUERIES)
        with st.popover("Policy and pass rule", key="queries_rules"):
            policy_note(ctx)
            rule_note(ctx)


def step(triage: Sequence[str], delta: int) -> None:
    """Open the failing query ``delta`` places from the open one in ``triage`` (wrapping)."""
    target = neighbour(triage, state_value("query_id"), delta)
    if target:
        put_state(query_id=target)


@st.fragment
def open_query(ctx: Context, run: str, rows: pd.DataFrame, triage: Sequence[str]) -> None:
    """The reading view of the open query: its line, previous / next failing, gold beside
    retrieved. A fragment: J / K and the buttons here rerun only this view, not the table
    below (the view's state and the URL follow, read and written here)."""
    query_id = state_value("query_id")
    if not query_id:  # closed: the whole page shows its table alone again
        st.rerun()
    sync_url()
    # tight rows: the query, its gold and the top 3 retrieved fit a 1280x720 screen
    with st.container(gap="xsmall"):
        open_query_rows(ctx, run, rows, triage, query_id)
    st.divider()


def open_query_rows(
    ctx: Context, run: str, rows: pd.DataFrame, triage: Sequence[str], query_id: str
) -> None:
    """The open query's heading and buttons, its line and notes, and the reading view."""
    # the buttons at their own width beside the title: they wrap below it when the screen
    # is narrow, never cut their labels (1280 px with the sidebar open)
    row = st.container(horizontal=True, vertical_alignment="center", key="queries_head")
    row.subheader(qt.query_heading(query_id, run, escape_markdown))
    row.button(
        "◀ Previous failing",
        on_click=step,
        args=(triage, -1),
        key="queries_prev",
        shortcut="K",
        disabled=not triage,
    )
    row.button(
        "Next failing ▶",
        on_click=step,
        args=(triage, 1),
        key="queries_next",
        shortcut="J",
        disabled=not triage,
    )
    row.button("Close", on_click=put_state, kwargs={"query_id": ""}, key="queries_close")
    detail = ctx.detail(run, query_id)
    if not detail.found:
        st.warning(qt.not_in_gold(query_id, escape_markdown))
        return
    text = detail.query.get("query")
    st.html(query_html(text, query_terms(text)) + qt.meta_line(detail.query, rows, ctx.state.k))
    for line in qt.detail_notes(detail.missing):  # the page's notes already say the corpus's
        st.caption(escape_markdown(line))
    # the verdict under the gold chunks, beside the retrieved ones: not above them all
    reading_view(
        detail, "queries", corpus_noted=True, below_gold=lambda: verdict_form(ctx, run, query_id)
    )


def table_bar(s: ViewState, caption: str):
    """The failures-only button, a place for J's first-failing button (returned: drawn once
    it is known that no query is open) and the line over the table, in one row."""
    # the buttons at their own width (never cut), the caption in the rest of the row
    bar = st.container(horizontal=True, vertical_alignment="center")
    label, icon, kind = qt.failing_switch(s.failing_only)
    # a button, not a second toggle: the sidebar's toggle holds this state (and the URL's)
    bar.button(
        label,
        icon=icon,
        type=kind,
        on_click=put_state,
        kwargs={"failing_only": not s.failing_only},
        key="queries_failing_switch",
        help=qt.SWITCH_HELP,
    )
    first_failing = bar.empty()
    bar.caption(caption)
    return first_failing


def group_banner(s: ViewState) -> None:
    """Filters set by a click on a Failures or Ranks bar, named, with a way back."""
    active = s.group_filters()
    if not active:
        return
    row = st.container(horizontal=True, vertical_alignment="center")
    row.info(qt.banner_text(active, s.opened_from, escape_markdown))
    row.button(
        "Clear these filters",
        on_click=put_state,
        kwargs=s.without_group_filters(),
        key="queries_clear_groups",
    )


def column_config(k: int, id_width: int) -> dict:
    """Pixel widths: the review columns (and a verdict) fit the ~1,100 px of a 1600 px
    screen."""
    text = st.column_config.TextColumn
    return {
        "status": text("status", width=70),
        "query_id": text("query_id", width=id_width),
        "query": text("query", width=280),
        "type": text(width=110),
        "section": text(width=95),
        "failure class": text(width=135),
        "first rank": text(width=75),
        f"Recall@{k}": text(width=65),
        f"Hit@{k}": text(width=50),
        "verdict": text(width=135),
        f"RecallCap@{k}": text(width="small"),
        "RR": text(width="small"),
        f"Harm@{k}": text(width="small", help=qt.HARM_HELP),
    }


def table(k: int, view: QueriesView) -> str:
    """The table of queries; the query a new row selection opens ("" when none)."""
    shown = view.shown
    event = st.dataframe(
        view.cells,
        key="queries_table",
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        width="stretch",
        # sized to its rows (up to 13, then it scrolls): the height changes with the rows
        # only, never with what is open (a new height makes streamlit send the table again)
        height=table_height(len(shown), most=13),
        column_config=column_config(k, view.id_width),
    )
    # A new row selection opens that query (compared with the last one seen, so the
    # previous / next buttons are not overridden by a stale table selection).
    picked = selected_rows(event)
    if new_selection("queries_table", picked) and picked[0] < len(shown):
        query_id = str(shown.at[picked[0], "query_id"])
        set_page_state(query_id=query_id)
        return query_id
    return ""


def first_failing(place, triage: Sequence[str]) -> None:
    """J works from the table too: it opens the first failing query (one J button at a
    time), with the hint to pick a row."""
    place.button(
        "First failing ▶",
        on_click=step,
        args=(triage, 1),
        key="queries_first_failing",
        shortcut="J",
        disabled=not triage,
        help=qt.FIRST_FAILING_HELP,
    )
    st.info(qt.PICK_HINT)
