"""A read of a judgment store by code that holds no workspace of it (an upload's question
counting another gold's judgments): through the workspace of this process that has it
attached, else a read-only connection of its own, never a second open of the file in one
process (DuckDB refuses it)."""

from __future__ import annotations

from ragrecall_core import Workspace
from ragrecall_core.inputs import store
from ragrecall_core.inputs.store import open_store, store_path, submit
from tests.test_app_judge import seed002


def judgments(con, database) -> int:
    table = "judgments" if database is None else f"{database}.judgments"
    return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608 (constant)


def test_a_store_attached_here_is_read_through_its_workspace(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    with store.reading(store_path(ws)) as (con, database):
        assert database == store.STORE
        assert judgments(con, database) == 1
    submit(ws, "q1", "E", 1, "anna")  # the workspace still writes: nothing was detached
    with store.reading(store_path(ws)) as (con, database):
        assert judgments(con, database) == 2
    ws.con.close()


def test_a_store_no_workspace_holds_is_read_on_its_own_read_only(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    path = store_path(ws)
    ws.con.close()  # its holder is gone: the file is free
    with store.reading(path) as (con, database):
        assert database is None
        assert judgments(con, database) == 1
    other = Workspace.open(seed002(tmp_path / "ws2"))
    assert open_store(other) is False  # the read left no store behind in another folder
    other.con.close()
