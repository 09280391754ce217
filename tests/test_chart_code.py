"""The browser's plotly code loaded after a session's first page (ragrecall_app/chart_code.py):
sent once per session, the name of the module streamlit itself imports, nothing else shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit as st

from ragrecall_app import chart_code
from tests.dashboard_support import EVERY_PAGE, app, hostile_workspace, no_exception

STATIC_JS = Path(st.__file__).parent / "static" / "static" / "js"


def _chart_code(at) -> list:
    return [h for h in at.get("html") if 'id="ragrecall-chart-code"' in h.proto.body]


def test_the_name_is_the_module_streamlit_imports_for_its_plotly_charts():
    name = chart_code.chunk_name()
    assert name is not None and (STATIC_JS / name).is_file()
    # streamlit's own entry module imports exactly this file for st.plotly_chart
    entry = next(STATIC_JS.glob("index.*.js")).read_text(encoding="utf-8")
    assert f"import(`./{name}`)" in entry or f'import("./{name}")' in entry


def test_no_single_module_no_name(tmp_path):
    assert chart_code.find_chunk(tmp_path) is None
    (tmp_path / "PlotlyChart.aaa.js").write_text("")
    assert chart_code.find_chunk(tmp_path) == "PlotlyChart.aaa.js"
    (tmp_path / "PlotlyChart.bbb.js").write_text("")
    assert chart_code.find_chunk(tmp_path) is None


@pytest.mark.parametrize("name", ['PlotlyChart.a".js', "PlotlyChart.a</script>.js", "x.js"])
def test_the_script_takes_only_a_module_name(name):
    with pytest.raises(ValueError):
        chart_code.script(name)


def test_the_script_names_the_module_as_a_json_string():
    body = chart_code.script("PlotlyChart.D9Z0_fxz.js")
    assert 'new URL("PlotlyChart.D9Z0_fxz.js", index.src)' in body
    assert len(re.findall(r"<script\b", body)) == 1


def test_sent_once_per_session_in_the_sidebar_and_the_page_unchanged(monkeypatch):
    at = app(monkeypatch=monkeypatch)
    no_exception(at)
    sent = _chart_code(at)
    assert len(sent) == 1 and sent[0].proto.unsafe_allow_javascript
    assert sent[0].proto.body == chart_code.script(chart_code.chunk_name())
    assert all(h in at.sidebar.get("html") for h in sent)
    first = [e.proto for e in at.main.children.values()]
    at.selectbox(key="side_k").select(10).run()
    at.selectbox(key="side_k").select(5).run()
    no_exception(at)
    assert _chart_code(at) == []
    assert [e.proto for e in at.main.children.values()] == first  # the page is the same
    at.switch_page("pages/failures.py").run()
    no_exception(at)
    assert _chart_code(at) == [] and at.get("plotly_chart")


def test_no_other_html_runs_javascript_on_any_page(tmp_path, monkeypatch):
    """Query and chunk text that tries to inject a script: on every page, in a session's
    first run and later ones, the one HTML allowed to run JavaScript is the constant script."""
    code = chart_code.script(chart_code.chunk_name())
    at = app(hostile_workspace(tmp_path), monkeypatch)
    for page in ("pages/overview.py", *EVERY_PAGE):
        at.switch_page(page).run()
        no_exception(at)
        scripts = [h.proto.body for h in at.get("html") if h.proto.unsafe_allow_javascript]
        assert set(scripts) <= {code}, page
        assert all("<script" not in h.proto.body for h in at.get("html") if h.proto.body != code)
