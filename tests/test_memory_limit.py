"""The memory limit and spilling of the one DuckDB connection (issue 14): the limit is set
before the connection is locked, work larger than it spills to a fresh temporary folder even
with external access off, and the folder is gone once the connection closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs.db import MEMORY_LIMIT_ENV, connect, lock_down, parse_memory_limit
from tests.helpers import gold_row, run_cli, run_row, write_jsonl


def setting(con, name: str) -> str:
    return con.execute("SELECT current_setting($name)", {"name": name}).fetchone()[0]


@pytest.mark.parametrize(
    ("text", "kept"),
    [("4GB", "4GB"), ("3.5GB", "3.5GB"), ("512 MiB", "512MiB"), ("2gb", "2GB"), ("800MB", "800MB")],
)
def test_sizes_are_read_in_the_units_duckdb_knows(text, kept):
    assert parse_memory_limit(text) == kept


def test_the_limit_and_a_fresh_spill_folder_are_set(monkeypatch):
    monkeypatch.delenv(MEMORY_LIMIT_ENV, raising=False)
    con = connect(memory_limit="300MB")
    assert setting(con, "memory_limit") == "286.1 MiB"  # DuckDB shows 300 MB in MiB
    spill = Path(setting(con, "temp_directory"))
    assert spill.name.startswith("ragrecall-spill-") and not spill.exists()
    other = Path(setting(connect(memory_limit="300MB"), "temp_directory"))
    assert other != spill


def test_the_environment_sets_the_default(monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "700MB")
    assert setting(connect(), "memory_limit") == "667.5 MiB"


def test_work_over_the_limit_spills_while_locked_down_and_the_folder_goes(monkeypatch):
    con = connect(memory_limit="100MB")
    lock_down(con, [])
    spill = Path(setting(con, "temp_directory"))
    con.execute(
        "CREATE TEMP TABLE big AS SELECT (i * 7919 % 1000003)::VARCHAR || repeat('x', 40) AS s "
        "FROM range(3000000) t(i)"
    )
    ordered = con.execute(
        "SELECT count(*), count(DISTINCT rn) FROM "
        "(SELECT row_number() OVER (ORDER BY s) AS rn FROM big)"
    ).fetchone()
    assert ordered == (3_000_000, 3_000_000)
    assert spill.is_dir() and any(spill.iterdir())  # it did spill
    con.close()
    assert not spill.exists()


def test_a_workspace_takes_the_limit(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["c1"])])
    workspace = Workspace.from_files(gold, [run], memory_limit="1GB")
    assert setting(workspace.con, "memory_limit") == "953.6 MiB"


def test_the_cli_evaluates_under_a_limit(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["c1", "c2"])])
    code, out, err = run_cli(
        capsys, ["evaluate", gold, run, "--memory-limit", "2GB", "-m", "MRR@5"]
    )
    assert code == 0 and err == ""
    assert "1.0" in out
