"""The Judge page on data without chunk text, and where it says the grades go (issue 29).

TREC qrels and a run without a corpus: a judge would grade "(no chunk text)", so blind
judging does not start, and the page names what to provide. Every page states where its
judgment store lives, which for loose files (``--gold``) is beside the gold file.
"""

from __future__ import annotations

from ragrecall_core import Workspace
from ragrecall_core.views.judge_text import no_text_refusal, store_place
from tests.dashboard_support import app, no_exception, trec_workspace, unescaped_text
from tests.test_app_judge import JUDGE, seed002
from tests.test_report_view import tiny


def shown(at) -> str:
    parts = [e.value for e in (*at.text, *at.markdown, *at.caption, *at.warning, *at.info)]
    return "\n".join(unescaped_text(p) for p in parts)


def test_judging_does_not_start_without_chunk_text(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(JUDGE).run()
    no_exception(at)
    refusal = [w.value for w in at.warning if "Blind judging is off" in w.value]
    assert refusal == [no_text_refusal(is_folder=True)]
    assert "corpus.jsonl" in refusal[0] and "`chunk_id`" in refusal[0]
    assert not [t for t in at.text_input if t.key == "judge_annotator"]  # no name, no queue
    assert not [b for b in at.button if (b.key or "").startswith("judge_grade_")]
    assert f"Grades are stored in {tmp_path / 'judgments.duckdb'}" in shown(at)


def test_a_workspace_with_text_still_judges(tmp_path, monkeypatch):
    at = app(seed002(tmp_path / "ws"), monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("anna").run()
    no_exception(at)
    assert not [w for w in at.warning if "Blind judging is off" in w.value]
    assert "judge_grade_2" in {b.key for b in at.button}


def test_the_refusal_names_the_corpus_option_for_loose_files():
    text = no_text_refusal(is_folder=False)
    assert "--corpus FILE" in text and "JSON lines, CSV or Parquet" in text


def test_loose_files_keep_their_grades_beside_the_gold_file(tmp_path):
    folder = tiny(tmp_path / "loose")
    ws = Workspace.from_files(folder / "gold.jsonl", [folder / "runs" / "bm25.jsonl"])
    assert store_place(ws) == (
        f"Grades are stored in {folder / 'gold.jsonl.judgments.duckdb'}: loose files (--gold) "
        "keep their grades beside the gold file, named after it."
    )
    ws.con.close()


def test_uploads_keep_their_grades_under_ragrecall_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    upload = tiny(tmp_path / "home" / "uploads" / "0123456789abcdef")
    ws = Workspace.from_files(upload / "gold.jsonl", [upload / "runs" / "bm25.jsonl"])
    place = store_place(ws)
    assert place.startswith(
        f"Grades are stored in {tmp_path / 'home' / 'stores' / 'gold.jsonl.judgments.duckdb'}"
    )
    assert f"under $RAGRECALL_HOME ({tmp_path / 'home'})" in place
    ws.con.close()
