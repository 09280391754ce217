"""Dashboard speed as the user feels it: Debian's chromium against a server started as
`ragrecall ui` starts it.

    python benchmarks/bench_browser.py                                  # data_samples, 10 reps
    python benchmarks/bench_browser.py --workspace both --out /tmp/bench_browser.json
    python benchmarks/bench_browser.py --workspace large --large-dir /tmp/ragrecall_large

Each interaction is timed in the browser, from the click (or key press) to the settled page:
the script state of ``[data-testid=stApp]`` has been ``running`` and is no longer, no stale
element, spinner or skeleton is left, every chart and table within the window has drawn its
SVG or canvas (streamlit draws a table's canvas only once it scrolls into view, and never
inside a closed expander, so those are not waited for), the text the
new view must show is there (and differs from the text before the click where the view has
one heading per item), and two more animation frames have been painted. A rerun is detected
with a MutationObserver armed before the click, so a fast rerun is never missed and a slow
one never cut short.

The server is ``python -m ragrecall_app.serve`` (the launcher `ragrecall ui` runs) where the
served checkout has it, else ``streamlit run app.py`` (an older checkout, ``--source``). It
runs on a copy of data_samples (the Judge key presses write grades into it) or on
a generated 10,000 queries x 100 results x 4 runs workspace (make_large_workspace.py). Its
peak memory is the sum of VmHWM of the streamlit process and its descendants, read at the end
of each phase; the last phase opens 4 browser sessions at once. Where an interaction's widget
cannot be found or the page does not settle, the row says "not measurable: why".

The floor, measured first in the same run: a bare streamlit page (a title, a button that
reruns, a line of text; ``streamlit run`` with the same server flags), timed with the same
settle detection: a fresh server's first page, a new session's first page on a warm server,
a button click's rerun and a click on a table row (streamlit's table widget waits 150 ms
before it sends the selection), each --repeat times. The goals table then sets each
interaction against it: median <= floor rerun + 0.1 s (a row click against the row click's),
p95 <= 0.8 s, a cold first page <= the floor's cold first page + 0.3 s (a new session's first
page <= the floor's + 0.3 s).

With data_samples, the replica too (no goal): a bare script drawing the elements of the
dashboard's first page (REPLICA_SCRIPT: the same sidebar widgets, headings, tables, alerts
and expanders, with constant text and no data), its first pages timed as the floor's. The
dashboard's first pages are then set against it, and the element kinds both drew are counted
(ELEMENT_KINDS), so a replica that drifts from the page shows: the dashboard minus the replica
is what ragrecall's own work adds; the replica minus the floor is streamlit drawing these
elements.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.bytecode import compiled  # noqa: E402
from scripts.chromium import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVE,
    VIEWPORT,
    free_port,
    healthy_within,
    server_flags,
)

ROOT = Path(__file__).resolve().parent.parent
GRACE_MS = 300  # a click that starts no rerun within this is taken as settled
QUIET_MS = 250  # a settled page must start no further rerun within this (st.rerun, callbacks)
MAX_FOLLOW_UPS = 5
ANNOTATOR = "bench"
# nav link -> the page's title (h1)
PAGES = {
    "Overview": "Overview",
    "Queries": "Queries",
    "Failures": "Failures",
    "Ranks": "Ranks",
    "Compare": "Compare",
    "No-answer": "No-answer queries",
    "Judge": "Judge",
    "Agreement": "Agreement",
}
GOALS = {
    "samples": {"first page": 1.5, "median": 0.3, "p95": 0.8},
    "large": {"first page": 5.0, "median": 0.5, "p95": None, "memory_mb": 1536},
}

ARM = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  const bench = window.__bench = {t0: performance.now(), sawRun: false};
  if (window.__benchObserver) window.__benchObserver.disconnect();
  window.__benchObserver = new MutationObserver((records) => {
    for (const r of records) {
      if (r.oldValue === 'running' || app.getAttribute('data-test-script-state') === 'running')
        bench.sawRun = true;
    }
  });
  window.__benchObserver.observe(app, {attributes: true, attributeOldValue: true,
                                       attributeFilter: ['data-test-script-state']});
}"""


# Marks ``window.__bench.finished`` when a websocket message from the server is a
# ForwardMsg whose ``script_finished`` (field 6, a varint) says a run or a fragment's run
# ended (any value but FINISHED_EARLY_FOR_RERUN, 2). A quick run can end before React draws
# the app's "running" state at all: the observer in ARM then never sees it, and the page
# was taken as settled only after GRACE_MS, which the user does not wait (the floor's
# button rerun was bimodal, 0.14 or 0.34 s, one in three reruns). Only the message's top
# level is read, field by field (a delta's bytes are skipped by their length). The message
# usually comes after the run's metadata in one frame; until stop 43 the skip was written
# `i += varint()`, which reads i before the length's own byte is consumed: the parse fell
# one byte short into the metadata and saw the end of a run only by chance.
WS_HOOK = """(() => {
  const finished = (buffer) => {
    const b = new Uint8Array(buffer);
    let i = 0;
    const varint = () => {
      let value = 0, scale = 1, byte;
      do { byte = b[i++]; value += (byte & 127) * scale; scale *= 128; } while (byte & 128);
      return value;
    };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag & 7;
      if (wire === 0) { const value = varint(); if (field === 6) return value !== 2; }
      else if (wire === 2) { const length = varint(); i += length; }  // not i += varint()
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else return false;
    }
    return false;
  };
  const mark = (event) => {
    try {
      if (window.__bench && event.data instanceof ArrayBuffer && finished(event.data))
        window.__bench.finished = true;
    } catch (_) {}
  };
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type === 'message') {
      const inner = listener;
      listener = function (event) { mark(event); return inner.call(this, event); };
    }
    return add.call(this, type, listener, options);
  };
  const slot = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
  Object.defineProperty(WebSocket.prototype, 'onmessage', {
    configurable: true,
    get() { return slot.get.call(this); },
    set(handler) { slot.set.call(this, (event) => { mark(event); return handler(event); }); },
  });
})();"""

