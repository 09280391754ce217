"""The judgment store from outside (stop 44): saves at once, a clock or an import ahead of
now, a store file replaced under the server, a process killed right after a save. Saved
judgments and verdicts are never lost or hidden; a save that fails says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import datetime, timedelta

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import export_grades, store_path, submit
from tests.dashboard_support import ROOT, app
from tests.helpers import write_text
from tests.samples import samples_copy
from tests.test_app_judge import JUDGE, seed002, shown_chunk


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def at_once(count: int, work) -> list:
    """``work(i)`` in ``count`` threads released together; what each returned or raised."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as error:  # noqa: BLE001 (the test looks at it)
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_verdicts_saved_at_once_on_one_query_are_all_kept(ws):
    reasons = v.REASONS[:6]
    results = at_once(6, lambda i: v.record_verdict(ws, "old", "q1", reasons[i], by := f"p{i}", by))
    assert results == [None] * 6
    history = v.verdict_history(ws, "old", "q1")
    assert sorted(history["reason"]) == sorted(reasons)
    assert v.latest_verdicts(ws)["reason"].tolist() == [history["reason"].iloc[0]]


def test_one_grade_per_annotator_and_chunk_when_two_tabs_save_at_once(ws):
    stored = at_once(4, lambda i: submit(ws, "q1", "D", i % 3, "anna", only_if_new=True))
    assert sorted(stored) == [False, False, False, True]
    assert len(js.annotator_judgments(ws, "anna")) == 1


def test_a_verdict_saved_after_an_import_from_ahead_of_now_is_the_latest(ws, tmp_path):
    """A file's recorded_at may be up to a day ahead (another machine's clock or time
    zone); the verdict the meeting saves after importing it is the one it sees."""
    ahead = (datetime.now() + timedelta(hours=3)).strftime("%Y-%m-%d %H:%M:%S")
    row = {"run": "old", "query_id": "q1", "reason": "other", "recorded_at": ahead}
    path = write_text(tmp_path / "ahead.jsonl", json.dumps(row) + "\n")
    assert v.import_verdicts(ws, path) == 1
    v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="dora")
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]
    assert v.verdict_history(ws, "old", "q1")["reason"].tolist() == ["paraphrase", "other"]
    # a withdrawal saved then withdraws it, too
    v.record_verdict(ws, "old", "q1", v.WITHDRAWN)
    assert v.latest_verdicts(ws).empty


