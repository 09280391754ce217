"""Queries: the reading view of the open query (gold beside retrieved, as text) above the
per-query table, failing queries first; J / K step to the next / previous failing query."""

import streamlit as st

from ragrecall_app import queries
from ragrecall_app.context import current, missing_notes, state_value
from ragrecall_app.render import notes

ctx = current()
s = ctx.state
run = s.focus
# the table as shown, in the meeting's triage order: built once per view, then read
view = queries.view(ctx)

queries.head(ctx)
notes(missing_notes(ctx.facts))

query_id = state_value("query_id")

# the reading view sits above the table but is drawn after it: a row picked in the table
# opens in this same run (no second run of the page, no second send of the table)
reading = st.container()
first_failing = queries.table_bar(s, view.caption)
queries.group_banner(s)
query_id = queries.table(s.k, view) or query_id
if query_id:
    with reading:
        queries.open_query(ctx, run, view.rows, view.triage)
else:
    queries.first_failing(first_failing, view.triage)
