"""A name typed on the Judge page meets the grades files' names by one rule (stop 48).

Grades files spelling one annotator two ways (``Kim`` and ``kim``, ``René`` precomposed
and with a combining accent) are refused (commit 9439922), but a name typed on the Judge
page was stored whatever it looked like: ``Kim`` judging beside a ``kim.csv`` became a
second annotator, agreeing with the first in the agreement table and voting twice in the
reviewers' median. A save under a name that differs only in case or Unicode normalisation
from an annotator of the loaded grades, or of the store itself, is refused now, naming the
other spelling and where it is; nothing saved before is touched.
"""

from __future__ import annotations

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs.store import stored_judgments, submit
from tests.helpers import write_text
from tests.test_app_judge import seed002

PRECOMPOSED, COMBINING = "Ren\u00e9", "Rene\u0301"


@pytest.fixture
def ws(tmp_path):
    folder = seed002(tmp_path / "ws")
    write_text(folder / "grades" / "kim.csv", "query_id,chunk_id,grade\nq1,A,2\n")
    header = "query_id,chunk_id,grade,harmful,reason,annotator\n"
    write_text(folder / "grades" / "rene.csv", f"{header}q1,B,0,false,,{PRECOMPOSED}\n")
    workspace = Workspace.open(folder)
    yield workspace
    workspace.con.close()


def refused(ws, name: str) -> str:
    with pytest.raises(InputError) as caught:
        submit(ws, "q1", "C", 1, name)
    (problem,) = caught.value.problems
    return str(problem)


@pytest.mark.parametrize(
    ("typed", "other", "where"),
    [("Kim", "'kim'", "kim.csv"), ("KIM", "'kim'", "kim.csv"), (COMBINING, "U+00E9", "rene.csv")],
)
def test_a_look_alike_of_a_grades_files_name_is_refused(ws, typed, other, where):
    said = refused(ws, typed)
    assert other in said and where in said, said
    assert stored_judgments(ws).empty


def test_a_look_alike_of_a_name_in_the_store_is_refused_and_the_grade_kept(ws):
    assert submit(ws, "q1", "A", 2, "anna")
    said = refused(ws, "Anna")
    assert "'anna'" in said and "judgment store" in said, said
    assert stored_judgments(ws)[["annotator", "grade"]].values.tolist() == [["anna", 2]]


@pytest.mark.parametrize("typed", ["kim", " kim ", PRECOMPOSED, "anna"])
def test_the_same_spelling_or_a_new_name_is_saved(ws, typed):
    assert submit(ws, "q1", "C", 1, typed)
    assert stored_judgments(ws)["annotator"].tolist() == [typed.strip()]
