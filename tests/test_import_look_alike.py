"""An imported grades sheet naming ``Kim`` beside a stored ``kim`` (or beside a grades
file's ``kim``, or both spellings in the sheet itself) was stored as a second annotator,
though the store's saves and the grades files refuse such a look-alike (stop 49): one rule,
now on the import's path too, naming the sheet; nothing of a refused sheet is stored."""

from __future__ import annotations

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import export_grades, store_path, submit
from tests.helpers import write_text
from tests.test_app_judge import seed002

HEADER = "query_id,chunk_id,grade,harmful,reason,annotator\n"


def refused(call) -> str:
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


def annotators(ws: Workspace) -> list[str]:
    return sorted(set(export_grades(ws)["annotator"]))


@pytest.mark.parametrize("name", ["Kim", "KIM", " Kim ", "KiM"])
def test_an_import_naming_a_look_alike_of_a_stored_annotator_is_refused(tmp_path, name):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    submit(ws, "q1", "A", 1, "kim")
    sheet = write_text(tmp_path / "sheet.csv", HEADER + f"q1,D,2,false,,{name}\n")
    text = refused(lambda: js.import_grades(ws, sheet))
    assert str(sheet) in text and "'kim' in the judgment store" in text
    assert annotators(ws) == ["kim"] and len(export_grades(ws)) == 1  # nothing added
    ws.con.close()


def test_an_accented_name_in_another_normal_form_is_refused_too(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    submit(ws, "q1", "A", 1, "Ren\u00e9")  # precomposed
    sheet = write_text(tmp_path / "sheet.csv", HEADER + "q1,D,2,false,,Rene\u0301\n")
    text = refused(lambda: js.import_grades(ws, sheet))
    assert "U+0301" in text and "U+00E9" in text
    ws.con.close()


def test_the_same_name_with_spaces_around_it_is_the_same_annotator(tmp_path):
    """``kim `` is stored trimmed, as the store and the grades files trim it: the same
    annotator, not a look-alike."""
    ws = Workspace.open(seed002(tmp_path / "ws"))
    submit(ws, "q1", "A", 1, "kim")
    sheet = write_text(tmp_path / "sheet.csv", HEADER + "q1,D,2,false,,kim \n")
    assert js.import_grades(ws, sheet)["new"].tolist() == [True]
    assert annotators(ws) == ["kim"]
    ws.con.close()


def test_an_import_beside_a_grades_file_s_look_alike_is_refused(tmp_path):
    folder = seed002(tmp_path / "ws")
    write_text(folder / "grades" / "kim.csv", HEADER + "q1,A,1,false,,kim\n")
    ws = Workspace.open(folder)
    sheet = write_text(tmp_path / "sheet.csv", HEADER + "q1,D,2,false,,Kim\n")
    assert "kim.csv" in refused(lambda: js.import_grades(ws, sheet))
    assert not store_path(ws).exists()  # nothing written, not even an empty store
    ws.con.close()


def test_a_sheet_holding_two_spellings_of_one_name_is_refused(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    sheet = write_text(tmp_path / "sheet.csv", HEADER + "q1,D,2,false,,kim\nq1,E,1,false,,Kim\n")
    text = refused(lambda: js.import_grades(ws, sheet))
    assert "'Kim'" in text and "'kim'" in text
    ws.con.close()


def test_every_look_alike_of_a_sheet_is_named_at_once(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    submit(ws, "q1", "A", 1, "kim")
    submit(ws, "q1", "B", 0, "lee")
    sheet = write_text(tmp_path / "sheet.csv", HEADER + "q1,D,2,false,,Kim\nq1,E,1,false,,LEE\n")
    text = refused(lambda: js.import_grades(ws, sheet))
    assert "'Kim'" in text and "'LEE'" in text
    ws.con.close()
