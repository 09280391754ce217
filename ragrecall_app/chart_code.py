"""The charts' plotly.js, loaded once a session's first page has been drawn (issue 30).

The dashboard's charts (:mod:`ragrecall_app.chart`) draw with ``static/plotly-ragrecall.min.js``,
which the browser fetches and evaluates once per page (~0.2 s of its main thread), when a
page first draws a chart. :func:`load_after_first_page` has the browser load it once the
session's first page is drawn and the user's hand has paused (:data:`QUIET_MS`), while the
user reads the page, so the first chart page finds it ready and a quick first click does not
wait for it. The load is the charts' own (``js/plotly_loader.js``): one promise per page, so
a chart drawn meanwhile waits for the same load.

``st.html`` with ``unsafe_allow_javascript`` is public; the script is a constant (the
loader's file and two numbers), nothing from any input goes in it.
"""

from __future__ import annotations

import streamlit as st

from ragrecall_app.chart import LOADER

# whether this session has been sent the script (session state key)
SENT = "_ragrecall_chart_code_sent"
# ms without the user's input (a pointer moved or pressed, a key, a wheel, a touch) and
# without a run being drawn before the load begins, counted from the page's next two
# frames: evaluating the bundle holds the browser's main thread for ~0.2 s, and a click made
# meanwhile waits for it, so the load waits for a pause in the user's hand (one moving
# towards a link resets the wait)
QUIET_MS = 1000
# ms the browser waits for an idle moment at most, once the user has paused
IDLE_TIMEOUT_MS = 2000

# the element takes no room: its container is hidden (a hidden script has run all the same)
HEAD = """<style>
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script#ragrecall-chart-code) {
  display: none;
}
</style>
<script id="ragrecall-chart-code">
"""
# after the loader (js/plotly_loader.js): the wait, then the load
PRELOAD = """(() => {
  if (window.__ragrecallChartCode) return;
  window.__ragrecallChartCode = true;
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
    window.ragrecallPlotly().catch(() => {});  // a chart drawn later tries again
  };
  const wait = () => {
    if (busy()) { seen(); return setTimeout(wait, 100); }  // quiet counts from its end
    if (still() > 0) return setTimeout(wait, still());
    later(load, {timeout: %(idle)d});
  };
  requestAnimationFrame(() => requestAnimationFrame(() => { seen(); wait(); }));
})();
</script>"""


def script() -> str:
    """The ``<script>`` that loads the charts' plotly.js once the page is drawn and the
    user's input has paused for :data:`QUIET_MS`."""
    return HEAD + LOADER + PRELOAD % {"idle": IDLE_TIMEOUT_MS, "quiet": QUIET_MS}


def load_after_first_page() -> None:
    """On a session's first run that reaches it (app.py, after the page), a script that has
    the browser load the charts' plotly.js once the page is drawn: an empty element at the
    sidebar's end, sent once (a later run removes it: the script has run by then, and its
    timers are the window's). A run interrupted before the element was sent sends it on
    the next."""
    if st.session_state.get(SENT):
        return
    st.sidebar.html(script(), unsafe_allow_javascript=True)
    st.session_state[SENT] = True
