"""The judgment stores never lose a grade and never crash a page (issue 10, item 7).

Attacks: a read-only workspace that holds a ``judgments.duckdb`` (tried as a real non-root
user, since root writes through ``chmod a-w``); a corrupt or truncated store; grades made
on uploaded files, then an edited gold uploaded again; one annotator submitting the same
chunk from two tabs at once; annotator names, reasons and chunk text that are markup.

Workspace (seed 002's shape): gold judges A relevant, B and C not; runs old [A, B, C] and
new [D, B, E]. P@3 of new is 0 until a reviewer grades D or E 2; with D graded 2 it is 1/3.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import duckdb
import pytest
from markdown_it import MarkdownIt

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import export_grades, store_path, stored_judgments, submit
from ragrecall_core.output.literal import NO_LINK
from tests.dashboard_support import (
    APP,
    ROOT,
    app,
    markdown_frame,
    no_exception,
    table,
    tables,
    unescaped_text,
)
from tests.helpers import write_jsonl

JUDGE = "pages/judge.py"
AGREEMENT = "pages/agreement.py"
OVERVIEW = "pages/overview.py"


def ranked(query_id: str, chunks: str) -> dict:
    return {
        "id": query_id,
        "retrieved": [
            {"chunk_id": c, "rank": i + 1, "score": 0.9 - i / 10} for i, c in enumerate(chunks)
        ],
    }


GOLD = [
    {
        "id": "q1",
        "query": "how do I cancel an order?",
        "relevant_ids": ["A"],
        "grades": {"A": 1, "B": 0, "C": 0},
    }
]


def seed002(folder: Path, gold: list[dict] = GOLD) -> Path:
    write_jsonl(folder / "gold.jsonl", gold)
    write_jsonl(folder / "runs" / "old.jsonl", [ranked("q1", "ABC")])
    write_jsonl(folder / "runs" / "new.jsonl", [ranked("q1", "DBE")])
    write_jsonl(
        folder / "corpus.jsonl",
        [{"chunk_id": c, "doc_id": c, "text": f"text of chunk {c}"} for c in "ABCDE"],
    )
    return folder


def store_with_grade(folder: Path) -> Path:
    """anna graded D relevant (2) on the Judge page; the store is closed again."""
    ws = Workspace.open(folder)
    js.open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    path = store_path(ws)
    ws.con.close()
    return path


def p3(folder: Path) -> float:
    ws = Workspace.open(folder)
    js.connect_store(ws)
    value = evaluate(ws, ["P@3"]).value("new", "P@3")
    ws.con.close()
    return value


def grade_buttons(at) -> list:
    return [b for b in at.button if (b.key or "").startswith("judge_grade_")]


# ---------------------------------------------------------------- read-only workspace
READ_ONLY_VISIT = """
import json, sys
from streamlit.testing.v1 import AppTest
from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import submit

folder, app_file = sys.argv[1], sys.argv[2]
out = {}
try:
    open(folder + "/probe", "w")
    out["probe"] = "written"
except OSError as error:
    out["probe"] = f"OSError {error.errno}"
ws = Workspace.open(folder)
status = js.connect_store(ws)
out["status"] = [status.attached, status.writable, status.problem]
out["p3"] = evaluate(ws, ["P@3"]).value("new", "P@3")
try:
    submit(ws, "q1", "E", 2, "boris")
    out["submit"] = "stored"
except InputError as error:
    out["submit"] = str(error)
ws.con.close()

pages = {}
at = AppTest.from_file(app_file, default_timeout=60).run()
for page in ("pages/overview.py", "pages/judge.py", "pages/agreement.py"):
    at.switch_page(page).run()
    if page == "pages/judge.py":
        at.text_input(key="judge_annotator").input("boris").run()
    if page == "pages/agreement.py":  # the reading and its form are drawn while open
        at.session_state["agreement_review_open"] = True
        at.run()
    pages[page] = {
        "exceptions": [e.value for e in at.exception],
        "errors": [e.value for e in at.error],
        "warnings": [e.value for e in at.warning],
        "texts": [e.value for e in at.text],
        "grade_buttons": [
            b.disabled for b in at.button if (b.key or "").startswith("judge_grade_")
        ],
        "record_disabled": [b.disabled for b in at.button if b.key == "agreement_record"],
        # the headline table's Markdown (a table is drawn from it)
        "headline": next(m.value for m in at.markdown if m.value.startswith("| run |"))
        if page.endswith("overview.py")
        else None,
    }
