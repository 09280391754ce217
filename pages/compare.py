"""Compare: a candidate run against a baseline on the same queries, labels and k."""

import streamlit as st

from ragrecall_app import analyses, compare
from ragrecall_app.context import current, missing_notes
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.selection import TEST_SPLIT
from ragrecall_core.output.literal import file_name_part
from ragrecall_core.views import compare_view as cv
from ragrecall_core.views import scope
from ragrecall_core.views.compare_text import TEST_SPLIT_WARNING
from ragrecall_core.views.report_view import report_caption

ctx = current()
s = ctx.state
runs = list(ctx.ws.run_names)

st.title("Compare")
scope_note(ctx, scope.COMPARE)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
rule_note(ctx)
if len(runs) < 2:
    st.warning(escape_markdown(cv.second_run_message(runs, ctx.source.is_folder)))
    st.stop()
base, cand = compare.pick_runs(ctx, runs)
if base == cand:
    st.warning("Pick two different runs to compare.")
    st.stop()
ids = ctx.view_ids()
if ids is not None and not ids:
    st.info("No query matches the sidebar's filters.")
    st.stop()
if s.split == TEST_SPLIT:
    st.warning(TEST_SPLIT_WARNING, icon="⚠️")

comparison = compare.comparison(ctx, base, cand, ids)
compare.summary(ctx, base, cand, comparison)
compare.what_changed(ctx, base, cand, comparison)
compare.deltas(ctx, base, cand, comparison)
unjudged = compare.unjudged(ctx, base, cand, ids)
compare.scatter(ctx, base, cand, comparison)
compare.outcome_lists(ctx, base, cand, comparison, unjudged)
compare.by_group(ctx, comparison)

# ---------------------------------------------------------------- downloads
st.subheader("Download")
st.caption(escape_markdown(report_caption(s)))
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
        data=lambda f=fmt: analyses.report_text(ctx, f),
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
