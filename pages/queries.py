"""Queries: the reading view of the open query (gold beside retrieved, as text) above the
per-query table, failing queries first; J / K step to the next / previous failing query."""

import html

import pandas as pd
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import (
    current,
    missing_notes,
    new_selection,
    put_state,
    set_page_state,
    state_value,
    sync_url,
)
from ragrecall_app.reading import query_html, reading_view
from ragrecall_app.render import escape_markdown, notes, policy_note, table_height
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_app.verdict_form import verdict_form
from ragrecall_core.analysis.query_table import (
    TRIAGE_ORDER,
    display_frame,
    failing_first,
    failing_ids,
    failing_runs,
    neighbour,
    review_columns,
    unfilled_display_columns,
)
from ragrecall_core.output.literal import as_words, yes_no
from ragrecall_core.output.text import plural
from ragrecall_core.views import scope
from ragrecall_core.views.harm_view import add_harm_column
from ragrecall_core.views.highlight import query_terms
from ragrecall_core.views.plot_events import selected_rows
from ragrecall_core.views.table_widths import text_width

ctx = current()
s = ctx.state
run = s.focus
rows = ctx.rows(runs=[run])
display = display_frame(rows, s.k).drop(columns=unfilled_display_columns(ctx.query_table().table))
harm = analyses.harm(ctx.key, s.k, ctx.policy, tuple(ctx.options.k_choices), ctx.ws)
display = add_harm_column(display, rows, harm, s.k)
# the meeting's triage order; J / K step through the failing queries in it
display = failing_first(display, failing_runs(ctx.query_table().table, s.runs))

# the title, the scope line and (behind a button) the policy and pass rule share one row:
# the reading view's chunks start high enough for a 1280x720 shared screen (the reading
# view makes an "rr_title" smaller)
head = st.container(horizontal=True, vertical_alignment="center", key="rr_title_queries")
head.title("Queries", width="content")
with head:
    scope_note(ctx, scope.QUERIES)
    with st.popover("Policy and pass rule", key="queries_rules"):
        policy_note(ctx.policy)
        rule_note(ctx)
notes(missing_notes(ctx.facts))

query_id = state_value("query_id")
triage = failing_ids(display)


def step(delta: int):
    target = neighbour(triage, state_value("query_id"), delta)
    if target:
        put_state(query_id=target)


def meta_line(query: dict) -> str:
    """Type, section, split, the measure at k and the failure class, as escaped HTML."""
    parts = [
        f"type: {query.get('query_type') or '—'}",
        f"section: {query.get('section') or '—'}",
        f"split: {query.get('split') or '—'}",
        f"needs all fragments: {yes_no(query.get('require_all'))}",
    ]
    row = rows[rows["query_id"] == query["query_id"]]
    if len(row):
        r = row.iloc[0]
        recall = r[f"Recall@{s.k}"]
        parts += [
            f"Recall@{s.k}: {recall:.2f}"
            if pd.notna(recall)
            else f"no answer expected ({r['no_answer_source']})",
            f"failure class: {r['failure_class']}",
        ]
    return f'<div style="font-size:1rem;opacity:.85">{html.escape(" · ".join(parts))}</div>'


@st.fragment
def open_query() -> None:
    """The reading view of the open query: its line, previous / next failing, gold beside
    retrieved. A fragment: J / K and the buttons here rerun only this view, not the table
    below (the view's state and the URL follow, read and written here)."""
    query_id = state_value("query_id")
    if not query_id:  # closed: the whole page shows its table alone again
        st.rerun()
    sync_url()
    # tight rows: the query, its gold and the top 3 retrieved fit a 1280x720 screen
    with st.container(gap="xsmall"):
        open_query_rows(query_id)
    st.divider()


def open_query_rows(query_id: str) -> None:
    # the buttons at their own width beside the title: they wrap below it when the screen
    # is narrow, never cut their labels (1280 px with the sidebar open)
    row = st.container(horizontal=True, vertical_alignment="center", key="queries_head")
    row.subheader(f"Query {escape_markdown(query_id)} · run {escape_markdown(run)}")
    row.button(
        "◀ Previous failing",
        on_click=step,
        args=(-1,),
        key="queries_prev",
        shortcut="K",
        disabled=not triage,
    )
    row.button(
        "Next failing ▶",
        on_click=step,
        args=(1,),
        key="queries_next",
        shortcut="J",
        disabled=not triage,
    )
    row.button("Close", on_click=put_state, kwargs={"query_id": ""}, key="queries_close")
    detail = ctx.detail(run, query_id)
    if not detail.found:
        st.warning(f"Query {escape_markdown(query_id)} is not in the gold set.")
        return
    st.html(query_line_html(detail.query))
    for line in detail.missing:
        if "corpus" not in line:  # the page's notes already say it, once
            st.caption(escape_markdown(line))
    # the verdict under the gold chunks, beside the retrieved ones: not above them all
    reading_view(
        detail, "queries", corpus_noted=True, below_gold=lambda: verdict_form(ctx, run, query_id)
    )


