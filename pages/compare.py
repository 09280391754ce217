"""Compare: a candidate run against a baseline on the same queries, labels and k."""

import html

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import (
    current,
    missing_notes,
    new_selection,
    put_state,
    set_page_state,
    state_key,
    state_value,
    sync_url,
)
from ragrecall_app.figures import figure
from ragrecall_app.reading import query_html, two_runs_view
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.selection import TEST_SPLIT, default_split
from ragrecall_core.output.literal import file_name_part
from ragrecall_core.output.text import plural
from ragrecall_core.views import compare_view as cv
from ragrecall_core.views import scope
from ragrecall_core.views.highlight import query_terms
from ragrecall_core.views.plot_events import selected_points, selected_rows
from ragrecall_core.views.samples import COMPARISON_MINIMUM, small_sample_warning

# wide enough for two readable columns of chunk text on a 1600 px screen
DIALOG_WIDTH = 1500

ctx = current()
s = ctx.state
ws = ctx.ws
runs = list(ws.run_names)

st.title("Compare")
scope_note(ctx, scope.COMPARE)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
rule_note(ctx)
if len(runs) < 2:
    st.warning(escape_markdown(cv.second_run_message(runs, ctx.source.is_folder)))
    st.stop()


def swap():
    put_state(
        baseline=state_value("candidate"), candidate=state_value("baseline"), compare_query=""
    )


pick_base, pick_cand, pick_swap = st.columns([5, 5, 1.6], vertical_alignment="bottom")
pick_base.selectbox("Baseline run (before)", runs, key=state_key("baseline"))
pick_cand.selectbox("Candidate run (after)", runs, key=state_key("candidate"))
pick_swap.button("⇄ Swap", on_click=swap, key="compare_swap", width="stretch")
base, cand = s.baseline, s.candidate
if base == cand:
    st.warning("Pick two different runs to compare.")
    st.stop()

filters = {c: v for c, v in s.filters().items() if c in ("split", "query_type", "section")}
ids = cv.view_query_ids(ws, s.split, s.query_type, s.section)
if ids is not None and not ids:
    st.info("No query matches the sidebar's filters.")
    st.stop()
if s.split == TEST_SPLIT:
    st.warning(
        "You are comparing on the **test** split. Every look at the held-out split tunes the "
        "system to it, and repeated comparisons turn it into a training set: iterate on dev, "
        "and open test for the final decision only.",
        icon="⚠️",
    )

with st.spinner("Comparing the runs query by query (paired tests, bootstrap) …"):
    comparison = analyses.comparison(
        ctx.key, base, cand, s.k, ctx.policy, None if ids is None else tuple(ids), s.pass_rule, ws
    )
measure = comparison.pass_measure
scope = (
    ", ".join(f"{c.replace('_', ' ')} = {v}" for c, v in filters.items())
    if filters
    else "all queries"
)
st.caption(
    f"Candidate **{escape_markdown(cand)}** against baseline **{escape_markdown(base)}** · "
    f"k = {s.k} · {escape_markdown(scope)} · a query passes when {measure} = 1 · "
    "the sidebar's failures-only toggle does not apply here"
)
compared = int(comparison.deltas["queries"].max()) if len(comparison.deltas) else 0
small = small_sample_warning(compared, COMPARISON_MINIMUM, "compared queries", "every delta")
if small:
    st.warning(small, icon="⚠️")

# ---------------------------------------------------------------- what changed
st.subheader("What changed between the two runs")
if comparison.factor_warning:
    st.warning(
        f"**More than one factor changed.** {escape_markdown(comparison.factor_warning)}.",
        icon="⚠️",
    )
if comparison.config_diff.empty:
    configs = ws.configs()
    missing = [r for r in (base, cand) if not configs.get(r)]
    if missing:
        st.text(
            "No config sidecar for "
            + ", ".join(missing)
            + ": what changed between the runs is not recorded."
        )
    else:
        st.text("The two configs are identical (apart from the name).")
else:
    st.dataframe(comparison.config_diff, hide_index=True, key="compare_config", width="stretch")
