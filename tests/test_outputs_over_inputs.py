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


# stop 49: every other command that writes a file (pool, verdicts --export, judge --export,
# capture) keeps the same rule, with the judgment store among what it never replaces
@pytest.mark.parametrize("target", ["gold.jsonl", "runs/r.csv", "runs/r.config.json"])
def test_pool_never_writes_over_an_input(ws, capsys, target):
    pool = ["pool", ws / "gold.jsonl", ws / "runs" / "r.csv", "--depth", "2"]
    refused(capsys, [*pool, "-o", ws / target], ws, "-o")


@pytest.mark.parametrize("target", ["gold.jsonl", "runs/r.csv"])
def test_an_export_never_writes_over_an_input(ws, capsys, target):
    refused(capsys, ["verdicts", ws, "--export", ws / target], ws, "--export")
    refused(capsys, ["judge", ws, "--export", ws / target], ws, "--export")


def test_no_output_replaces_the_judgment_store(ws, capsys, tmp_path, monkeypatch):
    from ragrecall_core.inputs import store
    from ragrecall_core.inputs.workspace import Workspace

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    path = store.store_path(Workspace.open(ws))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"the store")
    for args in [
        ["pool", ws / "gold.jsonl", ws / "runs" / "r.csv", "-o", path],
        ["verdicts", ws, "--export", path],
        ["judge", ws, "--export", path],
    ]:
        assert main([str(a) for a in args]) == 2, args
        assert "Traceback" not in capsys.readouterr().err
        assert path.read_bytes() == b"the store"


def test_capture_never_writes_over_its_corpus_through_a_link(ws, capsys):
    (ws / "corpus.jsonl").write_text('{"chunk_id": "d1", "text": "x"}\n')
    os.link(ws / "corpus.jsonl", ws / "linked.jsonl")
    retriever = ws / "retriever_mod49.py"
    retriever.write_text("def search(text):\n    return ['d1']\n")
    args = ["capture", ws / "gold.jsonl", "--retriever", "retriever_mod49:search"]
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.syspath_prepend(str(ws))
    try:
        refused(
            capsys, [*args, "--corpus", ws / "corpus.jsonl", "-o", ws / "linked.jsonl"], ws, "-o"
        )
    finally:
        monkeypatch.undo()


def test_capture_never_writes_over_the_corpus_beside_its_gold(ws, capsys):
    (ws / "corpus.jsonl").write_text('{"chunk_id": "d1", "text": "x"}\n')
    (ws / "retriever_mod49b.py").write_text("def search(text):\n    return ['d1']\n")
    args = ["capture", ws / "gold.jsonl", "--retriever", "retriever_mod49b:search"]
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.syspath_prepend(str(ws))
    try:
        refused(capsys, [*args, "-o", ws / "corpus.jsonl"], ws, "-o")
    finally:
        monkeypatch.undo()
