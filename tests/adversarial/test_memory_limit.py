"""Nonsense memory limits (``--memory-limit`` and ``RAGRECALL_MEMORY_LIMIT``): exit 2, one
line naming where the value came from, before any file is read; never DuckDB's message, never
a value spliced into SQL."""

from __future__ import annotations

import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs.db import MEMORY_LIMIT_ENV, connect, parse_memory_limit
from tests.helpers import gold_row, run_cli, run_row, write_jsonl

NONSENSE = [
    "",
    "lots",
    "4",
    "-1GB",
    "0GB",
    "4 G B",
    "4GB; SET enable_external_access = true",
    "4GB' --",
    "1e3GB",
    "٤GB",  # an Arabic-Indic digit: not ASCII
    "99999999999999999999TB",
    "x" * 500,
]


@pytest.fixture
def files(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["c1"])])
    return gold, run


@pytest.mark.parametrize("value", NONSENSE)
def test_a_nonsense_option_is_refused_with_exit_2(files, capsys, value):
    code, out, err = run_cli(capsys, ["evaluate", *files, f"--memory-limit={value}"])
    assert code == 2 and out == ""
    assert "Traceback" not in err and "Error:" not in err
    problem = err.splitlines()[1]
    assert problem.startswith("--memory-limit: got ")
    assert "a memory size such as 4GB" in problem
    assert len(problem) < 250


@pytest.mark.parametrize("command", ["compare", "check", "no-answer"])
def test_every_loading_command_checks_it_with_its_other_options(files, capsys, command):
    gold, run = files
    argv = [command, gold, run] + ([run] if command == "compare" else []) + ["-k", "0"]
    code, _, err = run_cli(capsys, [*argv, "--memory-limit", "lots"])
    assert code == 2
    lines = err.splitlines()[1:]
    assert any(line.startswith("--memory-limit: got 'lots'") for line in lines)
    assert any(line.startswith("-k: got '0'") for line in lines), lines


def test_a_nonsense_environment_value_names_the_variable(files, capsys, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "plenty")
    code, out, err = run_cli(capsys, ["evaluate", *files])
    assert code == 2 and out == ""
    assert err.splitlines()[1].startswith(f"{MEMORY_LIMIT_ENV}: got 'plenty'")


def test_the_option_wins_over_the_environment(files, capsys, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "plenty")
    code, _, err = run_cli(capsys, ["evaluate", *files, "--memory-limit", "1GB"])
    assert code == 0, err


@pytest.mark.parametrize("value", NONSENSE)
def test_connect_refuses_it_too(value):
    with pytest.raises(InputError):
        connect(memory_limit=value)
    with pytest.raises(InputError):
        parse_memory_limit(value)


def test_running_out_under_the_limit_says_so(tmp_path, capsys):
    """A limit too small for the file: exit 2 naming the limit as the thing to change, not
    the file as unreadable, and no traceback. (Ranks with gaps: a run ranked 1..n is read
    without a sort, and fits 16MB.)"""
    import duckdb

    run = tmp_path / "run.parquet"
    duckdb.connect().execute(
        "COPY (SELECT 'q' || (i // 1000) AS query_id, 'c' || i AS chunk_id,"
        " 2 * (i % 1000) + 1 AS rank FROM range(2000000) t(i)) TO $path (FORMAT parquet)",
        {"path": str(run)},
    )
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1001"])])
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "--memory-limit", "16MB"])
    assert code == 2 and out == ""
    assert "Traceback" not in err
    problem = err.splitlines()[1]
    assert problem.startswith(f"{run}: got ")
    assert "expected a larger --memory-limit" in problem
