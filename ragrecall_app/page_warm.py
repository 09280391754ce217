"""The other pages of the default view, built ahead (issue 30): what a page's first visit on
a fresh server computes and every later session shares (the Queries table, the Failures
groups, the Ranks charts, the default Compare pair, the No-answer report, the Agreement
figures), and the modules those pages import (SciPy's statistics alone cost a first
Agreement visit most of a second). The launcher's warm-up runs :func:`warm_pages` after
the first page, in its background thread, once a browser has drawn that page
(:func:`first_page_drawn`): a first visit of another page then only draws it. Each of
its steps waits for a quiet while (no session's script running), so the sessions that open
meanwhile have the cores.

Nothing here is shown: a page that fails here fails again when visited, and says why.
"""

from __future__ import annotations

import threading
import time

from streamlit.runtime import Runtime

from ragrecall_app import context
from ragrecall_app.context import Context

# how long the warm-up waits for a browser's first page before it builds the others anyway
FIRST_PAGE_WAIT_S = 20.0
# how long no session's script must have run before a step begins: a new session opened
# once the last page was drawn connects one to three seconds after that page's script ended
QUIET_S = 3.0
POLL_S = 0.05
# how long a connected session that has not finished a first run is taken as arriving
ARRIVAL_S = 10.0
# the steps of warm_pages, in order: functions of this module
STEPS = ("_every_k", "_queries", "_failures", "_ranks", "_compare", "_no_answer", "_agreement")


def first_page_drawn(
    timeout_s: float = FIRST_PAGE_WAIT_S, stop: threading.Event | None = None
) -> None:
    """Wait until a browser session has finished its first page (or ``timeout_s``, or
    ``stop``): the other pages are built after it, not on the cores the first page needs.
    Streamlit counts each session's finished runs (its session manager's own field); without
    them, no wait."""
    stop = stop or threading.Event()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            sessions = Runtime.instance()._session_mgr.list_active_sessions()
            if any(info.script_run_count > 0 for info in sessions):
                return
        except Exception:  # noqa: BLE001 (another streamlit: do not wait)
            return
        if stop.wait(0.05):
            return


def warm_pages(ctx: Context, stop: threading.Event | None = None) -> None:
    """Every k's query tables and Harm@k for ``ctx``'s view (the default view of the
    launcher's source, whose first page read its k's measures alone: a change of k is then
    a slice, and the other pages find the table), then each page's shared results, page by
    page in the sidebar's order; a step that fails is left to its visit. Each step waits until no
    session's script has run for :data:`QUIET_S` (:func:`wait_for_quiet`): a session never
    waits behind one begun after it. Once ``stop`` is set, no further step is begun (the
    server is stopping)."""
    stop = stop or threading.Event()
    for name in STEPS:
        if not wait_for_quiet(stop):
            return
        try:
            globals()[name](ctx)
        except Exception:  # noqa: BLE001, S112 (the page's own visit reports it)
            continue


def wait_for_quiet(stop: threading.Event, timeout_s: float | None = None) -> bool:
    """Wait until no session's script has run for :data:`QUIET_S` (app.py marks each run:
    :func:`.context.script_began`) and no session awaits its first page
    (:func:`session_arriving`); False when ``stop`` is set first, or ``timeout_s`` has
    passed."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while not stop.is_set():
        if context.quiet_for() >= QUIET_S and not session_arriving():
            return True
        if deadline is not None and time.monotonic() > deadline:
            return False
        stop.wait(POLL_S)
    return False


# session id -> when first seen without a finished run
_ARRIVING: dict[str, float] = {}


def session_arriving() -> bool:
    """Whether a browser session has connected and not yet finished a first run (its script
    may not have begun: the page is on its way), seen so for less than :data:`ARRIVAL_S`.
    Streamlit counts each session's finished runs (its session manager's own field);
    without them, none."""
    try:
        sessions = Runtime.instance()._session_mgr.list_active_sessions()
    except Exception:  # noqa: BLE001 (no runtime, or another streamlit)
        return False
    now, waiting = time.monotonic(), {}
    for info in sessions:
        if info.script_run_count == 0:
            waiting[info.session.id] = _ARRIVING.get(info.session.id, now)
    _ARRIVING.clear()
    _ARRIVING.update(waiting)
    return any(now - first < ARRIVAL_S for first in waiting.values())


def _every_k(ctx: Context) -> None:
    from ragrecall_app import analyses

    context.every_k_tables(ctx)
    analyses.every_k_harm(ctx)


def _queries(ctx: Context) -> None:
    from ragrecall_app import queries

    queries.view(ctx)


def _failures(ctx: Context) -> None:
    from ragrecall_app import failures

    failures.view(ctx)


def _ranks(ctx: Context) -> None:
    from ragrecall_app import ranks

    ranks.view(ctx)


# Each page's step builds what the page shows at first, not what waits in a closed box
# (Compare's scatter, No-answer's score charts and sweep curve): those are built when opened.


def _compare(ctx: Context) -> None:
    from ragrecall_app import analyses, compare

    s = ctx.state
    if s.baseline and s.candidate and s.baseline != s.candidate:
        compare.comparison(ctx, s.baseline, s.candidate, ctx.view_ids())
        analyses.unjudged(ctx.key, s.baseline, s.candidate, s.k, ctx.policy, ctx.ws)


def _no_answer(ctx: Context) -> None:
    from ragrecall_app import no_answer

    result = no_answer.report(ctx)
    no_answer.picks(ctx, result, ctx.state.max_false_confidence / 100)


def _agreement(ctx: Context) -> None:
    from ragrecall_app import agreement

    agreement.view(ctx)
    agreement.judges(ctx)
    agreement.exports(ctx)
    agreement.gaps(ctx)