out["pages"] = pages
print(json.dumps(out, default=str))
"""


def make_read_only(folder: Path) -> None:
    """``chmod -R a-w`` (directories stay listable and readable)."""
    for path in (*folder.rglob("*"), folder):
        mode = path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        path.chmod(mode)


def on_read_only_mount(code: str, folder: Path, *args: str, home: Path) -> dict:
    """Run ``code`` with ``folder`` mounted read-only (a user and mount namespace: no change
    outside the process). Tests run as root, whom ``chmod a-w`` does not stop; a read-only
    mount stops everyone, as a read-only share or volume would."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "RAGRECALL_WORKSPACE": str(folder),
        "RAGRECALL_HOME": str(home / "ragrecall"),
    }
    mount = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'
    command = ["sh", "-c", mount, "sh", str(folder), sys.executable, "-c", code, *args]
    proc = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", *command],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_read_only_workspace_opens_for_viewing_with_judging_off(tmp_path):
    folder = seed002(tmp_path / "ws")
    disagreement = [
        {"query_id": "q1", "chunk_id": "Z", "grade": g, "annotator": a}
        for a, g in (("carol", 2), ("dan", 0))
    ]
    write_jsonl(folder / "grades" / "file.jsonl", disagreement)
    store_with_grade(folder)
    home = tmp_path / "home"
    home.mkdir()
    make_read_only(folder)
    try:
        out = on_read_only_mount(READ_ONLY_VISIT, folder, str(folder), APP, home=home)
    finally:
        for path in (folder, *folder.rglob("*")):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert out["probe"].startswith("OSError")  # the folder really refuses a write

    attached, writable, problem = out["status"]
    assert (attached, writable, problem) == (True, False, "")
    assert out["p3"] == pytest.approx(1 / 3)  # anna's stored grade still counts
    assert "cannot be written" in out["submit"] and "judgments.duckdb" in out["submit"]
    for page, seen in out["pages"].items():
        assert seen["exceptions"] == [] and seen["errors"] == [], (page, seen)
    headline = markdown_frame(out["pages"][OVERVIEW]["headline"])
    overview = {row["run"]: row for row in headline.to_dict("records")}
    assert unescaped_text(overview["new"]["P@3"]).startswith("0.333")
    for seen in out["pages"].values():  # Markdown-escaped text, read as plain text
        seen["warnings"] = [w.replace("\\", "") for w in seen["warnings"]]
    judge = out["pages"][JUDGE]
    assert judge["grade_buttons"] == [True, True, True]  # shown, but disabled
    assert any("read-only" in w and "judging is off" in w for w in judge["warnings"]), judge
    assert any(str(folder / "judgments.duckdb") in t for t in judge["texts"]), judge
    assert out["pages"][AGREEMENT]["record_disabled"] == [True]
    assert any("read-only" in w for w in out["pages"][AGREEMENT]["warnings"])
    # nothing was written: still the one grade
    assert sorted(p.name for p in folder.iterdir()) == [
        "corpus.jsonl",
        "gold.jsonl",
        "grades",
        "judgments.duckdb",
        "runs",
    ]
    with duckdb.connect(str(folder / "judgments.duckdb"), read_only=True) as con:
        assert con.execute("SELECT annotator, grade FROM judgments").fetchall() == [("anna", 2)]


