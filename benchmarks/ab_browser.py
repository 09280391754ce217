"""Before / after of dashboard clicks: several checkouts served at once, clicks alternated.

``bench_browser.py --source DIR`` times one checkout per run; on a machine whose speed moves
from minute to minute (this one's ran 18% slower in one hour than in the one before), two
such runs do not compare two commits. This script serves every checkout given at once, each
on its own server with its own ``$RAGRECALL_HOME``, opens each in one chromium, and times
the same steps on each in turn, the order reversed every round, the first round dropped:
each step's median per checkout, with the browser's CPU seconds and the renderer's task,
script and layout + style time per click (CDP ``Performance.getMetrics``). The steps are
bench_browser.py's own, done and waited for as it does them (its table
:data:`bench_browser.NAMED_STEPS`: a k change, a section filter, a Failures bar, a Ranks
bin, a Queries row, a Compare baseline; page switches ``From>To``).

    git archive <old> | tar -x -C /tmp/before
    git archive HEAD  | tar -x -C /tmp/after
    python benchmarks/ab_browser.py /tmp/before /tmp/after --repeat 6
    python benchmarks/ab_browser.py /tmp/before /tmp/after --workspace /tmp/ragrecall_large \\
        --steps "Ranks>Compare" --baseline
    python benchmarks/ab_browser.py /tmp/before /tmp/after --steps "k change,section filter"

Run it alone on the machine (``flock /tmp/bench.lock``, as the other benchmarks).
"""

from __future__ import annotations

import argparse
import os
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
# the renderer's counters (CDP Performance.getMetrics) read around each click, in seconds
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


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


def step_of(name: str) -> bb.Step:
    """A step of bench_browser.py's table: ``From>To`` or one of its named steps."""
    if ">" in name:
        came, link = name.split(">")
        return bb.page_switch(came, link)
    if name not in bb.NAMED_STEPS:
        raise SystemExit(f"unknown step {name!r}: 'From>To' or one of {', '.join(bb.NAMED_STEPS)}")
    return bb.NAMED_STEPS[name]


def renderer(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def measured(page, cdp, step: bb.Step, i: int, chosen: dict) -> tuple[float, ...]:
    """Seconds from the step's action to the settled page, the browser's CPU seconds, and
    the renderer's task, script and layout + style seconds meanwhile. The step's page is
    reached first (untimed); what its setup chose on this page is kept in ``chosen``."""
    bb.nav(page, step.page, TIMEOUT_S)
    if step.row not in chosen:
        chosen[step.row] = step.setup(page)
    action, pattern, previous = step.act(page, i, chosen[step.row])
    cpu, before = browser_cpu(), renderer(cdp)
    seconds = bb.timed(page, action, pattern, TIMEOUT_S, previous)[0]
    cpu, after = browser_cpu() - cpu, renderer(cdp)
    task, script, layout, style = (after[m] - before[m] for m in METRICS)
    return seconds, cpu, task, script, layout + style


def report(samples: dict[str, dict[str, list[tuple[float, ...]]]]) -> None:
    for step, by_source in samples.items():
        print(step)
        for name, taken in by_source.items():
            seconds = [s[0] for s in taken]
            med = [statistics.median(s[j] for s in taken) for j in range(1, 5)]
            print(
                f"  {name:<24} median {statistics.median(seconds):.3f} s  "
                f"[{' '.join(f'{s:.2f}' for s in seconds)}]  browser CPU {med[0]:.2f} s  "
                f"renderer task {med[1] * 1000:.0f} ms, script {med[2] * 1000:.0f}, "
                f"layout+style {med[3] * 1000:.0f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="checkouts to serve")
    parser.add_argument("--workspace", type=Path, default=HERE.parent / "data_samples")
    parser.add_argument(
        "--steps",
        default=STEPS,
        help=f"'From>To' page switches or {', '.join(bb.NAMED_STEPS)}",
    )
    parser.add_argument("--baseline", action="store_true", help="also Compare's baseline change")
    parser.add_argument("--repeat", type=int, default=6)
    args = parser.parse_args(argv)
    names = [step for step in args.steps.split(",") if step]
    names += ["baseline change"] if args.baseline and "baseline change" not in names else []
    steps = {name: step_of(name) for name in names}
    sources = [f"{i}:{source.name}" for i, source in enumerate(args.sources)]
    logs = Path(tempfile.mkdtemp(prefix="ab-browser-"))
    homes = [logs / f"home{i}" for i in range(len(sources))]
    for home in homes:
        home.mkdir()
    servers = {
        name: bb.Server(args.workspace, logs / f"server{i}.log", source, homes[i])
        for i, (name, source) in enumerate(zip(sources, args.sources, strict=True))
    }
    samples: dict[str, dict[str, list[tuple[float, ...]]]] = {}
    try:
        for server in servers.values():
            server.wait_healthy(TIMEOUT_S)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=bb.CHROMIUM, args=bb.CHROMIUM_ARGS)
            pages, cdps = {}, {}
            chosen: dict[str, dict] = {name: {} for name in sources}
            for name, server in servers.items():
                pages[name] = bb.new_context(browser).new_page()
                cdps[name] = pages[name].context.new_cdp_session(pages[name])
                cdps[name].send("Performance.enable")
                bb.timed_goto(pages[name], server.url, "^Headline measures", TIMEOUT_S)
            for round_ in range(args.repeat + 1):
                for name in sources if round_ % 2 == 0 else sources[::-1]:
                    page = pages[name]
                    page.bring_to_front()
                    for step_name, step in steps.items():
                        sample = measured(page, cdps[name], step, round_, chosen[name])
                        if step.undo is not None:
                            step.undo(page, TIMEOUT_S)
                        if round_:  # the first round warms each server's pages: dropped
                            samples.setdefault(step_name, {}).setdefault(name, []).append(sample)
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    report(samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
