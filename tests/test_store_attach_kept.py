"""Whether the judgment store is attached, and how, is asked of DuckDB once per change
(stop 46), not on every rerun of every session.

Every rerun of every page asks it (``connect_store``, ``store_version``): a query of
``duckdb_databases()`` each time, ~0.5 ms alone and ~6 ms for a new session under load.
The answer changes only when this module attaches or detaches the store, so it is kept
per connection until then; each test here changes it one way and checks the change is
seen at once, on the workspace that made it and on any other sharing its connection.
"""

from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import store
from ragrecall_core.inputs.store import (
    _attached_mode,
    is_open,
    open_store,
    store_path,
    submit,
)
from tests.test_app_judge import seed002

WRITABLE, READ_ONLY = False, True


@pytest.fixture
def folder(tmp_path):
    return seed002(tmp_path / "ws")


def counting_cursor(monkeypatch, ws: Workspace) -> list:
    """Count the cursors ``ws`` hands out (each of the module's queries takes one)."""
    calls = []
    real = ws.cursor

    def cursor():
        calls.append(1)
        return real()

    monkeypatch.setattr(ws, "cursor", cursor)
    return calls


def test_the_answer_is_asked_once_until_the_store_changes(folder, monkeypatch):
    ws = Workspace.open(folder)
    open_store(ws, create=True)
    calls = counting_cursor(monkeypatch, ws)
    for _ in range(50):
        assert is_open(ws) and _attached_mode(ws) is WRITABLE
    assert len(calls) <= 1
    ws.con.close()


def test_a_store_made_later_is_seen(folder):
    ws = Workspace.open(folder)
    assert not is_open(ws) and not open_store(ws)  # none yet: asked, and kept
    open_store(ws, create=True)  # the first judgment makes it
    assert is_open(ws) and _attached_mode(ws) is WRITABLE
    submit(ws, "q1", "D", 2, "anna")
    ws.con.close()


def test_a_store_read_only_then_writable_is_seen(folder, monkeypatch):
    ws = Workspace.open(folder)
    open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    other = Workspace.open(folder)  # a reload: it takes the store over, `ws` lets it go
    assert open_store(other) and not is_open(ws)
    monkeypatch.setattr(store, "is_writable", lambda path: False)
    monkeypatch.setattr(store, "_WRITABLE", set())  # the kept answer forgotten (a failed write)
    assert open_store(ws) and _attached_mode(ws) is READ_ONLY  # taken back, read-only
    assert not is_open(other)
    monkeypatch.undo()  # the folder can be written again: a write attaches it to write
    submit(ws, "q1", "E", 1, "anna")
    assert _attached_mode(ws) is WRITABLE
    assert len(store.stored_judgments(ws)) == 2
    ws.con.close()
    other.con.close()


def test_a_replaced_store_file_is_attached_again_and_seen(folder, tmp_path):
    ws = Workspace.open(folder)
    open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    assert is_open(ws)
    path = store_path(ws)
    shutil.copy(path, tmp_path / "backup.duckdb")
    os.replace(tmp_path / "backup.duckdb", path)  # a backup restored: another inode
    assert open_store(ws) and _attached_mode(ws) is WRITABLE
    path.unlink()  # moved aside: let go, nothing attached
    assert not open_store(ws) and not is_open(ws)
    ws.con.close()


def test_every_workspace_on_one_connection_sees_the_change(folder):
    """The answer belongs to the connection, not to one workspace object around it."""
    ws = Workspace.open(folder)
    twin = Workspace(ws.con, ws.gold, folder=ws.folder)
    assert not is_open(twin)
    open_store(ws, create=True)
    assert is_open(twin) and _attached_mode(twin) is WRITABLE
    ws.con.close()


def test_a_store_that_is_no_store_is_not_seen_as_attached(folder):
    """An attach that is refused after DuckDB attached the file leaves it detached."""
    path = store_path(Workspace.open(folder))
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE other (x INTEGER)")
    ws = Workspace.open(folder)
    status = store.connect_store(ws)
    assert status.problem and not is_open(ws)
    ws.con.close()
