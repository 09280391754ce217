"""Server-side script time of the dashboard, measured with streamlit's AppTest.

    python benchmarks/bench_dashboard.py                      # data_samples + /tmp/ragrecall_large
    python benchmarks/bench_dashboard.py --large /path/to/ws  # reuse a generated workspace

1. First render of Overview on data_samples (caches cleared; target <= 2 s).
2. On a 10,000 x 100 x 4 workspace (made by make_large_workspace.py if absent):
   the first load, then reruns of the Queries page changing k, a filter and the
   selected query (target <= 0.5 s median). Prints medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(ROOT / "app.py")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def fresh(workspace: Path | None) -> AppTest:
    if workspace is None:
        os.environ.pop("RAGRECALL_WORKSPACE", None)
    else:
        os.environ["RAGRECALL_WORKSPACE"] = str(workspace)
    return AppTest.from_file(APP, default_timeout=600)


def check(at: AppTest) -> None:
    if at.exception:
        raise SystemExit(f"app raised: {[e.value for e in at.exception]}")


def bench_samples(repeat: int) -> dict[str, float]:
    warm = fresh(None)
    cold_process = timed(warm.run)  # includes importing streamlit / plotly / duckdb
    check(warm)
    firsts = []
    for _ in range(repeat):
        st.cache_data.clear()
        st.cache_resource.clear()
        at = fresh(None)
        firsts.append(timed(at.run))
        check(at)
    return {
        "overview first render, cold process (s)": cold_process,
        "overview first render, caches cleared, median (s)": statistics.median(firsts),
    }


def bench_large(folder: Path, repeat: int) -> dict[str, float]:
    if not (folder / "gold.jsonl").exists():
        from benchmarks.make_large_workspace import make

        print(f"generating {folder} …", flush=True)
        make(folder, 10_000, 100, 2_000, 7)
    at = fresh(folder)
    load = timed(at.run)
    check(at)
    at.switch_page("pages/queries.py")
    first_queries = timed(at.run)
    out = {
        "large: first load + Overview (s)": load,
        "large: first Queries render (s)": first_queries,
    }

    k_cold, k_warm = [], []
    for i in range(repeat):
        for k in (10, 5):
            at.selectbox(key="side_k").select(k)
            (k_cold if i == 0 and k == 10 else k_warm).append(timed(at.run))
            check(at)
    out["large: change k, first time at a new k (s)"] = k_cold[0]
    out["large: change k, cached k, median (s)"] = statistics.median(k_warm)

    sections = ["finance", "hr", "security", ""]
    filt = []
    for i in range(repeat):
        at.selectbox(key="side_section").select(sections[i % len(sections)])
        filt.append(timed(at.run))
        check(at)
    out["large: change a filter, median (s)"] = statistics.median(filt)
    at.selectbox(key="side_section").select("")
    at.run()

    sel = []
    for i in range(repeat):
        at.session_state["queries_table"] = {
            "selection": {"rows": [i * 37 % 5000], "columns": [], "cells": []}
        }
        sel.append(timed(at.run))
        check(at)
    out["large: select a query (detail), median (s)"] = statistics.median(sel)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=Path("/tmp/ragrecall_large"))
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    results = bench_samples(args.repeat)
    if not args.skip_large:
        results.update(bench_large(args.large, args.repeat))
    width = max(map(len, results))
    for name, value in results.items():
        print(f"{name:<{width}}  {value:7.3f}")


if __name__ == "__main__":
    main()
