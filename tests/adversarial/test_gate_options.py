"""The release gate refuses options that would make its verdict meaningless (issue 10 item 5).

A gate that checks nothing, a budget with nothing to count against, a negative budget, a
share outside [0, 1] or a non-finite threshold must not print PASSED: each exits 2 and says
what was expected. Numbers come from the regressions fixture: on the test split the
candidate regresses on 3 queries and scores Recall@5 = 0.625.
"""

from __future__ import annotations

import json

import pytest

from ragrecall_core import InputError
from ragrecall_core.analysis.gate import check_gate, parse_requirement
from ragrecall_core.inputs.workspace import Workspace
from tests.fixtures_regressions import paths, write_workspace
from tests.helpers import run_cli


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return paths(write_workspace(tmp_path_factory.mktemp("gate_options")))


def check(files, *extra) -> list:
    return ["check", files["gold"], files["candidate"], *extra]


def problem_lines(err: str) -> list[str]:
    lines = err.strip().splitlines()
    assert lines[0] == "ragrecall: invalid input", err
    return lines[1:]


def test_a_gate_with_nothing_to_check_exits_2_and_says_so(files, capsys):
    code, out, err = run_cli(capsys, check(files))
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert "nothing to check" in line and "--require" in line and "--baseline" in line


def test_nothing_to_check_is_refused_in_python_too(files):
    ws = Workspace.from_files(files["gold"], [files["candidate"]])
    with pytest.raises(InputError, match="nothing to check"):
        check_gate(ws, "candidate", [])


@pytest.mark.parametrize("budget", ["0", "3"])
def test_a_regression_budget_without_a_baseline_exits_2(files, capsys, budget):
    argv = check(files, "--require", "Recall@5>=0.1", "--max-regressions", budget)
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--max-regressions: ") and "--baseline" in line


@pytest.mark.parametrize("budget", ["-1", "1.5", "²", "١", "", "many", "1e3"])
def test_a_budget_that_is_not_a_count_exits_2(files, capsys, budget):
    argv = check(files, "--baseline", files["baseline"], "--max-regressions", budget)
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--max-regressions: ") and repr(budget) in line
    assert "whole number >= 0" in line


def test_a_baseline_without_a_budget_allows_no_regression(files, capsys):
    code, out, _ = run_cli(capsys, check(files, "--baseline", files["baseline"]))
    assert code == 1
    assert "FAIL regressions against baseline: 3 (allowed: 0)" in out


def test_a_budget_of_zero_with_no_regression_passes(files, tmp_path, capsys):
    same = tmp_path / "same.jsonl"
    same.write_bytes(files["baseline"].read_bytes())
    argv = ["check", files["gold"], files["baseline"], "--baseline", same]
    code, out, _ = run_cli(capsys, argv + ["--max-regressions", "0"])
    assert code == 0 and "ok   regressions against same: 0 (allowed: 0)" in out


@pytest.mark.parametrize(
    "requirement", ["Recall@5<=inf", "Recall@5>=nan", "Recall@5>=-inf", "Recall@5<1e999"]
)
def test_a_non_finite_threshold_cannot_decide_the_gate(files, capsys, requirement):
    code, out, err = run_cli(capsys, check(files, "--require", requirement))
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--require: ") and "finite number" in line
    with pytest.raises(InputError):
        parse_requirement(requirement)


@pytest.mark.parametrize("share", ["-0.1", "1.5", "nan", "NaN", "inf", "-inf", "", "ten", "10%"])
def test_a_false_confidence_share_outside_0_1_exits_2(files, capsys, share):
    argv = ["no-answer", files["gold"], files["candidate"], f"--max-false-confidence={share}"]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--max-false-confidence: ") and repr(share) in line
    assert "between 0 and 1" in line


@pytest.mark.parametrize("share", ["0", "1", "0.25"])
def test_a_share_within_0_1_is_used(files, capsys, share):
    argv = ["no-answer", files["gold"], files["candidate"], "--format", "json"]
    code, out, _ = run_cli(capsys, argv + ["--max-false-confidence", share])
    assert code == 0
    threshold = json.loads(out)["runs"]["candidate"]["threshold"]
    assert threshold is None or threshold["max_false_confidence"] == float(share)


def test_every_bad_gate_option_is_reported_at_once(files, capsys):
    argv = check(files, "--require", "Recall@5>=nan", "--max-regressions", "-2", "-k", "0")
    code, _, err = run_cli(capsys, argv)
    assert code == 2
    starts = sorted(line.split(":")[0] for line in problem_lines(err))
    assert starts == ["--max-regressions", "--require", "-k"]
