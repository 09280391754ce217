"""Overview: headline measures with bootstrap CIs, query counts, warnings, configs, policy."""

import streamlit as st

from ragrecall_app import judge_counted
from ragrecall_app import overview_sections as sections
from ragrecall_app.chart import chart
from ragrecall_app.context import current, missing_notes
from ragrecall_app.grade_notice import grade_notice
from ragrecall_app.render import escape_markdown, escaped_table, notes
from ragrecall_app.scope import scope_note
from ragrecall_core.output.text import plural
from ragrecall_core.views import charts, overview, scope

CHART_ON = "overview_chart_on"  # outlives the toggle while another page is shown

ctx = current()
s = ctx.state
shown = sections.view(ctx)  # every number and table of the view, built on its first rerun

st.title("Overview")
scope_note(ctx, scope.CHARTS)
grades_changed = st.container()  # filled once the headline numbers are known
st.caption(
    f"Workspace: {escape_markdown(ctx.source.describe())} · k = {s.k} · "
    f"{plural(shown.queries, 'query', 'queries')} in view"
)
notes(missing_notes(ctx.facts))

if shown.headline is None:
    st.info("No query matches the sidebar's filters.")
    st.stop()

with grades_changed:
    grade_notice(ctx, shown.numbers)

st.subheader(f"Headline measures at k = {s.k}")
st.caption(
    "Mean over queries with its 95% bootstrap confidence interval (1,000 resamples of "
    "queries). Judged@k is the share of top-k positions with any judgment: read P@k "
    "beside it, since unjudged chunks count as not relevant. No-answer queries are "
    "outside these means. Harm@k ↓ is the share of queries with a reviewer-flagged harmful "
    "chunk in the top k: lower is better, and no-answer queries count too."
)
escaped_table(shown.headline)
st.caption(f"{overview.band_label(s.k)}: {overview.band_help(s.k)}")
judge_counted.ppi_intervals(ctx)  # when the sidebar counts a model judge's grades
# plotly's code is the slowest part of a first page: the chart is built when asked for
if st.toggle("Show as a chart", key="overview_chart", value=st.session_state.get(CHART_ON, False)):
    chart(
        ctx.memo(
            "overview_chart",
            lambda: charts.headline_bars(shown.chart_frame, ctx.colors, s.k),
        ),
        key="overview_chart_figure",
    )
st.session_state[CHART_ON] = st.session_state["overview_chart"]

st.subheader("Policy")
st.text(shown.policy_text)

sections.queries_in_view(shown)
sections.no_answer_queries(shown)
sections.validation_warnings(shown, any((s.split, s.query_type, s.section)))
sections.run_configurations(ctx)
