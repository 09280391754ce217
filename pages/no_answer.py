"""No-answer: does a run still return something confident when the knowledge base has no answer?"""

import streamlit as st

from ragrecall_app import no_answer
from ragrecall_app.context import current, missing_notes, sync_url
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.scope import scope_note
from ragrecall_core.views import no_answer_text as nat
from ragrecall_core.views import scope

ctx = current()
s = ctx.state

st.title("No-answer queries")
scope_note(ctx, scope.CHARTS)
notes(missing_notes(ctx.facts))
policy_note(ctx)
st.caption(nat.runs_caption(s.k, s.runs, escape_markdown))
ids = ctx.view_ids()
if ids is not None and not ids:
    st.info("No query matches the sidebar's filters.")
    st.stop()

report = no_answer.report(ctx)
no_answer_ids, answerable_n = nat.kinds(report.top_scores)
st.caption(nat.kinds_caption(len(no_answer_ids), answerable_n))
if not no_answer_ids:
    st.info(nat.NONE_IN_VIEW)
    no_answer.gold_errors(ctx, ids)
    st.stop()
if report.top_scores["top_score"].isna().all():
    st.warning(nat.NO_SCORES)
direction = nat.direction_notes(report.directions, escape_markdown)
if "info" in direction:
    st.info(direction["info"], icon="↕️")
if "warning" in direction:
    st.warning(direction["warning"], icon="⚠️")
if read_backwards := nat.read_backwards_note(no_answer.direction_warnings(ctx), escape_markdown):
    st.warning(read_backwards, icon="⚠️")


@st.fragment
def trade_off() -> None:
    """The slider and all that depends on the threshold it picks. A fragment: a slider move
    or a box opened reruns this alone, not app.py's sidebar and the page's head."""
    picked = no_answer.tradeoff(ctx, report, len(no_answer_ids))
    sync_url()  # a fragment's rerun skips app.py's sync
    no_answer.distributions(ctx, report, picked)
    no_answer.sweep_tables(ctx, report)
    no_answer.tops(ctx, report, picked, len(no_answer_ids))


trade_off()
no_answer.gold_errors(ctx, ids)
