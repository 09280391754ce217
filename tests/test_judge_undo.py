"""Undo of the last grade (ragrecall_core.inputs.store.undo_last): the store stays
append-only (the undo is a new row), the queue goes back to the item, the measures are as
before the grade, one annotator's undo never touches another's rows, and a failure inside
the undo's transaction loses nothing."""

from __future__ import annotations

import duckdb
import pytest

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import stored_judgments, submit, undo_last
from tests.helpers import write_jsonl
from tests.test_app_judge import seed002


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    js.open_store(workspace, create=True)
    yield workspace
    workspace.con.close()


def grades_of(ws, annotator):
    mine = js.annotator_judgments(ws, annotator)
    return dict(zip(mine.chunk_id, mine.grade, strict=True))


def test_undo_of_a_first_grade_withdraws_it_and_the_item_comes_back(ws):
    before = evaluate(ws, ["P@3"]).value("new", "P@3")
    first = js.queue(ws, "anna", ["new"], 3, None, 3).current()
    submit(ws, first["query_id"], first["chunk_id"], 2, "anna")
    assert evaluate(ws, ["P@3"]).value("new", "P@3") != before
    assert undo_last(ws, "anna") == (first["query_id"], first["chunk_id"])
    assert grades_of(ws, "anna") == {}
    again = js.queue(ws, "anna", ["new"], 3, None, 3)
    assert again.judged == 0 and again.current()["chunk_id"] == first["chunk_id"]
    assert evaluate(ws, ["P@3"]).value("new", "P@3") == before
    assert len(stored_judgments(ws)) == 2  # append-only: the grade and its undo


def test_undo_restores_the_previous_grade(ws):
    submit(ws, "q1", "D", 0, "anna")
    submit(ws, "q1", "D", 2, "anna")
    undo_last(ws, "anna")
    assert grades_of(ws, "anna") == {"D": 0}
    undo_last(ws, "anna")  # then the first grade itself
    assert grades_of(ws, "anna") == {}
    assert undo_last(ws, "anna") is None  # nothing left to undo
    assert len(stored_judgments(ws)) == 4


def test_undo_walks_back_through_several_chunks(ws):
    submit(ws, "q1", "D", 1, "anna", reason="r1")
    submit(ws, "q1", "E", 0, "anna")
    assert undo_last(ws, "anna") == ("q1", "E")
    assert undo_last(ws, "anna") == ("q1", "D")
    assert grades_of(ws, "anna") == {}
    submit(ws, "q1", "E", 2, "anna")  # a grade after undos is undone first
    assert undo_last(ws, "anna") == ("q1", "E")


def test_undo_by_one_annotator_never_touches_another(ws):
    submit(ws, "q1", "D", 2, "anna")
    submit(ws, "q1", "D", 0, "bob")
    undo_last(ws, "anna")
    assert grades_of(ws, "bob") == {"D": 0}
    assert grades_of(ws, "anna") == {}
    bobs = stored_judgments(ws, "bob")
    assert len(bobs) == 1 and not bobs["withdrawn"].any()
    assert undo_last(ws, "carl") is None


def test_a_withdrawn_stored_grade_lets_the_file_grade_count_again(tmp_path):
    folder = seed002(tmp_path / "ws")
    write_jsonl(folder / "grades" / "anna.jsonl", [{"query_id": "q1", "chunk_id": "D", "grade": 1}])
    ws = Workspace.open(folder)
    js.open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    assert grades_of(ws, "anna") == {"D": 2}
    undo_last(ws, "anna")
    assert grades_of(ws, "anna") == {"D": 1}
    assert undo_last(ws, "anna") is None  # a file grade is never undone
    ws.con.close()


def test_a_failure_inside_the_undo_loses_nothing(ws, monkeypatch):
    submit(ws, "q1", "D", 0, "anna")
    submit(ws, "q1", "D", 2, "anna")
    real = ws.cursor

    class Failing:
        def __init__(self, con):
            self.con = con

        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO judgment_store.judgments"):
                raise duckdb.IOException("disk full")
            return self.con.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.con, name)

    monkeypatch.setattr(ws, "cursor", lambda: Failing(real()))
    with pytest.raises(InputError, match="disk full"):  # named, shown by the page
        undo_last(ws, "anna")
    monkeypatch.undo()
    assert grades_of(ws, "anna") == {"D": 2}
    assert len(stored_judgments(ws)) == 2


def test_a_re_imported_sheet_after_an_undo_counts_again(ws, tmp_path):
    path = write_jsonl(
        tmp_path / "sheet.jsonl",
        [{"query_id": "q1", "chunk_id": "D", "grade": 2, "annotator": "anna"}],
    )
    assert js.import_grades(ws, path)["new"].tolist() == [True]
    undo_last(ws, "anna")
    assert grades_of(ws, "anna") == {}
    assert js.import_grades(ws, path)["new"].tolist() == [True]
    assert grades_of(ws, "anna") == {"D": 2}
