"""Reading chart and table selection events, the same in a real session and in AppTest.

Streamlit hands a selection over as an attribute-style object in a real session
and as a plain dict when injected in AppTest; both read through ``[...]``.
"""

from __future__ import annotations

from collections.abc import Sequence


def selected_rows(event) -> list[int]:
    """Row positions of a ``st.dataframe`` selection event (empty when none)."""
    try:
        return [int(r) for r in event["selection"]["rows"]]
    except (KeyError, TypeError):
        return []


def selected_points(event) -> list[dict]:
    """Points of a ``st.plotly_chart`` selection event (empty when none)."""
    try:
        return [dict(p) for p in event["selection"]["points"]]
    except (KeyError, TypeError):
        return []


def point_run_and_label(point: dict, trace_runs: Sequence[str], axis: str) -> tuple[str, str]:
    """``(run, category)`` of a clicked bar: the run from customdata or the trace index.

    ``axis`` is the axis that carries the category (``"y"`` for horizontal bars).
    """
    custom = point.get("customdata")
    if isinstance(custom, list | tuple) and len(custom) >= 2:
        return str(custom[0]), str(custom[1])
    curve = point.get("curve_number", point.get("curveNumber", 0))
    run = trace_runs[int(curve)] if 0 <= int(curve) < len(trace_runs) else ""
    return run, str(point.get(axis, ""))
