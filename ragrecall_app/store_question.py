"""The question the dashboard asks before uploaded data is attached to a judgment store
that holds another gold's judgments (:mod:`ragrecall_core.inputs.upload_stores`), and the
way to change the answer later (:func:`offer_change`)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragrecall_app import context
from ragrecall_app.render import problems
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import upload_stores
from ragrecall_core.output.text import plural
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


# ---------------------------------------------------------------- changing the answer
CHANGE_LABEL = "Change which store this data uses"
SWITCH_LABEL = {
    "shared": "Switch: use the shared store (its grades count where query and chunk ids match)",
    "separate": "Switch: start a separate store for this gold (the other store is kept as it is)",
}
SWITCH_NOTE = (
    "Nothing is deleted or moved: both stores keep their judgments, and this data's "
    "numbers count the chosen one's from the next page drawn. You can switch back."
)


def change_key(upload: Source) -> str:
    return "store_change_" + context.upload_key(upload)


def switch_key(upload: Source) -> str:
    return "store_switch_" + context.upload_key(upload)


def offer_change(upload: Source) -> None:
    """For uploaded data whose store is settled: say in the sidebar which judgment store its
    numbers count, and offer the other choice, in the question's words with both stores'
    counts, switched only on a confirming click. Nothing for a folder workspace or loose
    files (one store). The counts are read only once the change is opened (a store not
    attached here is opened to count it); every name is plain text (``st.text``)."""
    chosen = upload_stores.current_choice(upload.gold) if upload.gold else None
    if chosen is None:
        return
    failed = st.session_state.pop(switch_key(upload) + "_failed", None)
    with st.sidebar, st.popover("Judgment store", width="stretch"):
        if failed is not None:
            problems(failed, "The judgment store was not changed")
        path = chosen.stores[chosen.choice]
        st.text(f"Store in use: {path.name}, {_role(chosen, chosen.choice)}.")
        if not st.toggle(CHANGE_LABEL, key=change_key(upload)):
            return
        for choice in (chosen.choice, chosen.other):
            st.text(_held(chosen, choice))
        st.text(SWITCH_NOTE)
        st.button(
            SWITCH_LABEL[chosen.other],
            key=switch_key(upload),
            on_click=_switch,
            args=(upload, chosen.other),
        )


def _role(chosen: upload_stores.StoreChoice, choice: str) -> str:
    if choice == upload_stores.SEPARATE:
        return "this gold's own store"
    return f"the store shared by every uploaded gold named {chosen.gold_name}"


def _held(chosen: upload_stores.StoreChoice, choice: str) -> str:
    """One store, its role and what it holds, as one plain sentence."""
    path: Path = chosen.stores[choice]
    count = upload_stores.saved_judgments(path)
    if count is None:
        held = "could not be read to count its judgments (damaged, or held by another program)"
    elif count == 0:
        held = "holds no judgments"
    else:
        held = f"holds {plural(count, 'judgment')}"
    others = chosen.other_golds() if choice == upload_stores.SHARED else 0
    used = f", made with this gold or {plural(others, 'other gold file')}" if others else ""
    return f"{path.name} ({_role(chosen, choice)}) {held}{used}."


def _switch(upload: Source, choice: str) -> None:
    """The confirming click: keep the new choice in the set's manifest and close the
    change; the rerun it starts opens the chosen store."""
    try:
        context.choose_store(upload, choice)
    except InputError as error:  # a manifest or home that cannot be written
        st.session_state[switch_key(upload) + "_failed"] = error
        return
    st.session_state[change_key(upload)] = False
