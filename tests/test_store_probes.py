"""What every rerun asks of a judgment store is answered once per process, and asked again
when the answer may have changed: whether the store's folder can be written (a temp file
made and removed, :func:`ragrecall_core.inputs.store.is_writable`) until a write to it
fails, and an upload set's store choice (its manifest read and parsed,
:func:`ragrecall_core.inputs.home.store_location`) until the manifest changes."""

from __future__ import annotations

import json
from collections import Counter

import duckdb
import pytest

from ragrecall_app import context
from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs import home as homes
from ragrecall_core.inputs import store as stores
from ragrecall_core.inputs.upload_stores import choose
from tests.dashboard_support import count_calls
from tests.test_app_judge import seed002
from tests.test_upload_stores import files, grade, home, upload  # noqa: F401


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def test_reruns_probe_the_store_folder_once(ws, monkeypatch):
    calls = Counter()
    count_calls(monkeypatch, stores, "is_writable", calls)
    assert [stores.connect_store(ws).writable for _ in range(5)] == [True] * 5
    stores.submit(ws, "q1", "D", 2, "anna")  # the store is made and attached
    assert [stores.connect_store(ws).can_judge for _ in range(5)] == [True] * 5
    assert calls["is_writable"] == 1


def test_a_failed_write_probes_again(ws, monkeypatch):
    calls = Counter()
    count_calls(monkeypatch, stores, "is_writable", calls)
    stores.connect_store(ws)
    stores.connect_store(ws)
    assert calls["is_writable"] == 1

    def full_disk(*args, **kwargs):
        raise duckdb.IOException("Could not write file: No space left on device")

    monkeypatch.setattr(stores, "_insert", full_disk)
    with pytest.raises(InputError, match="No space left"):
        stores.submit(ws, "q1", "D", 2, "anna")
    stores.connect_store(ws)
    stores.connect_store(ws)
    assert calls["is_writable"] == 2  # once again after the failure, then kept


def test_a_read_only_answer_is_not_kept(ws, monkeypatch):
    """A folder made writable again (its owner fixed it) lets judging back on, unreloaded;
    once writable, the answer is kept."""
    folder = {"writable": False}
    monkeypatch.setattr(stores, "is_writable", lambda path: folder["writable"])
    assert not stores.connect_store(ws).writable
    folder["writable"] = True
    assert stores.connect_store(ws).writable
    folder["writable"] = False  # no probe tells: kept until a write fails
    assert stores.connect_store(ws).writable


def test_reruns_read_an_upload_manifest_once_and_see_a_choice_made_since(
    monkeypatch,
    home,  # noqa: F811
    files,  # noqa: F811
):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    context.choose_store(second, "shared")
    reads = Counter()
    count_calls(monkeypatch, homes, "_read_choice", reads)
    shared = homes.store_location(None, second.gold)
    assert [homes.store_location(None, second.gold) for _ in range(5)] == [shared] * 5
    assert reads["_read_choice"] == 1
    manifest = homes.upload_manifest(second.gold.parent)
    choose(manifest, "separate")  # a choice made after the answer was kept
    own = homes.store_location(None, second.gold)
    assert own != shared and own.name.startswith("gold.jsonl.")
    # another process's change of the manifest (no call here) is seen too
    record = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**record, "store": "shared"}))
    assert homes.store_location(None, second.gold) == shared
