"""The in-app report's scope: the dashboard view on screen (issue 29).

The report the dashboard offers covers what the screen shows (the sidebar's runs, split,
query type, section and failures-only switch, at its k and pass rule), not the command's
default held-out split, so its numbers are the screen's.
"""

from __future__ import annotations

from ragrecall_core.output.report import ReportView
from ragrecall_core.views.dashboard_state import ViewState


def report_view(state: ViewState) -> ReportView:
    """The report view of the sidebar's state (an empty filter: every value)."""
    return ReportView(
        runs=tuple(state.runs),
        split=state.split or None,
        query_type=state.query_type or None,
        section=state.section or None,
        failing_only=state.failing_only,
    )


def report_caption(state: ViewState) -> str:
    """What the report downloads cover, in one sentence for the page."""
    view = report_view(state)
    chosen = " · ".join(view.filters()) or "all queries"
    only = ", failing queries only in the per-query tables" if view.failing_only else ""
    runs = ", ".join(view.runs) or "every run"
    return (
        f"The reproducible report covers what this dashboard shows: {runs} at k = {state.k} "
        f"on {chosen}{only}, with this pass rule (configs, measure definitions, policy, "
        "grades and verdicts used, tool version and input hashes)."
    )