# true (or the matched text) once the page is settled; {error} when the app shows one
SETTLED = """([pattern, previous, fresh, graceMs]) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app) return false;
  const shown = (el) => el.getClientRects().length > 0;
  // inside the window and rendered: a closed expander keeps its content laid out but
  // hidden (content-visibility), and streamlit never draws a table there
  const onScreen = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.bottom > 0 && r.top < window.innerHeight &&
      el.checkVisibility({visibilityProperty: true});
  };
  for (const d of document.querySelectorAll('[role=dialog]'))
    if (/Page not found/.test(d.innerText)) return {error: 'a "Page not found" dialog'};
  const state = app.getAttribute('data-test-script-state');
  if (['running', 'initial', 'rerunRequested'].includes(state)) return false;
  const bench = window.__bench;
  const ran = bench && (bench.sawRun || bench.finished);
  if (!fresh && !(ran || (bench && performance.now() - bench.t0 > graceMs))) return false;
  if (document.querySelector(
      '[data-stale=true], [data-testid=stSkeleton], [data-testid=stSpinner]')) return false;
  // a chart: ragrecall's own (ragrecall_app/chart.py), or st.plotly_chart's (an older commit)
  for (const c of document.querySelectorAll('.ragrecall-chart, [data-testid=stPlotlyChart]'))
    if (onScreen(c) && !c.querySelector('.main-svg')) return false;
  for (const t of document.querySelectorAll('[data-testid=stDataFrame]'))
    if (onScreen(t) && !t.querySelector('canvas')) return false;
  const exception = document.querySelector('[data-testid=stException]');
  if (exception) return {error: 'the app raised: ' + exception.innerText.slice(0, 160)};
  if (!pattern) return true;
  const wanted = new RegExp(pattern);
  for (const el of document.querySelectorAll('h1, h2, h3, p, [data-testid=stText]')) {
    const text = el.innerText.trim();
    if (shown(el) && wanted.test(text) && text !== previous) return text;
  }
  return false;
}"""
RERUN_SEEN = """() => window.__bench.sawRun || window.__bench.finished ||
  document.querySelector('[data-testid=stApp]').getAttribute('data-test-script-state') === 'running'
"""
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
QUERIES_TABLE = ".st-key-queries_table [data-testid=stDataFrame]"
# a page's charts: ragrecall's own (ragrecall_app/chart.py), or st.plotly_chart's (an older
# commit, timed against this one)
CHARTS = ".ragrecall-chart, [data-testid=stPlotlyChart]"
# the floor: a bare page whose last line changes on every run (a rerun is seen by its text)
FLOOR_SCRIPT = """import streamlit as st

st.title("Floor")
st.session_state.runs = st.session_state.get("runs", 0) + 1
st.button("Rerun")
if st.query_params.get("table"):  # a table whose row click reruns, as the Queries table's
    st.dataframe({"row": [1, 2, 3]}, key="table", on_select="rerun", selection_mode="single-row")
st.write(f"Run {st.session_state.runs}")
"""
FLOOR_TABLE = ".st-key-table [data-testid=stDataFrame]"
# The floor with the dashboard's elements (informational, no goal): a bare script drawing what
# the dashboard's first page draws on data_samples (ELEMENT_KINDS counted on both and shown,
# so a drift of either shows), with constant text and no data, no DuckDB, no pandas. What the
# dashboard's first page takes over it is what ragrecall's own work adds; what it takes over
# the bare floor is streamlit drawing these elements.
REPLICA_SCRIPT = """import streamlit as st

st.set_page_config(page_title="replica", page_icon="🎯", layout="wide")
ICONS = ("dashboard", "table_rows", "bug_report", "stacked_bar_chart", "gavel", "groups",
         "compare_arrows", "do_not_disturb_on")
PAGES = [st.Page(lambda: None, title=f"Page {i}", icon=f":material/{icon}:",
                 url_path=f"p{i}", default=i == 0) for i, icon in enumerate(ICONS)]
st.navigation(PAGES)
RUNS = ["bm25", "dense-minilm", "hybrid-rrf-k10-titleboost", "hybrid-rrf"]
with st.sidebar:
    st.header("View")
    st.pills("Runs", RUNS, selection_mode="multi", default=RUNS, help="Runs shown in charts.")
    st.pills("Run for tables and detail", RUNS, default=RUNS[0], required=True)
    st.pills("Cutoff k", [1, 2, 3, 5, 10, 20], default=5, required=True)
    for label, count in (("Split", 2), ("Query type", 6), ("Corpus section", 7)):
        st.pills(label, ["all", *(f"{label} {i}" for i in range(count))], default="all",
                 required=True)
    st.pills("A query passes when", ["RecallCap@5 = 1", "Recall@5 = 1", "Hit@5 = 1"],
             default="RecallCap@5 = 1", required=True, help="Pass rule.")
    st.toggle("Failures only (by the pass rule)")
    st.toggle("Presentation mode", help="Larger text and less chrome.")
    with st.popover("Policy", width="stretch"):
        st.toggle("Use reviewers' grades")
    st.caption("144 queries · 4 runs · 412 chunks · 97 manual grades")
    st.header("Data")
    with st.popover("Workspace folder or uploads", width="stretch"):
        st.text_input("Workspace folder")
    st.caption("Workspace: /tmp/bench/samples")
    st.html("<style>p{}</style><script>window.replica = 1;</script>",
            unsafe_allow_javascript=True)
st.title("Overview")
st.caption("Workspace: /tmp/bench/samples · k = 5 · 144 queries in view")
st.subheader("Headline measures at k = 5")
st.caption("Mean over queries with its 95% bootstrap confidence interval. " * 5)
st.html("<style>[data-testid=stMarkdownContainer] table {width: 100%}</style>")
CELL = " 0.795 [0.72–0.86] |"
st.markdown("| run |" + " m |" * 9 + "\\n|" + "---|" * 10 + "\\n" + "".join(
    f"| {run} |" + CELL * 9 + "\\n" for run in RUNS))
st.caption("P@5 band: P@5 with unjudged chunks counted as not relevant … as relevant.")
st.toggle("Show as a chart")
st.subheader("Policy")
st.text("ragrecall averaging: every gold query with a relevant item; " * 4)
st.expander("Queries in view")
st.subheader("No-answer queries")
st.caption("Queries with no relevant chunk: the retriever should not return anything.")
st.markdown("| run | a | b | c |\\n|---|---|---|---|\\n" + "".join(
    f"| {run} | 15 | 15 | 3.1229 |\\n" for run in RUNS))
st.subheader("Validation warnings")
for run in RUNS[:3]:
    st.warning(f"**{run}**: 2 queries have tied scores; ties are broken by chunk id.")
st.expander("Run configurations")
st.session_state.runs = st.session_state.get("runs", 0) + 1
st.write(f"Run {st.session_state.runs}")
"""
# the element kinds counted on the dashboard's first page and on REPLICA_SCRIPT's
ELEMENT_KINDS = (
    "stElementContainer",
    "stMarkdownContainer",
    "stSelectbox",
    "stMultiSelect",
    "stButtonGroup",
    "stCheckbox",
    "stPopover",
    "stExpander",
    "stHtml",
    "stAlert",
    "stSidebarNavLink",
    "stWidgetLabel",
)
COUNT_KINDS = """(kinds) => Object.fromEntries(kinds.map(
  (kind) => [kind, document.querySelectorAll(`[data-testid="${kind}"]`).length]))"""
# Clicks on a table row: streamlit's table widget waits 150 ms before it sends a selection
# (a debounce in its own code), so their floor is a row click on the bare page's table.
TABLE_ROW_CLICKS = ("open a query (Queries row)", "open a regression (Compare row)")
FLOOR_TEXT = r"^Run \d+$"
FLOOR_RERUN_SLACK = 0.1  # s an interaction's median may take over the floor's rerun
FIRST_PAGE_SLACK = 0.3  # s a first page may take over the floor's
# a fresh server's first page timed from the server's launch (no goal: shown beside the
# cold first page, whose goal is from health ok)
LAUNCH = "launch to first page"
P95_GOAL = 0.8
REGRESSIONS_TABLE = ".st-key-compare_regressions [data-testid=stDataFrame]"


class NotMeasurable(Exception):
    """The interaction could not be done or did not settle; the message says why."""


