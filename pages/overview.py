"""Overview: headline measures with bootstrap CIs, query counts, warnings, configs, policy."""

import streamlit as st

from ragrecall_app import analyses, judge_counted
from ragrecall_app import overview_sections as sections
from ragrecall_app.context import current, missing_notes
from ragrecall_app.figures import figure
from ragrecall_app.grade_notice import grade_notice
from ragrecall_app.render import escape_markdown, literal_table, notes
from ragrecall_app.scope import scope_note
from ragrecall_core.output.text import plural
from ragrecall_core.views import charts, overview, scope
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
judge_counted.ppi_intervals(ctx)  # when the sidebar counts a model judge's grades
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

sections.queries_in_view(ctx, rows)
sections.no_answer_queries(ctx)
sections.validation_warnings(ctx, qt, bool(filters))
sections.run_configurations(ctx)
