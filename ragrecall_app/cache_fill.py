"""A fresh server's load cache filled in a child process (issue 30).

A fresh server opens its workspace while another thread imports pandas, streamlit and the
dashboard. DuckDB's Python client takes the interpreter's lock back after each call and each
task, so beside that thread a validating read (an empty load cache) that takes ~0.3 s alone
took 2.3-2.7 s. The launcher (:mod:`ragrecall_app.serve`) therefore starts this module as a
child process first thing, before it imports streamlit: the child has an interpreter of its
own, reads and checks the inputs (:func:`ragrecall_app.opened.open_spec`, the same open a
session makes) and waits until the load cache holds them. The server's own open waits for
it (:func:`wait`) and then restores the workspace from the cache in a few DuckDB calls.

The child only warms the cache: nothing it does is shown or trusted beyond what the load
cache itself checks (the file is signed with the user's key and checked before a restore).
It keeps only a load without problems (as every load does); when it fails, finds problems
in the inputs, takes longer than :data:`WAIT_S` or the server stops, the server opens the
workspace as without it, reads every input itself and shows the problems. A cache file
already there is left as it is (:func:`.load_cache.filling`): no restore in the child.
The child ends when the server closes its end of the pipe on the child's stdin (the server
exited, even killed) or stops it (:func:`stop`).

This module imports only the standard library until the child runs: the launcher imports it
before anything else.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

# the child is started for inputs of at most this many bytes together. A small workspace's
# read is many short DuckDB calls, each waiting for the interpreter's lock beside the
# server's imports: there the child wins (data_samples, 1.5 MB; 500 queries, 20 MB). A
# large one's is DuckDB's own work in its threads: the child's read, its write of the
# cache and its second hashing of the inputs take both cores from the server's start, and
# the server's start to its first page took longer (2,000 queries, 58 MB): issue 30,
# stop 42 in benchmarks/README.md.
MAX_INPUT_BYTES = 32 << 20
# how long the server's open waits for the child before it reads the inputs itself
WAIT_S = 120.0
# load_cache.CACHE_ENV, read here without importing DuckDB
CACHE_ENV = "RAGRECALL_CACHE"
# the checkout the launcher runs from: the child imports the same package
ROOT = Path(__file__).resolve().parent.parent


def app_arguments(launcher_args: Sequence[str]) -> list[str]:
    """The app's own arguments among the launcher's: those after ``--`` (streamlit passes
    them to app.py), none without one."""
    args = list(launcher_args)
    return args[args.index("--") + 1 :] if "--" in args else []


def start(launcher_args: Sequence[str]) -> subprocess.Popen | None:
    """The child filling the load cache for the source the launcher's arguments name (and
    ``$RAGRECALL_WORKSPACE``, as app.py reads them), or None when it cannot be started
    (the server then opens the workspace as without it)."""
    env = dict(os.environ)
    if env.get(CACHE_ENV, "").strip().lower() == "off":  # no cache to fill (load_cache.enabled)
        return None
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", __name__, *app_arguments(launcher_args)]
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # the server's own open names what is wrong
            env=env,  # and the server's folder: a relative path names the same file
        )
    except OSError:
        return None


def wait(child: subprocess.Popen | None, timeout_s: float = WAIT_S) -> bool:
    """Wait for ``child`` (at most ``timeout_s``: then it is stopped); whether it filled
    the cache (or found it filled)."""
    if child is None:
        return False
    try:
        return child.wait(timeout=timeout_s) == 0
    except subprocess.TimeoutExpired:
        stop(child)
        return False


def stop(child: subprocess.Popen | None) -> None:
    """End ``child`` if it still runs (a temporary cache file it leaves is never read, and
    goes at the next load that writes the cache: its writer is gone,
    :func:`.load_cache.remove_dead_writers`), and close the pipe to it."""
    if child is None:
        return
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    if child.stdin is not None:
        try:
            child.stdin.close()
        except OSError:
            pass


def fill(app_args: Sequence[str], env: dict[str, str]) -> int:
    """In the child: open the workspace the app would open (a load cache that holds it is
    left as it is) and wait until the cache file is written. 0 when the cache holds the
    workspace, 2 when the inputs have problems, 1 on anything else."""
    from ragrecall_app.opened import open_spec, spec_of
    from ragrecall_core.errors import InputError
    from ragrecall_core.inputs import load_cache
    from ragrecall_core.views.source import parse_source

    source = parse_source(app_args, env, ROOT / "data_samples")
    try:
        with load_cache.filling() as kept:
            open_spec(spec_of(source))
    except load_cache.AlreadyCached:
        return 0
    except InputError:
        return 2
    load_cache.wait_for_writes()
    return 0 if kept and all(path.is_file() for path in kept) else 1


def _end_with_the_server() -> None:
    """Exit once the server's end of the pipe on stdin is closed (it exited or was killed)."""
    try:
        sys.stdin.buffer.read()
    finally:
        os._exit(1)


if __name__ == "__main__":
    threading.Thread(target=_end_with_the_server, daemon=True).start()
    try:
        code = fill(sys.argv[1:], dict(os.environ))
    except Exception:  # noqa: BLE001 (the server opens the workspace itself and says why)
        code = 1
    sys.stdout.flush()
    os._exit(code)