# ---------------------------------------------------------------- the server
class Server:
    """The dashboard on one workspace, headless, on a free port, launched as `ragrecall ui`
    launches it (see ``launch_command``)."""

    def __init__(
        self,
        workspace: Path,
        log: Path,
        source: Path = ROOT,
        home: Path | None = None,
        script: Path | None = None,
    ):
        """``home``: the server's $RAGRECALL_HOME (its load cache and uploads); a fresh
        temporary one when None. ``script``: serve this file with ``streamlit run`` (from its
        folder) instead of the dashboard, with the same server flags (the floor)."""
        compiled(source)
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        env = {
            **os.environ,
            "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
            "RAGRECALL_WORKSPACE": str(workspace),
            "RAGRECALL_HOME": str(home or tempfile.mkdtemp(prefix="bench-home-")),
            # another checkout's package first (an editable install would shadow it)
            "PYTHONPATH": str(source),
        }
        command = launch_command(source)
        if script is not None:
            command = [sys.executable, "-m", "streamlit", "run", str(script)]
        command += [*server_flags(self.port), "--browser.gatherUsageStats", "false"]
        command += ["--client.toolbarMode", "minimal"]
        self.log = log.open("ab")
        self.started = time.perf_counter()
        cwd = source if script is None else script.parent
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=self.log, stderr=self.log)

    def wait_healthy(self, timeout: float = 120) -> float:
        """Seconds from process start to /_stcore/health answering ok."""
        if healthy_within(self.url, timeout):
            return time.perf_counter() - self.started
        self.stop()
        raise RuntimeError(f"streamlit did not start on port {self.port}; see {self.log.name}")

    def peak_rss_mb(self) -> float:
        """Peak resident memory (VmHWM) of the server and its descendants, in MB."""
        return sum(vm_hwm_kb(pid) for pid in process_tree(self.proc.pid)) / 1024

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def launch_command(source: Path) -> list[str]:
    """`ragrecall ui`'s launcher (streamlit's old pages/ mode off from the start, so a fresh
    server's first session sees the real page list) where ``source`` has it, else the plain
    `streamlit run app.py` an older checkout was served with. Both take streamlit's options."""
    if (source / "ragrecall_app" / "serve.py").is_file():
        return [sys.executable, *SERVE]
    return [sys.executable, "-m", "streamlit", "run", "app.py"]


def process_tree(pid: int) -> list[int]:
    found = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found += process_tree(int(child))
    return found


def vm_hwm_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) if match else 0


# ---------------------------------------------------------------- timing in the browser
def settle(page: Page, pattern: str | None, previous: str | None, fresh: bool, timeout: float):
    """Wait until the page is settled (see SETTLED); the matched text or True."""
    try:
        handle = page.wait_for_function(
            SETTLED,
            arg=[pattern, previous, fresh, GRACE_MS],
            polling="raf",
            timeout=timeout * 1000,
        )
    except PlaywrightError as error:
        wanted = f" showing /{pattern}/" if pattern else ""
        raise NotMeasurable(f"page not settled{wanted} within {timeout:.0f} s") from error
    value = handle.json_value()
    if isinstance(value, dict):
        raise NotMeasurable(value["error"])
    page.evaluate(TWO_FRAMES)
    return value


def timed(
    page: Page,
    action: Callable[[], None],
    pattern: str | None,
    timeout: float,
    previous: str | None = None,
) -> tuple[float, object]:
    """Seconds from the action to the settled page showing ``pattern`` (not ``previous``).
    The clock starts before the observer is armed: arming waits for the page's main thread,
    so a long task still running when the user clicks (the charts' code being evaluated)
    is counted, as the user waits for it too (a few ms of round trip otherwise)."""
    start = time.perf_counter()
    page.evaluate(ARM)
    action()
    value = settle(page, pattern, previous, False, timeout)
    return settled_at(page, pattern, timeout) - start, value


def settled_at(page: Page, pattern: str | None, timeout: float) -> float:
    """The time the page settled for good: a rerun that starts within QUIET_MS of settling
    (a follow-up run) is waited for, and the page's time is when that one settled."""
    end = time.perf_counter()
    for _ in range(MAX_FOLLOW_UPS):
        page.evaluate(ARM)
        page.wait_for_timeout(QUIET_MS)
        if not page.evaluate(RERUN_SEEN):
            return end
        settle(page, pattern, None, False, timeout)
        end = time.perf_counter()
    raise NotMeasurable(f"the page reran {MAX_FOLLOW_UPS} more times after settling")


def timed_goto(page: Page, url: str, pattern: str, timeout: float) -> float:
    start = time.perf_counter()
    page.goto(url, timeout=timeout * 1000)
    settle(page, pattern, None, True, timeout)
    return settled_at(page, pattern, timeout) - start


def untimed(page: Page, action: Callable[[], None], pattern: str | None, timeout: float):
    return timed(page, action, pattern, timeout)[1]


# ---------------------------------------------------------------- results
@dataclass
class Result:
    name: str
    samples: list[float] = field(default_factory=list)
    note: str = ""
    peak_rss_mb: float | None = None  # the server's peak so far, read after the interaction

    def summary(self) -> dict:
        row = {"interaction": self.name, "n": len(self.samples), "note": self.note}
        row["server_peak_rss_mb_after"] = self.peak_rss_mb
        if self.samples:
            row |= {
                "median_s": statistics.median(self.samples),
                "p95_s": p95(self.samples),
                "first_s": self.samples[0],
                "max_s": max(self.samples),
                "samples_s": [round(s, 4) for s in self.samples],
            }
        return row


def p95(samples: list[float]) -> float:
    """95th percentile, linear between order statistics (inclusive method)."""
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=20, method="inclusive")[18]


@dataclass
class Bench:
    """Repeats interactions on one page within a time budget and collects the results."""

    repeat: int
    timeout: float
    budget: float
    shots: Path
    server: Server | None = None
    page: Page | None = None  # screenshot on failure
    results: list[Result] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)  # ELEMENT_KINDS on the first page

    def measure(self, name: str, once: Callable[[int], float], setup=None) -> Result:
        """Run ``setup`` (untimed), then ``once(i)`` for i < repeat, each returning seconds."""
        result = Result(name)
        self.results.append(result)
        spent = time.perf_counter()
        try:
            if setup is not None:
                setup()
            for i in range(self.repeat):
                result.samples.append(once(i))
                print(f"  {name} #{i + 1}: {result.samples[-1]:.3f} s", flush=True)
                if time.perf_counter() - spent > self.budget and i + 1 < self.repeat:
                    result.note = f"stopped after {i + 1} (budget {self.budget:.0f} s)"
                    break
        except (NotMeasurable, PlaywrightError) as error:
            why = str(error).splitlines()[0][:200]
            done = f" (after {len(result.samples)} repetitions)" if result.samples else ""
            result.note = f"not measurable{done}: {why}"
            print(f"  {name}: {result.note}", flush=True)
            self.screenshot(name)
        if self.server is not None:
            result.peak_rss_mb = round(self.server.peak_rss_mb())
        return result

    def screenshot(self, name: str) -> None:
        if self.page is None:
            return
        path = self.shots / (re.sub(r"[^a-z0-9]+", "_", name.lower()) + ".png")
        try:
            self.page.screenshot(path=str(path))
            print(f"  screenshot: {path}", flush=True)
        except PlaywrightError:
            pass


