"""What the Queries page shows and says around its reading view and table: the table's
rows in the meeting's triage order, its columns in review order and their formats, the
failures-only switch, the line over the table, the banner of a group opened from Failures
or Ranks, and the open query's line of facts. ``pages/queries.py`` over
:mod:`ragrecall_app.queries` only lays them out.

>>> banner_text({"rank_bin": "1"}, "rank_bin")
'Opened from Ranks: first relevant rank = 1'
>>> failing_switch(True)
('Failures only: on', ':material/toggle_on:', 'primary')
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from ragrecall_core.analysis.query_table import (
    TRIAGE_ORDER,
    display_frame,
    failing_first,
    failing_runs,
    review_columns,
    unfilled_display_columns,
)
from ragrecall_core.errors import shortened
from ragrecall_core.output.literal import yes_no
from ragrecall_core.output.text import plural
from ragrecall_core.views.harm_view import add_harm_column

# a group filter's column -> its name in the banner (others: the column, spaced)
FILTER_NAMES = {"rank_bin": "first relevant rank"}
SWITCH_HELP = "Show only the queries that fail by the pass rule (the sidebar's switch)"
FIRST_FAILING_HELP = "Open the first failing query of the table (J); then J / K step on"
PICK_HINT = "Select a row to read the query's gold chunks beside what the run retrieved."
HARM_HELP = "1: a reviewer-flagged harmful chunk in the top k"


def display(
    rows: pd.DataFrame, table: pd.DataFrame, harm: pd.DataFrame, k: int, runs: Sequence[str]
) -> pd.DataFrame:
    """The table's rows: the display columns the data fills, Harm@k, and the failing queries
    first in the meeting's triage order (the order J / K step through)."""
    shown = display_frame(rows, k).drop(columns=unfilled_display_columns(table))
    shown = add_harm_column(shown, rows, harm, k)
    return failing_first(shown, failing_runs(table, runs))


def in_review_order(display: pd.DataFrame, k: int) -> pd.DataFrame:
    """The review columns first, the rest after them in their order."""
    first = review_columns(k, display.columns)
    return display[first + [c for c in display.columns if c not in first]]


def formats(k: int) -> dict[str, tuple[str, str]]:
    """Column -> (format of a value, word for a missing one) of the table's numbers."""
    return {
        f"Recall@{k}": ("{:.2f}", "—"),
        f"RecallCap@{k}": ("{:.2f}", "—"),
        f"Hit@{k}": ("{:.0f}", "—"),
        "RR": ("{:.3f}", "—"),
        "first rank": ("{}", "not found"),
        f"Harm@{k}": ("{:.0f}", "—"),
    }


def failing_switch(on: bool) -> tuple[str, str, str]:
    """The failures-only button's label, icon and type."""
    if on:
        return "Failures only: on", ":material/toggle_on:", "primary"
    return "Failures only: off", ":material/toggle_off:", "secondary"


def table_caption(run: str, k: int, rows: pd.DataFrame, literal: Callable[[str], str] = str) -> str:
    """The line over the table: run, k, the queries shown, how many answerable ones fail and
    how to open and step through them (``literal`` escapes the run name for markdown)."""
    failing_n = int(rows["failing"].sum())
    answerable_n = int((rows["relevant"] > 0).sum())
    return (
        f"Run **{literal(run)}** · k = {k} · {plural(len(rows), 'query', 'queries')} "
        f"shown · {failing_n} of {answerable_n} answerable failing ({TRIAGE_ORDER}) · "
        "click a row to open it · J opens the first failing, then J / K: next / previous · "
        "the columns after the verdict scroll sideways"
    )


def banner_text(
    active: Mapping[str, str], opened_from: str, literal: Callable[[str], str] = str
) -> str:
    """The banner naming the filters a click on a Failures or Ranks bar set."""
    source = "Ranks" if opened_from == "rank_bin" else "Failures"
    named = {FILTER_NAMES.get(c, c.replace("_", " ")): v for c, v in active.items()}
    return f"Opened from {source}: " + literal(", ".join(f"{c} = {v}" for c, v in named.items()))


def query_heading(query_id: str, run: str, literal: Callable[[str], str] = str) -> str:
    """The open query's heading."""
    return f"Query {literal(query_id)} · run {literal(run)}"


def not_in_gold(query_id: str, literal: Callable[[str], str] = str) -> str:
    """The warning for an open query the gold set lacks (Queries and Compare): an id only a
    link can name, so shortened as a problem's value is (a long one kept its every
    character on screen)."""
    return f"Query {literal(shortened(query_id))} is not in the gold set."


def detail_notes(missing: Sequence[str]) -> list[str]:
    """The open query's notes the page's own notes do not already say (the corpus's)."""
    return [line for line in missing if "corpus" not in line]


def meta_line(query: Mapping, rows: pd.DataFrame, k: int) -> str:
    """Type, section, split, the measure at k and the failure class, as escaped HTML.

    >>> meta_line({"query_id": "q1", "query_type": "<b>"}, pd.DataFrame({"query_id": []}), 5)
    '<div style="font-size:1rem;opacity:.85">type: &lt;b&gt; · section: — · split: — · \
needs all fragments: no</div>'
    """
    parts = [
        f"type: {query.get('query_type') or '—'}",
        f"section: {query.get('section') or '—'}",
        f"split: {query.get('split') or '—'}",
        f"needs all fragments: {yes_no(query.get('require_all'))}",
    ]
    row = rows[rows["query_id"] == query["query_id"]]
    if len(row):
        r = row.iloc[0]
        recall = r[f"Recall@{k}"]
        parts += [
            f"Recall@{k}: {recall:.2f}"
            if pd.notna(recall)
            else f"no answer expected ({r['no_answer_source']})",
            f"failure class: {r['failure_class']}",
        ]
    return f'<div style="font-size:1rem;opacity:.85">{html.escape(" · ".join(parts))}</div>'
