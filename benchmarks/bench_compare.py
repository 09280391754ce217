"""Speed and memory of ``ragrecall compare`` / ``check --baseline`` and of the CLI's start.

Every case runs in a fresh process (``python -m ragrecall_core ...``) and is timed from
process start to its exit: wall seconds, CPU seconds (user + system) and that process's
own peak RSS (``os.wait4``). Each figure is the median of ``--repeat`` runs (``--startup-
repeat`` for the start-up cases, which are short and noisy).

* ``compare GOLD BASE CAND`` and ``check GOLD CAND --baseline BASE`` on generated
  workspaces of 1,000 and 10,000 queries x 100 results (``make_large_workspace.py``,
  fixed seed; the bm25 and dense runs of it); ``compare`` also with ``--cache`` after an
  untimed run filled the load cache (in a temporary RAGRECALL_HOME of the benchmark's own);
* ``ragrecall --help`` and ``ragrecall evaluate`` on ``data_samples/`` (bm25, default
  measures).

``--source DIR`` runs another checkout of the package (e.g. an ``git archive`` of an older
commit unpacked into DIR) with the same inputs, for before / after figures.

    python benchmarks/bench_compare.py                       # --out /tmp/ragrecall-bench-compare
    python benchmarks/bench_compare.py --sizes 1000 --repeat 3
    python benchmarks/bench_compare.py --source /tmp/before --only startup
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAKE = REPO / "benchmarks" / "make_large_workspace.py"
SAMPLES = REPO / "data_samples"
SEED = 7
DEPTH = 100
BASELINE, CANDIDATE = "bm25", "dense"


def workspace(out: Path, queries: int) -> Path:
    """The generated workspace of ``queries`` queries (made once, then reused)."""
    folder = out / f"ws_{queries}x{DEPTH}_seed{SEED}"
    if not (folder / "gold.jsonl").exists():
        subprocess.run(
            [sys.executable, str(MAKE), str(folder), "--queries", str(queries)]
            + ["--depth", str(DEPTH), "--seed", str(SEED)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return folder


def run_once(args: list[str], source: Path | None) -> dict:
    """One fresh ``python -m ragrecall_core ARGS``: wall, CPU, peak RSS and exit code.

    It runs in an empty folder: ``python -m`` puts the working folder first on the path,
    which would otherwise shadow ``source``.
    """
    env = {**os.environ, "PYTHONPATH": str(source or REPO)}
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as empty,
    ):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragrecall_core", *args],
            stdout=out,
            stderr=err,
            env=env,
            cwd=empty,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        if code not in (0, 1):  # check exits 1 when the gate fails: still a full run
            raise RuntimeError(f"{' '.join(args)} exited {code}: {err.read()[-2000:]!r}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }


def median_of(args: list[str], repeat: int, source: Path | None) -> dict:
    if "--cache" in args:  # an untimed run fills the load cache: the timed ones hit it
        run_once(args, source)
    samples = [run_once(args, source) for _ in range(repeat)]
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def cases(out: Path, sizes: list[int], only: str | None) -> list[tuple[str, list[str], str]]:
    """``(label, arguments, kind)`` of every case to time."""
    found = []
    if only in (None, "startup"):
        runs = SAMPLES / "runs"
        found += [
            ("ragrecall --help", ["--help"], "startup"),
            (
                "evaluate data_samples (bm25)",
                ["evaluate", str(SAMPLES / "gold.jsonl"), str(runs / f"{BASELINE}.jsonl")],
                "startup",
            ),
        ]
    if only in (None, "compare"):
        for queries in sizes:
            folder = workspace(out, queries)
            gold = str(folder / "gold.jsonl")
            base, cand = (str(folder / "runs" / f"{run}.jsonl") for run in (BASELINE, CANDIDATE))
            found += [
                (f"compare {queries:,} x {DEPTH} x 2", ["compare", gold, base, cand], "compare"),
                (
                    f"compare {queries:,} x {DEPTH} x 2, --cache filled",
                    ["compare", gold, base, cand, "--cache"],
                    "compare",
                ),
                (
                    f"check --baseline {queries:,} x {DEPTH} x 2",
                    ["check", gold, cand, "--baseline", base],
                    "compare",
                ),
            ]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/ragrecall-bench-compare"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--repeat", type=int, default=5, help="runs per compare case")
    parser.add_argument("--startup-repeat", type=int, default=15, help="runs per start-up case")
    parser.add_argument("--only", choices=("startup", "compare"))
    parser.add_argument("--source", type=Path, help="a checkout whose ragrecall_core to run")
    args = parser.parse_args(argv)
    # its own ragrecall folder: the --cache cases fill a load cache there, never the user's
    os.environ["RAGRECALL_HOME"] = tempfile.mkdtemp(prefix="bench-compare-home-")
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    rows = []
    for label, arguments, kind in cases(args.out, args.sizes, args.only):
        repeat = args.startup_repeat if kind == "startup" else args.repeat
        result = median_of(arguments, repeat, args.source)
        rows.append((label, repeat, result))
        print(
            f"{label:<40} median of {repeat:>2}: wall {result['wall']:6.2f} s  "
            f"CPU {result['cpu']:6.2f} s  peak RSS {result['rss_mb']:6.0f} MB",
            flush=True,
        )
    print(
        f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
        f"Python {sys.version.split()[0]}; source {args.source or REPO}; 1-min load average "
        f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
