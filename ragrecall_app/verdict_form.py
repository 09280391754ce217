"""The meeting's verdict on one (run, query), recorded from the reading view.

One compact form: reason (the fixed vocabulary of
:data:`ragrecall_core.analysis.verdicts.REASONS`), note, owner, who records it. The form's
key names the run and query, so what was typed for one query never carries over to the
next; its inputs have no widget keys (their values are read on submit, and they are data
being entered, not part of the view a link reproduces). Who records is the exception: the
name saved with a verdict is kept for the browser session (:data:`RECORDER`), across queries
and pages, and a verdict is not saved without one. A store that cannot be written disables
the form with its one-line reason.
"""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from ragrecall_app.context import Context
from ragrecall_app.render import escape_markdown, problems
from ragrecall_core.analysis import verdicts
from ragrecall_core.errors import InputError

SAVED = "_ragrecall_verdict_saved"
RECORDER = "_ragrecall_verdict_recorder"  # who records, for the whole browser session
WITHDRAW = "(no verdict: withdraw)"
NO_NAME = "(no name)"  # a stored verdict without a recorder (an import may have none)
NAME_FIRST = "Say who records the verdict (Recorded by): it is kept for this session."
# form key -> the verdict the form showed when last drawn: a save over one recorded since
# (by another session) is held back once, so no verdict is replaced without being seen
SHOWN = "_ragrecall_verdict_shown"
NOT_SEEN = (
    "Your verdict was not saved: another one was recorded since this form was shown, and "
    "it would have replaced it unseen. Save again to replace it. The verdict recorded now:"
)


def _form_key(run: str, query_id: str) -> str:
    """A form key per (run, query): any text, hashed so it is a plain key."""
    digest = hashlib.sha256(f"{run}\x00{query_id}".encode()).hexdigest()[:16]
    return f"queries_verdict_{digest}"


def current_verdict(ctx: Context, run: str, query_id: str) -> dict:
    """The latest verdict of (run, query) as a dict ({} when none)."""
    latest = ctx.verdicts()
    row = latest[(latest["run"] == run) & (latest["query_id"] == query_id)]
    return row.iloc[0].to_dict() if len(row) else {}


def current_line(verdict: dict) -> str:
    """The current verdict in one Markdown-safe line."""
    if not verdict:
        return "No verdict yet."
    parts = [f"**Verdict: {escape_markdown(verdict['reason'])}**"]
    if verdict.get("note"):
        parts.append(escape_markdown(verdict["note"]))
    if verdict.get("owner"):
        parts.append("owner: " + escape_markdown(verdict["owner"]))
    by = escape_markdown(verdict["recorded_by"]) if verdict.get("recorded_by") else NO_NAME
    # isoformat, not strftime: a store written before import refused them may hold a time
    # out of Python's range (infinity), which strftime cannot write
    when = pd.Timestamp(verdict["recorded_at"]).isoformat(sep=" ", timespec="minutes")
    parts.append(f"recorded by {by}, {when}")
    return " · ".join(parts)


def _save(ctx: Context, run: str, query_id: str, reason, note, owner, by, seen) -> None:
    chosen = "" if reason == WITHDRAW else reason
    try:
        ctx.record_verdict(run, query_id, chosen, note, owner, by, seen=seen)
    except verdicts.VerdictChanged as changed:  # saved by another session since, unseen
        st.session_state[SHOWN][_form_key(run, query_id)] = verdicts.seen_key(changed.current)
        st.warning(f"{NOT_SEEN} {current_line(changed.current)}")
        return
    except InputError as error:
        problems(error, "The verdict was not saved")
        return
    st.session_state[SAVED] = (run, query_id)
    st.session_state[RECORDER] = by.strip()
    st.rerun()


def verdict_form(ctx: Context, run: str, query_id: str) -> None:
    """The current verdict (and its history), then the form to record one on one line: the
    reading view's chunks stay on a 1280x720 screen. The fields' labels are their
    placeholders (and the inputs' accessible names)."""
    verdict = current_verdict(ctx, run, query_id)
    shown = st.session_state.setdefault(SHOWN, {})
    form_key = _form_key(run, query_id)
    now = verdicts.seen_key(verdict)
    shown_before, shown[form_key] = shown.get(form_key, now), now
    history = verdicts.verdict_history(ctx.ws, run, query_id)
    line = st.container(horizontal=True, vertical_alignment="center", gap="small")
    line.markdown(current_line(verdict), width="content")
    if st.session_state.pop(SAVED, None) == (run, query_id):
        line.caption("Saved.", width="content")
    if len(history):
        with line.expander(f"Verdict history ({len(history)})"):
            st.dataframe(
                history.assign(reason=history["reason"].replace("", "(withdrawn)")),
                hide_index=True,
                width="stretch",
            )
    if not ctx.store.can_judge:
        st.caption(escape_markdown("Recording verdicts is off: " + ctx.store.note))
        return
    options = [*verdicts.REASONS, *([WITHDRAW] if verdict else [])]
    chosen = verdict.get("reason")
    hidden = "collapsed"
    with st.form(form_key, border=False, enter_to_submit=False):
        # two rows that fit half a 1280 px screen; fixed widths but the reason's and the
        # note's, the rows wrap (never cut a label) on a narrow screen
        first = st.container(horizontal=True, vertical_alignment="center", gap="xsmall")
        second = st.container(horizontal=True, vertical_alignment="center", gap="xsmall")
        reason = first.selectbox(
            "Failure reason",
            options,
            index=options.index(chosen) if chosen in options else None,
            placeholder="Failure reason",
            label_visibility=hidden,
        )
        by = first.text_input(
            "Recorded by",
            value=st.session_state.get(RECORDER, ""),
            placeholder="Recorded by",
            label_visibility=hidden,
            width=170,
        )
        note = second.text_input(
            "Note", value=verdict.get("note", ""), placeholder="Note", label_visibility=hidden
        )
        owner = second.text_input(
            "Owner (optional)",
            value=verdict.get("owner", ""),
            placeholder="Owner (optional)",
            label_visibility=hidden,
            width=170,
        )
        if first.form_submit_button("Save verdict", type="primary"):
            if reason is None:
                st.warning("Choose a failure reason first.")
            elif not by.strip():
                st.warning(NAME_FIRST)
            elif shown_before != now:
                st.warning(f"{NOT_SEEN} {current_line(verdict)}")
            else:
                _save(ctx, run, query_id, reason, note, owner, by, seen=shown_before)
