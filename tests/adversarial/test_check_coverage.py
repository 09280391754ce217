"""``check`` reports each run's coverage of the gold set and fails on a gap (issue 26 item 2).

A baseline that lacks a gold query (or names it ``q1 `` with a trailing space) counts it as
failing, so a candidate that fails it does not "regress": the gate said "regressions 0" and
exited 0. A candidate that lacks a query scores 0 on it without a word. Now every output
(text, JSON, Markdown summary, JUnit) counts and names (first five) the gold queries each
run misses or lists empty, and a gap fails the gate unless ``--allow-missing``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.inputs.workspace import Workspace
from tests.helpers import gold_row, run_cli, run_row, write_jsonl

GOLD = [gold_row(f"q{i}", [f"c{i}"]) for i in range(1, 9)]


def full(qid: str) -> dict:
    return run_row(qid, [f"c{qid[1:]}", "noise"])


def write(folder, baseline: list[dict], candidate: list[dict]) -> dict:
    return {
        "gold": write_jsonl(folder / "gold.jsonl", GOLD),
        "baseline": write_jsonl(folder / "baseline.jsonl", baseline),
        "candidate": write_jsonl(folder / "candidate.jsonl", candidate),
    }


def complete() -> list[dict]:
    return [full(row["id"]) for row in GOLD]


def candidate_failing_q1() -> list[dict]:
    return [run_row("q1", ["noise"])] + complete()[1:]


@pytest.fixture(params=["absent", "trailing space"])
def hidden_regression(request, tmp_path):
    """The baseline lacks q1 (absent, or as ``q1 ``); the candidate fails q1."""
    baseline = complete()[1:]
    if request.param == "trailing space":
        baseline.append(run_row("q1 ", ["c1"]))
    return write(tmp_path, baseline, candidate_failing_q1())


def gate(files, *extra) -> list:
    return ["check", files["gold"], files["candidate"], "--baseline", files["baseline"], *extra]


def test_a_baseline_gap_that_hides_a_regression_fails_the_gate(hidden_regression, capsys):
    code, out, _ = run_cli(capsys, gate(hidden_regression))
    assert code == 1, out
    assert "FAIL coverage of baseline: 1 gold query missing or empty: q1" in out
    assert "ok   coverage of candidate: 0 gold queries missing or empty" in out
    assert out.rstrip().endswith("FAILED")


def test_allow_missing_reports_the_gap_and_passes(hidden_regression, capsys):
    code, out, _ = run_cli(capsys, gate(hidden_regression, "--allow-missing"))
    assert code == 0, out
    assert "ok   coverage of baseline: 1 gold query missing or empty (allowed): q1" in out
    assert out.rstrip().endswith("PASSED")


def test_json_counts_and_names_each_runs_gap(hidden_regression, capsys):
    code, out, _ = run_cli(capsys, gate(hidden_regression, "--format", "json"))
    data = json.loads(out)
    assert code == 1 and data["passed"] is False and data["allow_missing"] is False
    assert data["coverage"] == [
        {"run": "candidate", "role": "candidate", "missing": 0, "examples": [], "ok": True},
        {"run": "baseline", "role": "baseline", "missing": 1, "examples": ["q1"], "ok": False},
    ]


def test_summary_and_junit_state_the_gap(hidden_regression, tmp_path, capsys):
    summary, junit = tmp_path / "gate.md", tmp_path / "gate.xml"
    code, _, _ = run_cli(capsys, gate(hidden_regression, "--summary", summary, "--junit", junit))
    assert code == 1
    markdown = summary.read_text("utf-8").replace("\\", "")  # Markdown escapes punctuation
    assert "## Release gate: FAILED" in markdown
    assert "coverage of baseline: 1 gold query missing or empty: q1: **FAIL**" in markdown
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    baseline_case = cases["coverage of baseline"]
    assert baseline_case.get("classname") == "ragrecall.coverage"
    failure = baseline_case.find("failure")
    assert failure is not None and "q1" in failure.get("message")
    assert "coverage of candidate" not in cases  # a case only for a run with a gap
    assert int(suite.get("failures")) == 1


@pytest.mark.parametrize("gap", ["absent", "empty list"])
def test_a_candidate_gap_fails_a_gate_whose_requirement_holds(gap, tmp_path, capsys):
    candidate = complete()[:-1] + ([] if gap == "absent" else [run_row("q8", [])])
    files = write(tmp_path, complete(), candidate)
    argv = ["check", files["gold"], files["candidate"], "--require", "Recall@5>=0.8"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 1, out
    assert "ok   Recall@5>=0.8" in out
    assert "FAIL coverage of candidate: 1 gold query missing or empty: q8" in out
    assert "coverage of baseline" not in out  # no baseline, no line for it
    code, out, _ = run_cli(capsys, [*argv, "--allow-missing"])
    assert code == 0 and "(allowed): q8" in out


def test_the_first_five_are_named_and_all_counted(tmp_path, capsys):
    files = write(tmp_path, complete()[7:], complete())
    code, out, _ = run_cli(capsys, gate(files, "--format", "json"))
    (baseline,) = [c for c in json.loads(out)["coverage"] if c["role"] == "baseline"]
    assert baseline["missing"] == 7
    assert baseline["examples"] == ["q1", "q2", "q3", "q4", "q5"]
    code, out, _ = run_cli(capsys, gate(files))
    assert "FAIL coverage of baseline: 7 gold queries missing or empty: q1, q2, q3, q4, q5" in out


def test_complete_runs_pass_and_say_so(tmp_path, capsys):
    files = write(tmp_path, complete(), complete())
    code, out, _ = run_cli(capsys, gate(files))
    assert code == 0, out
    assert "ok   coverage of baseline: 0 gold queries missing or empty" in out


def test_check_gate_takes_allow_missing(hidden_regression):
    ws = Workspace.from_files(
        hidden_regression["gold"], [hidden_regression["candidate"], hidden_regression["baseline"]]
    )
    strict = check_gate(ws, "candidate", [], baseline="baseline")
    assert not strict.passed and strict.regressions == []
    assert [(c["role"], c["missing"]) for c in strict.coverage] == [
        ("candidate", 0),
        ("baseline", 1),
    ]
    assert check_gate(ws, "candidate", [], baseline="baseline", allow_missing=True).passed
