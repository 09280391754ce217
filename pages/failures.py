"""Failures: queries failing under the pass rule grouped six ways (those the data carries,
and the meeting's verdicts); click a bar or a group to open them on the Queries page, which
names the filter in a banner with a way back (one behaviour for every grouping)."""

import streamlit as st

from ragrecall_app import failures
from ragrecall_app.context import current, missing_notes
from ragrecall_app.render import notes, policy_note
from ragrecall_app.ruled import rule_note
from ragrecall_app.scope import scope_note
from ragrecall_core.analysis.pass_rule import pass_measure
from ragrecall_core.views import failures_text as ft
from ragrecall_core.views import scope
from ragrecall_core.views.failure_groups import failure_groups

ctx = current()
s = ctx.state
rows = ctx.rows(failing=False, group_filters=False)
measure = pass_measure(s.pass_rule, s.k)

st.title("Failures")
scope_note(ctx, scope.FAILURES)
notes(missing_notes(ctx.facts))
policy_note(ctx.policy)
rule_note(ctx)
failures.counts(ctx, rows, measure)

# the meeting's reason is offered when the rows carry the verdicts (Context.rows attaches them)
labels, missing = failures.pick_grouping(rows)
dimension = s.group_by  # the view state puts a deselected control back on the default
if dimension in missing:
    st.info(ft.missing_text(labels[dimension], missing[dimension]))
    st.stop()
groups = failure_groups(rows, dimension)
if groups.empty:
    st.success(ft.none_failing(s.k))
    st.stop()

failures.chart(ctx, groups, dimension, labels[dimension], measure)
failures.group_table(ctx, groups, dimension, labels[dimension])
