"""A fresh server's first page with a filled (or an empty) load cache, checkout against
checkout, and where its time goes (issue 30).

    python benchmarks/bench_warm_up.py --source /tmp/before --source . --repeat 3
    python benchmarks/bench_warm_up.py --source . --repeat 1 --phases
    python benchmarks/bench_warm_up.py --source /tmp/before --source . --cache empty \
        --workspace "$PWD/data_samples"

Each --source checkout is served as ``ragrecall ui`` serves it (bench_browser.py's
``launch_command``: ``python -m ragrecall_app.serve``) on the 10k workspace, the checkouts
in turn, ``--repeat`` rounds, every server on the same $RAGRECALL_HOME (filled first by one
untimed server per checkout: a checkout whose loader differs has its own cache file; with
``--cache empty`` each server has a $RAGRECALL_HOME of its own, and reads every input). Per
server: seconds from its start to its health answer, its first page from then to the
settled page (bench_browser.py's ``timed_goto``), and a second session's first page opened
right after it (the launcher then builds every k and the other pages behind the first:
what that costs a session that opens meanwhile). With ``--phases`` the server runs through
this file's tracer, which logs each step of the warm-up and each session's script run with
its time since the server's start (in ``<out>/<checkout>-<round>.log``): hashing the inputs,
the load cache's restore, the scoring, the Overview's build.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADLINE = "^Headline measures"
# the functions the tracer times, by module (those a checkout lacks are skipped)
TRACED = {
    "ragrecall_core.inputs.load_cache": ("restore", "distrust", "_copy_in"),
    "ragrecall_app.context": ("content_hash", "preload", "open_source", "score", "warm_up"),
    "ragrecall_app.serve": ("warm_first_page", "import_first_page"),
    "ragrecall_app.page_warm": ("first_page_drawn", "warm_pages", "_every_k"),
    "ragrecall_app.overview_sections": ("view",),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, action="append", required=True)
    parser.add_argument("--workspace", type=Path, default=Path("/tmp/ragrecall_large"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cache",
        choices=("filled", "empty"),
        default="filled",
        help="each server's load cache: filled by a first untimed server, or empty (a home "
        "of its own: every input read and checked)",
    )
    parser.add_argument("--phases", action="store_true", help="log the warm-up's steps")
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="warm-up-")))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from scripts.chromium import CHROMIUM, CHROMIUM_ARGS

    home = args.out / "home"
    results: dict[Path, list[tuple[float, float, float]]] = {s: [] for s in args.source}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for source in args.source if args.cache == "filled" else ():  # untimed
            one_server(browser, source, args, home, args.out / "fill.log")
        for i in range(args.repeat):
            for source in args.source:
                log = args.out / f"{source.resolve().name}-{i}.log"
                if args.cache == "empty":
                    home = Path(tempfile.mkdtemp(prefix="home-", dir=args.out))
                row = one_server(browser, source, args, home, log)
                results[source].append(row)
                print(
                    f"{source} #{i + 1}: health {row[0]:.2f} s, first page {row[1]:.2f} s, "
                    f"second session {row[2]:.2f} s, load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        browser.close()
    print("\n| checkout | health s | first page s | second session s |\n|---|---:|---:|---:|")
    for source, rows in results.items():
        medians = [statistics.median(column) for column in zip(*rows, strict=True)]
        print(f"| {source} | " + " | ".join(f"{m:.2f}" for m in medians) + " |")
    print(f"\nlogs in {args.out}")
    return 0


def one_server(browser, source: Path, args, home: Path, log: Path) -> tuple[float, float, float]:
    """(health, first page, second session) of one fresh server of ``source``."""
    from bench_browser import launch_command, timed_goto

    from scripts.chromium import free_port, healthy_within, server_flags

    port = free_port()
    command = launch_command(source)
    if args.phases:
        command = [sys.executable, str(Path(__file__).resolve()), "--traced-serve"]
    command += [*server_flags(port), "--browser.gatherUsageStats", "false"]
    env = {
        **os.environ,
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
        "RAGRECALL_WORKSPACE": str(args.workspace),
        "RAGRECALL_HOME": str(home),
        "PYTHONPATH": str(source.resolve()),
        "BENCH_T0": repr(time.time()),
    }
    url = f"http://localhost:{port}"
    started = time.perf_counter()
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=source, env=env, stdout=out, stderr=out)
        try:
            if not healthy_within(url, 120):
                raise RuntimeError(f"no server on {url}: see {log}")
            health = time.perf_counter() - started
            pages = []
            for _ in range(2):
                context = browser.new_context(viewport={"width": 1600, "height": 1000})
                try:
                    pages.append(timed_goto(context.new_page(), url, HEADLINE, 120))
                finally:
                    context.close()
        finally:
            server.terminate()
            server.wait(60)
    return health, pages[0], pages[1]


# ---------------------------------------------------------------- the traced server
def traced_serve(argv: list[str]) -> int:
    """``python -m ragrecall_app.serve`` with each step of :data:`TRACED` and each script
    run logged on stderr, in seconds since ``$BENCH_T0``."""
    start = float(os.environ.get("BENCH_T0", time.time()))

    def log(line: str) -> None:
        name = threading.current_thread().name[:20]
        sys.stderr.write(f"phase {time.time() - start:7.3f} [{name}] {line}\n")

    def traced(label: str, function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            began = time.time()
            log(f"> {label}")
            try:
                return function(*args, **kwargs)
            finally:
                log(f"< {label} {time.time() - began:.3f} s")

        return run

    import importlib

    for module_name, names in TRACED.items():
        module = importlib.import_module(module_name)
        for name in names:
            if hasattr(module, name):
                setattr(
                    module,
                    name,
                    traced(f"{module_name.rsplit('.', 1)[-1]}.{name}", getattr(module, name)),
                )
    from streamlit.runtime.scriptrunner import script_runner

    runner = script_runner.ScriptRunner
    runner._run_script = traced("script run", runner._run_script)
    log("tracer ready (imports done)")
    from ragrecall_app import serve

    return serve.main(argv)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if sys.argv[1:2] == ["--traced-serve"]:
        sys.exit(traced_serve(sys.argv[2:]))
    sys.exit(main())
