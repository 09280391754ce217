"""A link naming a query the gold set lacks (``?q=`` on Queries, ``?cq=`` on Compare) gets
one warning naming it: literal (its Markdown shown as typed) and shortened as every
problem line's value is (``errors.shortened``). A 5,000-character id printed a
5,000-character warning on both pages (found trying the links from outside, stop 44)."""

from __future__ import annotations

import pytest

from ragrecall_core.errors import CUT_MARK, MAX_VALUE_CHARS
from tests.dashboard_support import app, unescaped_text

LINKED = "**bold**<b>x</b>" + "y" * 5000 + "-end"


@pytest.mark.parametrize(("param", "page"), [("q", "queries"), ("cq", "compare")])
def test_a_linked_query_not_in_the_gold_is_named_literally_and_shortened(param, page, monkeypatch):
    at = app(monkeypatch=monkeypatch, params={param: LINKED}).switch_page(f"pages/{page}.py").run()
    lines = [unescaped_text(w.value) for w in at.warning if "not in the gold set" in w.value]
    assert len(lines) == 1
    assert lines[0].startswith("Query **bold**<b>x</b>yyy")
    mark = CUT_MARK.format(cut=len(LINKED) - MAX_VALUE_CHARS, total=len(LINKED))
    assert mark + "y" in lines[0]
    assert "y-end is not in the gold set." in lines[0]
    assert len(lines[0]) < MAX_VALUE_CHARS + 70


def test_a_short_unknown_id_is_named_whole(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"q": "q_missing"})
    at = at.switch_page("pages/queries.py").run()
    lines = [unescaped_text(w.value) for w in at.warning if "not in the gold set" in w.value]
    assert lines == ["Query q_missing is not in the gold set."]
