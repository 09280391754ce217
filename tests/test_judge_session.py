"""ragrecall_core.analysis.judge_session: the store opened once per workspace, one
annotator's queue, common reasons, grades export (formula cells neutralised) and import of
a graded sheet."""

from __future__ import annotations

import csv
import io
import json

import duckdb
import pytest

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis import judge_session as js
from ragrecall_core.inputs.store import export_grades, store_path, stored_judgments, submit
from ragrecall_core.views.dashboard_state import Source
from tests.test_app_judge import seed002, write_jsonl


@pytest.fixture
def folder(tmp_path):
    return seed002(tmp_path / "ws")


def test_the_store_is_attached_only_if_it_exists_or_on_a_write(folder):
    ws = Workspace.open(folder)
    assert js.open_store(ws) is False and not store_path(ws).exists()
    assert js.store_version(ws) == "no-store"
    assert js.open_store(ws, create=True) is True and store_path(ws).exists()
    before = js.store_version(ws)
    submit(ws, "q1", "D", 2, "anna")
    assert js.store_version(ws) != before
    ws.con.close()


def test_a_reloaded_workspace_takes_the_store_over(folder):
    old = Workspace.open(folder)
    js.open_store(old, create=True)
    submit(old, "q1", "D", 2, "anna")
    new = Workspace.open(folder)  # e.g. the dashboard reloads after a file changed
    assert js.open_store(new) is True
    assert evaluate(new, ["P@3"]).value("new", "P@3") == pytest.approx(1 / 3)
    # the old object falls back to file grades instead of failing
    assert not js.is_open(old)
    assert len(export_grades(old)) == 0
    assert js.open_store(old) is True  # and can take it back
    assert len(export_grades(old)) == 1


def test_the_store_file_is_no_input_of_the_workspace(folder):
    ws = Workspace.open(folder)
    js.open_store(ws, create=True)
    submit(ws, "q1", "D", 2, "anna")
    names = {p.name for p in Source(workspace=folder).input_files()}
    assert not any(n.startswith("judgments.duckdb") for n in names)
    ws.con.close()


def test_queue_keeps_a_query_together_and_counts_what_is_done(tmp_path):
    write_jsonl(
        tmp_path / "gold.jsonl",
        [{"id": q, "query": f"query {q}", "relevant_ids": ["A"]} for q in ("q1", "q2", "q3")],
    )
    lists = {"q1": "ABCD", "q2": "AEFG", "q3": "AHIJ"}
    write_jsonl(
        tmp_path / "runs" / "r.jsonl",
        [
            {"id": q, "retrieved": [{"chunk_id": c, "rank": i + 1} for i, c in enumerate(cs)]}
            for q, cs in lists.items()
        ],
    )
    ws = Workspace.open(tmp_path)
    q = js.queue(ws, "anna", ["r"], 4, None, 1)
    assert (q.judged, q.size) == (0, 9)
    order = list(q.remaining["query_id"])
    assert [k for i, k in enumerate(order) if i == 0 or order[i - 1] != k] == sorted(
        set(order), key=order.index
    )  # each query's chunks come together
    first = q.current()
    js.open_store(ws, create=True)
    submit(ws, first["query_id"], first["chunk_id"], 0, " anna ")
    after = js.queue(ws, "anna", ["r"], 4, None, 1)
    assert (after.judged, after.size, len(after.remaining)) == (1, 9, 8)
    pairs = lambda q: list(zip(q.remaining.query_id, q.remaining.chunk_id, strict=True))  # noqa: E731
    assert pairs(after) == pairs(q)[1:]  # the order does not move: resume where stopped
    assert js.has_judged(ws, "anna", first["query_id"], first["chunk_id"])
    assert js.queue(ws, "anna", ["r"], 4, ["q2"], 1).size == 3
    assert js.query_subset(ws) is None
    ws.con.close()


def test_common_reasons_put_the_workspace_first_then_seed_000(folder):
    write_jsonl(
        folder / "grades" / "anna.jsonl",
        [{"query_id": "q1", "chunk_id": c, "grade": 0, "reason": "wrong year"} for c in ("D", "E")],
    )
    reasons = js.common_reasons(Workspace.open(folder))
    assert reasons[0] == "wrong year"
    assert reasons[1:] == list(js.TYPICAL_REASONS)


def test_grades_csv_neutralises_formula_cells(folder):
    write_jsonl(
        folder / "grades" / "anna.jsonl",
        [
            {"query_id": "q1", "chunk_id": "D", "grade": 2, "reason": '=HYPERLINK("x")'},
            {
                "query_id": "q1",
                "chunk_id": "E",
                "grade": 0,
                "reason": "-1 version",
                "harmful": True,
            },
            {"query_id": "q1", "chunk_id": "@F", "grade": 1, "reason": "\tindent"},
        ],
    )
    grades = export_grades(Workspace.open(folder))
    rows = {r["chunk_id"]: r for r in csv.DictReader(io.StringIO(js.grades_csv(grades)))}
    assert set(rows) == {"D", "E", "'@F"}  # a chunk id can be a formula too
    assert rows["D"]["reason"] == '\'=HYPERLINK("x")'
    assert rows["E"]["reason"] == "'-1 version" and rows["E"]["harmful"] == "true"
    assert rows["'@F"]["reason"] == "'\tindent" and rows["'@F"]["harmful"] == "false"
    lines = [json.loads(x) for x in js.grades_jsonl(grades).splitlines()]
    assert lines[1] == {
        "query_id": "q1",
        "chunk_id": "D",
        "grade": 2,
        "harmful": False,
        "reason": '=HYPERLINK("x")',
        "annotator": "anna",
    }


