"""AppTest: the Ranks page; an injected histogram click opens that bin's queries on Queries."""

import pytest

from tests.dashboard_support import app, no_exception, titles, trec_workspace

PAGE = "pages/ranks.py"


@pytest.fixture
def at(monkeypatch):
    return app(monkeypatch=monkeypatch).switch_page(PAGE).run()


def test_renders(at):
    no_exception(at)
    assert titles(at) == ["Ranks"]


def click(at, run: str, label: str):
    at.session_state["ranks_hist"] = {
        "selection": {"points": [{"curve_number": 0, "x": label, "customdata": [run, label, 0.1]}]}
    }
    return at.run()


def test_bin_click_opens_its_queries_on_queries(at):
    """One behaviour for every bar: the bin's queries open on Queries, the filter named."""
    click(at, "bm25", "not retrieved")
    no_exception(at)
    assert titles(at) == ["Queries"]
    listed = at.dataframe(key="queries_table").value
    assert len(listed) == 13  # bm25: 129 answerable queries, FirstRank for 116
    assert (listed["first rank"] == "not found").all()  # a word, not a "None" cell
    assert at.query_params["bin"] in ("not retrieved", ["not retrieved"])
    banner = " ".join(i.value for i in at.info)
    assert "Opened from Ranks" in banner and r"first relevant rank \= not retrieved" in banner
    at.switch_page("pages/queries.py")  # AppTest reruns the page it was asked for
    at.button(key="queries_clear_groups").click().run()
    assert len(at.dataframe(key="queries_table").value) == 144  # every query of bm25 again
    assert "bin" not in at.query_params


def test_a_rank_bin_keeps_the_sidebar_filters(at):
    click(at, "bm25", "1")
    all_rows = len(at.dataframe(key="queries_table").value)
    at.switch_page("pages/queries.py")  # AppTest reruns the page it was asked for
    at.pills(key="side_type").select("paraphrase").run()
    shown = at.dataframe(key="queries_table").value
    assert 0 < len(shown) < all_rows and (shown["first rank"] == "1").all()


def test_trec_data(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    caption = " ".join(c.value for c in at.caption)
    assert "n \\= 30 \\(results\\.comment\\)" in caption  # escaped; n = answerable topics
    click(at, "results.comment", "1")
    no_exception(at)
    listed = at.dataframe(key="queries_table").value
    assert len(listed) and (listed["first rank"] == "1").all()
    # the TREC files give no query text, type or section: no empty columns for them
    assert not {"query", "type", "section"} & set(listed.columns)
