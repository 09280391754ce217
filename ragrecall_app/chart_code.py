"""The browser's plotly code, loaded once a session's first page has been drawn (issue 30).

Streamlit's browser side fetches its plotly chart module (``PlotlyChart.<hash>.js``, 4.7 MB
in streamlit 1.67) only when a page first draws a chart, and evaluating it holds the
browser's main thread for ~0.9 s: a session's first chart page (Failures, Ranks, Compare,
No-answer) took ~1.3 s where a later visit takes ~0.3 s. :func:`load_after_first_page`
has the browser import that module once the session's first page is drawn and the user's
hand has paused (:data:`QUIET_MS`), while the user reads the page, so the first chart page
finds it ready and a quick first click does not wait for it. The browser keeps one copy of a
module per address: streamlit's own import of it then resolves at once.

Nothing public in streamlit preloads an element's code; ``st.html`` with
``unsafe_allow_javascript`` is public, the module's file name (with its content hash) is
not: it is read from streamlit's installed ``static/static/js`` folder, and where that
folder holds no single such file (another streamlit), nothing is drawn and the charts load
their code as before. The script is a constant; the only value put in it is that file name,
checked against :data:`CHUNK_NAME` and written as a JSON string.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import streamlit as st

# the file name of streamlit's plotly chart module: a content hash between two fixed parts
CHUNK_NAME = re.compile(r"PlotlyChart\.[A-Za-z0-9_-]+\.js")
# whether this session has been sent the script (session state key)
SENT = "_ragrecall_chart_code_sent"
# ms without the user's input (a pointer moved or pressed, a key, a wheel, a touch) and
# without a run being drawn before the import begins, counted from the page's next two
# frames: evaluating the module holds the browser's main thread for ~0.9 s, and a click made
# meanwhile waits for it, so the import waits for a pause in the user's hand (one moving
# towards a link resets the wait)
QUIET_MS = 1000
# ms the browser waits for an idle moment at most, once the user has paused
IDLE_TIMEOUT_MS = 2000

# the element takes no room: its container is hidden (a hidden script has run all the same)
SCRIPT = """<style>
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script#ragrecall-chart-code) {
  display: none;
}
</style>
<script id="ragrecall-chart-code">
(() => {
  if (window.__ragrecallChartCode) return;
  window.__ragrecallChartCode = true;
  const index = document.querySelector('script[type=module][src*="/static/js/index."]');
  if (!index) return;
  const url = new URL(%(name)s, index.src).href;
  const inputs = ["pointermove", "pointerdown", "keydown", "wheel", "touchstart"];
  let last = performance.now();
  const seen = () => { last = performance.now(); };
  for (const name of inputs) window.addEventListener(name, seen, {capture: true, passive: true});
  // not while a run is drawn: its script still running, or stale or placeholder elements
  const busy = () => document.querySelector(
    '[data-test-script-state="running"], [data-stale="true"], [data-testid="stSkeleton"]');
  const still = () => %(quiet)d - (performance.now() - last);
  const later = window.requestIdleCallback || ((f) => setTimeout(f, 0));
  const load = () => {
    if (busy() || still() > 0) return wait();  // the user or a run came back meanwhile
    for (const name of inputs) window.removeEventListener(name, seen, {capture: true});
    import(url).catch(() => {});
  };
  const wait = () => {
    if (busy()) { seen(); return setTimeout(wait, 100); }  // quiet counts from its end
    if (still() > 0) return setTimeout(wait, still());
    later(load, {timeout: %(idle)d});
  };
  requestAnimationFrame(() => requestAnimationFrame(() => { seen(); wait(); }));
})();
</script>"""


@functools.cache
def chunk_name() -> str | None:
    """The file name of streamlit's plotly chart module in its served ``static/js`` folder,
    or None where it holds no single such file (read once per process)."""
    return find_chunk(Path(st.__file__).parent / "static" / "static" / "js")


def find_chunk(folder: Path) -> str | None:
    """The one plotly chart module's file name in ``folder``, or None."""
    names = [p.name for p in folder.glob("PlotlyChart.*.js") if CHUNK_NAME.fullmatch(p.name)]
    return names[0] if len(names) == 1 else None


def script(name: str) -> str:
    """The ``<script>`` that imports the module ``name`` once the page is drawn and the
    user's input has paused for :data:`QUIET_MS`."""
    if not CHUNK_NAME.fullmatch(name):
        raise ValueError(f"not a plotly chart module's file name: {name!r}")
    return SCRIPT % {"name": json.dumps(name), "idle": IDLE_TIMEOUT_MS, "quiet": QUIET_MS}


def load_after_first_page() -> None:
    """On a session's first run that reaches it (app.py, after the page), a script that has
    the browser import the plotly chart module once the page is drawn: an empty element at
    the sidebar's end, sent once (a later run removes it: the script has run by then, and
    its timers are the window's). A run interrupted before the element was sent sends it on
    the next."""
    if st.session_state.get(SENT):
        return
    name = chunk_name()
    if name is not None:
        st.sidebar.html(script(name), unsafe_allow_javascript=True)
    st.session_state[SENT] = True
