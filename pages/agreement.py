"""Agreement: annotator pairs (identical share, Cohen's kappa), disagreements and their
resolution, grades export / import, and gold gap candidates."""

import streamlit as st

from ragrecall_app import agreement
from ragrecall_app.context import current
from ragrecall_app.render import escape_markdown
from ragrecall_app.scope import scope_note
from ragrecall_core.views import scope
from ragrecall_core.views.agreement_view import INTRO, filters_caption

ctx = current()

st.title("Agreement")
scope_note(ctx, scope.QUERY_SUBSET)
st.caption(INTRO)
if ctx.store.note:
    st.warning(escape_markdown(ctx.store.note), icon=":material/lock:")

# pairs and disagreements follow the sidebar's filters; export, import and gaps do not
ids = ctx.view_ids()
if ids is not None:
    st.caption(filters_caption(ids))
shown = agreement.view(ctx)
agreement.pairs(shown.pairs)
agreement.judges_vs_humans(ctx)
agreement.disagreements(ctx, shown)
agreement.grade_downloads(ctx)
agreement.grade_import(ctx)
agreement.gold_gap_candidates(ctx)