# ---------------------------------------------------------------- corrupt store
def garbage(path: Path) -> None:
    path.write_bytes(b"\x00garbage, not a database\xff" * 200)


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def emptied(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [garbage, truncated, emptied])
def test_a_corrupt_store_is_refused_with_one_message_and_nothing_deleted(
    tmp_path, monkeypatch, damage
):
    folder = seed002(tmp_path / "ws")
    path = store_with_grade(folder)
    damage(path)
    before = path.read_bytes()

    ws = Workspace.open(folder)
    status = js.connect_store(ws)
    assert not status.attached and not status.writable
    assert str(path) in status.problem and "move the file aside" in status.problem
    assert "Traceback" not in status.problem and len(status.problem.splitlines()) == 1
    assert evaluate(ws, ["P@3"]).value("new", "P@3") == pytest.approx(0.0)  # file grades only
    with pytest.raises(InputError) as error:
        submit(ws, "q1", "E", 2, "boris")
    assert str(path) in str(error.value)
    with pytest.raises(InputError):
        js.open_store(ws, create=True)
    ws.con.close()
    assert path.read_bytes() == before  # never deleted, never rewritten

    at = app(folder, monkeypatch)
    no_exception(at)
    assert any(str(path) in w.value.replace("\\", "") for w in at.warning)
    at.switch_page(JUDGE).run()
    assert not at.exception
    at.text_input(key="judge_annotator").input("boris").run()
    assert not at.exception
    assert all(b.disabled for b in grade_buttons(at)) and grade_buttons(at)
    at.switch_page(AGREEMENT).run()
    assert not at.exception
    assert path.read_bytes() == before