# ---------------------------------------------------------------- page helpers
def nav(page: Page, link: str, timeout: float) -> None:
    """Switch page through the sidebar (untimed) and wait for it to settle."""
    untimed(page, lambda: click_nav(page, link), f"^{re.escape(PAGES[link])}$", timeout)


def click_nav(page: Page, link: str) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_role("link", name=link, exact=True).click()


def open_select(page: Page, label: str) -> list[str]:
    """Open a selectbox's list; its option texts."""
    box = page.get_by_role("combobox", name=label, exact=True)
    if box.count() == 0:
        raise NotMeasurable(f'no selectbox labelled "{label}"')
    options = page.get_by_role("option")
    for _attempt in range(3):  # a click on a still-focused select can toggle it shut
        box.first.click()
        try:
            options.first.wait_for(timeout=3_000)
            return [t.strip() for t in options.all_inner_texts()]
        except PlaywrightError:
            continue
    raise NotMeasurable(f'the list of "{label}" does not open')


def close_select(page: Page) -> None:
    """Close an open selectbox list and move the focus off it."""
    page.keyboard.press("Escape")
    page.locator("h1").first.click()


def choose(page: Page, value: str) -> None:
    page.get_by_role("option", name=value, exact=True).first.click()


def choices(page: Page, label: str) -> list[str]:
    """The option texts of the sidebar's choice ``label``: its pills (a radio group), or its
    selectbox's list (an older commit's, opened and closed again)."""
    group = page.get_by_role("radiogroup", name=label, exact=True)
    if group.count():
        return [t.strip() for t in group.first.get_by_role("radio").all_inner_texts()]
    options = open_select(page, label)
    close_select(page)
    return options


def pick(page: Page, label: str, value: str) -> Callable[[], None]:
    """The click that picks ``value`` in the choice ``label``: on its pill, or (the list
    opened now) on its option in a selectbox's list."""
    group = page.get_by_role("radiogroup", name=label, exact=True)
    if group.count():
        return group.first.get_by_role("radio", name=value, exact=True).click
    open_select(page, label)
    return lambda: choose(page, value)


def click_row(page: Page, table: str, row: int) -> Callable[[], None]:
    """The click on a row's selection checkbox of the st.dataframe ``table`` (a CSS selector;
    35 px rows)."""
    frame = page.locator(table).first
    if frame.count() == 0:
        raise NotMeasurable(f"no table {table} on the page")
    frame.scroll_into_view_if_needed()
    box = frame.bounding_box()
    if box is None:
        raise NotMeasurable(f"table {table} is not on the page")
    return lambda: page.mouse.click(box["x"] + 16, box["y"] + 35 + 35 * row + 17)


def heading(page: Page, pattern: str) -> str | None:
    """The current text of the first h1-h3 matching ``pattern``, if any."""
    for text in page.locator("h1, h2, h3").all_inner_texts():
        if re.search(pattern, text.strip()):
            return text.strip()
    return None


def chart_point(page: Page, chart: int, point: int):
    points = page.locator(CHARTS).nth(chart).locator(".point path")
    try:
        points.nth(point).wait_for(state="attached", timeout=10_000)
    except PlaywrightError as error:
        raise NotMeasurable(f"chart {chart} shows fewer than {point + 1} bars") from error
    return lambda: points.nth(point).click(force=True)


# ---------------------------------------------------------------- the steps
# A step's timed part in round i: the action, the pattern of the settled page (see SETTLED)
# and the text that pattern must no longer match (None: any)
Action = tuple[Callable[[], None], str, str | None]


@dataclass(frozen=True)
class Step:
    """One interaction, as this script times it (its row :attr:`row`) and as ab_browser.py
    does (by its name in :data:`NAMED_STEPS`, or ``From>To`` for :func:`page_switch`): the
    page it starts on, reached untimed, and how round ``i`` is done. A change here changes
    both scripts."""

    row: str  # this script's name of the row
    page: str  # the nav link of the page it starts on
    # on that page, untimed: any preparation (a list opened), then the timed part of round
    # i; its last argument is what ``setup`` returned
    act: Callable[[Page, int, object], Action]
    # untimed, once on that page before the first round: what the rounds alternate between
    setup: Callable[[Page], object] = lambda _page: None
    # the step leaves its page: the page is reached again (untimed) before every round
    again: bool = False
    # untimed, sets the view back after each round (a filter to "all", a bar's filters
    # cleared, an open query closed), so that the next round and the next step start from
    # the view as it was (before stop 45 this script undid only the section filter, once:
    # a Failures bar's or a Ranks bin's filters stayed on for the steps after them)
    undo: Callable[[Page, float], None] | None = None


def run_step(bench: Bench, page: Page, step: Step) -> Result:
    """``step`` --repeat times, timed as :meth:`Bench.measure` does; its page is reached
    first (each round where the step leaves it)."""
    chosen: list[object] = []

    def setup() -> None:
        if not step.again and heading(page, f"^{re.escape(PAGES[step.page])}$") is None:
            nav(page, step.page, bench.timeout)
        chosen.append(step.setup(page))

    def once(i: int) -> float:
        if step.again:
            nav(page, step.page, bench.timeout)
        action, pattern, previous = step.act(page, i, chosen[0])
        seconds = timed(page, action, pattern, bench.timeout, previous)[0]
        if step.undo is not None:  # untimed: the next round starts from this one's view
            step.undo(page, bench.timeout)
        return seconds

    return bench.measure(step.row, once, setup)


def page_switch(came: str, link: str) -> Step:
    """From page ``came`` to page ``link`` (nav links, :data:`PAGES`) through the sidebar."""

    def act(page: Page, _i: int, _chosen) -> Action:
        return (lambda: click_nav(page, link)), f"^{re.escape(PAGES[link])}$", None

    return Step(f"page switch {came} -> {link}", came, act, again=True)


def k_act(page: Page, i: int, _chosen) -> Action:
    """The cutoff k from 5 to 10 and back."""
    k = ("10", "5")[i % 2]
    return pick(page, "Cutoff k", k), f"^Headline measures at k = {k}$", None


QUERY_DETAIL = r"^Query .+ · run .+$"


def query_act(page: Page, i: int, _chosen) -> Action:
    """A click on the first or second row of the Queries table opens that query."""
    click = click_row(page, QUERIES_TABLE, i % 2)
    return click, QUERY_DETAIL, heading(page, QUERY_DETAIL)


# the line over the Queries table ("1 query shown" when one is)
SHOWN = r"\b(1 query|\d+ queries) shown\b"


def two_sections(page: Page) -> list[str]:
    options = [o for o in choices(page, "Corpus section") if o != "all"]
    if len(options) < 2:
        raise NotMeasurable("fewer than two corpus sections")
    return options[:2]


def section_act(page: Page, i: int, sections) -> Action:
    """One of the first two corpus sections on Queries, in turn."""
    return pick(page, "Corpus section", sections[i % 2]), SHOWN, None


