"""Two projects' uploads whose golds share a name (``gold.jsonl``) must not silently share
one judgment store: the second is asked first (use the store, or start its own), and the
answer is kept with its upload set. The same gold uploaded again is never asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragrecall_app import context
from ragrecall_core import Workspace
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import upload_stores
from ragrecall_core.inputs.home import stores_folder, upload_store_file, uploads_folder
from ragrecall_core.inputs.store import connect_store, store_path, submit
from ragrecall_core.views.judge_text import store_place
from tests.helpers import write_jsonl
from tests.test_report_view import tiny


class Upload:
    """What streamlit's file uploader gives: a name and the bytes."""

    def __init__(self, name: str, data: bytes):
        self.name, self.data = name, data

    def getvalue(self) -> bytes:
        return self.data


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def files(tmp_path) -> dict[str, bytes]:
    """Gold A and B (same name, different content: a second project) and two runs."""
    folder = tiny(tmp_path / "files")
    gold_a = (folder / "gold.jsonl").read_bytes()
    rows = [json.loads(line) for line in gold_a.decode().splitlines()]
    rows[0]["grades"] = {"a1": 2}  # project B grades q1 otherwise
    write_jsonl(folder / "gold_b.jsonl", rows)
    run = (folder / "runs" / "bm25.jsonl").read_bytes()
    return {
        "a": gold_a,
        "b": (folder / "gold_b.jsonl").read_bytes(),
        "run": run,
        "run2": run + b"\n",
    }


def upload(gold: bytes, run: bytes, gold_name: str = "gold.jsonl", run_name: str = "bm25.jsonl"):
    return context.save_uploads(Upload(gold_name, gold), [Upload(run_name, run)], [], None)


def stored(source) -> int:
    """The judgments the upload set's workspace counts from its store."""
    ws = Workspace.from_files(source.gold, list(source.runs))
    try:
        if not connect_store(ws).attached:
            return 0
        return ws.cursor().execute("SELECT count(*) FROM judgment_store.judgments").fetchone()[0]
    finally:
        ws.con.close()


def grade(source, chunk: str = "a1") -> None:
    ws = Workspace.from_files(source.gold, list(source.runs))
    try:
        submit(ws, "q1", chunk, 2, "anna")
    finally:
        ws.con.close()


def store_of(source) -> Path:
    ws = Workspace.from_files(source.gold, list(source.runs))
    try:
        return store_path(ws)
    finally:
        ws.con.close()


def test_a_second_gold_of_one_name_is_asked_before_it_counts_the_first_ones_grades(home, files):
    first = upload(files["a"], files["run"])
    assert context.store_question(first) is None  # a new store: nothing to ask
    grade(first)
    second = upload(files["b"], files["run"])
    question = context.store_question(second)
    assert question is not None and question.judgments == 1
    assert question.store == stores_folder() / "gold.jsonl.judgments.duckdb"
    assert question.first_used and "first used " + question.first_used in question.text()
    # unanswered, the set never opens on the shared store (and asks again next time)
    assert store_of(second) != question.store and stored(second) == 0
    assert context.store_question(second) is not None


def test_separate_gives_the_second_gold_a_store_of_its_own(home, files):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    context.store_question(second)
    context.choose_store(second, "separate")
    digest = upload_stores.gold_digest(second.gold)
    assert store_of(second) == stores_folder() / f"gold.jsonl.{digest[:8]}.judgments.duckdb"
    assert stored(second) == 0
    ws = Workspace.from_files(second.gold, list(second.runs))
    assert "keyed by the gold file's name and content (a store of its own)." in store_place(ws)
    ws.con.close()
    grade(second, "x")
    assert (stored(first), stored(second)) == (1, 1)  # nothing mixed, nothing lost
    # the same gold B in another set (another run): its own store again, unasked
    again = upload(files["b"], files["run2"])
    assert context.store_question(again) is None
    assert store_of(again) == store_of(second) and stored(again) == 1


def test_use_counts_the_stored_grades_and_is_not_asked_again(home, files):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    context.store_question(second)
    context.choose_store(second, "shared")
    assert store_of(second) == store_of(first) and stored(second) == 1
    again = upload(files["b"], files["run2"])  # gold B is now one of the store's golds
    assert context.store_question(again) is None and stored(again) == 1


def test_the_same_gold_uploaded_again_gets_its_store_without_a_question(home, files):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    again = upload(files["a"], files["run2"])
    assert context.store_question(again) is None
    assert store_of(again) == store_of(first) and stored(again) == 1


def test_the_manifest_remembers_the_choice_for_a_link_and_a_restart(home, files):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    context.store_question(second)
    context.choose_store(second, "separate")
    key = context.upload_key(second)
    manifest = json.loads((uploads_folder() / f"{key}.json").read_text())
    assert manifest["store"] == "separate"
    assert manifest["gold_sha256"] == upload_stores.gold_digest(second.gold)
    linked = context.open_upload(key)
    assert context.store_question(linked) is None and store_of(linked) == store_of(second)
    # the uploader saves the set again on every rerun: the choice stays
    upload(files["b"], files["run"])
    assert json.loads((uploads_folder() / f"{key}.json").read_text())["store"] == "separate"


def test_a_store_older_than_the_record_is_asked_about(home, files):
    """A store with judgments but no record of its golds (made before this change): which
    gold made them is unknown, so even the first upload after the change asks."""
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    shared = store_of(first)
    upload_stores.record_path(shared).unlink()
    again = upload(files["a"], files["run2"])
    question = context.store_question(again)
    assert question is not None and question.first_used is None
    assert "made before ragrecall recorded" in question.text()


