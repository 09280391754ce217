"""AppTest: the Ranks page; an injected histogram click lists that bin's queries."""

import pytest

from tests.dashboard_support import app, no_exception, titles, trec_workspace

PAGE = "pages/ranks.py"


@pytest.fixture
def at(monkeypatch):
    return app(monkeypatch=monkeypatch).switch_page(PAGE).run()


def test_renders(at):
    no_exception(at)
    assert titles(at) == ["Ranks"]


def test_bin_click_lists_queries(at):
    at.session_state["ranks_hist"] = {
        "selection": {
            "points": [
                {
                    "curve_number": 0,
                    "x": "not retrieved",
                    "y": 10,
                    "customdata": ["bm25", "not retrieved", 0.1],
                }
            ]
        }
    }
    at.run()
    no_exception(at)
    listed = at.dataframe(key="ranks_list").value
    assert len(listed) == 13  # bm25: 129 answerable queries, FirstRank for 116
    assert (listed["first rank"] == "not found").all()  # a word, not a "None" cell
    assert at.query_params["bin"] in ("not retrieved", ["not retrieved"])


def test_filter_changes_the_list(at):
    at.session_state["ranks_hist"] = {
        "selection": {"points": [{"curve_number": 0, "x": "1", "customdata": ["bm25", "1", 0.5]}]}
    }
    at.run()
    all_rows = len(at.dataframe(key="ranks_list").value)
    at.selectbox(key="side_type").select("paraphrase").run()
    assert 0 < len(at.dataframe(key="ranks_list").value) < all_rows


def test_trec_data(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    caption = " ".join(c.value for c in at.caption)
    assert "n \\= 30 \\(results\\.comment\\)" in caption  # escaped; n = answerable topics
    at.session_state["ranks_hist"] = {
        "selection": {
            "points": [{"curve_number": 0, "x": "1", "customdata": ["results.comment", "1", 0.9]}]
        }
    }
    at.run()
    no_exception(at)
    listed = at.dataframe(key="ranks_list").value
    # the TREC files give no query text, type or section: no empty columns for them
    assert list(listed.columns) == ["query_id", "first rank", "failure_class"] and len(listed)