def all_sections(page: Page, timeout: float) -> None:
    untimed(page, pick(page, "Corpus section", "all"), SHOWN, timeout)


def clear_groups(page: Page, timeout: float) -> None:
    """The filters a Failures bar or a Ranks bin set, cleared on Queries (else the next
    round's table may hold no row to open)."""
    clear = page.get_by_role("button", name="Clear these filters")
    if clear.count():
        page.mouse.move(0, 0)  # off the table: its toolbar, shown on hover, covers the button
        untimed(page, clear.first.click, SHOWN, timeout)


def bar_act(page: Page, i: int, _chosen) -> Action:
    """A click on the first or second bar of the Failures chart opens Queries filtered."""
    return chart_point(page, 0, i % 2), r"^Opened from Failures", None


def bin_act(page: Page, i: int, _chosen) -> Action:
    """A histogram bar opens Queries filtered to that bin."""
    return chart_point(page, 0, i % 2), r"^Opened from Ranks: first relevant rank = ", None


COMPARE_PAIR = r"^Candidate (.+) against baseline (.+?) · k = "


def compared(page: Page) -> tuple[str, str]:
    """The candidate and the baseline Compare shows."""
    caption = next(
        (t for t in page.locator("p").all_inner_texts() if re.match(COMPARE_PAIR, t)), ""
    )
    match = re.match(COMPARE_PAIR, caption)
    if match is None:
        raise NotMeasurable("no 'Candidate … against baseline …' caption on Compare")
    return match.group(1), match.group(2)


def two_baselines(page: Page) -> list[str]:
    """Two runs other than the candidate, the one shown as the baseline (if either) last."""
    runs = open_select(page, "Baseline run (before)")
    close_select(page)
    candidate, current = compared(page)
    others = [r for r in runs if r != candidate]
    if len(others) < 2:
        raise NotMeasurable("fewer than three runs: no two baselines to alternate")
    return sorted(others[:2], key=lambda r: r == current)


def baseline_act(page: Page, i: int, baselines) -> Action:
    """One of two other runs as Compare's baseline, in turn; never the one shown (other
    steps between two rounds may have changed it)."""
    run = baselines[i % 2]
    if run == compared(page)[1]:
        run = baselines[(i + 1) % 2]
    open_select(page, "Baseline run (before)")
    pattern = rf"against baseline {re.escape(run)} · k = "
    return (lambda: choose(page, run)), pattern, None


REGRESSION_DETAIL = r"^Query .+: .+ → .+$"
# s per untimed wait of a step's setup (it is given no timeout)
SETUP_TIMEOUT_S = 300


def regression_act(page: Page, i: int, _chosen) -> Action:
    """Row 1 / row 2 of Compare's regressions opens that query under the list (closed again
    untimed after each round: the step's undo)."""
    return click_row(page, REGRESSIONS_TABLE, i % 2), REGRESSION_DETAIL, None


def regressions(page: Page) -> int:
    """How many regressions Compare lists for the pair on screen."""
    label = next(
        (t for t in page.locator("p").all_inner_texts() if t.startswith("Regressions:")), ""
    )
    count = re.search(r": (\d+)$", label)
    return int(count.group(1)) if count else 0


def shown_pair(page: Page) -> tuple[str, ...]:
    caption = next(
        (t for t in page.locator("p").all_inner_texts() if re.match(COMPARE_PAIR, t)), ""
    )
    shown = re.match(COMPARE_PAIR, caption)
    return shown.groups() if shown else ()


def enough_regressions(page: Page) -> None:
    """Two rows to alternate: when the pair on screen has fewer regressions, the first
    baseline (chosen untimed) whose pair has two or more; failing that, the same after
    the two runs are swapped (the best run as the candidate may regress nowhere twice)."""
    for swapped in (False, True):
        if swapped:
            before = shown_pair(page)
            swap = page.get_by_role("button", name="⇄ Swap")
            untimed(page, swap.click, rf"^Candidate {re.escape(before[-1])} ", SETUP_TIMEOUT_S)
        if regressions(page) >= 2:
            return
        runs = open_select(page, "Baseline run (before)")
        close_select(page)
        for run in runs:
            if run in shown_pair(page):
                continue
            open_select(page, "Baseline run (before)")
            pattern = rf"against baseline {re.escape(run)} · k = "
            untimed(page, lambda run=run: choose(page, run), pattern, SETUP_TIMEOUT_S)
            if regressions(page) >= 2:
                return
    raise NotMeasurable("no pair of runs gives two regressions to alternate")


# the named steps (ab_browser.py's names; page switches are page_switch's)
NAMED_STEPS = {
    "k change": Step("k change (Overview, 5 <-> 10)", "Overview", k_act),
    "section filter": Step(
        "section filter (Queries)", "Queries", section_act, two_sections, undo=all_sections
    ),
    "Failures bar": Step(
        "Failures bar click -> Queries", "Failures", bar_act, again=True, undo=clear_groups
    ),
    "Ranks bin": Step(
        "Ranks bin click -> Queries", "Ranks", bin_act, again=True, undo=clear_groups
    ),
    "open a query": Step("open a query (Queries row)", "Queries", query_act),
    "baseline change": Step("Compare baseline change", "Compare", baseline_act, two_baselines),
    "open a regression": Step(
        "open a regression (Compare row)",
        "Compare",
        regression_act,
        enough_regressions,
        undo=lambda page, timeout: close_query(page, timeout),
    ),
}


# ---------------------------------------------------------------- the interactions
def first_pages(bench: Bench, browser: Browser, url: str, name: str) -> None:
    """A new browser session's first page on an already warm server."""

    def once(_i: int) -> float:
        context = new_context(browser)
        try:
            page = context.new_page()
            took = timed_goto(page, url, "^Headline measures at k = ", bench.timeout)
            bench.kinds = bench.kinds or count_kinds(page)
            return took
        finally:
            context.close()

    bench.measure(name, once)


def page_switches(bench: Bench, page: Page) -> None:
    links = list(PAGES)
    for index, link in enumerate(links):
        run_step(bench, page, page_switch(links[index - 1], link))


def change_k(bench: Bench, page: Page) -> None:
    run_step(bench, page, NAMED_STEPS["k change"])


def queries_interactions(bench: Bench, page: Page) -> None:
    def next_failing(_i: int) -> float:
        button = page.get_by_role("button", name="Next failing ▶")
        previous = heading(page, QUERY_DETAIL)
        return timed(page, button.click, QUERY_DETAIL, bench.timeout, previous)[0]

    run_step(bench, page, NAMED_STEPS["open a query"])
    bench.measure("next failing query", next_failing)
    run_step(bench, page, NAMED_STEPS["section filter"])


def failures_bar(bench: Bench, page: Page) -> None:
    run_step(bench, page, NAMED_STEPS["Failures bar"])


def ranks_bin(bench: Bench, page: Page) -> None:
    """A histogram bar opens Queries filtered to that bin (Ranks reached untimed each time)."""
    run_step(bench, page, NAMED_STEPS["Ranks bin"])


