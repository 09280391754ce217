"""``ragrecall verdicts WORKSPACE [--export FILE] [--import FILE] [--format table|json]``."""

from __future__ import annotations

import json

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.verdicts import latest_verdicts, record_verdict
from tests.helpers import run_cli, write_text
from tests.test_app_judge import seed002


@pytest.fixture
def folder(tmp_path):
    return seed002(tmp_path / "ws")


def record(folder, *verdicts):
    ws = Workspace.open(folder)
    for run, query_id, reason, note in verdicts:
        record_verdict(ws, run, query_id, reason, note=note, owner="ml", recorded_by="dora")
    ws.con.close()


def test_no_verdict_yet_is_one_sentence(folder, capsys):
    assert run_cli(capsys, ["verdicts", folder]) == (0, "No verdicts recorded yet.\n", "")


def test_the_latest_verdicts_as_a_table_and_as_json(folder, capsys):
    record(folder, ("old", "q1", "paraphrase", "first"), ("old", "q1", "chunk boundary", "cut"))
    code, out, err = run_cli(capsys, ["verdicts", folder])
    assert (code, err) == (0, "")
    header, row = out.splitlines()
    assert header.split() == ["run", "query", "reason", "owner", "note", "recorded", "by"] + [
        "recorded",
        "at",
    ]
    assert "chunk boundary" in row and "cut" in row and "dora" in row
    assert "paraphrase" not in out  # the latest wins
    code, out, _ = run_cli(capsys, ["verdicts", folder, "--format", "json"])
    (only,) = json.loads(out)["verdicts"]
    assert {k: only[k] for k in ("run", "query_id", "reason", "note", "owner")} == {
        "run": "old",
        "query_id": "q1",
        "reason": "chunk boundary",
        "note": "cut",
        "owner": "ml",
    }
    assert only["recorded_at"][:2] == "20"


def test_a_note_cannot_draw_on_the_terminal(folder, capsys):
    record(folder, ("old", "q1", "other", "\x1b[2J\x1b[31mred\nfake row"))
    _, out, _ = run_cli(capsys, ["verdicts", folder])
    assert "\x1b" not in out and len(out.splitlines()) == 2
    assert "\\x1b[31mred\\nfake row" in out


def test_export_then_import_elsewhere_then_again_adds_nothing(folder, tmp_path, capsys):
    record(folder, ("old", "q1", "paraphrase", "=HYPERLINK(1)"), ("new", "q1", "other", ""))
    path = tmp_path / "verdicts.csv"
    assert run_cli(capsys, ["verdicts", folder, "--export", path])[:2] == (
        0,
        f"2 verdicts written to {path}\n",
    )
    assert "'=HYPERLINK(1)" in path.read_text()  # no formula cell in the sheet
    other = seed002(tmp_path / "other")
    assert run_cli(capsys, ["verdicts", other, "--import", path])[1] == (
        f"2 verdicts added from {path}\n"
    )
    assert run_cli(capsys, ["verdicts", other, "--import", path])[1] == (
        f"0 verdicts added from {path}\n"
    )
    ws = Workspace.open(other)
    assert latest_verdicts(ws)["note"].tolist() == ["", "=HYPERLINK(1)"]
    ws.con.close()


def test_a_bad_import_file_exits_2_with_every_problem(folder, tmp_path, capsys):
    path = write_text(
        tmp_path / "v.jsonl",
        '{"run": "ghost", "query_id": "q1", "reason": "other"}\n'
        '{"run": "old", "query_id": "q1", "reason": "bad luck"}\n',
    )
    code, out, err = run_cli(capsys, ["verdicts", folder, "--import", path])
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[0] == "ragrecall: invalid input"
    assert lines[1].startswith(f"{path}:1: got 'ghost', expected a run of the workspace")
    assert lines[2].startswith(f"{path}:2: got 'bad luck', expected one of: vocabulary mismatch")
    assert "Traceback" not in err


def test_export_and_import_together_are_refused(folder, tmp_path, capsys):
    code, _, err = run_cli(
        capsys,
        ["verdicts", folder, "--export", tmp_path / "a.jsonl", "--import", tmp_path / "b.jsonl"],
    )
    assert code == 2 and "expected --export or --import" in err


def test_a_non_utf8_import_file_is_named_not_a_traceback(folder, tmp_path, capsys):
    path = tmp_path / "v.jsonl"
    path.write_bytes(b'{"run": "old", "query_id": "q1", "reason": "caf\xe9"}\n')
    code, _, err = run_cli(capsys, ["verdicts", folder, "--import", path])
    assert code == 2 and f"{path}:1:" in err and "UTF-8" in err
