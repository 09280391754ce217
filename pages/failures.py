"""Failures: queries failing under the pass rule grouped six ways (those the data carries,
and the meeting's verdicts); click a bar or a group to open them on the Queries page, which
names the filter in a banner with a way back (one behaviour for every grouping)."""

import streamlit as st

from ragrecall_app import failures
from ragrecall_app.context import current, missing_notes
from ragrecall_app.render import notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.views import failures_text as ft
from ragrecall_core.views import scope

ctx = current()
s = ctx.state
# the groups, their chart and counts: built once per view and grouping, then read
shown = failures.view(ctx)
failures.follow_click(ctx, shown)  # a bar or row picked: its queries open on Queries

st.title("Failures")
scope_note(ctx, scope.FAILURES)
notes(missing_notes(ctx.facts))
policy_note(ctx)
rule_note(ctx)
st.caption(shown.caption)

# the meeting's reason is offered when the rows carry the verdicts (Context.rows attaches them)
failures.pick_grouping(shown)
dimension = s.group_by  # the view state puts a deselected control back on the default
if dimension in shown.missing:
    st.info(ft.missing_text(shown.labels[dimension], shown.missing[dimension]))
    st.stop()
if shown.groups.empty:
    st.success(ft.none_failing(s.k))
    st.stop()

failures.chart(shown)
failures.group_table(shown, shown.labels[dimension])
