"""The per-query table at every k (issue 13): the old per-k build against one all-k build
and its slices, with the memory the all-k object holds.

    python benchmarks/bench_query_tables.py                 # data_samples + /tmp/ragrecall_large
    python benchmarks/bench_query_tables.py --repeat 5 --skip-large

For each workspace, at every k the dashboard offers (``k_choices`` of the longest list):

* **old per k**: the build before the all-k object, one ``evaluate`` per k and the failure
  classes and grades per k (the reference copy in ``tests/test_query_tables_all_k.py``);
* **per k now**: ``build_query_table(ws, k)``, i.e. the all-k build with ``ks = [k]`` (what
  the dashboard runs for a k it does not offer);
* **all-k build**: ``build_query_tables(ws, every offered k)``, once per workspace, policy
  and pass rule in the dashboard;
* **slice**: ``.at(k)``, what a new k costs once the all-k object is cached;
* **RSS**: the process's resident memory before the all-k build (the workspace loaded and
  prepared), while holding the object, and while holding a slice of every k besides.

Each time is the median of ``--repeat`` runs in one process (the workspace loaded once,
its prepared evaluation warm); the 1-minute load average is printed with it.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragrecall_core.analysis.query_table import (  # noqa: E402
    build_query_table,
    build_query_tables,
)
from ragrecall_core.inputs.workspace import Workspace, workspace_facts  # noqa: E402
from ragrecall_core.scoring.prepared import prepare  # noqa: E402
from ragrecall_core.views.dashboard_state import k_choices  # noqa: E402
from tests.test_query_tables_all_k import old_build_query_table  # noqa: E402


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def deep_mb(tables) -> float:
    """The all-k object's own size: its k-independent frame and every cutoff's columns."""
    size = tables.base.memory_usage(deep=True).sum()
    size += sum(c.memory_usage(deep=True) for cols in tables.by_k.values() for c in cols.values())
    return size / 1e6


def bench(folder: Path, repeat: int) -> None:
    start = time.perf_counter()
    ws = Workspace.open(folder)
    prepare(ws)
    loaded = time.perf_counter() - start
    ks = k_choices(max(workspace_facts(ws).depths.values() or [0]))
    print(f"\n{folder} (loaded and prepared in {loaded:.1f} s), k = {ks}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    build_query_table(ws, ks[0])  # warm: the first query of a kind pays DuckDB's planning

    gc.collect()
    before = rss_mb()  # memory first, in a process that has built one table so far
    tables = build_query_tables(ws, ks)
    gc.collect()
    holding = rss_mb()
    held = [tables.at(k) for k in ks]
    gc.collect()
    with_slices = rss_mb()

    rows = []
    for k in ks:
        old = median_time(lambda k=k: old_build_query_table(ws, k), repeat)
        now = median_time(lambda k=k: build_query_table(ws, k), repeat)
        rows.append((k, old, now))
    all_k = median_time(lambda: build_query_tables(ws, ks), repeat)
    slices = {k: median_time(lambda k=k: tables.at(k), max(repeat, 7)) for k in ks}

    print("\n| k | old per k s | per k now s | slice .at(k) s | rows |")
    print("|---:|---:|---:|---:|---:|")
    for k, old, now in rows:
        print(f"| {k} | {old:.3f} | {now:.3f} | {slices[k]:.4f} | {len(held[0].table):,} |")
    total_old = sum(old for _, old, _ in rows)
    print(
        f"\nall-k build ({len(ks)} cutoffs): {all_k:.3f} s median "
        f"(the old per-k builds of every k: {total_old:.2f} s in all)"
    )
    print(
        f"RSS: {before:.0f} MB before the all-k build, {holding:.0f} MB holding it "
        f"(+{holding - before:.0f} MB), {with_slices:.0f} MB holding a slice of every k too "
        f"(+{with_slices - holding:.0f} MB); the object's own frames and columns (pandas, "
        f"deep): {deep_mb(tables):.0f} MB"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=Path("/tmp/ragrecall_large"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    bench(ROOT / "data_samples", args.repeat)
    if not args.skip_large:
        if not (args.large / "gold.jsonl").exists():
            raise SystemExit(f"{args.large} has no workspace: run make_large_workspace.py first")
        bench(args.large, args.repeat)


if __name__ == "__main__":
    main()
