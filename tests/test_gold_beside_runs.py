"""A large gold file is read on a cursor of its own beside the runs' reads (here every gold
is, GOLD_BESIDE_FROM_BYTES set to 0): both inputs' problems are still said together, gold
first, and a run read that fails never leaves the gold's read running on a database about
to close."""

from __future__ import annotations

import threading
import time

import pytest

from ragrecall_core.errors import InputError
from ragrecall_core.inputs import workspace as workspace_module
from ragrecall_core.inputs.workspace import Workspace
from tests.helpers import gold_row, run_row, write_jsonl, write_text


@pytest.fixture(autouse=True)
def every_gold_beside(monkeypatch):
    monkeypatch.setattr(workspace_module, "GOLD_BESIDE_FROM_BYTES", 0)


def test_gold_and_run_problems_said_together_gold_first(tmp_path):
    gold = write_text(tmp_path / "gold.jsonl", '{"id": "q1", "relevant_ids": ["a"]}\nnot json\n')
    run = write_text(tmp_path / "run.jsonl", '{"id": "q1", "retrieved": 5}\n')
    with pytest.raises(InputError) as refused:
        Workspace.from_files(gold, [run])
    files = [p.file for p in refused.value.problems]
    assert str(gold) in files[0] and any(str(run) in f for f in files)


def test_a_failing_run_read_waits_for_the_gold(tmp_path, monkeypatch):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a"])])
    ended = threading.Event()
    read_gold = workspace_module._gold_problems

    def slow_gold(con, path):
        time.sleep(0.3)
        found = read_gold(con, path)
        ended.set()
        return found

    def failing_runs(self, paths, counted=None):
        raise RuntimeError("the run read broke")

    monkeypatch.setattr(workspace_module, "_gold_problems", slow_gold)
    monkeypatch.setattr(Workspace, "_load_run_files", failing_runs)
    with pytest.raises(RuntimeError, match="the run read broke"):
        Workspace.from_files(gold, [run])
    assert ended.is_set()


def test_gold_and_runs_load_alike_many_times(tmp_path):
    """Two cursors write at once (the gold's tables, the run's): no write conflict."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(f"q{i}", ["a"]) for i in range(300)])
    runs = [
        write_jsonl(tmp_path / f"run{n}.jsonl", [run_row(f"q{i}", ["a", "b"]) for i in range(300)])
        for n in range(3)
    ]
    for _ in range(10):
        ws = Workspace.from_files(gold, runs)
        counts = (
            ws.cursor()
            .execute("SELECT (SELECT count(*) FROM queries), (SELECT count(*) FROM runs)")
            .fetchone()
        )
        assert counts == (300, 1800)