# ---------------------------------------------------------------- two tabs, one annotator
def test_concurrent_submits_of_one_annotator_are_serialised(tmp_path):
    folder = seed002(tmp_path / "ws")
    ws = Workspace.open(folder)
    js.open_store(ws, create=True)
    outcomes: dict[str, list[bool]] = {f"C{i}": [] for i in range(15)}
    barrier = threading.Barrier(2)

    def tab(grade: int) -> None:
        for chunk in outcomes:
            barrier.wait(timeout=60)
            outcomes[chunk].append(submit(ws, "q1", chunk, grade, "anna", only_if_new=True))

    threads = [threading.Thread(target=tab, args=(g,)) for g in (2, 0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    stored = stored_judgments(ws, "anna")
    ws.con.close()
    # each chunk: exactly one tab stored its grade, the other was told it did not
    assert {c: sorted(o) for c, o in outcomes.items()} == {c: [False, True] for c in outcomes}
    assert stored.groupby("chunk_id").size().to_dict() == {c: 1 for c in outcomes}


def test_the_second_tab_is_told_its_grade_was_not_saved(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    tabs = [app(folder, monkeypatch).switch_page(JUDGE).run() for _ in range(2)]
    for at in tabs:
        at.text_input(key="judge_annotator").input("anna").run()
    first, second = tabs
    first.button(key="judge_grade_2").click().run()
    no_exception(first)
    second.button(key="judge_grade_0").click().run()
    assert not second.exception
    warned = " ".join(w.value for w in second.warning)
    assert "not saved" in warned and "already" in warned
    assert not any("Saved grade" in c.value for c in second.caption)
    ws = first.session_state["_ragrecall_ctx"].ws
    assert stored_judgments(ws, "anna")["grade"].tolist() == [2]  # the first grade stands


# ---------------------------------------------------------------- uploaded files
def uploaded(at, gold: bytes) -> None:
    run_old = json.dumps(ranked("q1", "ABC")).encode() + b"\n"
    run_new = json.dumps(ranked("q1", "DBE")).encode() + b"\n"
    at.file_uploader(key="side_up_gold").upload("gold.jsonl", gold)
    at.file_uploader(key="side_up_runs").upload("old.jsonl", run_old).upload("new.jsonl", run_new)
    # blind judging needs chunk text: the corpus goes up with them
    corpus = [{"chunk_id": c, "doc_id": c, "text": f"text of chunk {c}"} for c in "ABCDE"]
    at.file_uploader(key="side_up_corpus").upload("corpus.jsonl", jsonl(corpus))
    at.run()


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_grades_on_uploaded_files_survive_an_edited_gold(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    elsewhere = seed002(tmp_path / "other")  # the sidebar's folder, replaced by the uploads

    at = app(elsewhere, monkeypatch)
    uploaded(at, jsonl(GOLD))
    no_exception(at)
    at.switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    no_exception(at)
    shown = [t.value for t in at.main.text if "judgments.duckdb" in t.value]  # not the sidebar
    assert len(shown) == 1 and str(home) in shown[0], [t.value for t in at.text]
    store = Path(re.search(r"stored in (\S+\.judgments\.duckdb)", shown[0]).group(1))
    graded = []
    while grade_buttons(at) and len(graded) < 5:
        graded.append(at.session_state["_ragrecall_ctx"].ws)
        at.button(key="judge_grade_2").click().run()
        no_exception(at)
    assert len(graded) == 2  # D and E
    assert store.is_file() and home in store.parents
    assert not (Path(tempfile.gettempdir()) / "ragrecall_uploads").exists() or not any(
        (Path(tempfile.gettempdir()) / "ragrecall_uploads").rglob("gold.jsonl.judgments.duckdb")
    )

    # an edited gold (new query text, a no-answer query added) uploaded again, in a new session
    edited = [{**GOLD[0], "query": "how can an order be cancelled?"}] + [
        {"id": "q2", "query": "opening hours on Sunday?", "relevant_ids": []}
    ]
    again = app(elsewhere, monkeypatch)
    uploaded(again, jsonl(edited))
    no_exception(again)
    # another gold of the same name: asked first (tests/test_app_store_question.py), then
    # "use it" attaches the store of its name
    (asked,) = [r for r in again.radio if (r.key or "").startswith("store_choice_")]
    assert asked.value is None
    asked.set_value("shared").run()
    no_exception(again)
    ws = again.session_state["_ragrecall_ctx"].ws
    assert store_path(ws) == store
    exported = export_grades(ws)
    assert sorted(exported.loc[exported.annotator == "anna", "chunk_id"]) == ["D", "E"]
    again.switch_page(OVERVIEW).run()
    no_exception(again)
    headline = {r["run"]: r for r in table(again).to_dict("records")}
    assert headline["new"]["P@3"].startswith("0.667")  # D and E still count for q1
    # the uploads live under RAGRECALL_HOME, both versions kept
    golds = sorted(p.read_bytes() for p in (home / "uploads").rglob("gold.jsonl"))
    assert golds == sorted([jsonl(GOLD), jsonl(edited)])


# ---------------------------------------------------------------- markup
LINK = "[x](https://evil.example)"
HOSTILE = f"{LINK} <img src=x> ![i](https://evil.example/i.png)"
FORBIDDEN_TOKENS = {"link_open", "image", "html_inline", "html_block"}


def markdown_hazards(text: str) -> list[str]:
    """What Markdown rendering would turn ``text`` into besides text (a bare URL is a GFM
    autolink, so an unescaped one counts too)."""
    tokens = MarkdownIt("commonmark").parse(text)
    found = [t.type for t in tokens if t.type in FORBIDDEN_TOKENS]
    for token in tokens:
        found += [c.type for c in token.children or [] if c.type in FORBIDDEN_TOKENS]
    return found + (["autolink"] if "https://evil" in text else [])


def rendered_markdown(at) -> list[str]:
    """Every string the page hands to Streamlit's Markdown renderer."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption"):
        texts += [e.value for e in at.get(kind)]
    for kind in ("info", "warning", "success", "error"):
        texts += [e.value for e in at.get(kind)]
    texts += [e.label for e in at.get("expander")]
    for kind in ("selectbox", "multiselect", "button", "radio", "text_input", "checkbox"):
        texts += [e.label for e in at.get(kind)]
    texts += [e.proto.text for e in at.get("progress")]
    texts += [str(o) for e in at.get("radio") for o in e.options]
    texts += [str(o) for e in at.get("button_group") for o in e.options]
    return texts


def hostile_grades_workspace(folder: Path) -> Path:
    seed002(folder)
    write_jsonl(
        folder / "corpus.jsonl",
        [{"chunk_id": c, "doc_id": c, "text": f"{HOSTILE} chunk {c}"} for c in "ABCDE"],
    )
    write_jsonl(
        folder / "grades" / "g.jsonl",
        [
            {
                "query_id": "q1",
                "chunk_id": "Z",
                "grade": 2,
                "annotator": HOSTILE,
                "reason": HOSTILE,
            },
            {"query_id": "q1", "chunk_id": "Z", "grade": 0, "annotator": "boris", "reason": LINK},
        ],
    )
    return folder


def test_annotators_reasons_and_chunk_text_are_never_live_markup(tmp_path, monkeypatch):
    folder = hostile_grades_workspace(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input(HOSTILE).run()
    no_exception(at)
    assert any(HOSTILE in t.value for t in at.text)  # the chunk, as written
    reasons = [o for e in at.get("button_group") for o in e.options]
    assert any("evil" in str(o) for o in reasons)  # the hostile reason is offered ...
    at.pills(key="judge_reason_pick").set_value(HOSTILE).run()
    assert at.text_input(key="judge_reason").value == HOSTILE  # ... and fills it unescaped
    at.button(key="judge_grade_1").click().run()
    no_exception(at)
    hazards = {t: markdown_hazards(t) for t in rendered_markdown(at) if markdown_hazards(t)}
    assert not hazards, hazards

    at.session_state["agreement_review_open"] = True  # the reading and its form
    at.switch_page(AGREEMENT).run()
    no_exception(at)
    at.radio(key="agreement_grade").set_value(2)
    at.text_input(key="agreement_reason").input(HOSTILE)
    at.text_input(key="agreement_resolver").input(HOSTILE)
    at.button(key="agreement_record").click().run()
    no_exception(at)
    texts = rendered_markdown(at)
    grades = next(t for t in tables(at) if {"annotator", "reason"} <= set(t.columns))
    said = {v.replace(NO_LINK, "") for v in (*grades["annotator"], *grades["reason"])}
    assert HOSTILE in said  # as written, in a static table (the joiner keeps a URL unlinked)
    hazards = {t: markdown_hazards(t) for t in texts if markdown_hazards(t)}
    assert not hazards, hazards


# ---------------------------------------------------------------- a store held elsewhere
HOLD_STORE = """
import sys, time, duckdb
con = duckdb.connect()
con.execute("ATTACH $p AS s", {"p": sys.argv[1]})
print("holding", flush=True)
time.sleep(120)
"""


def test_a_store_held_by_another_process_is_named_and_the_page_opens(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    path = store_with_grade(folder)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_STORE, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "holding\n"
        ws = Workspace.open(folder)
        status = js.connect_store(ws)
        assert str(path) in status.problem and "no other process holds" in status.problem
        with pytest.raises(InputError):
            submit(ws, "q1", "E", 2, "boris")
        ws.con.close()
        at = app(folder, monkeypatch).switch_page(JUDGE).run()
        assert not at.exception
        at.text_input(key="judge_annotator").input("boris").run()
        assert not at.exception and all(b.disabled for b in grade_buttons(at))
    finally:
        holder.kill()
        holder.wait(timeout=30)


# ---------------------------------------------------------------- upload names
class Upload:
    """What ``st.file_uploader`` returns, as far as save_uploads uses it."""

    def __init__(self, name: str, data: bytes = b"x"):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


@pytest.mark.parametrize(
    "names",
    [("gold.jsonl", "run.jsonl", "run.jsonl"), ("gold.jsonl", ".."), ("", "run.jsonl")],
)
def test_upload_names_that_would_overwrite_or_escape_are_refused(tmp_path, monkeypatch, names):
    from ragrecall_app.context import save_uploads

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    gold, *runs = (Upload(n, f"{i}".encode()) for i, n in enumerate(names))
    with pytest.raises(InputError) as error:
        save_uploads(gold, runs, [], None)
    assert all(p.file == "uploaded files" for p in error.value.problems)
    assert not (tmp_path / "home").exists()  # nothing written


def test_an_uploaded_gold_with_a_hostile_name_keeps_its_store_under_home(tmp_path, monkeypatch):
    from ragrecall_app.context import save_uploads, store_question

    home = tmp_path / "home"
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    source = save_uploads(
        Upload("..\\..\\x [a](b) y.jsonl", jsonl(GOLD)),
        [Upload("old.jsonl", json.dumps(ranked("q1", "ABC")).encode())],
        [],
        None,
    )
    assert store_question(source) is None  # a new store: settled on the one of its name
    ws = Workspace.from_files(source.gold, list(source.runs))
    path = store_path(ws)
    assert path.parent == home / "stores"
    assert path.name == "_.._x__a__b__y.jsonl.judgments.duckdb"
    ws.con.close()