def test_an_exported_sheet_imports_back(folder, tmp_path):
    write_jsonl(
        folder / "grades" / "anna.jsonl",
        [
            {"query_id": "q1", "chunk_id": "D", "grade": 2},
            {"query_id": "q1", "chunk_id": "E", "grade": 1},
        ],
    )
    sheet = tmp_path / "anna_offline.csv"
    sheet.write_text(js.grades_csv(export_grades(Workspace.open(folder))).replace(",anna", ",kim"))
    ws = seed002(tmp_path / "other")
    rows = js.import_grades(ws := Workspace.open(tmp_path / "other"), sheet)
    assert len(rows) == 2
    assert evaluate(ws, ["P@3"]).value("new", "P@3") == pytest.approx(1 / 3)  # D: 2, E: 1
    got = export_grades(ws)
    assert got[["chunk_id", "grade", "annotator"]].values.tolist() == [
        ["D", 2, "kim"],
        ["E", 1, "kim"],
    ]
    ws.con.close()


def test_a_bad_sheet_is_refused_whole(folder, tmp_path):
    bad = tmp_path / "kim.csv"
    bad.write_text("query_id,chunk_id,grade\nq1,D,2\nq1,E,3\n,F,1\n")
    ws = Workspace.open(folder)
    with pytest.raises(InputError) as error:
        js.import_grades(ws, bad)
    text = str(error.value)
    assert "grade 3" in text and "kim.csv" in text
    assert not store_path(ws).exists()  # nothing written
    ws.con.close()


def test_the_proposal_names_the_chunks_to_add(folder):
    ws = Workspace.open(folder)
    js.open_store(ws, create=True)
    for chunk in ("D", "E"):
        submit(ws, "q1", chunk, 2, "anna", reason="has the answer")
    from ragrecall_core.analysis.gold_gaps import gold_gaps

    records = [json.loads(x) for x in js.proposal_jsonl(gold_gaps(ws)).splitlines()]
    assert records[0]["id"] == "q1" and records[0]["add_relevant_ids"] == ["D", "E"]
    assert (folder / "gold.jsonl").read_text().count("relevant_ids") == 1  # gold untouched
    path = store_path(ws)
    ws.con.close()
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM judgments").fetchone()[0] == 2


def sheet_rows(sheet, *grades):
    rows = "".join(f"q1,{chunk},{g},false,,kim\n" for chunk, g in grades)
    sheet.write_text("query_id,chunk_id,grade,harmful,reason,annotator\n" + rows)
    return sheet


def test_importing_the_same_sheet_twice_adds_its_rows_once(folder, tmp_path):
    ws = Workspace.open(folder)
    sheet = sheet_rows(tmp_path / "kim.csv", ("D", 2), ("E", 1))
    first = js.import_grades(ws, sheet)
    again = js.import_grades(ws, sheet)
    assert list(first["new"]) == [True, True] and list(again["new"]) == [False, False]
    assert len(stored_judgments(ws)) == 2
    assert js.import_summary(again, "kim.csv") == (
        "Imported 0 new grades by kim from kim.csv (2 already stored, skipped)."
    )
    # one row added to the sheet: only it is new
    grown = js.import_grades(ws, sheet_rows(sheet, ("D", 2), ("E", 1), ("B", 0)))
    assert list(grown["new"]) == [False, False, True]
    assert js.import_summary(grown, "kim.csv") == (
        "Imported 1 new grade by kim from kim.csv (2 already stored, skipped)."
    )
    assert len(stored_judgments(ws)) == 3
    ws.con.close()


def test_a_changed_grade_in_a_sheet_is_a_new_row(folder, tmp_path):
    """Only the same row is skipped: a re-graded chunk becomes the annotator's latest."""
    ws = Workspace.open(folder)
    js.import_grades(ws, sheet_rows(tmp_path / "kim.csv", ("D", 2)))
    changed = js.import_grades(ws, sheet_rows(tmp_path / "kim.csv", ("D", 0)))
    assert list(changed["new"]) == [True]
    assert export_grades(ws)[["chunk_id", "grade"]].values.tolist() == [["D", 0]]
    ws.con.close()


def test_a_grades_sheet_is_read_by_a_confined_connection(tmp_path, monkeypatch):
    other = tmp_path / "other.txt"
    other.write_text("not for reading")
    sheet = sheet_rows(tmp_path / "kim.csv", ("D", 2))
    refused = []

    def load_checking_confinement(con, path):
        try:
            con.execute("SELECT * FROM read_text($p)", {"p": str(other)}).fetchall()
        except duckdb.Error:
            refused.append(path)
        return real_load(con, path)

    real_load = js.load_grades
    monkeypatch.setattr(js, "load_grades", load_checking_confinement)
    assert len(js.read_grades_file(sheet)) == 1
    assert refused == [sheet]
