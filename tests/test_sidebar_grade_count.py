"""The sidebar counts the reviewers' grades the evaluation counts (stop 52).

It counted only the grades files: a workspace whose grades were all saved by the Judge page
(its judgment store) read "0 manual grades" and "No manual grades." beside a policy line
saying reviewers' grades are "used". The count is now the one of ``all_grades``, the view
the policy's judgments read: files' grades and stored ones, each annotator's latest stored
grade in place of their file grade of the same chunk, an undone first grade not at all.

The workspace is tests/test_report_view.py's ``tiny`` (no grades file); its q2 retrieved
x, y and z.
"""

from __future__ import annotations

import json

from ragrecall_app.context import CTX
from ragrecall_core import Workspace
from ragrecall_core.inputs.store import record_judge_run, submit, submit_judge_grade, undo_last
from ragrecall_core.inputs.workspace import workspace_facts
from tests.dashboard_support import app, no_exception, unescaped_text
from tests.test_report_view import tiny

QUERIES = "pages/queries.py"
NONE_NOTE = "no manual grades"


def counts(at) -> str:
    """The sidebar's line of counts."""
    (line,) = [c.value for c in at.sidebar.caption if "manual grade" in c.value]
    return line


def notes(at) -> str:
    """The page's note of what the workspace lacks (``render.notes``: one info block)."""
    return " ".join(unescaped_text(i.value) for i in at.info).lower()


def policy_line(at) -> str:
    (line,) = [unescaped_text(c.value) for c in at.caption if c.value.startswith("Policy")]
    return line


def stored(folder, *grades: tuple[str, str, int, str]):
    """``grades`` saved in ``folder``'s judgment store before any session opens it."""
    ws = Workspace.open(folder)
    for query_id, chunk_id, grade, annotator in grades:
        submit(ws, query_id, chunk_id, grade, annotator)
    return ws


def test_stored_grades_alone_are_counted_and_named(tmp_path, monkeypatch):
    folder = tiny(tmp_path / "ws")
    stored(folder, ("q2", "x", 2, "rita"), ("q2", "y", 0, "rita"), ("q2", "x", 1, "sam"))
    at = app(folder, monkeypatch).switch_page(QUERIES).run()
    no_exception(at)
    assert "3 manual grades" in counts(at), counts(at)
    assert NONE_NOTE not in notes(at), notes(at)
    assert "reviewers' grades used" in policy_line(at)
    assert "none loaded" not in policy_line(at)


def test_a_grade_stored_during_the_session_is_counted_on_the_next_run(tmp_path, monkeypatch):
    at = app(tiny(tmp_path / "ws"), monkeypatch).switch_page(QUERIES).run()
    no_exception(at)
    assert "0 manual grades" in counts(at) and NONE_NOTE in notes(at)
    submit(at.session_state[CTX].ws, "q2", "x", 2, "rita")
    at.run()
    no_exception(at)
    assert "1 manual grade" in counts(at) and "1 manual grades" not in counts(at)
    assert NONE_NOTE not in notes(at)


def test_a_workspace_without_any_grade_still_says_so(tmp_path, monkeypatch):
    at = app(tiny(tmp_path / "ws"), monkeypatch).switch_page(QUERIES).run()
    no_exception(at)
    assert "0 manual grades" in counts(at)
    assert NONE_NOTE in notes(at)
    assert "none loaded" in policy_line(at)


def test_an_undone_first_grade_counts_no_more(tmp_path, monkeypatch):
    folder = tiny(tmp_path / "ws")
    ws = stored(folder, ("q2", "x", 2, "rita"))
    assert undo_last(ws, "rita") == ("q2", "x")
    assert workspace_facts(ws).grades == 0
    at = app(folder, monkeypatch).switch_page(QUERIES).run()
    no_exception(at)
    assert "0 manual grades" in counts(at) and NONE_NOTE in notes(at)


def test_a_stored_regrade_of_a_file_grade_is_one_grade(tmp_path):
    """The annotator's stored grade replaces their file grade of the same chunk, as the
    evaluation reads it: one grade, not two; another annotator's file grade stays."""
    folder = tiny(tmp_path / "ws")
    (folder / "grades").mkdir()
    rows = [
        {"query_id": "q2", "chunk_id": "x", "grade": 0, "annotator": "rita"},
        {"query_id": "q2", "chunk_id": "y", "grade": 1, "annotator": "sam"},
    ]
    (folder / "grades" / "reviews.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ws = Workspace.open(folder)
    assert workspace_facts(ws).grades == 2
    submit(ws, "q2", "x", 2, "rita")
    assert workspace_facts(ws).grades == 2
    submit(ws, "q2", "z", 1, "rita")
    assert workspace_facts(ws).grades == 3


def test_a_stored_judge_grade_is_a_judge_grade_never_a_manual_one(tmp_path):
    """``ragrecall judge`` stores a model judge's grades: counted apart, as in files."""
    ws = stored(tiny(tmp_path / "ws"), ("q2", "x", 2, "rita"))
    run = record_judge_run(ws, "judge:minilm", "minilm", "{}", None, None)
    submit_judge_grade(ws, "q2", "y", 1, "judge:minilm", run)
    facts = workspace_facts(ws)
    assert (facts.grades, facts.judge_grades) == (1, 1)
