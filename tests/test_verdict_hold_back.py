"""A verdict saved over one the saver never saw is held back (stop 45): the check of what
the saver saw and the write are one step under the store's lock, so two sessions saving
at once cannot both pass the check. The interleaving is made, not hoped for: a hook stops
the first saver between its check and its write and lets the second one run until it
finishes or waits for the store's lock."""

from __future__ import annotations

import threading

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import verdicts as v
from ragrecall_core.inputs import store
from tests.dashboard_support import app
from tests.samples import samples_copy
from tests.test_app_judge import seed002

NONE_SEEN = v.seen_key({})


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


class WatchedLock:
    """A store lock that says (``waited``) when a thread finds it held and waits for it."""

    def __init__(self, inner, waited: threading.Event):
        self.inner, self.waited = inner, waited

    def __enter__(self):
        if not self.inner.acquire(blocking=False):
            self.waited.set()
            self.inner.acquire()
        return self

    def __exit__(self, *exc):
        self.inner.release()


def saving(ws, reason: str, by: str, results: dict, seen=NONE_SEEN):
    """A saver for a thread: what ``record_verdict`` returned or raised, under ``by``."""

    def save() -> None:
        try:
            results[by] = v.record_verdict(ws, "old", "q1", reason, recorded_by=by, seen=seen)
        except Exception as error:  # noqa: BLE001 (the test looks at it)
            results[by] = error

    return save


def test_two_savers_over_the_same_unseen_verdict_cannot_both_pass(ws, monkeypatch):
    """anna and boris both see no verdict on q1 of old and save at once. anna is stopped
    between her check and her write while boris saves: his save must wait for hers and
    then be held back showing it (before, both were stored: his replaced hers unseen, or
    hers his, and both were told Saved)."""
    moved_on = threading.Event()  # boris finished, or waits for the store's lock
    watched = store._store_lock
    monkeypatch.setattr(store, "_store_lock", lambda path: WatchedLock(watched(path), moved_on))
    results: dict = {}

    def boris_saves() -> None:
        try:
            saving(ws, "paraphrase", "boris", results)()
        finally:
            moved_on.set()

    boris = threading.Thread(target=boris_saves)
    check = v._hold_back_unseen

    def check_then_let_boris_run(con, run, query_id, seen):
        check(con, run, query_id, seen)
        if threading.current_thread() is not boris:  # anna, between her check and write
            boris.start()
            results["boris moved on"] = moved_on.wait(60)  # a guard against a hang only

    monkeypatch.setattr(v, "_hold_back_unseen", check_then_let_boris_run)
    saving(ws, "other", "anna", results)()
    boris.join()
    assert results["boris moved on"]
    assert results["anna"] is None, results
    held = results["boris"]
    assert isinstance(held, v.VerdictChanged), results
    assert held.current["recorded_by"] == "anna" and held.current["reason"] == "other"
    assert "not saved" in str(held) and "anna" in str(held)
    history = v.verdict_history(ws, "old", "q1")
    assert history[["reason", "recorded_by"]].values.tolist() == [["other", "anna"]]


def test_a_held_back_saver_who_has_seen_it_replaces_it_and_the_history_keeps_both(ws):
    v.record_verdict(ws, "old", "q1", "other", recorded_by="anna", seen=NONE_SEEN)
    with pytest.raises(v.VerdictChanged) as held:
        v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="boris", seen=NONE_SEEN)
    assert isinstance(held.value, InputError)  # every page that shows problems shows it
    v.record_verdict(
        ws, "old", "q1", "paraphrase", recorded_by="boris", seen=v.seen_key(held.value.current)
    )
    history = v.verdict_history(ws, "old", "q1")
    assert history["recorded_by"].tolist() == ["boris", "anna"]


def test_the_key_of_what_a_screen_showed_matches_the_stored_latest(ws):
    """The form keys what it drew from :func:`latest_verdicts`; the save compares that key
    with the store's latest under the lock: the same verdict gives the same key."""
    v.record_verdict(ws, "old", "q1", "other", note="n", owner="o", recorded_by="anna")
    [shown] = v.latest_verdicts(ws).to_dict("records")
    v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="anna", seen=v.seen_key(shown))
    assert v.latest_verdicts(ws)["reason"].tolist() == ["paraphrase"]


def test_a_withdrawn_verdict_is_none_seen_and_no_seen_saves_whatever_is_stored(ws):
    v.record_verdict(ws, "old", "q1", "other", recorded_by="anna")
    v.record_verdict(ws, "old", "q1", v.WITHDRAWN, recorded_by="anna")
    # the screen shows no verdict now, and none is stored: nothing is replaced unseen
    v.record_verdict(ws, "old", "q1", "paraphrase", recorded_by="dora", seen=NONE_SEEN)
    with pytest.raises(v.VerdictChanged, match="paraphrase by dora"):
        v.record_verdict(ws, "old", "q1", "other", recorded_by="eve", seen=NONE_SEEN)
    v.record_verdict(ws, "old", "q1", "chunk boundary")  # the command line: no screen
    assert v.latest_verdicts(ws)["reason"].tolist() == ["chunk boundary"]


# ---------------------------------------------------------------- through the page
def test_the_form_holds_back_a_verdict_saved_between_its_check_and_its_write(tmp_path, monkeypatch):
    """anna's save passes the form's own check (her screen and the store agree: none),
    then boris's verdict lands before her write: the page must hold hers back and show
    his, not replace it unseen. boris's save is made at that moment by a hook on what the
    form reads after its check (no sleeps); before the form passed ``seen``, hers
    replaced his and she was told Saved."""
    from tests.test_app_verdict_form import save

    folder = samples_copy(tmp_path / "ws")
    anna = app(folder, monkeypatch, params={"q": "q042"}).switch_page("pages/queries.py").run()
    ws = anna.session_state["_ragrecall_ctx"].ws
    history = v.verdict_history
    landed = []

    def boris_lands_first(workspace, run, query_id):
        if not landed:  # anna's submit run, after the form read the stored verdict
            landed.append(v.record_verdict(ws, run, query_id, "paraphrase", recorded_by="boris"))
        return history(workspace, run, query_id)

    monkeypatch.setattr(v, "verdict_history", boris_lands_first)
    save(anna, "other", by="anna")
    assert landed and not anna.exception
    said = " ".join(w.value for w in anna.warning)
    assert "boris" in said and "not saved" in said, said
    latest = v.latest_verdicts(ws)[["reason", "recorded_by"]].values.tolist()
    assert latest == [["paraphrase", "boris"]]
