"""The command line under hostile or careless options: exit 2, one line per problem, never a
traceback (issue 10 item 4, the CLI's part).

Every command is run in-process through ``main``: an exception escaping it fails the test,
so "no traceback" is checked by the test run itself, not by scanning text.
"""

from __future__ import annotations

import duckdb
import pytest

from ragrecall_core.errors import shortened
from tests.fixtures_regressions import paths, write_workspace
from tests.helpers import run_cli

BAD_CUTOFFS = (
    "²",
    "١",
    "٣",
    "0",
    "-1",
    "1e3",
    "5.0",
    "",
    " ",
    "five",
    "+5",
    "99999999999999999999",
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return write_workspace(tmp_path_factory.mktemp("cli_errors"))


@pytest.fixture(scope="module")
def files(workspace):
    return paths(workspace)


def commands(files, workspace, out_folder):
    """Every command that takes -k, with everything else valid."""
    gold, base, cand = files["gold"], files["baseline"], files["candidate"]
    return {
        "evaluate": ["evaluate", gold, cand],
        "compare": ["compare", gold, base, cand],
        "check": ["check", gold, cand, "--require", "Recall@5>=0.5"],
        "no-answer": ["no-answer", gold, cand],
        "pool": ["pool", gold, cand, "-o", out_folder / "pool.jsonl"],
        "report": ["report", workspace, "-o", out_folder / "report.html"],
    }


def problem_lines(err: str) -> list[str]:
    """The problem lines of an invalid-input message (after its one heading line)."""
    lines = err.strip().splitlines()
    assert lines[0] == "ragrecall: invalid input", err
    return lines[1:]


@pytest.mark.parametrize("command", ["evaluate", "compare", "check", "no-answer", "pool", "report"])
@pytest.mark.parametrize("cutoff", BAD_CUTOFFS)
def test_a_bad_cutoff_is_one_line_and_exit_2(files, workspace, tmp_path, capsys, command, cutoff):
    argv = commands(files, workspace, tmp_path)[command] + ["-k", cutoff]
    code, out, err = run_cli(capsys, argv)
    assert code == 2, out
    assert out == ""
    (line,) = problem_lines(err)
    assert line.startswith("-k: ") and repr(cutoff) in line
    assert "positive integer" in line
    assert list(tmp_path.iterdir()) == []  # refused before any work is written


@pytest.mark.parametrize("command", ["compare", "check", "no-answer", "pool", "report"])
def test_an_unknown_split_names_it_and_the_splits_that_exist(
    files, workspace, tmp_path, capsys, command
):
    argv = commands(files, workspace, tmp_path)[command] + ["--split", "nosuch"]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--split: ") and "'nosuch'" in line
    assert "'dev'" in line and "'test'" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "name"), [("report", "r.html"), ("report", "r.csv"), ("pool", "p.jsonl")]
)
def test_output_into_a_missing_folder_names_the_folder(
    files, workspace, tmp_path, capsys, command, name
):
    missing = tmp_path / "missing" / "dir"
    argv = commands(files, workspace, tmp_path)[command]
    argv = argv[: argv.index("-o")] + ["-o", missing / name]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    # the folder as given, cut in its middle when long: its last part always shows
    assert line.startswith("-o: ") and repr(shortened(str(missing))) in line
    assert "missing/dir'" in line and "existing folder" in line
    assert not missing.exists()


def test_output_onto_a_folder_is_refused(files, workspace, tmp_path, capsys):
    (tmp_path / "taken.jsonl").mkdir()
    argv = commands(files, workspace, tmp_path)["pool"]
    argv = argv[: argv.index("-o")] + ["-o", tmp_path / "taken.jsonl"]
    code, _, err = run_cli(capsys, argv)
    assert code == 2
    (line,) = problem_lines(err)
    assert "taken.jsonl" in line and "a file" in line


def test_every_bad_option_of_one_command_is_reported_at_once(files, workspace, tmp_path, capsys):
    argv = commands(files, workspace, tmp_path)["pool"][:-2]
    argv += ["-o", tmp_path / "no" / "p.jsonl", "-k", "²", "--depth", "0"]
    code, _, err = run_cli(capsys, argv)
    assert code == 2
    lines = problem_lines(err)
    assert [line.split(":")[0] for line in lines] == ["--depth", "-k", "-o"]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("gold.jsonl", b'{"id": "q1", "query": "caf\xe9", "relevant_ids": ["a"]}\n'),
        ("gold.jsonl", b'{"id": "q1", "query": "\xff\xfe", "relevant_ids": ["a"]}\n'),
        ("run.parquet", b"garbage, not parquet"),
        ("run.parquet", b"PAR1" + b"\x00" * 40),
    ],
)
def test_undecodable_or_garbage_files_exit_2_without_a_traceback(
    files, tmp_path, capsys, name, content
):
    bad = tmp_path / name
    bad.write_bytes(content)
    gold, run = (bad, files["candidate"]) if name.startswith("gold") else (files["gold"], bad)
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and out == ""
    lines = problem_lines(err)
    assert lines and all(len(line) < 400 for line in lines)  # never the whole file or line


def test_a_missing_input_file_exits_2(files, tmp_path, capsys):
    code, _, err = run_cli(capsys, ["agreement", tmp_path / "nope.jsonl"])
    assert code == 2 and "nope.jsonl" in err


def test_a_usage_error_is_exit_2_not_a_traceback(files, capsys):
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, ["check", files["gold"], files["candidate"], "--format", "yaml"])
    assert stop.value.code == 2


def test_ui_with_a_missing_workspace_exits_2(tmp_path, capsys):
    code, _, err = run_cli(capsys, ["ui", tmp_path / "nowhere"])
    assert code == 2 and "nowhere" in err


@pytest.mark.parametrize("port", ["١", "²", "0", "65536", "-1", "80.5", "http"])
def test_ui_with_a_bad_port_exits_2_before_starting_anything(capsys, port):
    code, out, err = run_cli(capsys, ["ui", f"--port={port}"])
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert line.startswith("--port: ") and repr(port) in line and "1 to 65535" in line


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ui", "--run", "r.jsonl"], "--gold FILE beside it"),
        (["ui", "--corpus", "c.jsonl", "--grades", "g.jsonl"], "--gold FILE beside it"),
        (["ui", "ws", "--gold", "g.jsonl"], "not both"),
    ],
)
def test_ui_refuses_loose_files_it_would_silently_ignore(capsys, argv, expected):
    code, _, err = run_cli(capsys, argv)
    assert code == 2
    (line,) = problem_lines(err)
    assert expected in line


@pytest.mark.parametrize(
    ("failure", "shown"),
    [
        (duckdb.InvalidInputException("Invalid Input Error: CSV Error " + "x" * 12_000), "CSV"),
        (PermissionError(13, "Permission denied", "/srv/out/report.html"), "report.html"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "utf-8"),
    ],
)
def test_an_input_failure_no_loader_reported_is_one_short_line(
    files, capsys, monkeypatch, failure, shown
):
    """The last net under the loaders: exit 2 and one line, never 12 KB of a file's line."""
    import ragrecall_core.cli as cli

    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr(cli, "evaluate", fail)
    code, out, err = run_cli(capsys, ["evaluate", files["gold"], files["candidate"]])
    assert code == 2 and out == ""
    (line,) = problem_lines(err)
    assert shown in line and len(line) < 200
