"""AppTest: the Failures page; an injected bar click opens the filtered Queries page."""

import json

import pytest

from ragrecall_core import Workspace
from ragrecall_core.scoring.evaluate import evaluate
from tests.dashboard_support import ROOT, app, no_exception, titles, trec_workspace
from tests.test_app_queries import bm25_failing

PAGE = "pages/failures.py"


@pytest.fixture
def at(monkeypatch):
    return app(monkeypatch=monkeypatch).switch_page(PAGE).run()


def figure(at, index=0):
    charts = [e for e in at.main if getattr(e, "type", "") == "plotly_chart"] or [
        e for e in at.get("plotly_chart")
    ]
    return json.loads(charts[index].proto.spec)


def test_renders_with_counts_and_rates(at):
    no_exception(at)
    assert titles(at) == ["Failures"]
    groups = at.dataframe(key="failures_groups").value
    bm25 = groups[groups.run == "bm25"]
    assert bm25["failing"].sum() == bm25_failing()
    assert set(bm25["queries"]) == {129}
    assert (groups["rate"] == groups["failing"] / groups["queries"]).all()


@pytest.mark.parametrize("dimension", ["query_type", "section", "doc_length", "reason"])
def test_every_dimension_renders(at, dimension):
    at.session_state["failures_by"] = dimension
    at.run()
    no_exception(at)
    assert len(at.dataframe(key="failures_groups").value) > 0


def test_bar_click_opens_filtered_queries(at):
    at.session_state["failures_chart"] = {
        "selection": {
            "points": [
                {
                    "curve_number": 0,
                    "y": "never retrieved",
                    "x": 5,
                    "customdata": ["bm25", "never retrieved"],
                }
            ]
        }
    }
    at.run()
    no_exception(at)
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert len(table) > 0 and set(table["failure class"]) == {"never retrieved"}
    assert at.query_params["fclass"] in ("never retrieved", ["never retrieved"])


def test_section_group_row_opens_queries(at):
    at.session_state["failures_by"] = "section"
    at.run()
    groups = at.dataframe(key="failures_groups").value
    row = int(groups.index[(groups.run == "bm25") & (groups["corpus section"] == "hr")][0])
    at.session_state["failures_groups"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert set(table["section"]) == {"hr"} and set(table["status"]) == {"✗ FAIL"}


def test_trec_data(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    assert titles(at) == ["Failures"]
    assert "RecallCap@5 = 1" in " ".join(c.value for c in at.caption)
    groups = at.dataframe(key="failures_groups").value
    # under the default rule some TREC topics pass: not every answerable query fails
    assert 0 < groups["failing"].sum() < 30


@pytest.mark.parametrize(
    ("dimension", "enabler"),
    [("section", "add `section` to the gold or a corpus"), ("reason", "reviewers' grades")],
)
def test_a_dimension_the_data_lacks_is_one_line_not_a_not_given_bar(
    tmp_path, monkeypatch, dimension, enabler
):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    at.session_state["failures_by"] = dimension
    at.run()
    no_exception(at)
    assert not at.get("plotly_chart") and not at.dataframe
    assert any(enabler in i.value for i in at.info)


def test_the_sidebar_rule_changes_what_fails(at):
    at.session_state["side_rule"] = "hit"
    at.run()
    no_exception(at)
    groups = at.dataframe(key="failures_groups").value
    bm25 = groups[groups.run == "bm25"]
    ev = evaluate(Workspace.open(ROOT / "data_samples"), ["Hit@5"], runs=["bm25"])
    assert bm25["failing"].sum() == int((ev.per_query.value < 1).sum()) < bm25_failing()
    assert at.query_params["rule"] in ("hit", ["hit"])
    assert "Hit@5 = 1" in " ".join(c.value for c in at.caption)