def compare_interactions(bench: Bench, page: Page) -> None:
    run_step(bench, page, NAMED_STEPS["baseline change"])
    run_step(bench, page, NAMED_STEPS["open a regression"])


def close_query(page: Page, timeout: float) -> None:
    """Close Compare's open query with its Close button and wait until it is gone."""
    close = page.locator(".st-key-compare_close button")
    untimed(page, close.click, None, timeout)
    close.wait_for(state="detached", timeout=timeout * 1000)


def judge_keys(bench: Bench, page: Page) -> None:
    judged = rf"^(\d+) of \d+ pooled chunks judged by {ANNOTATOR}$"
    done: list[int] = []

    def sign_in() -> None:
        nav(page, "Judge", bench.timeout)
        field = page.get_by_role("textbox", name="Your name (annotator)")
        field.fill(ANNOTATOR)
        text = untimed(page, lambda: field.press("Enter"), judged, bench.timeout)
        done.append(int(re.match(judged, text).group(1)))
        page.locator("h1").first.click()  # leave the name field: keys go to the shortcuts

    def once(i: int) -> float:
        done[0] += 1
        pattern = rf"^{done[0]} of \d+ pooled chunks judged by {ANNOTATOR}$"
        key = ("2", "0")[i % 2]
        return timed(page, lambda: page.keyboard.press(key), pattern, bench.timeout)[0]

    bench.measure("Judge key press (2 / 0)", once, sign_in)


def sessions_at_once(bench: Bench, browser: Browser, url: str, count: int) -> list[Result]:
    """``count`` sessions open together, each visiting Overview, Queries and Compare."""
    contexts = [new_context(browser) for _ in range(count)]
    pages = [c.new_page() for c in contexts]
    steps = (
        ("first page", lambda p: timed_goto(p, url, "^Headline measures", bench.timeout)),
        ("switch to Queries", lambda p: switch_timed(p, "Queries", bench.timeout)),
        ("switch to Compare", lambda p: switch_timed(p, "Compare", bench.timeout)),
    )
    results = [Result(f"{count} sessions: {name}") for name, _ in steps]
    try:
        for result, (_name, step) in zip(results, steps, strict=True):
            for p in pages:
                try:
                    result.samples.append(step(p))
                except (NotMeasurable, PlaywrightError) as error:
                    result.note = "not measurable: " + str(error).splitlines()[0][:200]
            if bench.server is not None:
                result.peak_rss_mb = round(bench.server.peak_rss_mb())
    finally:
        for c in contexts:
            c.close()
    bench.results.extend(results)
    return results


def switch_timed(page: Page, link: str, timeout: float) -> float:
    pattern = f"^{re.escape(PAGES[link])}$"
    return timed(page, lambda: click_nav(page, link), pattern, timeout)[0]


def new_context(browser: Browser) -> BrowserContext:
    """A browser context at :data:`VIEWPORT` whose pages mark a finished run (WS_HOOK)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WS_HOOK)
    return context


# ---------------------------------------------------------------- the floor
def floor(args, browser: Browser) -> dict:
    """The bare page (FLOOR_SCRIPT) timed as the dashboard is: a fresh server's first page,
    a new session's first page on a warm server and a button rerun, --repeat times each."""
    return bare_page(args, browser, "floor", FLOOR_SCRIPT, reruns=True)


def replica(args, browser: Browser) -> dict:
    """REPLICA_SCRIPT's first pages, as the floor's (no goal: shown beside the dashboard's)."""
    return bare_page(args, browser, "replica", REPLICA_SCRIPT, reruns=False)


BARE_PAGES = {
    "floor": "a bare streamlit page (title, button, one line of text)",
    "replica": "the elements of the dashboard's first page, bare (constant text, no data)",
}


def bare_page(args, browser: Browser, label: str, text: str, reruns: bool) -> dict:
    """``text`` served by ``streamlit run``: its first page on --repeat fresh servers, then
    a new session's on the last; with ``reruns``, the button and table-row reruns too."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{label}-"))
    script = folder / f"{label}.py"
    script.write_text(text)
    shots = Path(tempfile.gettempdir()) / f"bench_browser_{label}"
    shots.mkdir(exist_ok=True)
    bench = Bench(args.repeat, args.timeout, args.budget, shots)
    log = shots / "server.log"
    print(f"== {label}: {script}", flush=True)
    server = None
    cold = Result(f"{label}: cold first page (fresh server)")
    launch = Result(f"{label}: {LAUNCH} (fresh server)")
    bench.results += [cold, launch]
    kinds = {}
    try:
        for i in range(args.repeat):
            if server is not None:
                server.stop()
            server = bench.server = Server(folder, log, script=script)
            server.wait_healthy()
            context = new_context(browser)
            try:
                cold_page(context, server, FLOOR_TEXT, bench.timeout, cold, launch)
                print(f"  {cold.name} #{i + 1}: {cold.samples[-1]:.3f} s", flush=True)
                kinds = count_kinds(context.pages[-1])
            except NotMeasurable as error:
                cold.note = f"not measurable: {error}"
            finally:
                context.close()
        cold.peak_rss_mb = round(server.peak_rss_mb())
        first_page_floor(bench, browser, server.url, label)
        if reruns:
            rerun_floor(bench, browser, server.url)
            table_floor(bench, browser, server.url)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "workspace": BARE_PAGES[label],
        "script": text,
        "results": [r.summary() for r in bench.results],
        "peak_rss_mb": {},
        "element_kinds": kinds,
    }


def count_kinds(page: Page) -> dict[str, int]:
    """How many of each of ELEMENT_KINDS the page shows."""
    return page.evaluate(COUNT_KINDS, list(ELEMENT_KINDS))


def cold_page(
    context: BrowserContext, server: Server, pattern: str, timeout: float, *into: Result
) -> None:
    """A fresh server's first page, into ``into``: the page from its ``goto`` (the
    goal's figure), and from the server's launch. A cold page from health ok moves with
    what the server does before and after it answers; from the launch it does not (issue
    30, stop 44: a page opened later after health ok was ready no sooner after the launch)."""
    page = context.new_page()
    begun = time.perf_counter()
    took = timed_goto(page, server.url, pattern, timeout)
    from_health, from_launch = into
    from_health.samples.append(took)
    from_launch.samples.append(begun - server.started + took)


def first_page_floor(bench: Bench, browser: Browser, url: str, label: str = "floor") -> None:
    def once(_i: int) -> float:
        context = new_context(browser)
        try:
            return timed_goto(context.new_page(), url, FLOOR_TEXT, bench.timeout)
        finally:
            context.close()

    bench.measure(f"{label}: first page, new session (warm server)", once)


def rerun_floor(bench: Bench, browser: Browser, url: str) -> None:
    """A click on the bare page's button."""

    def button(page: Page, _i: int) -> Callable[[], None]:
        return page.get_by_role("button", name="Rerun").click

    floor_clicks(bench, browser, url, "floor: button click rerun", button)


def table_floor(bench: Bench, browser: Browser, url: str) -> None:
    """A click on a row of the bare page's table (shown with ``?table=1``)."""

    def row(page: Page, i: int) -> Callable[[], None]:
        return click_row(page, FLOOR_TABLE, i % 2)

    floor_clicks(bench, browser, f"{url}/?table=1", "floor: table row click rerun", row)


