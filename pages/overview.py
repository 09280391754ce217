"""Overview: headline measures with bootstrap CIs, query counts, warnings, configs, policy."""

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import current, missing_notes
from ragrecall_app.figures import figure
from ragrecall_app.grade_notice import grade_notice
from ragrecall_app.render import escape_markdown, literal_table, notes
from ragrecall_app.scope import scope_note
from ragrecall_core.output.literal import as_words, md_labels
from ragrecall_core.output.text import plural
from ragrecall_core.views import charts, overview, scope
from ragrecall_core.views.compare_view import view_query_ids
from ragrecall_core.views.harm_view import add_harm_cell, harm_label, with_harm

CHART_ON = "overview_chart_on"  # outlives the toggle while another page is shown

ctx = current()
s = ctx.state
qt = ctx.query_table()
rows = ctx.rows(failing=False, group_filters=False)

st.title("Overview")
scope_note(ctx, scope.CHARTS)
grades_changed = st.container()  # filled once the headline numbers are known
st.caption(
    f"Workspace: {escape_markdown(ctx.source.describe())} · k = {s.k} · "
    f"{plural(rows['query_id'].nunique(), 'query', 'queries')} in view"
)
notes(missing_notes(ctx.facts))
filters = {c: v for c, v in s.filters().items() if c in ("split", "query_type", "section")}

if rows.empty:
    st.info("No query matches the sidebar's filters.")
    st.stop()

harm = analyses.harm(ctx.key, s.k, ctx.policy, tuple(ctx.options.k_choices), ctx.ws)
rows = with_harm(rows, harm, s.k)
measures = [*overview.summary_measures(s.k), harm_label(s.k)]
with st.spinner("Bootstrapping confidence intervals …"):
    summary = ctx.summary(rows, measures)
with grades_changed:
    grade_notice(ctx, summary)

st.subheader(f"Headline measures at k = {s.k}")
st.caption(
    "Mean over queries with its 95% bootstrap confidence interval (1,000 resamples of "
    "queries). Judged@k is the share of top-k positions with any judgment: read P@k "
    "beside it, since unjudged chunks count as not relevant. No-answer queries are "
    "outside these means. Harm@k ↓ is the share of queries with a reviewer-flagged harmful "
    "chunk in the top k: lower is better, and no-answer queries count too."
)
literal_table(add_harm_cell(overview.headline_table(summary, s.k), summary, s.k))
st.caption(f"{overview.band_label(s.k)}: {overview.band_help(s.k)}")
# plotly's code is the slowest part of a first page: the chart is drawn when asked for
if st.toggle("Show as a chart", key="overview_chart", value=st.session_state.get(CHART_ON, False)):
    st.plotly_chart(
        figure(charts.headline_bars, overview.chart_frame(summary), ctx.colors, s.k),
        key="overview_chart_figure",
        width="stretch",
    )
st.session_state[CHART_ON] = st.session_state["overview_chart"]

st.subheader("Policy")
st.text(qt.policy.describe())

st.subheader("Queries in view")
FACT_OF = {"query_type": "query_types", "section": "sections", "split": "splits"}
cols = st.columns(3)
for col, (column, label) in zip(
    cols,
    [("query_type", "query type"), ("section", "corpus section"), ("split", "split")],
    strict=True,
):
    with col:
        if not getattr(ctx.facts, FACT_OF[column]):
            st.caption(f"No {label} in this data: add `{column}` to the gold to count by it.")
            continue
        counts = overview.query_counts(rows, column)
        literal_table(counts.rename(columns={"value": label}))

st.subheader("No-answer queries")
st.caption(
    "Queries with no relevant chunk: the retriever should not return anything "
    "confident. They are measured apart from Recall, Hit and MRR."
)
view_ids = view_query_ids(ctx.ws, s.split, s.query_type, s.section)
no_answer = analyses.no_answer(
    ctx.key, s.k, ctx.policy, tuple(s.runs), None if view_ids is None else tuple(view_ids), ctx.ws
)
literal_table(
    as_words(
        overview.no_answer_table(no_answer.top_scores, s.runs),
        {"mean top score": ("{:.4f}", "no scores")},
    )
)

st.subheader("Validation warnings")
if filters:
    st.caption(
        "Validation warnings cover every query of each run: the sidebar's filters do not "
        "apply to them."
    )
any_warning = False
for run in s.runs:
    for line in qt.warnings.get(run, []):
        any_warning = True
        st.warning(f"**{escape_markdown(run)}**: {escape_markdown(line)}")
if not any_warning:
    st.success("No warnings for the selected runs.")

st.subheader("Run configurations")
st.caption("As loaded from each run's .config.json sidecar; secrets are redacted on load.")
configs = ctx.ws.configs()
tabs = st.tabs(md_labels(s.runs))
for tab, run in zip(tabs, s.runs, strict=True):
    with tab:
        if configs.get(run):
            st.json(configs[run], expanded=True)
        else:
            st.text("No config sidecar for this run.")
