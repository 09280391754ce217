"""A name typed on the Judge page that only looks like another annotator's (``Kim`` beside
``grades/kim.jsonl``) is refused when typed, not at the first grade saved."""

from __future__ import annotations

from tests.dashboard_support import app, no_exception
from tests.test_app_judge import JUDGE, button_keys, seed002, shown_chunk, write_jsonl


def test_a_look_alike_name_is_refused_when_typed(tmp_path, monkeypatch):
    ws = seed002(tmp_path / "ws")
    write_jsonl(
        ws / "grades" / "kim.jsonl",
        [{"query_id": "q1", "chunk_id": "D", "grade": 2, "annotator": "kim"}],
    )
    at = app(ws, monkeypatch).switch_page(JUDGE).run()
    at.text_input(key="judge_annotator").input("Kim").run()
    assert not at.exception
    assert shown_chunk(at) is None
    assert not {k for k in button_keys(at) if k.startswith("judge_grade")}
    (error,) = at.error
    assert "differing only in case" in error.value and "kim" in error.value
    at.text_input(key="judge_annotator").input("kim").run()
    no_exception(at)
    assert not at.error
    assert shown_chunk(at) is not None