def floor_clicks(
    bench: Bench,
    browser: Browser,
    url: str,
    name: str,
    click: Callable[[Page, int], Callable[[], None]],
) -> None:
    """``name``: the bare page at ``url`` rerun by ``click(page, i)``'s action, timed until
    its line of text changes."""
    context = new_context(browser)
    page = bench.page = context.new_page()
    shown = page.locator("p").filter(has_text=re.compile(FLOOR_TEXT))

    def once(i: int) -> float:
        action = click(page, i)
        previous = shown.first.inner_text().strip()
        return timed(page, action, FLOOR_TEXT, bench.timeout, previous)[0]

    try:
        bench.measure(name, once, lambda: timed_goto(page, url, FLOOR_TEXT, bench.timeout))
    finally:
        context.close()
        bench.page = None


# ---------------------------------------------------------------- one workspace
def cold_first_pages(
    bench: Bench, browser: Browser, workspace: Path, log: Path, n: int, source: Path
) -> Server:
    """First page of a freshly started server, ``n`` times with an empty load cache (every
    input read and checked), then ``n`` times with the cache a previous server filled; the
    last server is kept."""
    filled = Path(tempfile.mkdtemp(prefix="bench-home-"))
    warm_up = Server(workspace, log, source, filled)  # fills the cache, untimed
    warm_up.wait_healthy()
    context = new_context(browser)
    try:
        timed_goto(context.new_page(), warm_up.url, "^Headline measures", bench.timeout)
    finally:
        context.close()
        warm_up.stop()
    server = None
    for label, home in (("empty load cache", None), ("load cache filled", filled)):
        result = Result(f"cold first page (fresh server, {label})")
        launch = Result(f"{LAUNCH} (fresh server, {label})")
        bench.results += [result, launch]
        health = []
        for i in range(n):
            if server is not None:
                server.stop()
            server = Server(workspace, log, source, home)
            health.append(server.wait_healthy())
            context = new_context(browser)
            try:
                cold_page(context, server, "^Headline measures", bench.timeout, result, launch)
                print(f"  {result.name} #{i + 1}: {result.samples[-1]:.3f} s", flush=True)
            except NotMeasurable as error:
                result.note = f"not measurable: {error}"
            finally:
                context.close()
        result.note = (result.note + " " if result.note else "") + (
            f"server start to health ok: median {statistics.median(health):.2f} s"
        )
        result.peak_rss_mb = round(server.peak_rss_mb())
    return server


def bench_workspace(args, label: str, workspace: Path, browser: Browser) -> dict:
    print(f"== {label}: {workspace}", flush=True)
    timeout = args.timeout if label == "samples" else args.timeout * 5
    shots = Path(tempfile.gettempdir()) / f"bench_browser_{label}"
    shots.mkdir(exist_ok=True)
    bench = Bench(args.repeat, timeout, args.budget, shots)
    log = shots / "server.log"
    cold_n = args.cold_repeat if label == "samples" else args.large_cold_repeat
    server = bench.server = cold_first_pages(bench, browser, workspace, log, cold_n, args.source)
    memory = {"after first page": server.peak_rss_mb()}
    try:
        if not args.sessions_only:
            one_session(bench, browser, server, args.only)
            memory["after one session's interactions"] = server.peak_rss_mb()
        if args.sessions:
            sessions_at_once(bench, browser, server.url, args.sessions)
            memory[f"with {args.sessions} sessions open"] = server.peak_rss_mb()
    finally:
        server.stop()
    return {
        "workspace": str(workspace),
        "results": [r.summary() for r in bench.results],
        "peak_rss_mb": memory,
        "element_kinds": bench.kinds,
    }


# the single-session steps, in an order that leaves each page usable (--only picks some)
STEPS = {
    "page_switches": page_switches,
    "change_k": change_k,
    "queries": queries_interactions,
    "failures": failures_bar,
    "ranks": ranks_bin,
    "compare": compare_interactions,
    "judge": judge_keys,
}


def one_session(bench: Bench, browser: Browser, server: Server, only: list[str] | None) -> None:
    """Every single-session interaction (or those named in ``only``)."""
    if not only or "first_pages" in only:
        first_pages(bench, browser, server.url, "first page, new session (warm server)")
    context = new_context(browser)
    page = bench.page = context.new_page()
    timed_goto(page, server.url, "^Headline measures", bench.timeout)
    for name, step in STEPS.items():
        if not only or name in only:
            step(bench, page)
    context.close()
    bench.page = None


def samples_copy(folder: Path) -> Path:
    """data_samples without any judgment store (the Judge key presses write into the copy)."""
    ignore = shutil.ignore_patterns("*.duckdb", "*.duckdb.wal", "*.py", "README.md")
    return Path(shutil.copytree(ROOT / "data_samples", folder / "samples", ignore=ignore))


def large_workspace(folder: Path | None, scratch: Path) -> Path:
    """The 10,000 x 100 x 4-run workspace: ``folder`` if it holds one, else generated."""
    target = folder or scratch / "large"
    if not (target / "gold.jsonl").exists():
        sys.path.insert(0, str(ROOT))
        from benchmarks.make_large_workspace import make

        print(f"generating {target} (10,000 queries x 100 x 4 runs) …", flush=True)
        start = time.perf_counter()
        make(target, 10_000, 100, 2_000, 7)
        print(f"generated in {time.perf_counter() - start:.0f} s", flush=True)
    return target


# ---------------------------------------------------------------- report
def verdict(row: dict, label: str) -> str:
    if "median_s" not in row or label not in GOALS or row["interaction"].startswith(LAUNCH):
        return "n/a"
    goal = GOALS[label]
    if "first page" in row["interaction"] or "first load" in row["interaction"]:
        return "yes" if row["median_s"] <= goal["first page"] else "NO"
    ok = row["median_s"] <= goal["median"] and (goal["p95"] is None or row["p95_s"] <= goal["p95"])
    return "yes" if ok else "NO"


def print_table(label: str, report: dict) -> None:
    print(f"\n{label}: {report['workspace']}")
    head = f"{'interaction':44} {'n':>3} {'median':>8} {'p95':>8} {'first':>8} {'max':>8}"
    head += f" {'RSS MB':>7}  goal"
    print(head)
    for row in report["results"]:
        if "median_s" in row:
            numbers = " ".join(f"{row[k]:8.3f}" for k in ("median_s", "p95_s", "first_s", "max_s"))
        else:
            numbers = " ".join(f"{'-':>8}" for _ in range(4))
        rss = row["server_peak_rss_mb_after"]
        rss_text = f"{rss:7.0f}" if rss is not None else f"{'-':>7}"
        line = f"{row['interaction'][:44]:44} {row['n']:3d} {numbers} {rss_text}"
        line += f"  {verdict(row, label)}"
        print(line + (f"  ({row['note']})" if row["note"] else ""))
    for phase, mb in report["peak_rss_mb"].items():
        print(f"server peak RSS {phase}: {mb:.0f} MB")


