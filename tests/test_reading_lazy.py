"""The reading view's ranks below the top k are a table sent only while its box is open
(issue 30): at 10,000 x 100 each opened query sent ~95 chunks with their text per list (two
lists on Compare), in a box that starts closed."""

from __future__ import annotations

from tests.dashboard_support import app, no_exception
from tests.test_app_queries import select_row

BELOW = ["rank", "mark", "score", "chunk_id", "title", "text"]


def below_tables(at) -> list:
    return [d for d in at.dataframe if list(d.value.columns) == BELOW]


def test_an_opened_query_sends_its_ranks_below_k_only_once_their_box_opens(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/queries.py").run()
    select_row(at, "queries_table", 0)
    no_exception(at)
    assert at.subheader and at.subheader[0].value.startswith("Query ")
    (box,) = [e for e in at.expander if "(below the top 5)" in e.label]
    assert below_tables(at) == []
    at.session_state["queries_below_open"] = True
    at.run()
    no_exception(at)
    (shown,) = below_tables(at)
    ranks = shown.value["rank"].astype(int)
    assert len(shown.value) > 0 and ranks.min() == 6  # every rank after the top k
    assert [e.label for e in at.expander if "(below the top 5)" in e.label] == [box.label]
