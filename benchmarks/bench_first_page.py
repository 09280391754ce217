"""Where a first page's time goes in chromium: wall time to the settled page, the
renderer's main-thread CPU (CDP ``Performance.getMetrics``: TaskDuration, ScriptDuration,
LayoutDuration) and the JavaScript it fetched, for a new session on a warm server.

    python benchmarks/bench_first_page.py                      # floor + the dashboard, 5 each
    python benchmarks/bench_first_page.py --source /tmp/before  # another checkout's dashboard
    python benchmarks/bench_first_page.py --elements            # one page per element type
    python benchmarks/bench_first_page.py --cold 5              # and a fresh server's first page

Each target is served as bench_browser.py serves it (``Server``) and timed with its settle
detection (``timed_goto``); one untimed visit first (the server's warm-up and the browser's
HTTP cache are then the same for every timed one), then ``--repeat`` new browser contexts.
The floor (bench_browser.py's bare page) is measured in the same run. ``--elements`` serves
small pages with the Overview's element types one at a time (Streamlit loads each
element's JavaScript on first use), to learn which element costs what.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.bench_browser import (  # noqa: E402
    FLOOR_SCRIPT,
    FLOOR_TEXT,
    ROOT,
    Server,
    new_context,
    samples_copy,
    timed_goto,
)
from scripts.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
DASHBOARD_TEXT = "^Headline measures at k = "
DONE_TEXT = "^Done$"

# the Overview's element types, one page each (the floor's title and text in every one)
_FRAME = """import pandas as pd
frame = pd.DataFrame({"run": [f"run\\\\_{i}" for i in range(4)],
                      "Recall@10": ["0.512 (0.45–0.57)"] * 4, "queries": [144] * 4})
"""
ELEMENTS = {
    "floor": "",
    "5 st.table": _FRAME + "for _ in range(5):\n    st.table(frame, hide_index=True)\n",
    "5 markdown tables": _FRAME
    + "md = '| ' + ' | '.join(frame.columns) + ' |\\n|---|---:|---:|\\n' + '\\n'.join("
    "'| ' + ' | '.join(str(v) for v in row) + ' |' for row in frame.itertuples(index=False))\n"
    "for _ in range(5):\n    st.markdown(md)\n",
    "5 markdown tables + st.html style": _FRAME
    + "md = '| a | b |\\n|---|---:|\\n| x | 1 |'\n"
    + "for _ in range(5):\n    st.html('<style>table { font-size: 14px; }</style>')\n"
    + "    st.markdown(md)\n",
    "5 markdown tables + markdown style": _FRAME
    + "md = '| a | b |\\n|---|---:|\\n| x | 1 |'\n"
    + "st.markdown('<style>table { font-size: 14px; }</style>', unsafe_allow_html=True)\n"
    + "for _ in range(5):\n    st.markdown(md)\n",
    "tabs + st.json": "for tab in st.tabs(['a', 'b']):\n"
    "    with tab:\n        st.json({'model': 'x', 'k': [1, 2, {'y': 3}]}, expanded=True)\n",
    "tabs + st.code": "import json\nfor tab in st.tabs(['a', 'b']):\n    with tab:\n"
    "        st.code(json.dumps({'model': 'x', 'k': [1, 2, {'y': 3}]}, indent=2), "
    "language='json')\n",
    "st.json": "st.json({'model': 'x', 'k': [1, 2, {'y': 3}]}, expanded=True)\n",
    "st.tabs": "for tab in st.tabs(['a', 'b']):\n    with tab:\n        st.text('x')\n",
    "st.toggle": "st.toggle('Show as a chart')\n",
    "st.warning + caption(help)": "st.warning('**a**: b')\nst.caption('c', help='d')\n",
    "st.columns": "for c in st.columns(3):\n    c.caption('x')\n",
    "sidebar widgets": "with st.sidebar:\n    st.selectbox('Runs', ['a', 'b'])\n"
    "    st.multiselect('Split', ['x', 'y'])\n    st.select_slider('k', [1, 5, 10])\n"
    "    st.checkbox('Presentation')\n",
}


def element_script(body: str) -> str:
    return "import streamlit as st\n\nst.title('Floor')\n" + body + "st.write('Done')\n"


def visit(browser: Browser, url: str, pattern: str, timeout: float) -> dict:
    """One new session's first page: seconds, main-thread metric deltas, JS fetched."""
    context = new_context(browser)
    try:
        page = context.new_page()
        scripts: dict[str, int] = {}

        def fetched(response) -> None:
            if response.url.endswith(".js"):
                scripts[response.url.rsplit("/", 1)[-1]] = int(
                    response.headers.get("content-length", 0)
                )

        page.on("response", fetched)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
        before = metrics(cdp)
        seconds = timed_goto(page, url, pattern, timeout)
        after = metrics(cdp)
        row = {"wall": seconds, "scripts": scripts}
        row |= {m: after.get(m, 0) - before.get(m, 0) for m in METRICS}
        return row
    finally:
        context.close()


