"""A gate's summary or JUnit file, or a report, never replaces one of the command's inputs.

Before: ``check GOLD RUN --junit GOLD`` wrote the JUnit XML over the gold set, ``--summary
RUN`` over the run, and ``report WS -o WS/runs/r.csv`` over a CSV run: the next CI job read
XML as its gold set (and a mistyped option lost a file nobody can recompute). Each is now
invalid input, exit 2, naming the option, the path and the input it would replace, before
anything is written.
"""

from __future__ import annotations

import os

import pytest

from ragrecall_core.cli import main

GOLD = '{"id":"q1","query":"a","relevant_ids":["d1"]}\n{"id":"q2","query":"b","relevant_ids":[]}\n'
RUN = "query_id,chunk_id,rank,score\nq1,d1,1,0.9\nq2,x,1,0.5\n"
CONFIG = '{"retrieval": "dense"}\n'


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "gold.jsonl").write_text(GOLD)
    (tmp_path / "runs" / "r.csv").write_text(RUN)
    (tmp_path / "runs" / "r.config.json").write_text(CONFIG)
    return tmp_path


def contents(ws) -> dict:
    return {p: p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file()}


def refused(capsys, args, ws, option) -> str:
    before = contents(ws)
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err, err
    assert contents(ws) == before  # nothing written, nothing replaced
    return err


@pytest.mark.parametrize(
    "option, target",
    [
        ("--junit", "gold.jsonl"),
        ("--summary", "runs/r.csv"),
        ("--junit", "runs/r.config.json"),
        ("--summary", "runs/../gold.jsonl"),
    ],
)
def test_check_never_writes_over_an_input(ws, capsys, option, target):
    args = ["check", ws / "gold.jsonl", ws / "runs" / "r.csv", "--require", "Recall@1>=0.5"]
    err = refused(capsys, [*args, option, ws / target], ws, option)
    assert "gold.jsonl" in err or "r.csv" in err or "r.config.json" in err


def test_check_never_appends_its_step_summary_to_an_input(ws, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(ws / "gold.jsonl"))
    args = ["check", ws / "gold.jsonl", ws / "runs" / "r.csv", "--require", "Recall@1>=0.5"]
    refused(capsys, args, ws, "GITHUB_STEP_SUMMARY")


def test_check_never_writes_over_an_input_through_a_link(ws, capsys):
    os.link(ws / "gold.jsonl", ws / "hard.xml")
    args = ["check", ws / "gold.jsonl", ws / "runs" / "r.csv", "--require", "Recall@1>=0.5"]
    refused(capsys, [*args, "--junit", ws / "hard.xml"], ws, "--junit")


def test_report_never_writes_over_an_input(ws, capsys):
    refused(capsys, ["report", ws, "-o", ws / "runs" / "r.csv"], ws, "-o")


def test_outputs_beside_the_inputs_are_still_written(ws, capsys):
    args = ["check", ws / "gold.jsonl", ws / "runs" / "r.csv", "--require", "Recall@1>=0.5"]
    assert main([str(a) for a in [*args, "--junit", ws / "gate.xml"]]) == 0
    assert main(["report", str(ws), "-o", str(ws / "report.csv")]) == 0
    assert (ws / "gate.xml").is_file() and (ws / "report.csv").is_file()


def test_the_summary_and_the_junit_file_are_two_files(ws, capsys):
    """--summary X --junit X wrote the summary, then the XML over it: one output lost."""
    args = ["check", ws / "gold.jsonl", ws / "runs" / "r.csv", "--require", "Recall@1>=0.5"]
    refused(
        capsys, [*args, "--summary", ws / "gate.out", "--junit", ws / "gate.out"], ws, "--junit"
    )