def query_line_html(query: dict) -> str:
    text = query.get("query")
    return query_html(text, query_terms(text)) + meta_line(query)


FILTER_NAMES = {"rank_bin": "first relevant rank"}


def group_banner() -> None:
    """Filters set by a click on a Failures or Ranks bar, named, with a way back."""
    active = s.group_filters()
    if not active:
        return
    row = st.container(horizontal=True, vertical_alignment="center")
    source = "Ranks" if s.opened_from == "rank_bin" else "Failures"
    named = {FILTER_NAMES.get(c, c.replace("_", " ")): v for c, v in active.items()}
    row.info(
        f"Opened from {source}: "
        + escape_markdown(", ".join(f"{c} = {v}" for c, v in named.items()))
    )
    row.button(
        "Clear these filters",
        on_click=put_state,
        kwargs=s.without_group_filters(),
        key="queries_clear_groups",
    )


# the reading view sits above the table but is drawn after it: a row picked in the table
# opens in this same run (no second run of the page, no second send of the table)
reading = st.container()

failing_n = int(rows["failing"].sum())
answerable_n = int((rows["relevant"] > 0).sum())
# the buttons at their own width (never cut), the caption in the rest of the row
bar = st.container(horizontal=True, vertical_alignment="center")
# a button, not a second toggle: the sidebar's toggle holds this state (and the URL's)
bar.button(
    "Failures only: on" if s.failing_only else "Failures only: off",
    icon=":material/toggle_on:" if s.failing_only else ":material/toggle_off:",
    type="primary" if s.failing_only else "secondary",
    on_click=put_state,
    kwargs={"failing_only": not s.failing_only},
    key="queries_failing_switch",
    help="Show only the queries that fail by the pass rule (the sidebar's switch)",
)
first_failing = bar.empty()  # J's button, drawn once it is known that no query is open
bar.caption(
    f"Run **{escape_markdown(run)}** · k = {s.k} · {plural(len(rows), 'query', 'queries')} "
    f"shown · {failing_n} of {answerable_n} answerable failing ({TRIAGE_ORDER}) · "
    "click a row to open it · J opens the first failing, then J / K: next / previous · "
    "the columns after the verdict scroll sideways"
)
group_banner()

first = review_columns(s.k, display.columns)
shown = display[first + [c for c in display.columns if c not in first]]
event = st.dataframe(
    as_words(
        shown,
        {
            f"Recall@{s.k}": ("{:.2f}", "—"),
            f"RecallCap@{s.k}": ("{:.2f}", "—"),
            f"Hit@{s.k}": ("{:.0f}", "—"),
            "RR": ("{:.3f}", "—"),
            "first rank": ("{}", "not found"),
            f"Harm@{s.k}": ("{:.0f}", "—"),
        },
    ),
    key="queries_table",
    on_select="rerun",
    selection_mode="single-row",
    hide_index=True,
    width="stretch",
    # sized to its rows (up to 13, then it scrolls): the height changes with the rows only,
    # never with what is open (a new height makes streamlit send the whole table again)
    height=table_height(len(shown), most=13),
    # pixel widths: the review columns (and a verdict) fit the ~1,100 px of a 1600 px screen
    column_config={
        "status": st.column_config.TextColumn("status", width=70),
        "query_id": st.column_config.TextColumn("query_id", width=text_width(shown["query_id"])),
        "query": st.column_config.TextColumn("query", width=280),
        "type": st.column_config.TextColumn(width=110),
        "section": st.column_config.TextColumn(width=95),
        "failure class": st.column_config.TextColumn(width=135),
        "first rank": st.column_config.TextColumn(width=75),
        f"Recall@{s.k}": st.column_config.TextColumn(width=65),
        f"Hit@{s.k}": st.column_config.TextColumn(width=50),
        "verdict": st.column_config.TextColumn(width=135),
        f"RecallCap@{s.k}": st.column_config.TextColumn(width="small"),
        "RR": st.column_config.TextColumn(width="small"),
        f"Harm@{s.k}": st.column_config.TextColumn(
            width="small", help="1: a reviewer-flagged harmful chunk in the top k"
        ),
    },
)

# A new row selection opens that query (compared with the last one seen, so the
# previous / next buttons are not overridden by a stale table selection).
picked = selected_rows(event)
if new_selection("queries_table", picked) and picked[0] < len(shown):
    query_id = str(shown.at[picked[0], "query_id"])
    set_page_state(query_id=query_id)
if query_id:
    with reading:
        open_query()
else:
    # J works from the table too: it opens the first failing query (one J button at a time)
    first_failing.button(
        "First failing ▶",
        on_click=step,
        args=(1,),
        key="queries_first_failing",
        shortcut="J",
        disabled=not triage,
        help="Open the first failing query of the table (J); then J / K step on",
    )
    st.info("Select a row to read the query's gold chunks beside what the run retrieved.")
