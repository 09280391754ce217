"""Compare: a candidate run against a baseline on the same queries, labels and k."""

import streamlit as st

from ragrecall_app import compare
from ragrecall_app.context import current, missing_notes, sync_url
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.selection import TEST_SPLIT
from ragrecall_core.views import compare_view as cv
from ragrecall_core.views import scope
from ragrecall_core.views.compare_text import TEST_SPLIT_WARNING

ctx = current()
s = ctx.state
runs = list(ctx.ws.run_names)

st.title("Compare")
scope_note(ctx, scope.COMPARE)
notes(missing_notes(ctx.facts))
policy_note(ctx)
rule_note(ctx)
if len(runs) < 2:
    st.warning(escape_markdown(cv.second_run_message(runs, ctx.source.is_folder)))
    st.stop()
ids = ctx.view_ids()


@st.fragment
def pair() -> None:
    """The two runs' pickers and all that depends on the pair. A fragment: a baseline
    change, a swap or a scatter click reruns this alone, not app.py's sidebar and the page's
    head (the sidebar's widgets still rerun the whole page)."""
    base, cand = compare.pick_runs(ctx, runs)
    sync_url()  # a fragment's rerun skips app.py's sync
    if base == cand:
        st.warning("Pick two different runs to compare.")
        return
    if ids is not None and not ids:
        st.info("No query matches the sidebar's filters.")
        return
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
    compare.downloads(ctx, base, cand, comparison)


pair()
