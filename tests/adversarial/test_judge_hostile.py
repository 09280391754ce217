"""Hostile judges for ``ragrecall judge`` (issue 32), like capture's hostile retrievers:
whatever a judge raises or returns that is no grade is one failed pair, named, never
stored, never a traceback; exit 1 unless allowed."""

from __future__ import annotations

import asyncio
import json
import sys
import threading

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.capture_calls import timeout_text
from ragrecall_core.analysis.judging_assist import MAX_REASON, JudgeFailed, grade_pool
from ragrecall_core.inputs import store
from tests.helpers import write_text
from tests.test_assist_judge import assist_workspace
from tests.test_capture import run_cli_in

SECRET = "sk-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"


def failures(judge, tmp_path, **options) -> dict:
    ws = Workspace.open(assist_workspace(tmp_path))
    with pytest.raises(JudgeFailed) as failed:
        grade_pool(ws, judge, name="hostile", **options)
    assert store.judge_grades(ws, "judge:hostile").empty  # nothing stored for a failure
    return failed.value.result.errors


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (3, "got 3"),
        (-1, "got -1"),
        (float("nan"), "NaN"),
        ("2", "got '2' (str)"),
        (True, "got True (bool)"),
        (2.0, "got 2.0 (float)"),
        (None, "got None"),
        ({"grade": 2, "harmful": "yes"}, "harmful as true or false"),
        ({"relevance": 2}, "unknown keys ['relevance']"),
        ({"grade": 2, "reason": 7}, "a reason as text"),
        ((2, False, "r", "extra"), "got (2, False"),
    ],
)
def test_an_answer_that_is_no_grade_fails_the_pair(tmp_path, answer, said):
    errors = failures(lambda q, c: answer, tmp_path)
    assert len(errors) == 7
    assert all(said in error for error in errors.values()), next(iter(errors.values()))


def test_a_raising_judge_and_sys_exit_fail_each_pair_not_the_command(tmp_path):
    def raising(query, chunk):
        if chunk.endswith("D"):
            sys.exit(3)
        raise RuntimeError(f"boom https://user:{SECRET}@api.example/v1")

    errors = failures(raising, tmp_path)
    assert len(errors) == 7
    assert errors[("q1", "D")].startswith("SystemExit")
    assert "RuntimeError: boom" in errors[("q1", "E")]
    assert all(SECRET not in e for e in errors.values())


def test_a_hanging_judge_is_cut_at_the_timeout(tmp_path):
    release = threading.Event()

    def hanging(query, chunk):
        release.wait(30)
        return 2

    try:
        errors = failures(hanging, tmp_path, timeout=0.05, concurrency=7)
    finally:
        release.set()
    assert set(errors.values()) == {timeout_text(0.05)}


def test_a_hanging_async_judge_is_cut_at_the_timeout(tmp_path):
    async def hanging(query, chunk):
        await asyncio.sleep(30)
        return 2

    errors = failures(hanging, tmp_path, timeout=0.05, concurrency=3)
    assert set(errors.values()) == {timeout_text(0.05)}


def test_a_huge_reason_with_a_secret_is_cut_to_one_line_and_redacted(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))
    reason = f"key {SECRET} then\n" + "x" * 100_000
    grade_pool(ws, lambda q, c: (1, False, reason), name="talky")
    kept = store.judge_grades(ws, "judge:talky").reason
    assert len(kept) == 7
    assert all(len(r) <= MAX_REASON + 1 and "\n" not in r for r in kept)
    assert all(SECRET not in r for r in kept)


def test_failures_within_the_allowance_keep_the_grades_made(tmp_path):
    ws = Workspace.open(assist_workspace(tmp_path))

    def half(query, chunk):
        return 3 if chunk.endswith("E") else 1

    result = grade_pool(ws, half, name="half", allow_errors=2)
    assert (result.graded, len(result.errors)) == (5, 2)
    with pytest.raises(JudgeFailed):
        grade_pool(ws, half, name="half", allow_errors=1)  # retries E: fails again


def test_the_command_exits_1_naming_each_failed_pair_and_no_secret(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    write_text(
        tmp_path / "bad_judge.py",
        "import sys\n"
        f"SECRET = {SECRET!r}\n"
        "def grade(query, chunk):\n"
        "    if chunk.endswith('D'):\n"
        "        raise ValueError('token=' + SECRET)\n"
        "    print('noise from the judge')\n"
        "    return 1\n",
    )
    code, out, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "bad_judge:grade"])
    assert code == 1
    assert "judging failed" in err and "2 failed pairs" in out
    assert "q1 / D: ValueError" in out and SECRET not in out + err
    code, out, err = run_cli_in(
        tmp_path, ["judge", folder, "--judge", "bad_judge:grade", "--allow-errors", "2"]
    )
    assert code == 0, err


def test_a_judge_module_that_exits_on_import_is_an_input_error(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    write_text(tmp_path / "exiting.py", "import sys\nsys.exit(4)\n")
    write_text(tmp_path / "notcallable.py", "grade = 3\n")
    code, _, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "exiting:grade"])
    assert code == 2 and "SystemExit" in err
    code, _, err = run_cli_in(tmp_path, ["judge", folder, "--judge", "notcallable:grade"])
    assert code == 2 and "a callable judge" in err


def test_what_a_judge_prints_never_corrupts_the_json_result(tmp_path):
    folder = assist_workspace(tmp_path / "ws")
    write_text(
        tmp_path / "chatty.py",
        "def grade(query, chunk):\n    print('thinking about', chunk)\n    return 1\n",
    )
    argv = ["judge", folder, "--judge", "chatty:grade", "--format", "json"]
    code, out, err = run_cli_in(tmp_path, argv)
    assert code == 0
    assert json.loads(out)["graded"] == 7
    assert "thinking about text D" in err
