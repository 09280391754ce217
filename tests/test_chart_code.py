"""The charts' plotly.js loaded after a session's first page (ragrecall_app/chart_code.py):
sent once per session, the charts' own loader, nothing else shown; and the only code any
page runs is these constants (the chart's own, ragrecall_app/chart.py, included)."""

from __future__ import annotations

import json
import re

from ragrecall_app import chart, chart_code
from tests.dashboard_support import (
    EVERY_PAGE,
    ROOT,
    app,
    charts,
    hostile_workspace,
    no_exception,
)


def _chart_code(at) -> list:
    return [h for h in at.get("html") if 'id="ragrecall-chart-code"' in h.proto.body]


def test_the_script_is_the_charts_own_loader_then_the_wait():
    body = chart_code.script()
    assert len(re.findall(r"<script\b", body)) == 1
    assert chart.LOADER in body and chart.LOADER in chart.SCRIPT  # one load, the charts'
    assert "window.ragrecallPlotly()" in body
    # the address the loader asks for is the bundle the server serves (static/)
    assert '"app/static/plotly-ragrecall.min.js"' in chart.LOADER
    assert (ROOT / "static" / "plotly-ragrecall.min.js").is_file()


def test_sent_once_per_session_in_the_sidebar_and_the_page_unchanged(monkeypatch):
    at = app(monkeypatch=monkeypatch)
    no_exception(at)
    sent = _chart_code(at)
    assert len(sent) == 1 and sent[0].proto.unsafe_allow_javascript
    assert sent[0].proto.body == chart_code.script()
    assert all(h in at.sidebar.get("html") for h in sent)
    first = [e.proto for e in at.main.children.values()]
    at.pills(key="side_k").select(10).run()
    at.pills(key="side_k").select(5).run()
    no_exception(at)
    assert _chart_code(at) == []
    assert [e.proto for e in at.main.children.values()] == first  # the page is the same
    at.switch_page("pages/failures.py").run()
    no_exception(at)
    assert _chart_code(at) == [] and charts(at)


def test_no_other_html_runs_javascript_on_any_page(tmp_path, monkeypatch):
    """Query and chunk text that tries to inject a script: on every page, in a session's
    first run and later ones, the one HTML allowed to run JavaScript is the constant script."""
    code = chart_code.script()
    at = app(hostile_workspace(tmp_path), monkeypatch)
    for page in ("pages/overview.py", *EVERY_PAGE):
        at.switch_page(page).run()
        no_exception(at)
        scripts = [h.proto.body for h in at.get("html") if h.proto.unsafe_allow_javascript]
        assert set(scripts) <= {code}, page
        assert all("<script" not in h.proto.body for h in at.get("html") if h.proto.body != code)
        # a chart's code and markup are constants; its figure goes as data, drawn by plotly
        for element in at.get("bidi_component"):
            assert element.proto.js_content == chart.SCRIPT, page
            assert element.proto.html_content == chart.HTML, page
            assert set(json.loads(element.proto.json)) == {"figure", "clicks", "config"}, page


def test_every_chart_goes_through_the_small_bundle():
    """No page draws with st.plotly_chart: its first chart of a session would load
    streamlit's 4.7 MB plotly module (~0.9 s of the browser's main thread) again."""
    sources = [*(ROOT / "pages").glob("*.py"), *(ROOT / "ragrecall_app").glob("*.py")]
    sources.append(ROOT / "app.py")
    calls = [p.name for p in sources if re.search(r"\.plotly_chart\(", p.read_text("utf-8"))]
    assert calls == []
