"""Plotly figures kept between reruns.

Building a figure (plotly validates every property and copies its template) costs more on
the server than sending it, and most reruns (a page switch, a click elsewhere on the page)
draw the very figures they drew before. :func:`figure` builds each distinct one once: its
arguments are hashed by Streamlit, so a change in any input builds it anew.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st


@st.cache_resource(show_spinner=False, max_entries=128)
def _built(name: str, _build: Callable[..., go.Figure], *args, **kwargs) -> go.Figure:
    return _build(*args, **kwargs)


def figure(build: Callable[..., go.Figure], *args, **kwargs) -> go.Figure:
    """``build(*args, **kwargs)``, shared between reruns and sessions: read-only
    (a chart sends it as JSON, :mod:`ragrecall_app.chart`), so set every property through
    ``build``."""
    return _built(f"{build.__module__}.{build.__qualname__}", build, *args, **kwargs)
