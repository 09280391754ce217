"""No-answer: does a run still return something confident when the knowledge base has no answer?"""

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import current, missing_notes, state_key
from ragrecall_app.figures import figure
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.scope import scope_note
from ragrecall_core.output.literal import as_words, md_labels
from ragrecall_core.output.text import plural
from ragrecall_core.views import no_answer_view as nav
from ragrecall_core.views import scope
from ragrecall_core.views.compare_view import view_query_ids
from ragrecall_core.views.samples import NO_ANSWER_MINIMUM, small_sample_warning

ctx = current()
s = ctx.state
ws = ctx.ws

st.title("No-answer queries")
scope_note(ctx, scope.CHARTS)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
st.caption(
    f"k = {s.k} · runs: {escape_markdown(', '.join(s.runs))} · every figure is per run: "
    "scores of different models are on different scales and are never pooled"
)
ids = view_query_ids(ws, s.split, s.query_type, s.section)
if ids is not None and not ids:
    st.info("No query matches the sidebar's filters.")
    st.stop()


def show_gold_errors() -> None:
    st.subheader("Possible gold errors")
    st.caption(
        "A reviewer graded a chunk relevant (2) for a query the gold set calls no-answer: "
        "either the gold is wrong or the grade is (a relevant grade also makes the query "
        "answerable in every measure). Decide before trusting the numbers on this page."
    )
    errors = analyses.gold_errors(ctx.key, None if ids is None else tuple(ids), ws)
    if errors.empty:
        st.text("No reviewer graded a chunk relevant for a no-answer query.")
    else:
        st.dataframe(errors, hide_index=True, key="noans_gold_errors", width="stretch")


with st.spinner("Reading top-1 scores …"):
    report = analyses.no_answer(
        ctx.key, s.k, ctx.policy, tuple(s.runs), None if ids is None else tuple(ids), ws
    )
tops = report.top_scores
no_answer_ids = sorted(set(tops.loc[tops["kind"] == "no answer", "query_id"]))
answerable_n = tops.loc[tops["kind"] == "answerable", "query_id"].nunique()
st.caption(
    f"{plural(len(no_answer_ids), 'no-answer query', 'no-answer queries')} (no relevant chunk "
    f"listed or judged) and {plural(answerable_n, 'answerable query', 'answerable queries')} "
    "in view"
)
if not no_answer_ids:
    st.info(
        "No no-answer query in this view: the gold set (under these filters) has no query "
        'with "relevant_ids": [] (or, in qrels, judged only non-relevant). Add some to '
        "measure false confidence."
    )
    show_gold_errors()
    st.stop()
if tops["top_score"].isna().all():
    st.warning("The runs carry no scores, so no threshold can be set.")

# ---------------------------------------------------------------- the trade-off
st.subheader("The threshold a trade-off picks")
if small := small_sample_warning(
    len(no_answer_ids), NO_ANSWER_MINIMUM, "no-answer queries", "the picked threshold"
):
    st.warning(small, icon="⚠️")
accepted_percent = st.slider(
    "Most false confidence you accept (share of no-answer queries still answered)",
    min_value=0,
    max_value=100,
    step=5,
    format="%d%%",
    key=state_key("max_false_confidence"),  # the view state keeps it on the slider's steps
)
max_fc = accepted_percent / 100
st.caption(
    "Refuse when the top-1 score is below the threshold. The picked threshold is the lowest "
    f"one whose false confidence is at most {max_fc:.0%}; answerable coverage is the share of "
    f"answerable queries that are still answered and have a relevant chunk in the top {s.k}."
)
st.dataframe(
    as_words(
        nav.picked_table(report, s.runs, max_fc),
        {
            "threshold (top-1 score ≥)": ("{:.4f}", "none"),
            "false confidence": ("{:.1%}", "—"),
            "answerable coverage": ("{:.1%}", "—"),
        },
    ),
    hide_index=True,
    key="noans_picked",
    width="stretch",
)
picked = nav.thresholds(report, max_fc)

st.plotly_chart(
    figure(nav.sweep_figure, report, ctx.colors, s.runs, max_fc),
    key="noans_sweep",
    width="stretch",
)

# ---------------------------------------------------------------- distributions
st.subheader("Top-1 score: answerable vs no-answer queries")
st.caption(
    "One chart per run, each on its own score scale; every query is a point (no-answer "
    f"queries as orange diamonds), up to {nav.MAX_POINTS} per group: above that, the box and "
    f"whiskers summarise every query and {nav.MAX_POINTS} evenly spread ones are drawn (the "
    "label says so). The dashed line is the picked threshold."
)
st.plotly_chart(
    figure(nav.score_figure, report, tuple(s.runs), ctx.colors, picked),
    key="noans_scores",
    width="stretch",
)


def show_sweep_tables() -> None:
    tabs = st.tabs(md_labels(s.runs))
    for i, (tab, run) in enumerate(zip(tabs, s.runs, strict=True)):
        with tab:
            st.dataframe(
                nav.sweep_table(report, run),
                hide_index=True,
                key=f"noans_sweep_table_{i}",
                width="stretch",
                height=320,
                column_config={
                    "threshold": st.column_config.NumberColumn(format="%.4f"),
                    "false confidence": st.column_config.NumberColumn(format="percent"),
                    "answerable coverage": st.column_config.NumberColumn(format="percent"),
                },
            )


# lazy: its tables (one row per distinct score: ~6,000 per run at 10k) are built only while open
sweep_box = st.expander("The threshold sweep as a table", key="noans_sweep_open", on_change="rerun")
with sweep_box:
    if sweep_box.open:
        show_sweep_tables()

# ---------------------------------------------------------------- the queries
st.subheader("What each run returned on top for a no-answer query")
if not ctx.facts.corpus_chunks:
    st.caption("No corpus is loaded: chunk text is empty.")
shown = nav.no_answer_tops(ws, report, picked, limit=nav.MAX_TOP_QUERIES)
if len(no_answer_ids) > nav.MAX_TOP_QUERIES:
    st.caption(
        f"The first {nav.MAX_TOP_QUERIES} of {len(no_answer_ids)} no-answer queries: those "
        "some run answers above its threshold come first. `ragrecall no-answer` lists every one."
    )
st.dataframe(
    as_words(shown, {"top score": ("{:.4f}", "no score")}),
    hide_index=True,
    key="noans_tops",
    width="stretch",
    column_config={
        "query": st.column_config.TextColumn(width="large"),
        "confident": st.column_config.TextColumn(width="medium"),
        "text": st.column_config.TextColumn(width="large"),
    },
)

show_gold_errors()