def floor_goals(report: dict, floor_report: dict) -> list[dict]:
    """Each single-session interaction against the floor of the same run: median <= the
    floor's rerun + 0.1 s (a table row click: the floor's row click) and p95 <= 0.8 s; a
    first page <= the floor's first page of the
    same kind (fresh server / new session) + 0.3 s. The N-sessions rows are left out (the
    floor is one session)."""
    floors = {row["interaction"]: row.get("median_s") for row in floor_report["results"]}
    rerun = floors.get("floor: button click rerun")
    table_rerun = floors.get("floor: table row click rerun")
    cold = floors.get("floor: cold first page (fresh server)")
    warm = floors.get("floor: first page, new session (warm server)")
    goals = []
    for row in report["results"]:
        name = row["interaction"]
        if "median_s" not in row or re.match(r"\d+ sessions: ", name):
            continue
        if name.startswith(LAUNCH):  # shown, no goal
            continue
        if name.startswith("cold first page"):
            base, slack, p95_goal = cold, FIRST_PAGE_SLACK, None
        elif "first page" in name:
            base, slack, p95_goal = warm, FIRST_PAGE_SLACK, None
        elif name in TABLE_ROW_CLICKS:
            base, slack, p95_goal = table_rerun, FLOOR_RERUN_SLACK, P95_GOAL
        else:
            base, slack, p95_goal = rerun, FLOOR_RERUN_SLACK, P95_GOAL
        goal = None if base is None else base + slack
        goals.append(
            {
                "interaction": name,
                "median_s": row["median_s"],
                "median_goal_s": goal,
                "median_met": None if goal is None else row["median_s"] <= goal,
                "p95_s": row["p95_s"],
                "p95_goal_s": p95_goal,
                "p95_met": None if p95_goal is None else row["p95_s"] <= p95_goal,
            }
        )
    return goals


def against(value: float, goal: float | None) -> str:
    """'met, 0.02 s under' / 'NOT met, 0.13 s over' / 'n/a' (no floor measured)."""
    if goal is None:
        return "n/a"
    if value <= goal:
        return f"met, {goal - value:.3f} s under"
    return f"NOT met, {value - goal:.3f} s over"


def print_goals(label: str, goals: list[dict], floor_report: dict) -> None:
    floors = ", ".join(
        f"{row['interaction'].removeprefix('floor: ')} {row['median_s']:.3f} s"
        for row in floor_report["results"]
        if "median_s" in row
    )
    print(f"\n{label}: goals against the floor of this run ({floors})")
    head = f"{'interaction':50} {'median':>7} {'goal':>7}  {'median vs goal':24}"
    print(head + f" {'p95':>7} {'goal':>5}  p95 vs goal")
    for goal in goals:
        median_goal = goal["median_goal_s"]
        line = f"{goal['interaction'][:50]:50} {goal['median_s']:7.3f} "
        line += f"{median_goal:7.3f}" if median_goal is not None else f"{'-':>7}"
        line += f"  {against(goal['median_s'], median_goal):24} {goal['p95_s']:7.3f} "
        p95_goal = goal["p95_goal_s"]
        line += f"{p95_goal:5.1f}" if p95_goal is not None else f"{'-':>5}"
        print(line + f"  {against(goal['p95_s'], p95_goal) if p95_goal is not None else '-'}")
    both = [g for g in goals if g["median_met"] and g["p95_met"] is not False]
    print(f"{len(both)} of {len(goals)} rows meet their goals")


def print_replica(report: dict, replica_report: dict) -> None:
    """The dashboard's first pages against the replica's (the same elements, bare), and the
    element kinds both drew: what ragrecall's own work adds to streamlit's drawing."""
    replicas = {
        row["interaction"].removeprefix("replica: "): row.get("median_s")
        for row in replica_report["results"]
    }
    print("\nfirst pages against the replica (the same elements, bare; no goal)")
    for row in report["results"]:
        # "cold first page (fresh server, empty load cache)" -> "... (fresh server)"
        kind = re.sub(r"\(fresh server, [^)]*\)$", "(fresh server)", row["interaction"])
        ours, theirs = row.get("median_s"), replicas.get(kind)
        if ours is not None and theirs is not None:
            print(f"{row['interaction'][:50]:50} {ours:7.3f} {theirs:7.3f} {ours - theirs:+7.3f}")
    ours, theirs = report.get("element_kinds", {}), replica_report.get("element_kinds", {})
    if ours and theirs:  # a run without the dashboard's new-session pages counts none
        drawn = " ".join(f"{k.removeprefix('st')} {ours[k]}/{theirs[k]}" for k in ELEMENT_KINDS)
        print(f"elements drawn, dashboard/replica: {drawn}")


def machine() -> dict:
    load = os.getloadavg()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "load_average_at_start": [round(x, 2) for x in load],
        "commit": git_commit(),
    }


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match.group(1) if match else platform.processor()


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", choices=("samples", "large", "both"), default="samples")
    parser.add_argument("--repeat", type=int, default=10, help="repetitions per interaction")
    parser.add_argument("--cold-repeat", type=int, default=10, help="fresh servers (samples)")
    parser.add_argument(
        "--large-cold-repeat", type=int, default=2, help="fresh servers (large workspace)"
    )
    parser.add_argument("--sessions", type=int, default=4, help="sessions open at once")
    parser.add_argument(
        "--sessions-only", action="store_true", help="skip the single-session interactions"
    )
    parser.add_argument("--timeout", type=float, default=60, help="s per wait (x5 for large)")
    parser.add_argument("--budget", type=float, default=240, help="s per interaction at most")
    parser.add_argument("--large-dir", type=Path, help="reuse (or generate into) this folder")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=["first_pages", *STEPS],
        help="run only these single-session steps (the cold first pages always run)",
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=ROOT,
        help="the checkout whose app.py and package to serve (e.g. a `git archive` of an "
        "older commit, for before / after in one session)",
    )
    args = parser.parse_args(argv)
    if args.sessions < 0:
        parser.error("--sessions must be 0 (none) or more")
    if args.repeat < 1 or args.cold_repeat < 1 or args.large_cold_repeat < 1:
        parser.error("repetitions must be at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    labels = ("samples", "large") if args.workspace == "both" else (args.workspace,)
    report = {"machine": machine(), "source": str(args.source), "repeat": args.repeat}
    report["workspaces"] = {}
    with tempfile.TemporaryDirectory(prefix="bench_browser_") as scratch, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        report["floor"] = floor(args, browser)
        print_table("floor", report["floor"])
        if "samples" in labels:
            report["replica"] = replica(args, browser)
            print_table("replica", report["replica"])
        for label in labels:
            workspace = (
                samples_copy(Path(scratch))
                if label == "samples"
                else large_workspace(args.large_dir, Path(scratch))
            )
            report["workspaces"][label] = bench_workspace(args, label, workspace, browser)
            print_table(label, report["workspaces"][label])
            goals = floor_goals(report["workspaces"][label], report["floor"])
            report["workspaces"][label]["floor_goals"] = goals
            print_goals(label, goals, report["floor"])
            if label == "samples":
                print_replica(report["workspaces"][label], report["replica"])
            report["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
            if args.out:
                args.out.write_text(json.dumps(report, indent=2))
        browser.close()


if __name__ == "__main__":
    main()
