"""Time ``Workspace.open`` with and without the load cache (ragrecall_core/inputs/load_cache.py).

Each case runs in a fresh Python process (as a new dashboard server or a CLI command
would), on each workspace given (default: ``data_samples/`` and ``/tmp/ragrecall_large``,
made by ``benchmarks/make_large_workspace.py``):

- ``cold``: ``Workspace.open(folder)``, no cache: every input read and checked;
- ``miss``: the same with a cache folder that holds nothing yet: the open itself, then
  the background write of the cache file (``write``: until it is in place) and its size;
- ``hit``: a fresh process opening the same folder once the cache file exists;
- ``key``: the content key alone (every input file hashed).

Wall seconds and the process's peak RSS (MB: after imports, and at the end), medians of
``--repeat`` runs (default 3). The OS page cache is warm (the inputs were read just before).

    python benchmarks/bench_load_cache.py [--repeat 3] [WORKSPACE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORKSPACES = [ROOT / "data_samples", Path("/tmp/ragrecall_large")]

CHILD = r"""
import json, resource, sys, time
from pathlib import Path

from ragrecall_core.inputs import load_cache
from ragrecall_core.inputs.workspace import Workspace, load_plan

case, folder, cache = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out = {"rss_before": rss()}
start = time.perf_counter()
if case == "key":
    ws = Workspace.open(folder)
    plan = load_plan("files", [("gold", ws.gold)], list(ws.runs.values()), ws.grades, ws.corpus)
    load_cache._DIGESTS.clear()
    start = time.perf_counter()
    assert load_cache.cache_key(plan) is not None
else:
    ws = Workspace.open(folder, cache=None if case == "cold" else cache)
out["open"] = time.perf_counter() - start
load_cache.wait_for_writes()
out["write"] = time.perf_counter() - start - out["open"]
out["rss_peak"] = rss()
out["files"] = sorted(p.stat().st_size for p in Path(cache).glob("*.duckdb"))
print(json.dumps(out))
"""


def child(case: str, folder: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAGRECALL_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, case, str(folder), str(cache)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(folder: Path, repeat: int) -> dict[str, dict]:
    """Median open / write seconds and peak RSS per case."""
    results: dict[str, list[dict]] = {"cold": [], "key": [], "miss": [], "hit": []}
    for _ in range(repeat):
        for case in ("cold", "key"):
            with tempfile.TemporaryDirectory() as empty:
                results[case].append(child(case, folder, Path(empty)))
        cache = Path(tempfile.mkdtemp(prefix="ragrecall-bench-cache-"))
        try:
            results["miss"].append(child("miss", folder, cache))
            results["hit"].append(child("hit", folder, cache))
        finally:
            shutil.rmtree(cache)
    return {
        case: {
            name: statistics.median(run[name] for run in runs)
            for name in ("open", "write", "rss_before", "rss_peak")
        }
        | {"file_mb": max((run["files"] or [0])[-1] for run in runs) / 1e6}
        for case, runs in results.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspaces", nargs="*", type=Path, default=DEFAULT_WORKSPACES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)  repeat: {args.repeat}")
    print(f"{'workspace':28} {'case':5} {'open s':>7} {'write s':>8} {'RSS MB':>7} {'file MB':>8}")
    for folder in args.workspaces:
        for case, row in measure(folder, args.repeat).items():
            write = f"{row['write']:8.2f}" if case == "miss" else " " * 8
            size = f"{row['file_mb']:8.1f}" if case in ("miss", "hit") else " " * 8
            print(
                f"{str(folder)[-28:]:28} {case:5} {row['open']:7.2f} {write} "
                f"{row['rss_peak']:7.0f} {size}"
            )
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
