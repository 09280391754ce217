"""AppTest: the Queries page (table, filters, injected row selection, detail)."""

import pytest

from ragrecall_core import Workspace, evaluate
from tests.dashboard_support import (
    ROOT,
    app,
    hostile_workspace,
    no_exception,
    titles,
    trec_workspace,
)

PAGE = "pages/queries.py"


def bm25_failing() -> int:
    """Queries with Recall@5 < 1 for bm25, straight from ragrecall_core.scoring.evaluate."""
    ev = evaluate(Workspace.open(ROOT / "data_samples"), ["Recall@5"], runs=["bm25"])
    return int((ev.per_query.value < 1).sum())


def select_row(at, key, row):
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


@pytest.fixture
def at(monkeypatch):
    at = app(monkeypatch=monkeypatch)
    return at.switch_page(PAGE).run()


def test_table_renders(at):
    no_exception(at)
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert len(table) == 144
    assert {
        "status",
        "query",
        "expected",
        "found at",
        "Recall@5",
        "Hit@5",
        "RR",
        "first rank",
        "failure class",
        "manual grades (top k)",
        "reviewer reason",
    } <= set(table.columns)
    assert (table["status"] == "✗ FAIL").sum() == bm25_failing()
    assert (table["status"] == "– no answer").sum() == 15


def test_filters_change_the_table(at):
    at.selectbox(key="side_section").select("finance").run()
    table = at.dataframe(key="queries_table").value
    assert 0 < len(table) < 144 and set(table["section"]) == {"finance"}
    at.toggle(key="side_failing").set_value(True).run()
    failing = at.dataframe(key="queries_table").value
    assert len(failing) < len(table) and set(failing["status"]) == {"✗ FAIL"}
    assert at.query_params["failing"] in ("1", ["1"])


def test_row_selection_opens_detail_and_prev_next(at):
    table = at.dataframe(key="queries_table").value
    row = int(table.index[table["query_id"] == "q042"][0])
    select_row(at, "queries_table", row)
    no_exception(at)
    assert [s.value for s in at.subheader] == ["Query q042 · run bm25"]
    retrieved = at.dataframe[2].value  # table, gold, retrieved, reviews
    assert retrieved.loc[0, "mark"] == "✗ judged not relevant"
    assert "anna: 0" in retrieved.loc[0, "reviews"]
    gold = at.dataframe[1].value
    assert list(gold["chunk_id"]) == ["incident-response#chunk-02"]
    assert at.query_params["q"] in ("q042", ["q042"])
    at.button(key="queries_next").click().run()
    assert at.session_state["queries_q"] == "q043"
    at.button(key="queries_prev").click().run()
    assert at.session_state["queries_q"] == "q042"


def test_deep_link_opens_detail(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"q": "q029", "focus": "dense-minilm"})
    at.switch_page(PAGE).run()
    no_exception(at)
    assert [s.value for s in at.subheader] == ["Query q029 · run dense-minilm"]


def test_trec_data_without_corpus_or_text(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    table = at.dataframe(key="queries_table").value
    assert len(table) == 31
    # no query text, type, section, grades or reasons in TREC files: no columns of dashes
    unfilled = {"query", "type", "section", "manual grades (top k)", "reviewer reason"}
    assert not unfilled & set(table.columns) and "RecallCap@5" in table.columns
    select_row(at, "queries_table", 0)
    no_exception(at)
    assert any("no corpus" in c.value for c in at.caption)


def test_hostile_text_is_data_not_markup(tmp_path, monkeypatch):
    at = app(hostile_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    select_row(at, "queries_table", 0)
    no_exception(at)
    texts = [t.value for t in at.text]
    assert any("[click](javascript:alert(1))" in t for t in texts)
    codes = [c.value for c in at.code]
    assert "<script>alert(1)</script>" in codes
    assert not any("<script>" in m.value for m in at.markdown)
