"""What a chart sends the browser (ragrecall_app/chart.py): the figure once, as JSON data the
component's script reads as it comes, not a JSON string inside JSON that the browser parses a
second time and whose every quote the server escapes. The figure's text arrives exactly as its
builder wrote it (the builders escape text from files: ``plot_literal``)."""

from __future__ import annotations

import json

import plotly.io
from streamlit.testing.v1 import AppTest

from ragrecall_app import chart
from tests.dashboard_support import charts, no_exception

LABEL = "&lt;b&gt;run&lt;/b&gt; &#37;{y}"  # a run name "<b>run</b> %{y}" after plot_literal


def figure():
    """A bar chart with a label as a builder escapes it, a quoted name and numpy numbers."""
    import numpy as np
    import plotly.graph_objects as go

    bar = go.Bar(
        x=np.array([0.25, 0.5]),  # numbers as numpy: plotly's typed arrays
        y=[LABEL, "2"],
        customdata=[["r", "1"], ["r", "2"]],
        name='a "quoted" name',
    )
    return go.Figure(bar, layout={"title": {"text": "&lt;i&gt;title&lt;/i&gt;"}})


def _page():
    from ragrecall_app.chart import chart
    from tests.test_chart_data import figure

    chart(figure(), key="c", on_select="rerun")


def test_the_figure_is_sent_once_as_data():
    at = AppTest.from_function(_page, default_timeout=30).run()
    no_exception(at)
    (element,) = charts(at)
    sent = json.loads(element.proto.json)
    assert sent["clicks"] is True and sent["config"] == chart.CONFIG
    figure = sent["figure"]
    assert isinstance(figure, dict) and {"data", "layout"} <= set(figure)
    # no JSON inside a string: the payload holds no escaped quote (the name's quotes are
    # escaped once, as JSON escapes them)
    assert element.proto.json.count('\\"') == 2
    (bar,) = figure["data"]
    assert bar["y"] == [LABEL, "2"] and bar["name"] == 'a "quoted" name'
    assert figure["layout"]["title"]["text"] == "&lt;i&gt;title&lt;/i&gt;"
    assert bar["x"]["bdata"]  # numpy arrays as plotly.js reads them


def test_the_figure_is_plotlys_own_json_of_it():
    """The same figure plotly's JSON engine writes (what st.plotly_chart sent), as data."""
    at = AppTest.from_function(_page, default_timeout=30).run()
    (element,) = charts(at)
    sent = json.loads(element.proto.json)["figure"]
    assert sent == json.loads(plotly.io.to_json(figure(), validate=False))
