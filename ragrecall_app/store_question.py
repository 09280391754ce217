"""The question the dashboard asks before uploaded data is attached to a judgment store
that holds another gold's judgments (:mod:`ragrecall_core.inputs.upload_stores`)."""

from __future__ import annotations

import streamlit as st

from ragrecall_app import context
from ragrecall_core.views.dashboard_state import Source

CHOICES = {
    "shared": "Use it: its grades count where query and chunk ids match",
    "separate": "Start a separate store for this gold (the other store is kept as it is)",
}
WAITING = (
    "Waiting for this choice: nothing is scored until then, so no number silently counts or "
    "leaves out the stored grades. The choice is kept with the uploaded files."
)


def choice_key(upload: Source) -> str:
    """The radio's key: one per upload set, so another set's answer is never taken over."""
    return "store_choice_" + context.upload_key(upload)


def settled(upload: Source) -> Source:
    """``upload`` once its judgment store is settled; until then the page asks which store
    its gold uses and stops: no number is shown that would silently count or leave out the
    stored grades. Nothing is preselected; the answer is kept in the set's manifest."""
    question = context.store_question(upload)
    if question is None:
        return upload
    st.subheader("Which judgment store?")
    st.text(question.text())  # plain text: the file name is never read as Markdown
    choice = st.radio(
        "Judgment store for this gold",
        tuple(CHOICES),
        index=None,
        format_func=CHOICES.get,
        key=choice_key(upload),
    )
    if choice is None:
        st.info(WAITING)
        st.stop()
    context.choose_store(upload, choice)
    st.rerun()  # the question goes; the page opens on the chosen store
    return upload
