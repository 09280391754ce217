"""Queries: the reading view of the open query (gold beside retrieved, as text) above the
per-query table, failing queries first; J / K step to the next / previous failing query."""

import streamlit as st

from ragrecall_app import queries
from ragrecall_app.context import current, missing_notes, state_value
from ragrecall_app.render import notes
from ragrecall_core.analysis.query_table import failing_ids
from ragrecall_core.views.queries_text import in_review_order

ctx = current()
s = ctx.state
run = s.focus
rows = ctx.rows(runs=[run])
# the meeting's triage order; J / K step through the failing queries in it
display = queries.display(ctx, rows)

queries.head(ctx)
notes(missing_notes(ctx.facts))

query_id = state_value("query_id")
triage = failing_ids(display)

# the reading view sits above the table but is drawn after it: a row picked in the table
# opens in this same run (no second run of the page, no second send of the table)
reading = st.container()
first_failing = queries.table_bar(s, run, rows)
queries.group_banner(s)
shown = in_review_order(display, s.k)
query_id = queries.table(s.k, shown) or query_id
if query_id:
    with reading:
        queries.open_query(ctx, run, rows, triage)
else:
    queries.first_failing(first_failing, triage)
