"""The charts' template (issue 30): plotly_white less what no chart here draws. Every chart
the dashboard draws sends it, draws only trace types it styles, and keeps plotly_white's
look for them, in a sixth of plotly_white's bytes."""

from __future__ import annotations

import json

import plotly.io as pio

from ragrecall_core.views import charts
from tests.dashboard_support import app, figures, no_exception

CHART_PAGES = ("pages/failures.py", "pages/ranks.py", "pages/compare.py", "pages/no_answer.py")
# the boxes whose charts are drawn only while open (ragrecall_app.lazy)
CHART_BOXES = ("compare_scatter_open", "noans_sweep_chart_open", "noans_scores_open")


def template_json(template) -> str:
    """``template`` as plotly's JSON engine writes it into a figure."""
    return pio.json.to_json_plotly(template.to_plotly_json())


def drawn_figures(monkeypatch) -> list[dict]:
    """Every chart of every page on data_samples, the Overview's shown as a chart too."""
    at = app(monkeypatch=monkeypatch)
    at.toggle(key="overview_chart").set_value(True).run()
    for box in CHART_BOXES:
        at.session_state[box] = True
    no_exception(at)
    drawn = figures(at)
    for page in CHART_PAGES:
        at.switch_page(page).run()
        no_exception(at)
        drawn += figures(at)
    return drawn


def test_every_chart_sends_the_small_template_and_draws_only_what_it_styles(monkeypatch):
    drawn = drawn_figures(monkeypatch)
    assert len(drawn) == 7, "a chart was not drawn"
    sent = json.loads(template_json(charts.TEMPLATE))
    for figure in drawn:
        assert figure["layout"]["template"] == sent
        types = {trace.get("type", "scatter") for trace in figure["data"]}
        assert types <= set(charts.DRAWN_TRACES), types


def test_the_template_keeps_plotly_whites_look_for_what_is_drawn():
    white = pio.templates["plotly_white"].to_plotly_json()
    ours = charts.TEMPLATE.to_plotly_json()
    kept = set(white["layout"]) - set(charts.UNDRAWN_LAYOUT)
    assert ours["layout"] == {key: white["layout"][key] for key in kept}
    assert ours["data"] == {t: white["data"][t] for t in charts.DRAWN_TRACES if t in white["data"]}
    assert "bar" in ours["data"] and "scatter" in ours["data"]


def test_the_template_is_a_sixth_of_plotly_whites_bytes():
    white = len(template_json(pio.templates["plotly_white"]))
    ours = len(template_json(charts.TEMPLATE))
    assert ours * 6 <= white, (ours, white)
