"""The child process that fills a fresh server's load cache (issue 30): it only warms the
cache. The server's open after it restores exactly what a validating read loads; inputs
with problems leave no cache and are reported by the server as before; the child does not
outlive the server."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ragrecall_app import cache_fill, opened, serve
from ragrecall_core import Workspace
from ragrecall_core.errors import InputError
from ragrecall_core.inputs import load_cache
from ragrecall_core.views.source import Source
from tests.helpers import count_cache_restores, launch_here
from tests.samples import samples_copy
from tests.test_load_cache import assert_same_content

ROOT = Path(__file__).resolve().parent.parent
HITS: list[bool] = []


@pytest.fixture
def loader_edited_since(monkeypatch):
    """This worker's digest of the loader's sources (part of every cache key), taken before
    they were edited: a full run meets other changes landing in the checkout, while the
    child takes its digest from the files as they are."""
    monkeypatch.setattr(load_cache, "_LOADER_DIGEST", [b"taken before an edit of the loader"])


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    """A copy of data_samples, the load cache on and in an empty $RAGRECALL_HOME (the
    child's environment is the server's). The loader's digest is taken again from its
    files, as the child takes it: a worker's, taken minutes before, made another key."""
    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    count_cache_restores(monkeypatch, HITS)
    load_cache._DIGESTS.clear()
    monkeypatch.setattr(load_cache, "_LOADER_DIGEST", [])
    return samples_copy(tmp_path / "ws")


def launcher_args(workspace: Path) -> list[str]:
    return ["--server.port", "8599", "--", "--workspace", str(workspace)]


def cache_folder_files(workspace: Path) -> list[str]:
    folder = load_cache.default_folder()
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_the_app_s_arguments_are_those_after_the_double_dash():
    assert cache_fill.app_arguments(["--server.port", "1", "--", "--workspace", "W"]) == [
        "--workspace",
        "W",
    ]
    assert cache_fill.app_arguments(["--server.port", "1"]) == []


def test_the_server_s_open_after_the_child_restores_what_a_validating_read_loads(
    workspace, monkeypatch
):
    """One contract: the workspace the launcher opens once its child has filled the cache is
    restored from it (no read of its own) and equals a validating read of the inputs."""
    assert_the_server_restores(workspace, monkeypatch)


def test_the_server_restores_in_a_worker_older_than_the_loader_s_last_edit(
    loader_edited_since, workspace, monkeypatch
):
    """Failed once in a loaded full run, never alone: the worker's digest of the loader,
    taken when it began, was not the child's after another change to ragrecall_core/inputs
    landed, so the server's key found no file ("restores: [False]")."""
    assert_the_server_restores(workspace, monkeypatch)


def assert_the_server_restores(workspace: Path, monkeypatch) -> None:
    """The launcher's open, once its child has filled the cache, restores the workspace
    (no read of its own) and equals a validating read of the inputs."""
    child = cache_fill.start(launcher_args(workspace))
    waiting = threading.Thread(target=cache_fill.wait, args=(child,))
    waiting.start()
    monkeypatch.setattr(serve, "HASHING", [])
    monkeypatch.setattr(serve, "FILLING", [waiting])
    opened._AHEAD.clear()
    serve.preload(Source(workspace=workspace))
    assert child.returncode == 0
    _key, ahead = next(iter(opened._AHEAD.values())).result()
    opened._AHEAD.clear()
    assert HITS == [True], f"the server read the inputs again (restores: {HITS})"
    assert len([n for n in cache_folder_files(workspace) if n.endswith(".duckdb")]) == 1
    assert_same_content(Workspace.open(workspace), ahead)
    cache_fill.stop(child)


def test_a_filled_cache_is_left_as_it_is(workspace):
    """A second child finds the signed file and neither restores nor writes it again."""
    assert cache_fill.wait(cache_fill.start(launcher_args(workspace)))
    (path,) = load_cache.default_folder().glob("*.duckdb")
    before = path.stat()
    assert cache_fill.wait(cache_fill.start(launcher_args(workspace)))
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_inputs_with_problems_leave_no_cache_and_the_server_shows_them(workspace):
    """The child keeps nothing of a load with problems (no cache file, no temporary one);
    the server's own open then reports the same problems as a validating read."""
    (workspace / "gold.jsonl").write_text('{"query_id": \n', encoding="utf-8")
    child = cache_fill.start(launcher_args(workspace))
    assert not cache_fill.wait(child) and child.returncode == 2
    assert not [n for n in cache_folder_files(workspace) if n.endswith(".duckdb")]
    assert not [n for n in cache_folder_files(workspace) if n.startswith(".tmp-")]
    opened._AHEAD.clear()
    opened.open_ahead(Source(workspace=workspace))
    with pytest.raises(InputError) as ahead:
        next(iter(opened._AHEAD.values())).result()
    opened._AHEAD.clear()
    with pytest.raises(InputError) as own:
        Workspace.open(workspace)
    assert [str(p) for p in ahead.value.problems] == [str(p) for p in own.value.problems]


def test_no_child_when_caching_is_off(workspace, monkeypatch):
    monkeypatch.setenv(load_cache.CACHE_ENV, "off")
    assert cache_fill.start(launcher_args(workspace)) is None
    assert not cache_fill.wait(None)


def test_the_child_ends_when_the_server_s_pipe_closes():
    """A server that exits, even killed, closes its end of the child's stdin: the child
    ends then, whatever it was doing."""
    code = (
        "import threading, time\n"
        "from ragrecall_app import cache_fill\n"
        "threading.Thread(target=cache_fill._end_with_the_server, daemon=True).start()\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert child.stdout.readline() == b"ready\n"
    child.stdin.close()
    assert child.wait(timeout=30) == 1
    child.stdout.close()


def run_launcher(monkeypatch, start, args: list[str] | None = None) -> None:
    """``serve.main(args)`` with ``start`` as the child's start, and no warm-up or server."""
    monkeypatch.setattr(cache_fill, "start", start)
    assert launch_here(monkeypatch, args or []) == 0


def test_the_server_stops_its_child(monkeypatch):
    """The launcher's exit stops a child still running (and a child past its wait)."""
    started = []

    def start(args):
        started.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE))
        return started[-1]

    run_launcher(monkeypatch, start)
    assert started[0].poll() is not None, "the child outlived the server"

    slow = subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE)
    begun = time.monotonic()
    assert not cache_fill.wait(slow, timeout_s=0.2)
    assert slow.poll() is not None and time.monotonic() - begun < 10


def test_no_child_for_large_inputs(monkeypatch):
    """Inputs above cache_fill.MAX_INPUT_BYTES are read by the server as before: their read
    is DuckDB's own work, which the child's write of the cache would only delay."""
    started = []
    monkeypatch.setattr(cache_fill, "MAX_INPUT_BYTES", 0)
    run_launcher(monkeypatch, lambda args: started.append(args))
    assert started == []


def test_a_name_that_cannot_be_listed_starts_no_child_and_no_traceback(monkeypatch):
    """A launcher argument the system refuses to look up (a name too long: OSError, not
    False, from Path.exists) must not stop the launcher before streamlit starts: the server's
    own open names the problem on the page. No child is started for inputs not listed."""
    started = []
    run_launcher(monkeypatch, lambda args: started.append(args), ["--", "x" * 5000])
    assert started == []
    assert serve.named_inputs(["x" * 5000], {}) is None
