"""The Overview's query counts are tables (no chart library on a new session's first page):
one per attribute, counting distinct queries in view; a view without queries says so."""

from __future__ import annotations

from ragrecall_app.overview_sections import CONFIGS_OPEN, COUNTS_OPEN
from ragrecall_core import Workspace
from ragrecall_core.views.dashboard_state import session_key
from tests.dashboard_support import app, no_exception, tables
from tests.samples import shared_samples


def counts_table(at, label: str):
    """The counts table whose first column is ``label`` (a table without selection keeps
    no key in AppTest)."""
    (table,) = [t for t in tables(at) if list(t.columns) == [label, "queries"]]
    return table


def test_counts_are_distinct_queries_per_value(monkeypatch):
    at = app(None, monkeypatch)
    no_exception(at)
    at.session_state[COUNTS_OPEN] = True  # the counts' box, opened
    at.run()
    con = Workspace.open(shared_samples()).cursor()
    for column, label in (("query_type", "query type"), ("section", "corpus section")):
        expected = dict(
            con.execute(
                f"SELECT {column}, count(*) FROM queries GROUP BY 1"  # noqa: S608 (constants)
            ).fetchall()
        )
        shown = counts_table(at, label).set_index(label)["queries"].to_dict()
        assert shown == expected


def test_counts_and_configurations_are_sent_only_while_their_boxes_are_open(monkeypatch):
    at = app(None, monkeypatch)
    no_exception(at)
    assert [e.label for e in at.expander] == ["Queries in view", "Run configurations"]
    closed = tables(at)
    assert not any(list(t.columns)[1:] == ["queries"] for t in closed)  # no count table
    assert not at.tabs  # no configuration
    at.session_state[COUNTS_OPEN] = True
    at.session_state[CONFIGS_OPEN] = True
    at.run()
    no_exception(at)
    opened = tables(at)
    assert len(opened) == len(closed) + 3  # query type, corpus section, split
    assert len(at.tabs) == 4  # a configuration per run
    # what the page shows outside the boxes is the same
    others = [t for t in opened if list(t.columns)[1:] != ["queries"]]
    assert all(a.equals(b) for a, b in zip(others, closed, strict=True))


def test_a_view_without_queries_says_so_instead_of_failing(monkeypatch):
    at = app(None, monkeypatch)
    con = Workspace.open(shared_samples()).cursor()
    query_type, section = con.execute(
        "SELECT t.query_type, c.section FROM (SELECT DISTINCT query_type FROM queries) t, "
        "(SELECT DISTINCT section FROM queries) c EXCEPT "
        "SELECT query_type, section FROM queries ORDER BY ALL LIMIT 1"
    ).fetchone()
    at.pills(key=session_key("query_type")).select(query_type)
    at.pills(key=session_key("section")).select(section).run()
    no_exception(at)  # was a KeyError traceback from the headline table
    assert "No query matches the sidebar's filters." in [i.value for i in at.info]
    assert not at.dataframe and not tables(at)
