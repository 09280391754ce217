"""A click on a group (a Failures bar or row, a Ranks bin) that opens its queries on Queries.

The two pages share the rule: the group clicked becomes the Queries page's one group filter
(the filters an earlier bar or row set, on either page, are replaced, not combined), the run
it belongs to is focused, and ``opened_from`` names the filter so the banner there names it
with a way back. What differs stays with each page: which field a group filters on and what
else it changes (``ragrecall_app.failures``, ``ragrecall_app.ranks``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from ragrecall_app.context import Context, go, new_selection
from ragrecall_core.views.plot_events import point_run_and_label, selected_points

QUERIES_PAGE = "pages/queries.py"


def opening(cleared: Mapping[str, str], field: str, value: str) -> dict[str, str]:
    """The view-state changes that make ``field`` = ``value`` the one group filter, given
    ``cleared``, the changes that undo the filters set before (``without_group_filters``).

    >>> opening({"section": "", "opened_from": ""}, "rank_bin", "2-3")
    {'section': '', 'opened_from': 'rank_bin', 'rank_bin': '2-3'}
    """
    return {**cleared, "opened_from": field, field: value}


def open_queries(ctx: Context, run: str, field: str, value: str, **page_changes) -> None:
    """Switch to Queries on ``run`` with ``field`` = ``value`` as its group filter, and the
    clicking page's own ``page_changes`` (Failures: failing queries only)."""
    changes = opening(ctx.state.without_group_filters(), field, value)
    go(QUERIES_PAGE, focus=run, query_id="", **changes, **page_changes)


def clicked(key: str, trace_runs: Sequence[str], axis: str) -> tuple[str, str] | None:
    """``(run, label)`` of a point clicked on the chart under ``key`` since this session last
    looked, or None: a click already followed is not followed again (the callback and the
    page's own run both ask). ``axis`` carries the label (``"y"`` for horizontal bars)."""
    points = selected_points(st.session_state.get(key))
    if not new_selection(key, points):
        return None
    return point_run_and_label(points[0], trace_runs, axis)