def test_a_used_store_without_judgments_still_asks_another_gold(home, files):
    """Gold A settled on the store but nothing is graded yet: gold B sharing it unasked
    would mix every grade either project saves later."""
    first = upload(files["a"], files["run"])
    assert context.store_question(first) is None
    question = context.store_question(upload(files["b"], files["run"]))
    assert question is not None and question.judgments == 0
    assert "holds no judgments yet" in question.text()


def test_a_manifest_saved_before_the_choice_existed_is_settled_like_an_upload(home, files):
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    record = second.gold.parent.with_suffix(".json")
    old = {k: v for k, v in json.loads(record.read_text()).items() if k in ("gold", "runs")}
    record.write_text(json.dumps({**old, "grades": [], "corpus": None}))
    assert store_of(second) == store_of(first)  # what it always used, until asked
    linked = context.open_upload(context.upload_key(second))
    assert context.store_question(linked) is not None


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ({"store": "../../etc/passwd"}, "../../etc/passwd"),
        ({"store": "separate", "gold_sha256": "'; DROP TABLE judgments; --"}, "DROP TABLE"),
    ],
)
def test_a_tampered_manifest_is_refused_naming_the_value(home, files, change, shown):
    source = upload(files["a"], files["run"])
    record = source.gold.parent.with_suffix(".json")
    record.write_text(json.dumps({**json.loads(record.read_text()), **change}))
    with pytest.raises(InputError) as error:
        context.open_upload(context.upload_key(source))
    assert [p.value for p in error.value.problems if shown in p.value]


def test_a_hostile_gold_name_is_shown_plainly_and_never_names_a_path(home, files):
    name = "*gold* [x](javascript:alert(1)) <img src=x>.jsonl"
    first = upload(files["a"], files["run"], gold_name=name)
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"], gold_name=name)
    question = context.store_question(second)
    assert question is not None and f"store for {name} already holds" in question.text()
    context.choose_store(second, "separate")
    assert store_of(second).parent == stores_folder()
    safe = upload_store_file(name).removesuffix(".judgments.duckdb")
    assert safe == "_gold___x__javascript_alert_1____img_src_x_.jsonl"
    assert all(p.name.startswith(safe + ".") for p in stores_folder().iterdir())


def test_folder_workspaces_keep_their_own_store(tmp_path, home):
    ws = Workspace.open(tiny(tmp_path / "ws"))
    assert store_path(ws) == tmp_path / "ws" / "judgments.duckdb"
    ws.con.close()


def test_a_rerun_saving_the_uploads_keeps_a_choice_made_meanwhile(home, files, monkeypatch):
    """Every rerun saves the upload set's manifest again, keeping its store choice. A choice
    written between that read and that write (another session's, another server's) was
    written over; the rerun now reads and writes under the manifest's lock."""
    import threading

    source = upload(files["a"], files["run"])
    manifest = context.upload_manifest(source.gold.parent)
    assert context.manifest_store(manifest)[0] is None
    real, chosen = context._store_choice, threading.Event()

    def another_session_chooses():
        upload_stores.choose(manifest, upload_stores.SEPARATE)  # takes the lock
        chosen.set()

    def read_then_let_the_other_choose(record):
        kept = real(record)
        threading.Thread(target=another_session_chooses, daemon=True).start()
        chosen.wait(0.5)  # without the lock, the other writes its choice here
        return kept

    monkeypatch.setattr(context, "_store_choice", read_then_let_the_other_choose)
    upload(files["a"], files["run"])
    assert chosen.wait(5)
    assert context.manifest_store(manifest)[0] == upload_stores.SEPARATE


def test_a_later_upload_of_a_gold_switched_to_its_own_store_follows_that_switch(home, files):
    """Gold A settled on the shared store, then the user switched it to a store of its own
    (the sidebar's change). The shared store's record still lists A's content, which used
    to settle a new upload of A on the shared store unasked: grades saved there would count
    what the user moved away from. A new upload of A follows the last choice made for it."""
    first = upload(files["a"], files["run"])
    assert context.store_question(first) is None
    grade(first)
    shared = store_of(first)
    context.choose_store(first, "separate")
    own = store_of(first)
    assert own != shared
    again = upload(files["a"], files["run2"])
    assert context.store_question(again) is None
    assert store_of(again) == own and stored(again) == 0
    # switched back to shared: the next upload of A follows that choice again
    context.choose_store(first, "shared")
    back = upload(files["a"], files["run2"] + b"\n")
    assert context.store_question(back) is None
    assert store_of(back) == shared and stored(back) == 1
    # the set settled before the switch back keeps its own choice; nothing is lost
    assert store_of(again) == own and stored(first) == 1


def test_a_gold_that_chose_its_own_store_then_shared_follows_shared(home, files):
    """Gold B chose a store of its own, then switched to the shared one: its own store's
    file exists, but a new upload of B goes where the user last put it, the shared one."""
    first = upload(files["a"], files["run"])
    context.store_question(first)
    grade(first)
    second = upload(files["b"], files["run"])
    assert context.store_question(second) is not None
    context.choose_store(second, "separate")
    grade(second, "x")
    context.choose_store(second, "shared")
    again = upload(files["b"], files["run2"])
    assert context.store_question(again) is None
    assert store_of(again) == store_of(first) and stored(again) == 1
