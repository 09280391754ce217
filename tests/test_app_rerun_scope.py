"""AppTest: a rerun does only what its click changes (issue 30). The view's tables are built
on its first rerun and read afterwards: a row click, a rerun or a return to a view seen
before does not filter and format them again. Counted by calls of the builders, never timed.
"""

from __future__ import annotations

from collections import Counter

import pytest

from ragrecall_app import chart
from ragrecall_core.views import overview, queries_text
from tests.dashboard_support import app, count_calls, no_exception, samples_workspace, titles


@pytest.fixture
def samples(tmp_path, monkeypatch):
    return samples_workspace(tmp_path, monkeypatch)


@pytest.fixture
def calls(monkeypatch):
    """Calls of the builders of the Overview's headline table and of the Queries table."""
    counted = Counter()
    count_calls(monkeypatch, overview, "headline_table", counted)
    count_calls(monkeypatch, queries_text, "display", counted)
    return counted


def select_row(at, row: int):
    at.session_state["queries_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def test_overview_reruns_read_the_views_tables(samples, calls):
    at = app()
    no_exception(at)
    assert calls["headline_table"] == 1
    at.run()
    at.run()
    assert calls["headline_table"] == 1  # nothing changed: read, not built again
    at.pills(key="side_k").select(10).run()
    assert calls["headline_table"] == 2  # a new view
    at.pills(key="side_k").select(5).run()
    assert calls["headline_table"] == 2  # a view seen before
    no_exception(at)


def test_a_row_click_does_not_rebuild_the_queries_table(samples, calls):
    at = app().switch_page("pages/queries.py").run()
    assert titles(at) == ["Queries"] and calls["display"] == 1
    table = at.dataframe(key="queries_table").value
    select_row(at, 3)
    no_exception(at)
    assert at.query_params["q"] in (table.at[3, "query_id"], [table.at[3, "query_id"]])
    select_row(at, 5)
    at.button(key="queries_next").click().run()
    no_exception(at)
    assert calls["display"] == 1  # the reading view changed three times, the table never
    at.pills(key="side_section").select("hr").run()
    assert calls["display"] == 2  # a filter is a new table


@pytest.fixture
def charts_drawn(monkeypatch):
    """Keys of the charts drawn (ragrecall_app.chart), in order."""
    drawn = []
    original = chart._component

    def counting(*args, **kwargs):
        drawn.append(kwargs.get("key"))
        return original(*args, **kwargs)

    monkeypatch.setattr(chart, "_component", counting)
    return drawn


NEVER = "never retrieved"
FAILURES_BAR = {"points": [{"curve_number": 0, "y": NEVER, "x": 5, "customdata": ["bm25", NEVER]}]}
RANKS_BAR = {"points": [{"curve_number": 0, "x": "1", "customdata": ["bm25", "1", 0.1]}]}


@pytest.mark.parametrize(
    ("page", "key", "selection", "param"),
    [
        ("pages/failures.py", "failures_chart", FAILURES_BAR, "fclass"),
        ("pages/ranks.py", "ranks_hist", RANKS_BAR, "bin"),
    ],
)
def test_a_bar_click_opens_queries_before_drawing_its_page(
    samples, charts_drawn, page, key, selection, param
):
    """The click's run switches to Queries first: the clicked page's charts are not drawn
    again only to be replaced."""
    at = app().switch_page(page).run()
    assert key in charts_drawn
    charts_drawn.clear()
    at.session_state[key] = {"selection": selection}
    at.run()
    no_exception(at)
    assert titles(at) == ["Queries"] and param in at.query_params
    assert charts_drawn == []


def test_a_second_ranks_bar_replaces_the_first_bin(samples):
    at = app().switch_page("pages/ranks.py").run()
    for label in ("1", "not retrieved"):
        at.switch_page("pages/ranks.py").run()
        point = {"curve_number": 0, "x": label, "customdata": ["bm25", label]}
        at.session_state["ranks_hist"] = {"selection": {"points": [point]}}
        at.run()
        no_exception(at)
        assert titles(at) == ["Queries"]
        assert at.query_params["bin"] in (label, [label])
