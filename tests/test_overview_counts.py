"""The Overview's query counts are tables (no chart library on a new session's first page):
one per attribute, counting distinct queries in view; a view without queries says so."""

from __future__ import annotations

from ragrecall_core import Workspace
from ragrecall_core.views.dashboard_state import session_key
from tests.dashboard_support import ROOT, app, no_exception, tables


def counts_table(at, label: str):
    """The counts table whose first column is ``label`` (a table without selection keeps
    no key in AppTest)."""
    (table,) = [t for t in tables(at) if list(t.columns) == [label, "queries"]]
    return table


def test_counts_are_distinct_queries_per_value(monkeypatch):
    at = app(None, monkeypatch)
    no_exception(at)
    con = Workspace.open(ROOT / "data_samples").cursor()
    for column, label in (("query_type", "query type"), ("section", "corpus section")):
        expected = dict(
            con.execute(
                f"SELECT {column}, count(*) FROM queries GROUP BY 1"  # noqa: S608 (constants)
            ).fetchall()
        )
        shown = counts_table(at, label).set_index(label)["queries"].to_dict()
        assert shown == expected


def test_a_view_without_queries_says_so_instead_of_failing(monkeypatch):
    at = app(None, monkeypatch)
    con = Workspace.open(ROOT / "data_samples").cursor()
    query_type, section = con.execute(
        "SELECT t.query_type, c.section FROM (SELECT DISTINCT query_type FROM queries) t, "
        "(SELECT DISTINCT section FROM queries) c EXCEPT "
        "SELECT query_type, section FROM queries ORDER BY ALL LIMIT 1"
    ).fetchone()
    at.selectbox(key=session_key("query_type")).select(query_type)
    at.selectbox(key=session_key("section")).select(section).run()
    no_exception(at)  # was a KeyError traceback from the headline table
    assert "No query matches the sidebar's filters." in [i.value for i in at.info]
    assert not at.dataframe and not tables(at)
