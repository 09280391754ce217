"""Counting a judge's grades (issue 32): off by default; counted, they fill what no one
else judged, every output says so, and each mean carries its PPI interval. Values by hand.

Four queries, A relevant to each in the gold set, one run listing A B C for each. anna
judged q1 (B 0, C 0) and q2 (B 2, C 0): those two are human-judged to depth 3. The judge
grades every B and C 2: it overrates.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.judge_counting import count_judge, human_judged_queries
from ragrecall_core.analysis.ppi import Z95
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import store
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.policy import Policy
from tests.helpers import write_jsonl
from tests.test_capture import run_cli_in

QUERIES = ["q1", "q2", "q3", "q4"]
ANNA = {("q1", "B"): 0, ("q1", "C"): 0, ("q2", "B"): 2, ("q2", "C"): 0}


def grade_rows(grades: dict, annotator: str) -> list[dict]:
    return [
        {"query_id": q, "chunk_id": c, "grade": g, "annotator": annotator}
        for (q, c), g in grades.items()
    ]


def counting_folder(folder: Path, judge_in_file: bool = False) -> Path:
    write_jsonl(
        folder / "gold.jsonl",
        [{"id": q, "query": f"about {q}", "relevant_ids": ["A"]} for q in QUERIES],
    )
    write_jsonl(
        folder / "runs" / "r.jsonl",
        [
            {"id": q, "retrieved": [{"chunk_id": c, "rank": i + 1} for i, c in enumerate("ABC")]}
            for q in QUERIES
        ],
    )
    write_jsonl(folder / "corpus.jsonl", [{"chunk_id": c, "text": c} for c in "ABC"])
    write_jsonl(folder / "grades" / "anna.jsonl", grade_rows(ANNA, "anna"))
    judge = {(q, c): 2 for q in QUERIES for c in "BC"}
    if judge_in_file:
        write_jsonl(folder / "grades" / "judge.jsonl", grade_rows(judge, "judge:always"))
        return folder
    ws = Workspace.open(folder)
    run = store.record_judge_run(ws, "judge:always", "always", "{}", None, None)
    for (q, c), g in judge.items():
        store.submit_judge_grade(ws, q, c, g, "judge:always", run)
    ws.con.close()
    return folder


@pytest.fixture
def workspace(tmp_path):
    ws = Workspace.open(counting_folder(tmp_path / "ws"))
    store.open_store(ws)
    return ws


def test_by_default_the_judge_is_shown_not_counted(workspace):
    # P@3 per query: q1 1/3, q2 2/3, q3 and q4 1/3 (B, C unjudged)
    assert evaluate(workspace, ["P@3"]).value("r", "P@3") == pytest.approx(5 / 12)
    assert "judge" not in Policy().describe() and "judge" not in Policy().to_dict()


def test_counted_the_judge_fills_what_no_one_judged_and_says_so(workspace):
    result = count_judge(workspace, ["P@3"])
    # q1 1/3 and q2 2/3 (anna's grades win), q3 and q4 1 (the judge fills B and C)
    row = result.intervals.iloc[0]
    assert row["mean"] == pytest.approx(3 / 4)
    assert result.filled == 4
    assert "judge:always" in result.evaluation.policy.describe()
    assert "judge grades counted: judge:always judges 4 chunks" in result.to_text()


def test_the_interval_corrects_the_judges_bias(workspace):
    row = count_judge(workspace, ["P@3"]).intervals.iloc[0]
    # f (gold + judge alone) = 1 for every query; y on q1, q2 = 1/3, 2/3: f - y = 2/3, 1/3
    # ppi = 1 - 1/2 = 1/2; se = sqrt(0 / 4 + var([2/3, 1/3]) / 2) = sqrt(1/18 / 2) = 1/6
    assert (row.judge_mean, row.ppi_mean) == (pytest.approx(1.0), pytest.approx(0.5))
    assert row.ppi_low == pytest.approx(0.5 - Z95 / 6)
    assert row.ppi_high == pytest.approx(0.5 + Z95 / 6)
    assert (row.queries, row.human_judged_queries) == (4, 2)
    assert row.humans_mean == pytest.approx(5 / 12)


def test_human_judged_queries_are_those_judged_to_depth(workspace):
    assert human_judged_queries(workspace, 3, ["r"]) == ["q1", "q2"]
    assert human_judged_queries(workspace, 1, ["r"]) == QUERIES  # A: the gold set's


def test_a_judge_in_a_grades_file_is_no_human_and_counts_only_when_asked(tmp_path):
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    ws = Workspace.open(folder)
    assert evaluate(ws, ["P@3"]).value("r", "P@3") == pytest.approx(5 / 12)
    assert set(store.export_grades(ws).annotator) == {"anna"}
    assert count_judge(ws, ["P@3"]).intervals.iloc[0]["mean"] == pytest.approx(3 / 4)


def test_no_judge_or_an_unknown_one_is_an_input_error(tmp_path, workspace):
    with pytest.raises(InputError) as error:
        count_judge(workspace, ["P@3"], judge="other")
    assert "judge:always" in str(error.value)
    folder = tmp_path / "plain"
    counting_folder(folder, judge_in_file=True)
    (folder / "grades" / "judge.jsonl").unlink()
    with pytest.raises(InputError) as error:
        count_judge(Workspace.open(folder), ["P@3"])
    assert "ragrecall judge" in str(error.value)


def test_evaluate_counts_a_judge_grades_file_and_every_output_says_so(tmp_path):
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    argv = ["evaluate", folder / "gold.jsonl", folder / "runs" / "r.jsonl", "-m", "P@3"]
    argv += ["--grades", folder / "grades" / "anna.jsonl"]
    argv += ["--grades", folder / "grades" / "judge.jsonl"]
    code, shown, err = run_cli_in(tmp_path, argv)
    assert (code, err) == (0, ""), err
    assert "0.4167" in shown and "judge grades counted" not in shown
    code, out, err = run_cli_in(tmp_path, [*argv, "--judge-grades", "count"])
    assert (code, err) == (0, ""), err
    assert "judge grades = counted (judge:always" in out  # the policy line
    assert "judge grades counted: judge:always judges 4 chunks" in out
    assert "0.7500" in out and "0.5000" in out
    code, out, _ = run_cli_in(tmp_path, [*argv, "--judge-grades", "count", "--format", "json"])
    data = json.loads(out)
    means = data["judge_counted"]["means"][0]
    assert means["ppi_mean"] == pytest.approx(0.5) and means["mean"] == pytest.approx(0.75)
    assert "judge:always" in data["judge_counted"]["statement"]
    assert not math.isnan(means["ppi_low"])


def test_a_csv_cannot_carry_judge_counted_means(tmp_path):
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    argv = ["evaluate", folder / "gold.jsonl", folder / "runs" / "r.jsonl", "--grades"]
    argv += [folder / "grades" / "judge.jsonl", "--judge-grades", "count", "--format", "csv"]
    code, out, err = run_cli_in(tmp_path, argv)
    assert code == 2 and out == "" and "--format table or json" in err


def test_from_judging_a_workspace_to_counting_on_the_command_line(tmp_path):
    folder = counting_folder(tmp_path / "ws")  # the judge's grades are in the store
    exported = tmp_path / "judge.jsonl"
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--export", exported])
    assert (code, err, out) == (0, "", f"8 judge grades written to {exported}\n")
    argv = ["evaluate", folder / "gold.jsonl", folder / "runs" / "r.jsonl", "-m", "P@3"]
    argv += ["--grades", folder / "grades" / "anna.jsonl", "--grades", exported]
    code, out, err = run_cli_in(tmp_path, [*argv, "--judge-grades", "count", "--format", "json"])
    assert code == 0, err
    means = json.loads(out)["judge_counted"]["means"][0]
    assert (means["mean"], means["ppi_mean"]) == (pytest.approx(0.75), pytest.approx(0.5))
    code, _, err = run_cli_in(tmp_path, ["judge", folder])
    assert code == 2 and "--judge or --export" in err
    code, _, err = run_cli_in(tmp_path, ["judge", folder, "--export", tmp_path / "x.txt"])
    assert code == 2 and ".jsonl or .csv" in err


def test_counting_reads_the_same_human_grades_as_the_plain_evaluation(tmp_path):
    """The command line's evaluation reads files, not a store: counting a judge must not
    attach the store beside the gold file and so change the humans' grades it compares."""
    folder = counting_folder(tmp_path / "ws", judge_in_file=True)
    gold, run = folder / "gold.jsonl", folder / "runs" / "r.jsonl"
    loose = Workspace.from_files(gold, [run])
    store.submit(loose, "q3", "B", 2, "carla")  # into gold.jsonl.judgments.duckdb
    loose.con.close()
    argv = ["evaluate", gold, run, "-m", "P@3", "--grades", folder / "grades" / "anna.jsonl"]
    argv += ["--grades", folder / "grades" / "judge.jsonl", "--format", "json"]
    _, plain, _ = run_cli_in(tmp_path, argv)
    _, counted, _ = run_cli_in(tmp_path, [*argv, "--judge-grades", "count"])
    plain_mean = json.loads(plain)["runs"][0]["aggregate"]["P@3"]
    means = json.loads(counted)["judge_counted"]["means"][0]
    assert plain_mean == pytest.approx(5 / 12) == means["humans_mean"]
    assert means["mean"] == pytest.approx(3 / 4)
