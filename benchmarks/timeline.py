"""Where one ragrecall command's time goes: every DuckDB call it makes, by thread.

Runs the command line in this process (``ragrecall_core.cli.main``) with each call of a
DuckDB connection wrapped (``execute``, ``sql``, the fetches): a call of ``--min-ms`` or
more is listed with when it started, how long it took, its thread, the three frames that
made it and the head of its SQL; then the totals per thread and per calling function, and
what the imports took. A call's time includes its wait for the interpreter's lock, so two
threads' calls overlap. Its own output (the command's) is dropped.

    python benchmarks/timeline.py evaluate GOLD RUN -m P@10 -m AP --format json
    python benchmarks/timeline.py --min-ms 1 evaluate GOLD RUN --format json

``bench_evaluate.py --profile CASE`` runs it on a case's files.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WRAPPED = ("execute", "sql", "fetchone", "fetchall", "fetchdf", "fetchnumpy", "df", "arrow")


def wrap(cls: type, name: str, calls: list, start: float, least: float) -> None:
    """``cls.name`` replaced by a function that times each call and records the slow ones
    (start, seconds, thread, callers, SQL head) in ``calls``."""
    original = getattr(cls, name)

    def timed(self, *args, **kwargs):
        began = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            took = time.perf_counter() - began
            if took >= least:
                calls.append((began - start, took, threading.current_thread().name, name,
                              callers(sys._getframe(1)), sql_head(args)))  # fmt: skip

    setattr(cls, name, timed)


def callers(frame, depth: int = 3) -> str:
    """The ``depth`` frames from ``frame`` outwards, as ``module:function:line``."""
    said = []
    while frame is not None and len(said) < depth:
        said.append(
            f"{Path(frame.f_code.co_filename).stem}:{frame.f_code.co_name}:{frame.f_lineno}"
        )
        frame = frame.f_back
    return " < ".join(said)


def sql_head(args: tuple, width: int = 90) -> str:
    """The first ``width`` characters of a call's SQL, on one line."""
    return " ".join(args[0].split())[:width] if args and isinstance(args[0], str) else ""


def report(calls: list, imports: float, total: float) -> str:
    """The calls in the order they began, then the totals per thread and per caller."""
    lines = [f"imports {imports:.3f} s, command {total:.3f} s (from the script's start)", ""]
    lines += [f"{'start':>7} {'s':>6}  {'thread':<16} {'call':<10} where / SQL"]
    for began, took, thread, name, where, sql in sorted(calls):
        lines.append(f"{began:7.3f} {took:6.3f}  {thread[:16]:<16} {name:<10} {where}")
        if sql:
            lines.append(f"{'':43}{sql}")
    for title, key in (("thread", 2), ("caller", 4)):
        totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
        for call in calls:
            label = call[key] if key == 2 else call[key].split(" < ")[0].rsplit(":", 1)[0]
            totals[label][0] += call[1]
            totals[label][1] += 1
        lines += ["", f"per {title} (calls listed above): seconds, calls"]
        for label, (seconds, count) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"  {seconds:7.3f} {count:4d}  {label}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-ms", type=float, default=5.0, help="list calls this long or more")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="ragrecall's arguments")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    sys.path.insert(0, str(REPO))
    import duckdb

    calls: list = []
    for name in WRAPPED:
        if hasattr(duckdb.DuckDBPyConnection, name):
            wrap(duckdb.DuckDBPyConnection, name, calls, start, args.min_ms / 1000)
    from ragrecall_core.cli import main as ragrecall

    imports = time.perf_counter() - start
    os.chdir(REPO)
    with contextlib.redirect_stdout(io.StringIO()):
        code = ragrecall(args.command)
    print(report(calls, imports, time.perf_counter() - start))
    return code


if __name__ == "__main__":
    sys.exit(main())
