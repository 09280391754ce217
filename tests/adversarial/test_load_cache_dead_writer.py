"""A temporary cache file whose writer died goes at the next load that writes the cache; one
whose writer lives is never touched (stop 46).

A fresh server's child (``ragrecall_app.cache_fill``) is killed when the server stops, and
exits at once when the server is killed: a cache file it was writing stayed in the cache
folder, tens of MB at 10,000 queries, until an eviction an hour later (if any load came
then). A temporary file's name now carries its writer's process id: a load that writes the
cache removes those whose process is gone, whatever their age, and leaves every other, so a
writer in another process (two servers starting at once) goes on writing. Each writer here
is a real process, killed for real (SIGKILL: no handler runs).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import load_cache
from tests.helpers import count_cache_restores
from tests.samples import samples_copy

ROOT = Path(__file__).resolve().parents[2]

# a load of the workspace in argv[1] with the cache in argv[2] that stops just before it
# writes its cache file: its temporary file is attached and written to
WRITER = """
import os, signal, sys
sys.path.insert(0, {root!r})
from ragrecall_core import Workspace
from ragrecall_core.inputs import load_cache
keep = load_cache._tables_to_keep

def stopped(con):
    print("writing", flush=True)
    if sys.argv[3] == "killed":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.read()  # alive until the test closes the pipe
    return keep(con)

load_cache._tables_to_keep = stopped
Workspace.open(sys.argv[1], cache=sys.argv[2])
load_cache.wait_for_writes()
"""


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv(load_cache.CACHE_ENV, raising=False)
    return samples_copy(tmp_path / "ws")


def writer(workspace: Path, cache: Path, how: str) -> subprocess.Popen:
    """A process loading ``workspace`` into ``cache``, stopped as it begins to write."""
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER.format(root=str(ROOT)), str(workspace), str(cache), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout.readline() == b"writing\n"
    return child


def temps(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name.startswith(load_cache.TEMP_PREFIX))


def test_a_killed_writer_s_file_goes_at_the_next_load_that_writes(workspace, tmp_path):
    cache = tmp_path / "cache"
    child = writer(workspace, cache, "killed")
    assert child.wait(timeout=60) == -9
    assert temps(cache)  # what it was writing
    child.stdout.close()
    child.stdin.close()
    Workspace.open(workspace, cache=cache)  # a miss: it reads and writes the cache
    load_cache.wait_for_writes()
    assert temps(cache) == []
    assert [p.name for p in cache.iterdir()] == [f"{cache_key(workspace)}.duckdb"]


def test_a_living_writer_s_file_is_left_to_it(workspace, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    child = writer(workspace, cache, "alive")
    try:
        theirs = temps(cache)
        assert theirs
        Workspace.open(workspace, cache=cache)  # a miss too: it writes the same key
        load_cache.wait_for_writes()
        load_cache.evict(cache)
        assert temps(cache) == theirs  # still being written: untouched
    finally:
        child.stdin.close()
        code = child.wait(timeout=60)
        child.stdout.close()
    assert code == 0 and temps(cache) == []  # it finished its write and moved it in place
    hits: list[bool] = []
    count_cache_restores(monkeypatch, hits)
    Workspace.open(workspace, cache=cache)
    assert hits == [True]  # what it wrote is trusted and read


def test_this_process_s_own_writes_are_never_taken_for_dead(workspace, tmp_path):
    """A temporary file named with this process's id is a write still going on in one of
    its threads (a load's cache is written in the background)."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    key = cache_key(workspace)
    ours = cache / f"{load_cache.TEMP_PREFIX}{key}-{os.getpid()}-{'0' * 32}.duckdb"
    ours.write_bytes(b"")
    Workspace.open(workspace, cache=cache)
    load_cache.wait_for_writes()
    load_cache.evict(cache)
    assert ours.exists()


def test_a_file_not_named_by_a_writer_keeps_the_age_rule(workspace, tmp_path):
    """A temporary file without a writer's id (an older ragrecall's) goes once it is older
    than STALE_TEMP_SECONDS, as before; a young one stays."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    old = cache / f"{load_cache.TEMP_PREFIX}{'a' * 64}-{'0' * 32}.duckdb"
    young = cache / f"{load_cache.TEMP_PREFIX}{'b' * 64}-{'0' * 32}.duckdb"
    for path in (old, young):
        path.write_bytes(b"")
    os.utime(old, (1_000_000, 1_000_000))
    Workspace.open(workspace, cache=cache)
    load_cache.wait_for_writes()
    assert not old.exists() and young.exists()


def cache_key(workspace: Path) -> str:
    from ragrecall_core.inputs.workspace import load_plan, workspace_grades, workspace_runs

    plan = load_plan(
        "files",
        [("gold", workspace / "gold.jsonl")],
        workspace_runs(workspace),
        workspace_grades(workspace),
        workspace / "corpus.jsonl",
    )
    return load_cache.cache_key(plan)
