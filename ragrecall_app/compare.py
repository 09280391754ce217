"""The Compare page's sections as widgets: the pair of runs, what changed, the deltas, the
per-query scatter, the outcome lists with the query opened from them, and the deltas by
group. The tables come from :mod:`ragrecall_core.views.compare_view`, the words around
them from :mod:`ragrecall_core.views.compare_text`; ``pages/compare.py`` puts the sections
in order."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import pyarrow as pa
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.chart import chart
from ragrecall_app.context import (
    Context,
    drop_unoffered,
    new_selection,
    put_state,
    set_page_state,
    state_key,
    state_value,
    sync_url,
)
from ragrecall_app.lazy import lazy_box
from ragrecall_app.reading import query_html, table_html, two_runs_view
from ragrecall_app.render import escape_markdown
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.compare import Comparison
from ragrecall_core.output.literal import file_name_part
from ragrecall_core.views import compare_text as ct
from ragrecall_core.views import compare_view as cv
from ragrecall_core.views import queries_text as qt
from ragrecall_core.views import scope
from ragrecall_core.views.highlight import query_terms
from ragrecall_core.views.plot_events import selected_points, selected_rows
from ragrecall_core.views.report_view import report_caption
from ragrecall_core.views.samples import COMPARISON_MINIMUM, small_sample_warning

# (format, button label, MIME type) of the report downloads
REPORT_FORMATS = (
    ("html", "Report (HTML)", "text/html"),
    ("md", "Report (Markdown)", "text/markdown"),
    ("csv", "Report (CSV)", "text/csv"),
)


def swap() -> None:
    put_state(
        baseline=state_value("candidate"), candidate=state_value("baseline"), compare_query=""
    )


def open_query(query_id: str) -> None:
    set_page_state(compare_query=query_id)


def close_query() -> None:
    put_state(compare_query="")


def pick_runs(ctx: Context, runs: Sequence[str]) -> tuple[str, str]:
    """The baseline and candidate pickers and the swap button; the two runs picked."""
    pick_base, pick_cand, pick_swap = st.columns([5, 5, 1.6], vertical_alignment="bottom")
    pick_base.selectbox("Baseline run (before)", runs, key=state_key("baseline"))
    pick_cand.selectbox("Candidate run (after)", runs, key=state_key("candidate"))
    pick_swap.button("⇄ Swap", on_click=swap, key="compare_swap", width="stretch")
    # the session's values, not ``ctx.state``: a fragment's rerun keeps the last full run's
    return state_value("baseline"), state_value("candidate")


def comparison(ctx: Context, base: str, cand: str, ids: Sequence[str] | None) -> Comparison:
    """The comparison of the two runs on the queries in view (cached)."""
    s = ctx.state
    with st.spinner("Comparing the runs query by query (paired tests, bootstrap) …"):
        return analyses.comparison(
            ctx.key,
            base,
            cand,
            s.k,
            ctx.policy,
            None if ids is None else tuple(ids),
            s.pass_rule,
            ctx.ws,
        )


def summary(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """One line naming the comparison, and a warning when it rests on few queries."""
    filters = ct.filters_text(ct.applied_filters(ctx.state.filters()))
    st.caption(
        f"Candidate **{escape_markdown(cand)}** against baseline **{escape_markdown(base)}** · "
        f"k = {ctx.state.k} · {escape_markdown(filters)} · a query passes when "
        f"{result.pass_measure} = 1 · the sidebar's failures-only toggle does not apply here"
    )
    compared = ct.compared_queries(result.deltas)
    small = small_sample_warning(compared, COMPARISON_MINIMUM, "compared queries", "every delta")
    if small:
        st.warning(small, icon="⚠️")


def what_changed(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """The config keys that differ, and a warning when more than one factor changed."""
    st.subheader("What changed between the two runs")
    if result.factor_warning:
        st.warning(
            f"**More than one factor changed.** {escape_markdown(result.factor_warning)}.",
            icon="⚠️",
        )
    if result.config_diff.empty:
        st.text(ct.no_config_difference(ctx.ws.configs(), (base, cand)))
    else:
        st.dataframe(result.config_diff, hide_index=True, key="compare_config", width="stretch")
    for note in result.notes:
        st.warning(escape_markdown("Not fully comparable: " + note))


def deltas(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """Each measure's mean before and after, its delta, p-value, CI and wins / losses."""
    st.subheader("Measures: candidate minus baseline")
    st.caption(ct.DELTAS_CAPTION)
    st.dataframe(
        ctx.memo("compare_deltas", lambda: cv.deltas_table(result.deltas), base, cand),
        hide_index=True,
        key="compare_deltas",
        width="stretch",
        column_config={
            "baseline": st.column_config.NumberColumn(format="%.3f"),
            "candidate": st.column_config.NumberColumn(format="%.3f"),
            "delta": st.column_config.NumberColumn(format="%+.3f"),
            "p-value": st.column_config.NumberColumn(format="%.4f"),
        },
    )