def profile(browser: Browser, url: str, pattern: str, timeout: float, top: int = 15) -> None:
    """One new session's first page under the CDP sampling profiler: the main thread's
    self time by script file (and by function within the heaviest ones)."""
    context = new_context(browser)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
        timed_goto(page, url, pattern, timeout)
        prof = cdp.send("Profiler.stop")["profile"]
    finally:
        context.close()
    nodes = {n["id"]: n for n in prof["nodes"]}
    deltas = dict.fromkeys(nodes, 0.0)
    for node_id, delta in zip(prof["samples"], prof["timeDeltas"], strict=True):
        deltas[node_id] += delta / 1e6
    by_file: dict[str, float] = {}
    by_function: dict[str, float] = {}
    for node_id, seconds in deltas.items():
        frame = nodes[node_id]["callFrame"]
        name = frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "(program)"
        by_file[name] = by_file.get(name, 0) + seconds
        key = f"{name}:{frame['functionName'] or '(anonymous)'}"
        by_function[key] = by_function.get(key, 0) + seconds
    print("self time by file (s):")
    for name, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {seconds:6.3f}  {name}")
    print("self time by function (s):")
    for name, seconds in sorted(by_function.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {seconds:6.3f}  {name}")


def metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def measure(browser: Browser, server: Server, name: str, pattern: str, args) -> dict:
    server.wait_healthy()
    visit(browser, server.url, pattern, args.timeout)  # untimed: warm-up, HTTP cache
    rows = [visit(browser, server.url, pattern, args.timeout) for _ in range(args.repeat)]
    return summarised(name, rows)


def measure_cold(browser: Browser, start, name: str, pattern: str, args) -> dict:
    """A fresh server's first page (``start()`` starts one, its load cache empty)."""
    rows = []
    for _ in range(args.cold):
        server = start()
        try:
            server.wait_healthy()
            rows.append(visit(browser, server.url, pattern, args.timeout))
        finally:
            server.stop()
    return summarised(f"{name}, cold", rows)


def summarised(name: str, rows: list[dict]) -> dict:
    summary = {"name": name, "wall": statistics.median(r["wall"] for r in rows)}
    summary |= {m: statistics.median(r[m] for r in rows) for m in METRICS}
    summary["scripts"] = rows[-1]["scripts"]
    line = " ".join(f"{m[:6]} {summary[m]:.2f}" for m in METRICS)
    print(f"{name:40} wall {summary['wall']:.2f}  {line}", flush=True)
    return summary


def served(script_text: str, folder: Path, workspace: Path) -> Server:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "page.py"
    script.write_text(script_text)
    return Server(workspace, folder / "server.log", script=script)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--source", type=Path, default=ROOT, help="checkout to serve")
    parser.add_argument("--elements", action="store_true", help="one page per element type")
    parser.add_argument("--scripts", action="store_true", help="list the JS each page fetched")
    parser.add_argument("--cold", type=int, default=0, help="and this many fresh servers")
    parser.add_argument("--profile", action="store_true", help="and one profiled visit each")
    parser.add_argument("--only", nargs="+", help="with --elements: these pages (and the floor)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-first-page-"))
    workspace = samples_copy(scratch)
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        targets = [("floor", FLOOR_SCRIPT, FLOOR_TEXT)]
        if args.elements:
            chosen = {n: b for n, b in ELEMENTS.items() if not args.only or n in args.only}
            targets += [(n, element_script(b), DONE_TEXT) for n, b in chosen.items()]
        else:
            targets.append(("dashboard (new session)", None, DASHBOARD_TEXT))
        for i, (name, script_text, pattern) in enumerate(targets):

            def start(i=i, script_text=script_text) -> Server:
                if script_text is None:
                    return Server(workspace, scratch / "dashboard.log", source=args.source)
                return served(script_text, scratch / f"page{i}", workspace)

            if args.cold:
                results.append(measure_cold(browser, start, name, pattern, args))
            server = start()
            try:
                results.append(measure(browser, server, name, pattern, args))
                if args.profile:
                    profile(browser, server.url, pattern, args.timeout)
            finally:
                server.stop()
        browser.close()
    if args.scripts:
        floor_js = set(results[0]["scripts"])
        for r in results[1:]:
            extra = {k: v for k, v in r["scripts"].items() if k not in floor_js}
            print(f"{r['name']}: {sum(extra.values()) // 1024} KB more JS: {sorted(extra)}")


if __name__ == "__main__":
    main()
