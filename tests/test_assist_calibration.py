"""Calibration (issue 32): each judge against each human and the humans' resolved grades,
with figures computed by hand below."""

from __future__ import annotations

import json

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.calibration import RESOLVED, calibration
from ragrecall_core.inputs import store
from tests.helpers import write_jsonl
from tests.test_assist_judge import assist_workspace
from tests.test_capture import run_cli_in

# (query, chunk): grade. Runs: old lists A B C, new lists D B E, for q1 and q2.
ANNA = {("q1", "B"): 0, ("q1", "D"): 2, ("q1", "E"): 1, ("q2", "A"): 0, ("q2", "B"): 2}
ANNA[("q2", "D")] = 1
BORIS = {("q1", "D"): 2, ("q1", "E"): 2, ("q2", "D"): 0}
JUDGE = {("q1", "B"): 0, ("q1", "D"): 2, ("q1", "E"): 2, ("q2", "A"): 1, ("q2", "B"): 2}
JUDGE[("q2", "D")] = 0


def rows(grades: dict, annotator: str) -> list[dict]:
    return [
        {"query_id": q, "chunk_id": c, "grade": g, "annotator": annotator}
        for (q, c), g in grades.items()
    ]


@pytest.fixture
def folder(tmp_path):
    folder = assist_workspace(tmp_path / "ws", human=rows(ANNA, "anna"))
    write_jsonl(folder / "grades" / "boris.jsonl", rows(BORIS, "boris"))
    ws = Workspace.open(folder)
    run = store.record_judge_run(ws, "judge:j", "j", "{}", None, None)
    for (q, c), g in JUDGE.items():
        store.submit_judge_grade(ws, q, c, g, "judge:j", run)
    store.resolve(ws, "q1", "E", 1, "carla")  # anna 1 vs boris 2, settled at 1
    ws.con.close()
    return folder


def opened(folder) -> Workspace:
    """The workspace with its store attached (as the dashboard and the command attach it)."""
    ws = Workspace.open(folder)
    store.open_store(ws)
    return ws


def figures(folder) -> dict[str, dict]:
    result = calibration(opened(folder))
    return {row["reference"]: row for row in result.to_dict()["judges"]}


def test_judge_against_one_annotator_by_hand(folder):
    anna = figures(folder)["anna"]
    # judge [0,2,2,1,2,0] vs anna [0,2,1,0,2,1]: observed 3/6, expected
    # (2*2 + 2*1 + 2*3) / 36 = 1/3, kappa = (1/2 - 1/3) / (2/3) = 1/4
    assert anna["pairs"] == 6
    assert anna["kappa"] == pytest.approx(0.25)
    # linear: observed cost 3 * 0.5 / 6 = 1/4; expected cost 17/36; 1 - 9/17 = 8/17
    assert anna["kappa_linear"] == pytest.approx(8 / 17)
    # relevant (>= 1): the judge says 4 pairs, 3 of them anna's relevant; anna's 4, 3 found
    assert (anna["precision"], anna["precision_pairs"]) == (0.75, 4)
    assert (anna["recall"], anna["recall_pairs"]) == (0.75, 4)
    # rows anna's grade, columns the judge's
    assert [[r["judge_0"], r["judge_1"], r["judge_2"]] for r in anna["confusion"]] == [
        [1, 1, 0],
        [1, 0, 1],
        [0, 0, 2],
    ]
    # run scores on the pairs both graded in each top 10: judge old 2/3 > new 3/5, anna
    # old 1/3 < new 4/5: the judge reverses the ranking
    assert (anna["tau"], anna["runs"]) == (-1.0, 2)
    assert anna["small_sample"] is True


def test_judge_against_a_perfectly_agreeing_annotator(folder):
    boris = figures(folder)["boris"]
    assert (boris["pairs"], boris["kappa"], boris["kappa_linear"]) == (3, 1.0, 1.0)


def test_judge_against_the_resolved_grades(folder):
    resolved = figures(folder)[RESOLVED]
    # q2 D (anna 1, boris 0) is unresolved: left out; q1 E resolved at 1.
    # judge [0,2,2,1,2] vs [0,2,1,0,2]: observed 3/5, expected 9/25, kappa 6/16
    assert resolved["pairs"] == 5
    assert resolved["kappa"] == pytest.approx(0.375)


def test_the_command_shows_judges_beside_the_humans(folder, tmp_path):
    code, out, err = run_cli_in(tmp_path, ["agreement", folder])
    assert (code, err) == (0, ""), err
    assert "judge:j" in out and "humans (resolved)" in out
    assert "warning: judge:j vs anna rests on 6 pairs (< 50)" in out
    assert "annotator_a" in out  # the humans' agreement is still there
    code, out, _ = run_cli_in(tmp_path, ["agreement", folder, "--format", "json"])
    data = json.loads(out)
    assert {j["reference"] for j in data["judges"]["judges"]} == {"anna", "boris", RESOLVED}
    assert {(p["annotator_a"], p["annotator_b"]) for p in data["pairs"]} == {("anna", "boris")}


def test_a_folder_among_grades_files_is_refused(folder, tmp_path):
    code, _, err = run_cli_in(tmp_path, ["agreement", folder, folder / "grades" / "anna.jsonl"])
    assert code == 2 and "one workspace folder alone" in err


def test_without_judge_grades_it_says_how_to_get_them(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    code, out, _ = run_cli_in(tmp_path, ["agreement", folder])
    assert code == 0 and "--include-judged" in out


def test_the_page_view_names_its_columns_and_warns(folder, tmp_path):
    from ragrecall_core.views.judge_calibration_view import NO_JUDGE, calibration_view

    view = calibration_view(opened(folder))
    assert view.note == ""
    assert view.table["against"].tolist() == ["anna", "boris", RESOLVED]
    assert view.table["Cohen's kappa"].iloc[0] == pytest.approx(0.25)
    title, anna = view.confusions[0]
    assert title == "judge:j against anna" and anna.loc["anna: 1", "judge:j: 2"] == 1
    assert len(view.warnings) == 3 and "only 6 shared chunks" in view.warnings[0]
    # under the sidebar's filters: q2 alone leaves anna 3 shared chunks
    narrowed = calibration_view(opened(folder), ["q2"])
    assert narrowed.table["shared chunks"].iloc[0] == 3
    empty = calibration_view(Workspace.open(assist_workspace(tmp_path / "plain")))
    assert empty.note == NO_JUDGE and empty.table.empty
