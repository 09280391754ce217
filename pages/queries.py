"""Queries: the per-query table; select a row to see gold vs retrieved side by side."""

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
)
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_core.analysis import query_detail as qd
from ragrecall_core.analysis.query_table import (
    display_frame,
    neighbour,
    unfilled_display_columns,
)
from ragrecall_core.output.literal import as_words, yes_no
from ragrecall_core.views.harm_view import add_harm_column
from ragrecall_core.views.marks import MARK_TEXT
from ragrecall_core.views.plot_events import selected_rows

ctx = current()
s = ctx.state
run = s.focus
rows = ctx.rows(runs=[run])
display = display_frame(rows, s.k).drop(columns=unfilled_display_columns(ctx.query_table().table))
display = add_harm_column(display, rows, analyses.harm(ctx.key, s.k, ctx.policy, ctx.ws), s.k)

st.title("Queries")
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
rule_note(ctx)
failing_n = int(rows["failing"].sum())
answerable_n = int((rows["relevant"] > 0).sum())
st.caption(
    f"Run **{escape_markdown(run)}** · k = {s.k} · {len(rows)} queries shown · "
    f"{failing_n} of {answerable_n} answerable failing · click a row to open it"
)

group_filters = {
    c: v for c, v in s.filters().items() if c in ("failure_class", "doc_length", "reason")
}
if group_filters:
    c1, c2 = st.columns([4, 1])
    c1.info(
        "Opened from Failures: "
        + escape_markdown(
            ", ".join(f"{c.replace('_', ' ')} = {v}" for c, v in group_filters.items())
        )
    )

    def clear_groups():
        put_state(failure_class="", doc_length="", reason="")

    c2.button("Clear these filters", on_click=clear_groups, key="queries_clear_groups")

event = st.dataframe(
    as_words(
        display,
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
    height=420,
    column_config={
        "status": st.column_config.TextColumn("status", width="small"),
        "query": st.column_config.TextColumn("query", width="large"),
        f"Recall@{s.k}": st.column_config.TextColumn(width="small"),
        f"RecallCap@{s.k}": st.column_config.TextColumn(width="small"),
        f"Hit@{s.k}": st.column_config.TextColumn(width="small"),
        "RR": st.column_config.TextColumn(width="small"),
        "first rank": st.column_config.TextColumn(width="small"),
        f"Harm@{s.k}": st.column_config.TextColumn(
            width="small", help="1: a reviewer-flagged harmful chunk in the top k"
        ),
    },
)

# A new row selection opens that query (compared with the last one seen, so the
# previous / next buttons are not overridden by a stale table selection).
picked = selected_rows(event)
if new_selection("queries_table", picked) and picked[0] < len(display):
    set_page_state(query_id=str(display.at[picked[0], "query_id"]))

query_id = state_value("query_id")
if not query_id:
    st.info("Select a row to see the gold list beside what the run retrieved.")
    st.stop()

failing_ids = list(rows.loc[rows["failing"], "query_id"])


def step(delta: int):
    target = neighbour(failing_ids, state_value("query_id"), delta)
    if target:
        put_state(query_id=target)


st.divider()
head, prev_col, next_col, close_col = st.columns([6, 1.3, 1.3, 1])
head.subheader(f"Query {query_id} · run {run}")
prev_col.button(
    "◀ Previous failing",
    on_click=step,
    args=(-1,),
    key="queries_prev",
    disabled=not failing_ids,
    width="stretch",
)
next_col.button(
    "Next failing ▶",
    on_click=step,
    args=(1,),
    key="queries_next",
    disabled=not failing_ids,
    width="stretch",
)
close_col.button(
    "Close",
    on_click=put_state,
    kwargs={"query_id": ""},
    key="queries_close",
    width="stretch",
)

detail = ctx.detail(run, query_id)
if not detail.found:
    st.warning(f"Query {escape_markdown(query_id)} is not in the gold set.")
    st.stop()
for line in detail.missing:
    st.caption(escape_markdown(line))

row = ctx.query_table().table
row = row[(row["run"] == run) & (row["query_id"] == query_id)]
q = detail.query
st.text(f"Query: {q.get('query') or '(no query text)'}")
meta = [
    f"type: {q.get('query_type') or '—'}",
    f"section: {q.get('section') or '—'}",
    f"split: {q.get('split') or '—'}",
    f"needs all fragments: {yes_no(q.get('require_all'))}",
]
if len(row):
    r = row.iloc[0]
    meta += [
        f"Recall@{s.k}: {r[f'Recall@{s.k}']:.2f}"
        if pd.notna(r[f"Recall@{s.k}"])
        else f"no answer expected ({r['no_answer_source']})",
        f"failure class: {r['failure_class']}",
    ]
st.text(" · ".join(meta))

COLORS = {
    qd.RELEVANT: "background-color: #cfe6f7",
    qd.HARMFUL: "background-color: #f7d9b5",
    qd.NOT_RELEVANT: "",
    qd.UNJUDGED: "background-color: #eeeeee",
}

left, right = st.columns([2, 3])
with left:
    st.markdown("**Gold list** (what the answer needs)")
    gold = detail.gold.rename(columns={"retrieved_at": "found at rank"})
    gold["found at rank"] = [
        "not retrieved" if pd.isna(r) else str(int(r)) for r in gold["found at rank"]
    ]
    if gold.empty:
        st.text("No relevant chunk: a no-answer query.")
    else:
        shown_gold = gold[
            ["chunk_id", "grade", "source", "found at rank", "section", "rationale", "text"]
        ]
        st.dataframe(
            shown_gold.fillna({"section": "", "rationale": "", "text": ""}),
            hide_index=True,
            key="queries_gold",
            width="stretch",
            column_config={"text": st.column_config.TextColumn(width="large")},
        )
with right:
    st.markdown(f"**Retrieved by {escape_markdown(run)}** (ranks 1–{s.k} are the top k)")
    ret = detail.retrieved
    if ret.empty:
        st.text("The run returned nothing for this query (it scores 0).")
    else:
        shown = as_words(
            ret.assign(mark=ret["mark"].map(MARK_TEXT)),
            {
                "score": ("{:.4f}", ""),
                "section": ("{}", ""),
                "reviews": ("{}", ""),
                "text": ("{}", ""),
            },
        )[["rank", "in top k", "mark", "score", "chunk_id", "section", "reviews", "text"]]
        marks = ret["mark"].tolist()
        styled = shown.style.apply(lambda col: [COLORS[m] for m in marks], subset=["mark"])
        st.dataframe(
            styled,
            hide_index=True,
            key="queries_retrieved",
            width="stretch",
            height=min(38 + 35 * len(shown), 520),
            column_config={"text": st.column_config.TextColumn(width="large")},
        )

with st.expander(f"Full text of the top {s.k} retrieved chunks"):
    for _, item in detail.retrieved.head(s.k).iterrows():
        st.text(f"#{item['rank']}  {item['chunk_id']}  —  {MARK_TEXT[item['mark']]}")
        st.code(
            item["text"] if isinstance(item["text"], str) else "(no text: no corpus)",
            language=None,
            wrap_lines=True,
        )

st.markdown("**Reviewers' grades for this query**")
if detail.reviews.empty:
    st.text("No reviewer graded a chunk of this query.")
else:
    st.dataframe(detail.reviews, hide_index=True, key="queries_reviews", width="stretch")
