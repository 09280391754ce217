"""AppTest: who records a verdict (issue 29). "Recorded by" is typed once per browser
session and kept across queries and pages; a verdict is not saved without a name, and a
stored verdict without one (an imported file may have none) says "(no name)", never
"someone"."""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.verdicts import latest_verdicts, record_verdict
from tests.dashboard_support import app, no_exception
from tests.samples import samples_copy

PAGE = "pages/queries.py"


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "ws"
    samples_copy(folder)
    return folder


def open_query(folder, monkeypatch, query_id="q042"):
    return app(folder, monkeypatch, params={"q": query_id}).switch_page(PAGE).run()


def field(at, kind: str, label: str):
    found = [w for w in getattr(at, kind) if w.label == label]
    assert len(found) == 1, [w.label for w in getattr(at, kind)]
    return found[0]


def save(at, reason: str, by: str | None = None) -> None:
    field(at, "selectbox", "Failure reason").select(reason)
    if by is not None:
        field(at, "text_input", "Recorded by").input(by)
    [button] = [b for b in at.button if b.label == "Save verdict"]
    button.click().run()


def stored(folder) -> dict[str, str]:
    ws = Workspace.open(folder)
    latest = latest_verdicts(ws)
    ws.con.close()
    return dict(zip(latest["query_id"], latest["recorded_by"], strict=True))


def said(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_the_name_is_remembered_across_queries_and_pages(folder, monkeypatch):
    at = open_query(folder, monkeypatch)
    assert field(at, "text_input", "Recorded by").value == ""
    save(at, "paraphrase", by="dora")
    no_exception(at)
    at.button(key="queries_next").click().run()
    second = at.session_state["queries_q"]
    assert second != "q042"
    assert field(at, "text_input", "Recorded by").value == "dora"
    at.switch_page("pages/overview.py").run()
    at.switch_page(PAGE).run()
    assert field(at, "text_input", "Recorded by").value == "dora"
    save(at, "chunk boundary")  # the name is not typed again
    no_exception(at)
    assert stored(folder) == {"q042": "dora", second: "dora"}


def test_the_recorders_name_is_the_sessions_not_the_last_verdicts(folder, monkeypatch):
    ws = Workspace.open(folder)
    record_verdict(ws, "bm25", "q042", "paraphrase", recorded_by="anna")
    ws.con.close()
    at = open_query(folder, monkeypatch)
    assert "recorded by anna" in said(at)
    assert field(at, "text_input", "Recorded by").value == ""  # this session has no name yet


@pytest.mark.parametrize("name", ["", "   "])
def test_a_verdict_without_a_name_is_not_saved(folder, monkeypatch, name):
    at = open_query(folder, monkeypatch)
    save(at, "paraphrase", by=name)
    assert any("Recorded by" in w.value for w in at.warning), [w.value for w in at.warning]
    assert stored(folder) == {}
    assert "someone" not in said(at)


def test_a_stored_verdict_without_a_name_says_no_name(folder, monkeypatch):
    ws = Workspace.open(folder)
    record_verdict(ws, "bm25", "q042", "paraphrase", recorded_by="")  # as an import may
    ws.con.close()
    at = open_query(folder, monkeypatch)
    no_exception(at)
    assert "recorded by (no name)" in said(at)
    assert "someone" not in said(at)


def test_a_stored_time_out_of_range_does_not_break_the_page(folder, monkeypatch):
    """A store written before import refused them may hold infinity (issue 29: the
    Queries page crashed in strftime)."""
    from ragrecall_core.inputs.store import STORE, store_transaction

    ws = Workspace.open(folder)
    record_verdict(ws, "bm25", "q001", "other")  # creates the store
    with store_transaction(ws) as con:
        con.execute(
            f"INSERT INTO {STORE}.verdicts (run, query_id, reason, note, owner, recorded_by, "
            "recorded_at) VALUES ('bm25', 'q042', 'paraphrase', '', '', 'old import', "
            "'infinity'::TIMESTAMP)"
        )
    ws.con.close()
    at = open_query(folder, monkeypatch)
    no_exception(at)
    assert "Verdict: paraphrase" in said(at) and "recorded by old import" in said(at)
