"""A workspace's open beside a busy Python thread, checkout against checkout (issue 30).

    python benchmarks/bench_open_beside.py --source /tmp/before --source . --repeat 7
    python benchmarks/bench_open_beside.py --source . --cache filled --beside none

A fresh dashboard server opens its workspace in a thread while another imports pandas,
streamlit and the dashboard (``ragrecall_app.serve.warm_up``). The import thread holds the
interpreter's lock nearly all the time, and every DuckDB statement releases it and waits to
take it back (the switch interval, 5 ms, once or more per statement): 100 small statements
took 0.04 s alone and 0.5-1.7 s beside a thread that only counts. So the number of
statements an open runs, not its DuckDB time, sets its time in a fresh server.

Each round runs, for each ``--source`` checkout in turn, one process that opens the
workspace (``data_samples`` by default) with an empty load cache (``--cache empty``: a
validating read, then the cache written in the background; ``filled``: a restore), beside a
thread that counts in a Python loop (``--beside spin``) or alone (``none``); it prints the
open's wall and CPU seconds and the number of DuckDB statements the open ran. Medians of the
rounds per checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run in each checkout: the open timed, its statements counted through a wrapped connection
CHILD = r"""
import json, sys, threading, time
import duckdb
from ragrecall_core.inputs import load_cache, workspace

workspace_dir, cache, beside = sys.argv[1], sys.argv[2], sys.argv[3]
counted = [0]


class Counted:
    def __init__(self, con):
        self._con = con

    def __getattr__(self, name):
        return getattr(self._con, name)

    def execute(self, *args, **kwargs):
        counted[0] += 1
        self._con.execute(*args, **kwargs)
        return self

    def cursor(self):
        return Counted(self._con.cursor())


connect = duckdb.connect
duckdb.connect = lambda *a, **k: Counted(connect(*a, **k))
if cache == "filled":
    workspace.Workspace.open(workspace_dir, cache=sys.argv[4])
    load_cache.wait_for_writes()
    counted[0] = 0
stop = threading.Event()


def spin():
    while not stop.is_set():
        sum(range(100))


spinner = threading.Thread(target=spin)
if beside == "spin":
    spinner.start()
wall, cpu = time.perf_counter(), time.thread_time()
workspace.Workspace.open(workspace_dir, cache=sys.argv[4])
wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
stop.set()
if beside == "spin":
    spinner.join()
load_cache.wait_for_writes()
print(json.dumps({"wall": wall, "cpu": cpu, "statements": counted[0]}))
"""


def one_open(source: Path, workspace_dir: Path, cache: str, beside: str, home: Path) -> dict:
    """One open in a fresh process of ``source``'s checkout, with a cache folder of its own."""
    folder = Path(tempfile.mkdtemp(dir=home))
    env = {**os.environ, "PYTHONPATH": str(source), "RAGRECALL_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(workspace_dir), cache, beside, str(folder)],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, action="append", required=True)
    parser.add_argument("--workspace", type=Path, default=ROOT / "data_samples")
    parser.add_argument("--cache", choices=("empty", "filled"), default="empty")
    parser.add_argument("--beside", choices=("spin", "none"), default="spin")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from scripts.bytecode import compiled

    home = Path(tempfile.mkdtemp(prefix="open-beside-"))
    sources = [source.resolve() for source in args.source]
    for source in sources:
        compiled(source)
    results: dict[Path, list[dict]] = {source: [] for source in sources}
    for _ in range(args.repeat):
        for source in sources:
            opened = one_open(source, args.workspace.resolve(), args.cache, args.beside, home)
            results[source].append(opened)
    print(f"open of {args.workspace.name}, cache {args.cache}, beside {args.beside}, ", end="")
    print(f"medians of {args.repeat}")
    print("| checkout | wall s | CPU s (its thread) | statements |")
    print("|---|---:|---:|---:|")
    for source, runs in results.items():
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        statements = statistics.median(r["statements"] for r in runs)
        print(f"| {source} | {wall:.3f} | {cpu:.3f} | {statements:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
