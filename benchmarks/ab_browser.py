"""Before / after of dashboard clicks: several checkouts served at once, clicks alternated.

``bench_browser.py --source DIR`` times one checkout per run; on a machine whose speed moves
from minute to minute (this one's ran 18% slower in one hour than in the one before), two
such runs do not compare two commits. This script serves every checkout given at once, each
on its own server with its own ``$RAGRECALL_HOME``, opens each in one chromium, and times
the same page switches (and, with ``--baseline``, Compare's baseline change) on each in
turn, the order reversed every round, the first round dropped: each click's median per
checkout, with the browser's CPU seconds per click.

    git archive <old> | tar -x -C /tmp/before
    git archive HEAD  | tar -x -C /tmp/after
    python benchmarks/ab_browser.py /tmp/before /tmp/after --repeat 6
    python benchmarks/ab_browser.py /tmp/before /tmp/after --workspace /tmp/ragrecall_large \\
        --steps "Ranks>Compare" --baseline

Run it alone on the machine (``flock /tmp/bench.lock``, as the other benchmarks).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_browser as bb  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

TIMEOUT_S = 300
STEPS = "Agreement>Overview,Failures>Ranks,Ranks>Compare,Compare>No-answer,Judge>Agreement"
TICK = os.sysconf("SC_CLK_TCK")


def browser_cpu() -> float:
    """CPU seconds used so far by this process's chromium processes."""
    total = 0
    for pid in bb.process_tree(os.getpid()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            name = Path(f"/proc/{pid}/comm").read_text()
        except OSError:
            continue
        if "chrom" in name:
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def switch(page, came: str, link: str) -> tuple[float, float]:
    """Seconds from a click on ``link`` (from page ``came``) to the settled page, and the
    browser's CPU seconds meanwhile."""
    bb.nav(page, came, TIMEOUT_S)
    before = browser_cpu()
    seconds = bb.timed(page, lambda: bb.click_nav(page, link), f"^{bb.PAGES[link]}$", TIMEOUT_S)
    return seconds[0], browser_cpu() - before


def baseline_change(page) -> tuple[float, float]:
    """Seconds from choosing another baseline on Compare to the settled comparison."""
    bb.nav(page, "Compare", TIMEOUT_S)
    runs = bb.open_select(page, "Baseline run (before)")
    bb.close_select(page)
    heading = r"^Candidate (.+) against baseline (.+?) · k = "
    shown = next(m for t in page.locator("p").all_inner_texts() if (m := re.match(heading, t)))
    other = next(run for run in runs if run not in shown.groups())
    bb.open_select(page, "Baseline run (before)")
    before = browser_cpu()
    pattern = rf"against baseline {re.escape(other)} · k = "
    seconds = bb.timed(page, lambda: bb.choose(page, other), pattern, TIMEOUT_S)
    return seconds[0], browser_cpu() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="checkouts to serve")
    parser.add_argument("--workspace", type=Path, default=HERE.parent / "data_samples")
    parser.add_argument("--steps", default=STEPS, help="page switches, 'From>To,...'")
    parser.add_argument("--baseline", action="store_true", help="also Compare's baseline change")
    parser.add_argument("--repeat", type=int, default=6)
    args = parser.parse_args(argv)
    steps = [tuple(step.split(">")) for step in args.steps.split(",") if step]
    names = [f"{i}:{source.name}" for i, source in enumerate(args.sources)]
    logs = Path(tempfile.mkdtemp(prefix="ab-browser-"))
    homes = [logs / f"home{i}" for i in range(len(names))]
    for home in homes:
        home.mkdir()
    servers = {
        name: bb.Server(args.workspace, logs / f"server{i}.log", source, homes[i])
        for i, (name, source) in enumerate(zip(names, args.sources, strict=True))
    }
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {}
    try:
        for server in servers.values():
            server.wait_healthy(TIMEOUT_S)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=bb.CHROMIUM, args=bb.CHROMIUM_ARGS)
            pages = {}
            for name, server in servers.items():
                pages[name] = browser.new_context(viewport=bb.VIEWPORT).new_page()
                bb.timed_goto(pages[name], server.url, "^Headline measures", TIMEOUT_S)
            for round_ in range(args.repeat + 1):
                for name in names if round_ % 2 == 0 else names[::-1]:
                    page = pages[name]
                    page.bring_to_front()
                    timed = {f"{came} -> {link}": switch(page, came, link) for came, link in steps}
                    if args.baseline:
                        timed["Compare baseline change"] = baseline_change(page)
                    for step, sample in timed.items():
                        if round_:  # the first round warms each server's pages: dropped
                            samples.setdefault(step, {}).setdefault(name, []).append(sample)
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    for step, by_source in samples.items():
        print(step)
        for name, taken in by_source.items():
            seconds = [s for s, _ in taken]
            cpu = statistics.median(c for _, c in taken)
            print(
                f"  {name:<24} median {statistics.median(seconds):.3f} s  "
                f"[{' '.join(f'{s:.2f}' for s in seconds)}]  browser CPU {cpu:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
