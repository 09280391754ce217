"""AppTest: the Judge and Agreement pages (seed 002 pooling, seed 000 blind 2/1/0 judging).

Seed 002 (SPEC "Measures"): gold judges A relevant, B and C not; runs old [A, B, C] and
new [D, B, E]. Before judging P@3 old 1/3, new 0/3 (Judged@3 1/3); the pool is {D, E};
once D and E are judged relevant (2): P@3 old 1/3, new 2/3.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from ragrecall_app.agreement import REVIEW_TITLE
from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import export_grades, store_path, stored_judgments, submit
from ragrecall_core.views.agreement_view import IMPORT_CAPTION
from tests.dashboard_support import app, no_exception, table, tables

JUDGE = "pages/judge.py"
AGREEMENT = "pages/agreement.py"
OVERVIEW = "pages/overview.py"
SCORES = ("0.9", "0.8", "0.7")


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def ranked(chunks: str) -> list[dict]:
    return [
        {
            "id": "q1",
            "retrieved": [
                {"chunk_id": c, "rank": i + 1, "score": 0.9 - i / 10} for i, c in enumerate(chunks)
            ],
        }
    ]


def seed002(folder: Path) -> Path:
    write_jsonl(
        folder / "gold.jsonl",
        [
            {
                "id": "q1",
                "query": "how do I cancel an order?",
                "relevant_ids": ["A"],
                "grades": {"A": 1, "B": 0, "C": 0},
            }
        ],
    )
    write_jsonl(folder / "runs" / "old.jsonl", ranked("ABC"))
    write_jsonl(folder / "runs" / "new.jsonl", ranked("DBE"))
    write_jsonl(
        folder / "corpus.jsonl",
        [{"chunk_id": c, "doc_id": c, "text": f"text of chunk {c}"} for c in "ABCDE"],
    )
    return folder


def frame(at, *columns: str):
    """The first grid (a table without selection keeps no key), else the first static table
    as the reader sees it (the Agreement page's), with these columns."""
    for found in [df.value for df in at.dataframe] + tables(at):
        if set(columns) <= set(found.columns):
            return found
    raise AssertionError(f"no table with columns {columns}")


def headline(at) -> dict[str, dict]:
    return {row["run"]: row for row in table(at).to_dict("records")}


def shown_chunk(at) -> str | None:
    """The chunk id the Judge page shows now (None when nothing is shown)."""
    for caption in at.caption:
        m = re.fullmatch(r"Chunk id: (.+)", caption.value.replace("\\", ""))
        if m:
            return m.group(1)
    return None


def visible_text(at) -> str:
    parts = [e.value for e in (*at.text, *at.markdown, *at.caption, *at.subheader)]
    return "\n".join(str(p) for p in parts)


def button_keys(at) -> set[str]:
    return {b.key for b in at.button}


def judge_all(at, grade: int = 2, limit: int = 10) -> list[str]:
    judged = []
    while (chunk := shown_chunk(at)) is not None and len(judged) < limit:
        judged.append(chunk)
        at.button(key=f"judge_grade_{grade}").click().run()
        no_exception(at)
    return judged


def test_seed002_end_to_end_through_the_judge_page(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch)
    no_exception(at)
    before = headline(at)
    assert before["new"]["P@3"].startswith("0.000") and before["new"]["Judged@3"].startswith(
        "0.333"
    )

    at.switch_page(JUDGE).run()
    no_exception(at)
    at.text_input(key="judge_annotator").input("anna").run()
    no_exception(at)
    assert at.get("progress")[0].proto.text == "0 of 2 pooled chunks judged by anna"
    # blind: the query and the chunk text, never the run, its rank or its score
    text = visible_text(at)
    assert "how do I cancel an order?" in text and "text of chunk" in text
    assert not re.search(r"\b(old|new)\b", text) and not any(s in text for s in SCORES)

    judged = judge_all(at, grade=2)
    assert sorted(judged) == ["D", "E"]  # the pool is exactly {D, E}
    assert at.get("progress")[0].proto.text == "2 of 2 pooled chunks judged by anna"
    assert "Nothing left to judge" in at.success[0].value

    # the judgments apply to evaluation: P@3 old 1/3, new 2/3 (seed 002)
    ws = Workspace.open(folder)
    js.open_store(ws)
    ev = evaluate(ws, ["P@3", "Judged@3"])
    assert ev.value("old", "P@3") == pytest.approx(1 / 3)
    assert ev.value("new", "P@3") == pytest.approx(2 / 3)
    assert ev.value("new", "Judged@3") == pytest.approx(1.0)
    ws.con.close()

    # ... and on the dashboard: the cached evaluation frames were invalidated
    at.switch_page(OVERVIEW).run()
    no_exception(at)
    after = headline(at)
    assert after["old"]["P@3"].startswith("0.333")
    assert after["new"]["P@3"].startswith("0.667")
    assert after["new"]["Judged@3"].startswith("1.000")

    # D and E are gold gap candidates now (graded relevant, missing from gold)
    at.switch_page(AGREEMENT).run()
    no_exception(at)
    gaps = frame(at, "chunk_id", "kind")
    assert sorted(gaps["chunk_id"]) == ["D", "E"]
    assert set(gaps["kind"]) == {"graded relevant, missing from gold"}


def test_no_chunk_before_an_annotator_name(tmp_path, monkeypatch):
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    no_exception(at)
    for name in ("", "   "):
        at.text_input(key="judge_annotator").input(name).run()
        no_exception(at)
        assert shown_chunk(at) is None
        assert not {k for k in button_keys(at) if k.startswith("judge_grade")}
        assert "text of chunk" not in visible_text(at)
        assert "how do I cancel" not in visible_text(at)
        assert "Enter your name" in at.info[0].value
    assert not store_path(Workspace.open(tmp_path / "ws")).exists()  # nothing written


def test_a_name_kept_for_model_judges_is_refused_when_typed(tmp_path, monkeypatch):
    """Before, "judge:anna" was taken and the first grade saved was refused; now it is
    refused at once, and no chunk is shown until another name is given."""
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input(" judge:anna").run()
    assert not at.exception
    assert shown_chunk(at) is None
    assert not {k for k in button_keys(at) if k.startswith("judge_grade")}
    assert "kept for model judges" in at.error[0].value
    assert "judge\\:anna" in at.error[0].value  # file-text escaping: the colon escaped
    at.text_input(key="judge_annotator").input("anna").run()
    no_exception(at)
    assert not at.error
    assert shown_chunk(at) is not None
    assert not store_path(Workspace.open(tmp_path / "ws")).exists()  # nothing written


def test_harmful_and_reason_go_with_the_grade(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("boris").run()
    first = shown_chunk(at)
    at.button(key="judge_harmful_button").click().run()
    assert at.session_state["judge_harmful"] is True
    at.pills(key="judge_reason_pick").set_value("answer cut by the chunk boundary").run()
    assert at.text_input(key="judge_reason").value == "answer cut by the chunk boundary"
    at.button(key="judge_grade_1").click().run()
    no_exception(at)
    assert at.session_state["judge_harmful"] is False  # reset for the next chunk
    assert at.text_input(key="judge_reason").value == ""
    second = shown_chunk(at)
    at.button(key="judge_grade_0").click().run()
    ws = Workspace.open(folder)
    js.open_store(ws)
    rows = js.annotator_judgments(ws, "boris").set_index("chunk_id")
    assert rows.loc[first, ["grade", "harmful", "reason"]].tolist() == [
        1,
        True,
        "answer cut by the chunk boundary",
    ]
    assert rows.loc[second, ["grade", "harmful"]].tolist() == [0, False]
    ws.con.close()


def test_resume_where_the_annotator_stopped(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    first = shown_chunk(at)
    at.button(key="judge_grade_2").click().run()
    second = shown_chunk(at)
    assert second != first
    # a new session, the same name: the queue starts at the chunk not judged yet
    again = app(folder, monkeypatch).switch_page(JUDGE).run()
    again.text_input(key="judge_annotator").input("anna").run()
    assert shown_chunk(again) == second
    assert again.get("progress")[0].proto.text == "1 of 2 pooled chunks judged by anna"
    # another annotator judges the same pool independently
    other = app(folder, monkeypatch).switch_page(JUDGE).run()
    other.text_input(key="judge_annotator").input("boris").run()
    assert other.get("progress")[0].proto.text == "0 of 2 pooled chunks judged by boris"


def test_a_double_press_does_not_overwrite_the_next_chunk(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    first = shown_chunk(at)
    ws = at.session_state["_ragrecall_ctx"].ws
    # the press arrives for the chunk already stored (a second key press before the rerun)
    from ragrecall_core.inputs.store import submit

    js.open_store(ws, create=True)
    submit(ws, "q1", first, 2, "anna")
    at.button(key="judge_grade_0").click().run()
    no_exception(at)
    grades = js.annotator_judgments(ws, "anna")
    assert grades.set_index("chunk_id").loc[first, "grade"] == 2
    assert len(grades) == 1


# --- agreement: a hand-checkable two-annotator fixture --------------------------------
# anna 0 1 2 2, boris 0 1 2 1 on four chunks of q1:
#   identical 3/4; p_e = .25*.25 + .25*.5 + .5*.25 = .3125 -> kappa = (.75-.3125)/.6875 = 0.6364
#   linear: observed cost .25 * 1/2 = .125, expected cost .4375 -> 1 - .125/.4375 = 0.7143
ANNA = {"W": 0, "X": 1, "Y": 2, "Z": 2}
BORIS = {"W": 0, "X": 1, "Y": 2, "Z": 1}


def two_annotators(folder: Path) -> Path:
    seed002(folder)
    for name, grades in (("anna", ANNA), ("boris", BORIS)):
        write_jsonl(
            folder / "grades" / f"{name}.jsonl",
            [
                {"query_id": "q1", "chunk_id": c, "grade": g, "annotator": name}
                for c, g in grades.items()
            ],
        )
    return folder


def test_agreement_shows_the_hand_checked_kappa(tmp_path, monkeypatch):
    at = app(two_annotators(tmp_path / "ws"), monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    pairs = frame(at, "annotator A", "annotator B")
    assert len(pairs) == 1
    row = pairs.iloc[0]
    assert (row["annotator A"], row["annotator B"], row["shared chunks"]) == ("anna", "boris", 4)
    assert row["identical share"] == "75.0%"  # a share reads as a percent
    assert row["Cohen's kappa"] == pytest.approx(0.6364, abs=1e-4)
    assert row["linear-weighted kappa"] == pytest.approx(0.7143, abs=1e-4)
    items = frame(at, "grades", "status")
    assert items.to_dict("records") == [
        {"query_id": "q1", "chunk_id": "Z", "grades": "anna: 2, boris: 1", "status": "open"}
    ]


def test_resolving_records_a_resolution_and_keeps_the_grades(tmp_path, monkeypatch):
    folder = two_annotators(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(AGREEMENT)
    at.session_state["agreement_review_open"] = True  # the reading and its form
    at.run()
    assert at.selectbox(key="agreement_pick").value == "q1 · Z"
    # no resolver name: refused, nothing recorded
    at.radio(key="agreement_grade").set_value(1)
    at.button(key="agreement_record").click().run()
    assert "Resolution not recorded" in at.error[0].value
    assert not store_path(Workspace.open(folder)).exists()

    at.radio(key="agreement_grade").set_value(1)
    at.text_input(key="agreement_reason").input("context only: the limit is in Y")
    at.text_input(key="agreement_resolver").input("carol")
    at.button(key="agreement_record").click().run()
    no_exception(at)
    items = frame(at, "grades", "status")
    assert items.loc[0, "status"] == "resolved: 1 by carol"
    history = frame(at, "resolver", "created_at")
    assert history[["grade", "resolver"]].values.tolist() == [[1, "carol"]]
    grades = frame(at, "annotator", "source")
    assert grades[["annotator", "grade"]].values.tolist() == [["anna", 2], ["boris", 1]]

    ws = at.session_state["_ragrecall_ctx"].ws
    current = export_grades(ws)
    assert current.loc[current.chunk_id == "Z", "grade"].tolist() == [2, 1]  # unchanged
    # a second resolution is added beside the first, never overwriting it
    at.radio(key="agreement_grade").set_value(2)
    at.text_input(key="agreement_resolver").input("dan")
    at.button(key="agreement_record").click().run()
    history = frame(at, "resolver", "created_at")
    assert history["resolver"].tolist() == ["carol", "dan"]
    assert frame(at, "grades", "status").loc[0, "status"] == "resolved: 2 by dan"
    path = store_path(ws)
    ws.con.close()  # release the store file to read it directly
    with duckdb.connect(str(path), read_only=True) as con:
        stored = con.execute("SELECT grade, resolver FROM resolutions ORDER BY id").fetchall()
        assert stored == [(1, "carol"), (2, "dan")]
        assert con.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0


def test_the_import_box_sends_its_uploader_only_while_open(tmp_path, monkeypatch):
    """The graded-sheet import is drawn when its box is opened (a closed box's uploader was
    sent and laid out on every visit); open, it is the same uploader and caption."""
    at = app(two_annotators(tmp_path / "ws"), monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    labels = [e.label for e in at.expander]
    assert "Import a graded sheet (JSONL or CSV) from an offline judge" in labels
    assert uploader(at) == [] and IMPORT_CAPTION not in captions(at)
    at.session_state["agreement_import_open"] = True
    at.run()
    no_exception(at)
    assert [u.label for u in uploader(at)] == ["Grades file"]
    assert IMPORT_CAPTION in captions(at)


RESOLVE_KEYS = {"agreement_grade", "agreement_harmful", "agreement_reason", "agreement_resolver"}


def test_the_reading_of_a_disagreement_is_sent_only_while_open(tmp_path, monkeypatch):
    """The disagreement's reading and its resolution form are drawn when their box is
    opened (they were ~15 elements laid out on every visit); open, the box holds the
    disagreement picked: its query and chunk as written, the annotators' grades as read
    from the store, no resolution yet, and the form. Picking another one opens it."""
    folder = two_annotators(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    assert REVIEW_TITLE in [e.label for e in at.expander]
    assert not at.session_state["agreement_review_open"]
    assert not RESOLVE_KEYS & widget_keys(at) and "agreement_record" not in button_keys(at)
    assert len(at.text) == 0
    assert not [t for t in tables(at) if {"annotator", "source"} <= set(t.columns)]

    at.session_state["agreement_review_open"] = True
    at.run()
    no_exception(at)
    assert at.selectbox(key="agreement_pick").value == "q1 · Z"
    ws = at.session_state["_ragrecall_ctx"].ws
    query_text, chunk_text = js.item_text(ws, "q1", "Z")
    assert [t.value for t in at.text] == [
        query_text,
        chunk_text or "(no chunk text: the workspace has no corpus)",
        "No resolution recorded yet.",
    ]
    shown = frame(at, "annotator", "source")
    read = js.item_grades(ws, "q1", "Z")
    assert shown[["annotator", "grade", "source"]].values.tolist() == (
        read[["annotator", "grade", "source"]].values.tolist()
    )
    assert shown["harmful"].tolist() == ["no", "no"]  # a word, not a check box
    assert RESOLVE_KEYS <= widget_keys(at) and "agreement_record" in button_keys(at)


def test_picking_a_disagreement_opens_its_reading(tmp_path, monkeypatch):
    folder = tmp_path / "ws"
    two_annotators(folder)
    write_jsonl(
        folder / "grades" / "carl.jsonl",
        [{"query_id": "q1", "chunk_id": "Y", "grade": 0, "annotator": "carl"}],
    )
    at = app(folder, monkeypatch).switch_page(AGREEMENT).run()
    no_exception(at)
    assert not at.session_state["agreement_review_open"]
    options = at.selectbox(key="agreement_pick").options
    other = next(o for o in options if o != at.selectbox(key="agreement_pick").value)
    at.selectbox(key="agreement_pick").select(other).run()
    no_exception(at)
    assert at.session_state["agreement_review_open"]
    assert RESOLVE_KEYS <= widget_keys(at)


def widget_keys(at) -> set[str]:
    return {w.key for kind in ("radio", "checkbox", "text_input") for w in getattr(at, kind)}


def uploader(at) -> list:
    return [u for u in at.get("file_uploader") if u.key == "agreement_upload"]


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


# --- the annotator's name is confirmed, then shown as text; undo of the last grade ----
def test_the_name_is_confirmed_then_shown_as_text_with_a_way_to_change_it(tmp_path, monkeypatch):
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    assert "judge_start" in button_keys(at)
    at.text_input(key="judge_annotator").input("dora").run()
    no_exception(at)
    # the field has left the page: a key press can no longer rename the annotator
    assert not [t for t in at.text_input if t.key == "judge_annotator"]
    assert any(m.value == "Judging as **dora**" for m in at.markdown)
    assert {"judge_grade_2", "judge_grade_1", "judge_grade_0", "judge_undo"} <= button_keys(at)
    at.button(key="judge_grade_2").click().run()
    ws = at.session_state["_ragrecall_ctx"].ws
    assert set(js.annotator_judgments(ws, "dora")["grade"]) == {2}
    at.button(key="judge_change_name").click().run()
    no_exception(at)
    assert at.text_input(key="judge_annotator").value == "dora"
    assert not {k for k in button_keys(at) if k.startswith("judge_grade")}


def test_the_start_button_confirms_and_a_hostile_name_stays_text(tmp_path, monkeypatch):
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    at.session_state["judge_annotator"] = "**x** <b>y</b>"
    at.button(key="judge_start").click().run()
    no_exception(at)
    shown = [m.value for m in at.markdown if m.value.startswith("Judging as")]
    assert shown == [r"Judging as **\*\*x\*\* \<b\>y\<\/b\>**"]


def test_undo_puts_the_item_back_and_restores_the_measures(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    first = shown_chunk(at)
    at.button(key="judge_grade_2").click().run()
    assert shown_chunk(at) != first
    at.button(key="judge_undo").click().run()
    no_exception(at)
    assert shown_chunk(at) == first  # the queue went back to that item
    assert at.get("progress")[0].proto.text == "0 of 2 pooled chunks judged by anna"
    assert any("back in your queue" in c.value for c in at.caption)
    ws = at.session_state["_ragrecall_ctx"].ws
    assert js.annotator_judgments(ws, "anna").empty
    assert len(stored_judgments(ws)) == 2  # append-only: the grade and its undo
    at.button(key="judge_undo").click().run()
    assert "no stored grade to undo" in at.warning[0].value


def test_undo_restores_a_regrade_and_keeps_another_annotator(tmp_path, monkeypatch):
    folder = seed002(tmp_path / "ws")
    at = app(folder, monkeypatch).switch_page(JUDGE).run()
    ws = at.session_state["_ragrecall_ctx"].ws
    js.open_store(ws, create=True)
    submit(ws, "q1", "D", 0, "anna")
    submit(ws, "q1", "D", 1, "bob")
    submit(ws, "q1", "D", 2, "anna")
    at.text_input(key="judge_annotator").input("anna").run()
    at.button(key="judge_undo").click().run()
    no_exception(at)
    assert any("the grade before it counts again" in c.value for c in at.caption)
    grades = export_grades(ws).set_index("annotator")
    assert grades.loc["anna", "grade"] == 0 and grades.loc["bob", "grade"] == 1
