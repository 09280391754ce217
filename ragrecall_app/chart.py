"""The dashboard's plotly charts: one streamlit component (issue 30), not ``st.plotly_chart``.

``st.plotly_chart``'s browser module is 4.7 MB (every plotly trace type, 3D and maps
included), and evaluating it held the browser's main thread for ~0.9 s on a session's
first chart page. These charts are drawn by plotly.js all the same, from a bundle of the
three trace types the dashboard draws (``static/plotly-ragrecall.min.js``, 1.2 MB, built
by ``scripts/chart_bundle``; ~0.2 s), through a custom component (``st.components.v2``: no
iframe, drawn in the page). The browser loads the bundle once per page
(``js/plotly_loader.js``) from the server's static files, which ``ragrecall ui`` and the
repository's ``.streamlit/config.toml`` turn on.

A click on a point reaches Python as a one-run trigger shaped as ``st.plotly_chart``'s
selection (``{"selection": {"points": [...]}}`` in the session state under the chart's
key, read by :mod:`ragrecall_core.views.plot_events`), and runs ``on_select`` first, as
``st.plotly_chart``'s callback ran. A trigger is gone on the next run, so a second click on
the same bar opens it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import plotly.io
import streamlit as st

from ragrecall_core.output.literal import PLOTLY_CONFIG

if TYPE_CHECKING:
    import plotly.graph_objects as go

JS = Path(__file__).parent / "js"
# the bundle's one load per page, shared with the preload (chart_code.py)
LOADER = (JS / "plotly_loader.js").read_text(encoding="utf-8")
# the chart's module: the loader, then the chart
SCRIPT = LOADER + (JS / "chart.js").read_text(encoding="utf-8")
# the element's own box, there before its script has run: a page whose chart is not drawn
# yet shows (to the benchmark's settle test too) a chart without its drawing
HTML = '<div class="ragrecall-chart"></div>'
# the browser's plotly settings: no "Share chart..." (PLOTLY_CONFIG), and no box or lasso
# select in the mode bar (a chart here acts on a click on a point, as st.plotly_chart's
# did with selection_mode="points")
CONFIG = {**PLOTLY_CONFIG, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
# plotly's styles (its hover labels, its mode bar) are the page's: no shadow root
NAME = "ragrecall_chart"
_component = st.components.v2.component(NAME, html=HTML, js=SCRIPT, isolate_styles=False)


def chart(figure: go.Figure, *, key: str, on_select: Callable[[], None] | str | None = None):
    """Draw ``figure`` under ``key`` across the page's width. With ``on_select`` (a callback,
    or ``"rerun"`` for none), a click on a point reruns with the click in
    ``st.session_state[key]["selection"]``, calling ``on_select`` first; the result holds
    it too (``result["selection"]``)."""
    clicks = on_select is not None
    data = {"figure": figure_data(figure), "clicks": clicks, "config": CONFIG}
    if on_select is None:
        return _component(key=key, data=data)
    callback = _nothing if on_select == "rerun" else on_select
    return _component(key=key, data=data, on_selection_change=callback)


def figure_data(figure: go.Figure) -> dict:
    """``figure`` as JSON data, which streamlit serialises once for the browser (a JSON text
    inside the data would be escaped there and parsed twice in the browser). Plotly's own
    engine writes it (numpy arrays as the typed arrays plotly.js reads, dates as text), so it
    is the figure ``st.plotly_chart`` sent; the text in it is the builders' (``plot_literal``)."""
    return json.loads(plotly.io.to_json(figure, validate=False))


def _nothing() -> None:
    """The callback of a chart whose click only reruns (the page reads the result)."""
