"""Judge: blind 2 / 1 / 0 judging of the pooled chunks (no run, rank or score shown).

The widgets live in :mod:`ragrecall_app.judge_view`. A store that cannot be written
(read-only workspace) or opened (damaged) leaves the page for viewing, judging off; data
without chunk text does not start judging at all, and says what to provide.
"""

import streamlit as st

from ragrecall_app import judge_view as jv
from ragrecall_app.context import current
from ragrecall_app.render import escape_markdown
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.views import scope
from ragrecall_core.views.judge_text import INTRO, no_text_refusal, store_place

ctx = current()

st.title("Judge")
scope_note(ctx, scope.QUERY_SUBSET)
st.caption(INTRO)
st.text(store_place(ctx.ws))  # where the grades go, for this kind of source
if ctx.store.note:
    st.warning(escape_markdown(ctx.store.note), icon=":material/lock:")
if not jv.has_text(ctx.files_key, ctx):
    st.warning(no_text_refusal(ctx.source.is_folder), icon=":material/text_snippet:")
    st.stop()

name = jv.name_row()
runs, depth = jv.pool_inputs(ctx)
if not name:
    st.info(
        "Enter your name to start judging (press Enter or Start judging). Nothing is shown "
        "before that."
    )
    st.stop()
if not runs:
    st.warning("Choose at least one run to pool.")
    st.stop()
ids = jv.query_ids(ctx)
if ids is not None and not ids:
    st.warning("No query matches the sidebar's filters.")
    st.stop()

order = jv.pool_order(ctx, runs, depth, ids)
q = js.advance(ctx.ws, order, name)
jv.queue(ctx, q, name)

st.divider()
jv.coverage(ctx, runs, depth, ids)
jv.my_grades(ctx, q, name)
