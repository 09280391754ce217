"""Ranks: where the first relevant item lands, per run, and Hit@k as k grows."""

import streamlit as st

from ragrecall_app import ranks
from ragrecall_app.chart import chart
from ragrecall_app.context import current, missing_notes
from ragrecall_app.render import escape_markdown, notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.views import scope

ctx = current()
s = ctx.state
shown = ranks.view(ctx)  # both charts: built once per view, then read
ranks.follow_click(ctx, shown)  # a bar picked: its queries open on Queries

st.title("Ranks")
scope_note(ctx, scope.CHARTS)
notes(missing_notes(ctx.facts))
policy_note(ctx)
if s.failing_only:
    rule_note(ctx)
st.caption(
    "Answerable queries only (no-answer queries have no relevant item): "
    + escape_markdown(shown.counts)
    + ". Click a bar to open its queries on the Queries page."
)
chart(shown.histogram, key="ranks_hist", on_select=ranks.on_click)
chart(shown.curve, key="ranks_curve")
