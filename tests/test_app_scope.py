"""AppTest: every page states its scope in one line at the top whenever anything is
filtered (issue 29), in presentation mode too, and a copied link shows the same line."""

import pytest

from ragrecall_core.views.dashboard_state import ViewState
from ragrecall_core.views.scope import FAILURES, QUERIES, scope_line
from tests.dashboard_support import EVERY_PAGE, app, no_exception

PAGES = EVERY_PAGE


def scope_lines(at) -> list[str]:
    """The scope lines the page shows (Markdown escapes undone)."""
    return [i.value.replace("\\", "") for i in at.info if i.value.startswith("Scope")]


def open_page(monkeypatch, page: str, params: dict):
    at = app(monkeypatch=monkeypatch, params=params).switch_page(page).run()
    no_exception(at)
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_names_the_section_filter(monkeypatch, page):
    at = open_page(monkeypatch, page, {"section": "it-ops", "present": "1"})
    (line,) = scope_lines(at)
    assert "section = it-ops" in line


@pytest.mark.parametrize("page", PAGES)
def test_no_scope_line_when_nothing_is_filtered(monkeypatch, page):
    assert scope_lines(open_page(monkeypatch, page, {})) == []


def test_failures_and_the_reading_view_name_the_section_set_in_the_sidebar(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/failures.py").run()
    at.pills(key="side_section").select("it-ops").run()
    (line,) = scope_lines(at)
    assert "section = it-ops" in line and "k = 5" in line and "RecallCap@5 = 1" in line
    at.switch_page("pages/queries.py").run()
    table = at.dataframe(key="queries_table").value
    assert set(table["section"]) == {"it-ops"}
    at.session_state["queries_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    no_exception(at)
    assert [s.value for s in at.subheader][0].startswith("Query ")  # the reading view is open
    (line,) = scope_lines(at)
    assert line.startswith("Scope: run bm25 · k = 5 · section = it-ops")


def test_the_queries_line_names_failures_only_and_the_group(monkeypatch):
    params = {"section": "it-ops", "failing": "1", "fclass": "partial", "from": "failure_class"}
    at = open_page(monkeypatch, "pages/queries.py", params)
    (line,) = scope_lines(at)
    assert "failure class = partial" in line and "failures only" in line


def test_a_copied_link_shows_the_same_line(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/failures.py").run()
    at.pills(key="side_section").select("it-ops").run()
    at.pills(key="side_k").select(10).run()
    params = {key: at.query_params[key] for key in at.query_params}
    again = open_page(monkeypatch, "pages/failures.py", params)
    assert scope_lines(again) == scope_lines(at)
    assert "k = 10" in scope_lines(again)[0]


def test_the_line_names_only_what_the_page_applies():
    state = ViewState(runs=("bm25",), focus="bm25", section="hr", failing_only=True)
    default = ViewState(runs=("bm25", "dense"), focus="bm25")
    assert "failures only" in scope_line(state, default, QUERIES)
    assert "failures only" not in scope_line(state, default, FAILURES)  # it shows failing ones
    # a run left out of the charts is a filter too
    assert scope_line(ViewState(runs=("bm25",)), default, FAILURES).startswith("Scope: run bm25")