for note in comparison.notes:
    st.warning(escape_markdown("Not fully comparable: " + note))

# ---------------------------------------------------------------- deltas
st.subheader("Measures: candidate minus baseline")
st.caption(
    "Mean over queries each run is scored on. p-value: paired randomization test (9,999 "
    "permutations); 95% CI: bootstrap of the mean delta. Wins / ties / losses count queries "
    "where the candidate is better / equal / worse; for Harm@k lower is better, so a "
    "decrease is a win."
)
st.dataframe(
    cv.deltas_table(comparison.deltas),
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

unjudged = analyses.unjudged(ctx.key, base, cand, s.k, ctx.policy, ws)
if ids is not None:
    unjudged = unjudged[unjudged["query_id"].isin(ids)]
in_view = ctx.facts.queries if ids is None else len(ids)
if unjudged.empty:
    st.caption(cv.unjudged_summary(unjudged, in_view))
else:
    st.warning(escape_markdown(cv.unjudged_summary(unjudged, in_view)))


def open_query(query_id: str) -> None:
    set_page_state(compare_query=query_id)


# ---------------------------------------------------------------- per query
st.subheader(f"Per query: {measure} before and after")
points = cv.scatter_points(comparison.outcomes)
event = st.plotly_chart(
    figure(cv.scatter_figure, points, base, cand, measure),
    key="compare_scatter",
    on_select="rerun",
    selection_mode="points",
    width="stretch",
)
clicked = selected_points(event)
if new_selection("compare_scatter", clicked):
    chosen = cv.point_query(clicked[0])
    if chosen:
        open_query(chosen)


# ---------------------------------------------------------------- one query, two lists
def close_query() -> None:
    put_state(compare_query="")


def outcome_html(query_id: str) -> str:
    """The query, large and marked, and its outcome line, as escaped HTML."""
    row = comparison.outcomes[comparison.outcomes["query_id"] == query_id]
    if row.empty:
        line = "This query is not among the compared ones (no-answer, or outside the filters)."
        text = None
    else:
        r = row.iloc[0]
        text = r["query"] if isinstance(r["query"], str) else None
        line = (
            f"{measure}: {r['baseline']:.2f} → {r['candidate']:.2f} · outcome: {r['outcome']} · "
            f"type: {r['query_type'] or '—'} · section: {r['section'] or '—'}"
        )
    return (
        query_html(text, query_terms(text))
        + f'<div style="font-size:1rem;opacity:.85">{html.escape(line)}</div>'
    )


def query_dialog(query_id: str) -> None:
    """Where each relevant chunk moved (the story in a few rows), both runs' top k as text
    (baseline left, candidate right), the gold chunks, and what entered or left the top k."""
    st.subheader(
        f"Query {escape_markdown(query_id)}: {escape_markdown(base)} → {escape_markdown(cand)}"
    )
    st.html(outcome_html(query_id))
    baseline, candidate = ctx.detail(base, query_id), ctx.detail(cand, query_id)
    if not baseline.found:
        st.warning(f"Query {escape_markdown(query_id)} is not in the gold set.")
        return
    new_here = frozenset(unjudged.loc[unjudged["query_id"] == query_id, "chunk_id"])
    if new_here:
        st.warning(
            f"{plural(len(new_here), 'chunk')} in the candidate's top {s.k} "
            f"{'is' if len(new_here) == 1 else 'are'} new and unjudged "
            "(⚑ below): judge them before reading this query's loss as a real one."
        )
    sbs = analyses.lists(ctx.key, base, cand, query_id, s.k, ctx.policy, ws)
    relevant = cv.relevant_moves(sbs, s.k)
    st.markdown("**Where each relevant chunk moved**")
    if relevant.empty:
        st.text("No relevant chunk is known for this query.")
    else:
        st.dataframe(relevant, hide_index=True, key="compare_moves", width="stretch")
    two_runs_view(baseline, candidate, "compare", new_here)
    st.markdown(f"**Entered or left the top {s.k}**")
    swaps = cv.entered_left(sbs, s.k)
    if swaps.empty:
        st.text(f"The same chunks in both top {s.k} lists.")
    else:
        st.dataframe(swaps, hide_index=True, key="compare_swaps", width="stretch")
    if st.button("Close", key="compare_close"):
        close_query()
        st.rerun()


@st.fragment
def outcome_lists() -> None:
    """Regressions, improvements and what still fails, and the query opened from them (or
    from the scatter) in a dialog. A fragment: picking a row reruns these lists and opens
    the dialog without sending the rest of the page again."""
    lists = (
        (
            "compare_regressions",
            "Regressions: passed in the baseline, fail in the candidate",
            comparison.regressions,
        ),
        (
            "compare_improvements",
            "Improvements: failed in the baseline, pass in the candidate",
            comparison.improvements,
        ),
        ("compare_still_failing", "Still failing in both runs", comparison.unchanged_failures),
    )
    st.caption("Select a row (or click a point above) to read the two ranked lists side by side.")
    for key, title, frame in lists:
        st.markdown(f"**{title}: {len(frame)}**")
        if frame.empty:
            st.text("No query.")
            continue
        table = cv.outcome_table(frame, measure)
        if key != "compare_regressions" and len(table) > cv.MAX_LISTED:
            # every regression is listed; the other lists show what a meeting reads
            st.caption(
                f"The first {cv.MAX_LISTED} by query id; `ragrecall compare --format json` "
                "lists every one."
            )
            table = table.head(cv.MAX_LISTED)
        picked = selected_rows(
            st.dataframe(
                table,
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
    sync_url()  # the open query is in the URL; a fragment's rerun skips app.py's sync
    query_id = state_value("compare_query")
    if query_id:
        st.dialog("One query, both runs", width=DIALOG_WIDTH, on_dismiss=close_query)(query_dialog)(
            query_id
        )


outcome_lists()

# ---------------------------------------------------------------- by group
st.subheader("Deltas by query type and by corpus section")
measures = list(comparison.deltas["measure"])
group_measure = st.selectbox("Measure", measures, key=state_key("compare_measure"))
by_type, by_section = st.columns(2)
given = {"query type": ctx.facts.query_types, "section": ctx.facts.sections}
for col, by, label in ((by_type, "query type", "query type"), (by_section, "section", "section")):
    with col:
        st.markdown(f"**By {label}** (worst delta first)")
        if not given[by]:
            st.text(cv.GROUP_ENABLERS[by])
            continue
        st.dataframe(
            cv.group_table(comparison.by_group, by, group_measure).rename(columns={"group": label}),
            hide_index=True,
            key=f"compare_by_{by.replace(' ', '_')}",
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format=f)
                for c, f in (("baseline", "%.3f"), ("candidate", "%.3f"), ("delta", "%+.3f"))
            },
        )

# ---------------------------------------------------------------- downloads
st.subheader("Download")
split, report_scope = default_split(ws, s.split or None)
st.caption(
    f"The reproducible report covers every run at k = {s.k} on {escape_markdown(report_scope)}"
    " (configs, measure definitions, policy, tool version and input hashes)."
)
cols = st.columns(4)
for col, (fmt, label, mime) in zip(
    cols,
    (
        ("html", "Report (HTML)", "text/html"),
        ("md", "Report (Markdown)", "text/markdown"),
        ("csv", "Report (CSV)", "text/csv"),
    ),
    strict=False,
):
    col.download_button(
        label,
        data=lambda f=fmt: analyses.report_text(ctx.key, s.k, ctx.policy, split or "", f, ws),
        file_name=f"ragrecall-report-k{s.k}.{fmt}",
        mime=mime,
        on_click="ignore",
        key=f"compare_download_{fmt}",
        width="stretch",
    )
cols[3].download_button(
    "This comparison (JSON)",
    data=lambda: analyses.comparison_json(comparison),  # built when clicked, not every rerun
    file_name=f"ragrecall-compare-{file_name_part(base)}-vs-{file_name_part(cand)}-k{s.k}.json",
    mime="application/json",
    on_click="ignore",
    key="compare_download_json",
    width="stretch",
)
