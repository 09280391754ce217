"""The meeting's triage order (issue 29): failing queries by severity (never retrieved,
ranked below k, partial; then failing in most runs), and J from the table opens the first."""

import pandas as pd

from ragrecall_core.analysis.query_table import FAIL_MARK, failing_first, failing_ids
from tests.dashboard_support import app, no_exception


def display(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "status", "failure class"])


def test_failing_queries_sort_by_severity_not_by_id():
    shown = failing_first(
        display(
            [
                ("q1", FAIL_MARK, "partial"),
                ("q2", "✓ ok", "ok"),
                ("q3", FAIL_MARK, "ranked below k"),
                ("q4", FAIL_MARK, "never retrieved"),
                ("q5", "– no answer", "no answer (gold lists none)"),
                ("q6", FAIL_MARK, "partial"),
            ]
        ),
        fails_in=pd.Series({"q1": 1, "q3": 1, "q4": 1, "q6": 3}),
    )
    # a partial failure failing in 3 runs comes before one failing in 1
    assert list(shown["query_id"]) == ["q4", "q3", "q6", "q1", "q2", "q5"]
    assert failing_ids(shown) == ["q4", "q3", "q6", "q1"]


def test_the_queries_page_lists_the_worst_failures_first(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/queries.py").run()
    table = at.dataframe(key="queries_table").value
    failing = table[table["status"] == FAIL_MARK]
    order = {"never retrieved": 0, "ranked below k": 1, "partial": 2}
    ranks = [order.get(c, 0 if "missing" in c else 1) for c in failing["failure class"]]
    assert ranks == sorted(ranks) and ranks[0] < ranks[-1]
    assert failing.index.tolist() == list(range(len(failing)))  # failing rows first


def test_j_from_the_table_opens_the_first_failing_query(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page("pages/queries.py").run()
    first = at.dataframe(key="queries_table").value["query_id"].iloc[0]
    button = at.button(key="queries_first_failing")
    assert button.proto.shortcut.lower() == "j"
    button.click().run()
    no_exception(at)
    assert at.session_state["queries_q"] == first
    assert [s.value for s in at.subheader][0] == f"Query {first} · run bm25"
    # then J goes on in the table's order
    second = at.dataframe(key="queries_table").value["query_id"].iloc[1]
    at.button(key="queries_next").click().run()
    assert at.session_state["queries_q"] == second