def test_an_import_of_a_newer_verdict_still_wins(ws, tmp_path):
    v.record_verdict(ws, "old", "q1", "paraphrase")
    ahead = (datetime.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    row = {"run": "old", "query_id": "q1", "reason": "other", "recorded_at": ahead}
    assert v.import_verdicts(ws, write_text(tmp_path / "n.jsonl", json.dumps(row) + "\n")) == 1
    assert v.latest_verdicts(ws)["reason"].tolist() == ["other"]


def test_a_store_file_replaced_under_the_server_gets_the_next_save(ws, tmp_path):
    """The store moved aside and a new one put in its place (a restore from a backup):
    the open workspace must read and write the file now at the path, not the one moved
    aside (a save there would be gone on the next start)."""
    submit(ws, "q1", "D", 2, "anna")
    path = store_path(ws)
    other = Workspace.open(seed002(tmp_path / "backup"))  # a store with boris's grade
    submit(other, "q1", "E", 1, "boris")
    other.con.close()
    os.replace(path, tmp_path / "aside.duckdb")
    os.replace(store_path(other), path)
    js.open_store(ws)  # what every run does (context.open_source)
    assert export_grades(ws)["annotator"].tolist() == ["boris"]
    submit(ws, "q1", "B", 0, "anna")
    ws.con.close()
    reopened = Workspace.open(ws.folder)
    js.open_store(reopened)
    assert sorted(export_grades(reopened)["annotator"]) == ["anna", "boris"]
    reopened.con.close()


def test_a_store_file_deleted_under_the_server_is_made_again_on_the_next_save(ws):
    submit(ws, "q1", "D", 2, "anna")
    path = store_path(ws)
    path.unlink()
    submit(ws, "q1", "B", 0, "anna")
    ws.con.close()
    reopened = Workspace.open(ws.folder)
    js.open_store(reopened)
    assert export_grades(reopened)[["chunk_id", "annotator"]].values.tolist() == [["B", "anna"]]
    reopened.con.close()


KILLED_AFTER_SAVE = """
import os, signal, sys
sys.path.insert(0, {root!r})
from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import submit
ws = Workspace.open({folder!r})
submit(ws, "q1", "D", 2, "anna")
v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="dora")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_save_survives_the_process_killed_right_after_it_returns(tmp_path):
    folder = seed002(tmp_path / "ws")
    script = KILLED_AFTER_SAVE.format(root=str(ROOT), folder=str(folder))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=False)
    assert done.returncode == -9
    ws = Workspace.open(folder)
    js.open_store(ws)
    assert export_grades(ws)[["chunk_id", "grade", "annotator"]].values.tolist() == [
        ["D", 2, "anna"]
    ]
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]
    ws.con.close()


# ---------------------------------------------------------------- undo in two tabs
def test_undo_takes_back_this_tabs_grade_never_another_tabs(tmp_path, monkeypatch):
    """anna judges in two tabs; tab A's undo after tab B saved must not withdraw B's grade
    (B was told Saved and is never told otherwise): it is refused in A, saying why."""
    folder = seed002(tmp_path / "ws")
    tab_a = app(folder, monkeypatch).switch_page(JUDGE).run()
    tab_a.text_input(key="judge_annotator").input("anna").run()
    tab_a.button(key="judge_grade_2").click().run()
    tab_b = app(folder, monkeypatch).switch_page(JUDGE).run()
    tab_b.text_input(key="judge_annotator").input("anna").run()
    b_chunk = shown_chunk(tab_b)
    tab_b.button(key="judge_grade_0").click().run()
    ws = tab_a.session_state["_ragrecall_ctx"].ws
    assert len(js.annotator_judgments(ws, "anna")) == 2
    tab_a.button(key="judge_undo").click().run()
    assert not tab_a.exception
    said = " ".join(e.value for e in tab_a.error)
    assert "Nothing undone" in said and b_chunk in said
    assert len(js.annotator_judgments(ws, "anna")) == 2  # both grades stand
    # tab B's own undo takes back its own grade
    tab_b.button(key="judge_undo").click().run()
    assert not tab_b.exception and not tab_b.error
    assert js.annotator_judgments(ws, "anna")["chunk_id"].tolist() != [b_chunk]
    assert len(js.annotator_judgments(ws, "anna")) == 1


def test_undo_of_a_grade_not_the_latest_is_refused_in_the_store(ws):
    submit(ws, "q1", "D", 2, "anna")
    submit(ws, "q1", "B", 0, "anna")
    with pytest.raises(InputError) as refused:
        js.undo_last(ws, "anna", item=("q1", "D"))
    assert "chunk B of query q1" in str(refused.value)
    assert len(js.annotator_judgments(ws, "anna")) == 2
    assert js.undo_last(ws, "anna", item=("q1", "B")) == ("q1", "B")


# ---------------------------------------------------------------- a full disk
DISK_FULL = """
import json, resource, signal, sys
sys.path.insert(0, {root!r})
from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs.store import store_path, submit
ws = Workspace.open({folder!r})
submit(ws, "q1", "D", 2, "anna")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
limit = store_path(ws).stat().st_size + 4096
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
said, saved = None, 0
for i in range(200):
    try:
        v.record_verdict(ws, "old", "q1", "other", note=f"{{i}} " + "x" * 1500, recorded_by="d")
        saved += 1
    except InputError as error:
        said = str(error)
        break
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="dora")  # space again
history = v.verdict_history(ws, "old", "q1")
print(json.dumps({{"said": said, "saved": saved, "rows": len(history),
                  "latest": v.latest_verdicts(ws)["reason"].tolist()}}))
"""


def test_a_save_on_a_full_disk_is_refused_by_name_and_loses_nothing_before(tmp_path):
    """The disk full (a file size limit stands in for it) at a verdict's commit: the save
    is an InputError naming the store (the pages show those; a DuckDB error was a
    traceback), every earlier save stays, and the next save once there is room works."""
    folder = seed002(tmp_path / "ws")
    script = DISK_FULL.format(root=str(ROOT), folder=str(folder))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["said"] and "judgments.duckdb" in result["said"], result
    assert "not saved" in result["said"]
    assert result["rows"] == result["saved"] + 1
    assert result["latest"] == ["paraphrase"]


# ---------------------------------------------------------------- verdicts in two sessions
def test_a_verdict_saved_over_one_unseen_is_held_back_and_said(tmp_path, monkeypatch):
    """Two people read q042 of bm25; boris saves a verdict; anna, whose screen still shows
    none, saves hers: boris's would be replaced without anyone seeing it. Anna is shown
    his verdict and asked to save again; a second save replaces it (both in the history)."""
    from tests.test_app_verdict_form import field, save

    folder = samples_copy(tmp_path / "ws")
    anna = app(folder, monkeypatch, params={"q": "q042"}).switch_page("pages/queries.py").run()
    boris = app(folder, monkeypatch, params={"q": "q042"}).switch_page("pages/queries.py").run()
    save(boris, "paraphrase", by="boris")
    assert not boris.exception
    save(anna, "other", by="anna")
    assert not anna.exception
    said = " ".join(w.value for w in anna.warning)
    assert "boris" in said and "paraphrase" in said and "not saved" in said, said
    ws = anna.session_state["_ragrecall_ctx"].ws
    assert v.latest_verdicts(ws)[["reason", "recorded_by"]].values.tolist() == [
        ["paraphrase", "boris"]
    ]
    # anna has seen it now: saving again replaces it, and the history keeps both
    field(anna, "selectbox", "Failure reason").select("other")
    [button] = [b for b in anna.button if b.label == "Save verdict"]
    button.click().run()
    assert not anna.exception
    assert v.latest_verdicts(ws)[["reason", "recorded_by"]].values.tolist() == [["other", "anna"]]
    assert len(v.verdict_history(ws, "bm25", "q042")) == 2