def unjudged(ctx: Context, base: str, cand: str, ids: Sequence[str] | None) -> pd.DataFrame:
    """The candidate's new unjudged chunks in view, summed up in one line; returned."""

    def build() -> tuple[pd.DataFrame, str]:
        new = analyses.unjudged(ctx.key, base, cand, ctx.state.k, ctx.policy, ctx.ws)
        found = ct.in_view(new, ids)
        return found, cv.unjudged_summary(found, ctx.facts.queries if ids is None else len(ids))

    found, line = ctx.memo("compare_unjudged", build, base, cand)
    if found.empty:
        st.caption(line)
    else:
        st.warning(escape_markdown(line))
    return found


def scatter_chart(ctx: Context, base: str, cand: str, result: Comparison):
    """Each query's pass measure before and after, as a figure (shared)."""
    measure = result.pass_measure
    return ctx.memo(
        "compare_scatter",
        lambda: cv.scatter_figure(cv.scatter_points(result.outcomes), base, cand, measure),
        base,
        cand,
    )


def scatter(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """Each query's pass measure before and after, in an expander. Lazy: the chart is sent
    only while the box is open (drawing it is ~0.1 s of the browser's time on every Compare
    run: a page switch, a baseline change)."""
    with lazy_box(ct.scatter_title(result.pass_measure), "compare_scatter_open") as is_open:
        if is_open:
            scatter_plot(ctx, base, cand, result)


def scatter_plot(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """The scatter itself; a click on a point opens the query."""
    event = chart(scatter_chart(ctx, base, cand, result), key="compare_scatter", on_select="rerun")
    clicked = selected_points(event)
    if new_selection("compare_scatter", clicked):
        chosen = cv.point_query(clicked[0])
        if chosen:
            open_query(chosen)


def outcome_html(result: Comparison, query_id: str) -> str:
    """The query, large and marked, and its outcome line, as escaped HTML."""
    text, line = ct.outcome_line(result.outcomes, query_id, result.pass_measure)
    return (
        query_html(text, query_terms(text))
        + f'<div style="font-size:1rem;opacity:.85">{html.escape(line)}</div>'
    )


def query_view(
    ctx: Context, base: str, cand: str, result: Comparison, new: pd.DataFrame, query_id: str
) -> None:
    """The open query under its list: its heading and a close button, where each relevant
    chunk moved (the story in a few rows), both runs' top k as text (baseline left,
    candidate right), the gold chunks, and what entered or left the top k. Drawn in place,
    not in a dialog: the same content in streamlit's dialog cost the browser about twice
    the CPU on every query opened. The page's scope line comes first: the page's own is
    scrolled away by then."""
    k = ctx.state.k
    scope_note(ctx, scope.COMPARE)
    head = st.container(horizontal=True, vertical_alignment="center")
    head.subheader(
        f"Query {escape_markdown(query_id)}: {escape_markdown(base)} → {escape_markdown(cand)}"
    )
    head.button("Close", on_click=close_query, key="compare_close")
    st.html(outcome_html(result, query_id))
    baseline, candidate = ctx.detail(base, query_id), ctx.detail(cand, query_id)
    if not baseline.found:
        st.warning(qt.not_in_gold(query_id, escape_markdown))
        return
    new_here = frozenset(new.loc[new["query_id"] == query_id, "chunk_id"])
    if new_here:
        st.warning(ct.unjudged_warning(len(new_here), k))
    sbs = analyses.lists(ctx.key, base, cand, query_id, k, ctx.policy, ctx.ws)
    relevant = cv.relevant_moves(sbs, k)
    st.markdown("**Where each relevant chunk moved**")
    if relevant.empty:
        st.text("No relevant chunk is known for this query.")
    else:
        st.html(table_html(relevant))
    two_runs_view(baseline, candidate, "compare", new_here)
    st.markdown(f"**Entered or left the top {k}**")
    swaps = cv.entered_left(sbs, k)
    if swaps.empty:
        st.text(f"The same chunks in both top {k} lists.")
    else:
        st.html(table_html(swaps))


def _listed(key: str, frame: pd.DataFrame, measure: str) -> tuple[pd.DataFrame, pa.Table, bool]:
    """An outcome list's rows as shown (a row position -> its query), the same as the Arrow
    table streamlit sends, and whether some were left out. Converted once per pair, not on
    every rerun: a row click reruns the list's fragment and sends the table again."""
    table, cut = ct.listed(key, cv.outcome_table(frame, measure), cv.MAX_LISTED)
    return table, pa.Table.from_pandas(table, preserve_index=False), cut


def outcome_list(
    ctx: Context, pair: tuple[str, str], key: str, title: str, frame: pd.DataFrame, measure: str
) -> None:
    """One outcome list as a table; picking a row opens its query."""
    st.markdown(f"**{title}: {len(frame)}**")
    if frame.empty:
        st.text("No query.")
        return
    table, cells, cut = ctx.memo("compare_" + key, lambda: _listed(key, frame, measure), *pair)
    if cut:
        st.caption(
            f"The first {cv.MAX_LISTED} by query id; `ragrecall compare --format json` "
            "lists every one."
        )
    picked = selected_rows(
        st.dataframe(
            cells,
            key=key,
            on_select="rerun",
            selection_mode="single-row",
            hide_index=True,
            width="stretch",
            height=min(38 + 35 * len(table), 320),
            column_config={
                "query": st.column_config.TextColumn(width="large"),
                f"baseline {measure}": st.column_config.NumberColumn(format="%.2f"),
                f"candidate {measure}": st.column_config.NumberColumn(format="%.2f"),
            },
        )
    )
    if new_selection(key, picked) and picked[0] < len(table):
        open_query(str(table.at[picked[0], "query_id"]))


@st.fragment
def outcome_lists(
    ctx: Context, base: str, cand: str, result: Comparison, new: pd.DataFrame
) -> None:
    """Regressions, improvements or what still fails (one list at a time, picked with its
    count), and the query opened from it (or from the scatter) under it. A fragment:
    picking a row or a list reruns this alone and draws the query without sending the rest
    of the page again, nor converting the list's table again (its Arrow table is kept). One
    table, not three: each table drawn is ~20 ms of the browser's time on every Compare run
    (a page switch, a baseline change)."""
    counts = {
        choice: len(getattr(result, attribute))
        for choice, _key, _title, attribute in ct.OUTCOME_LISTS
    }
    # view state: a link opens on the list it was copied from (kept while another page shows)
    st.segmented_control(
        "Outcome list",
        list(counts),
        required=True,
        format_func=lambda choice: ct.list_label(choice, counts[choice]),
        key=state_key("compare_list"),
        label_visibility="collapsed",
    )
    chosen = state_value("compare_list")
    st.caption(ct.LISTS_CAPTION)
    for choice, key, title, attribute in ct.OUTCOME_LISTS:
        if choice == chosen:
            frame = getattr(result, attribute)
            outcome_list(ctx, (base, cand), key, title, frame, result.pass_measure)
    sync_url()  # the list and the open query are in the URL; a fragment's rerun skips app.py's
    query_id = state_value("compare_query")
    if query_id:
        with st.container(border=True, key="compare_open"):
            query_view(ctx, base, cand, result, new, query_id)


def by_group(ctx: Context, result: Comparison) -> None:
    """One measure's deltas by query type and by corpus section, in an expander. Lazy: its
    picker and two tables are sent only while it is open (each table drawn is ~20 ms of the
    browser's time on every Compare run: a page switch, a baseline change)."""
    with lazy_box(ct.BY_GROUP_TITLE, "compare_by_group_open") as is_open:
        if is_open:
            group_tables(ctx, result)


def group_tables(ctx: Context, result: Comparison) -> None:
    """The measure picker and its deltas by query type and by corpus section, worst first."""
    measures = list(result.deltas["measure"])
    if measures:  # a link's measure, or one the comparison dropped, is named
        among = "this comparison's measures"
        drop_unoffered("compare_measure", measures, "Measure", among, f"showing {measures[0]}.")
    group_measure = st.selectbox("Measure", measures, key=state_key("compare_measure"))
    given = {"query type": ctx.facts.query_types, "section": ctx.facts.sections}
    for col, by in zip(st.columns(2), ("query type", "section"), strict=True):
        with col:
            st.markdown(f"**By {by}** (worst delta first)")
            if not given[by]:
                st.text(cv.GROUP_ENABLERS[by])
                continue
            st.dataframe(
                ctx.memo(
                    "compare_by_group",
                    lambda by=by: cv.group_table(result.by_group, by, group_measure).rename(
                        columns={"group": by}
                    ),
                    result.baseline,
                    result.candidate,
                    by,
                    group_measure,
                ),
                hide_index=True,
                key=f"compare_by_{by.replace(' ', '_')}",
                width="stretch",
                column_config={
                    c: st.column_config.NumberColumn(format=f)
                    for c, f in (("baseline", "%.3f"), ("candidate", "%.3f"), ("delta", "%+.3f"))
                },
            )


def downloads(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """The report in three formats and this comparison as JSON, in a box. Lazy: its caption,
    columns and four buttons are sent only while it is open (they were a tenth of the
    elements of every Compare run, ~40 ms of the browser's time on a switch to Compare)."""
    with lazy_box(ct.DOWNLOADS_TITLE, "compare_downloads_open") as is_open:
        if is_open:
            download_buttons(ctx, base, cand, result)


def download_buttons(ctx: Context, base: str, cand: str, result: Comparison) -> None:
    """The four downloads, each built when clicked (not on every rerun)."""
    k = ctx.state.k
    st.caption(escape_markdown(report_caption(ctx.state)))
    cols = st.columns(4)
    for col, (fmt, label, mime) in zip(cols, REPORT_FORMATS, strict=False):
        col.download_button(
            label,
            data=lambda f=fmt: analyses.report_text(ctx, f),
            file_name=f"ragrecall-report-k{k}.{fmt}",
            mime=mime,
            on_click="ignore",
            key=f"compare_download_{fmt}",
            width="stretch",
        )
    cols[3].download_button(
        "This comparison (JSON)",
        data=lambda: analyses.comparison_json(result),  # built when clicked, not every rerun
        file_name=f"ragrecall-compare-{file_name_part(base)}-vs-{file_name_part(cand)}-k{k}.json",
        mime="application/json",
        on_click="ignore",
        key="compare_download_json",
        width="stretch",
    )
