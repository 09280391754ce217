"""The other pages built ahead (issue 30): after the launcher's warm-up, a fresh server's
first visit to Queries, Failures, Ranks, Compare, No-answer or Agreement finds its shared
results built and only draws them. Counted by calls of the builders, never timed."""

from __future__ import annotations

from collections import Counter

from ragrecall_app import agreement, analyses, context, failures, page_warm, queries, ranks, serve
from ragrecall_core.views import compare_view, no_answer_view
from ragrecall_core.views.dashboard_state import Source
from tests.dashboard_support import app, count_calls, no_exception, titles
from tests.helpers import launch_here
from tests.samples import samples_copy

PAGES = {
    "pages/queries.py": "Queries",
    "pages/failures.py": "Failures",
    "pages/ranks.py": "Ranks",
    "pages/compare.py": "Compare",
    "pages/no_answer.py": "No-answer queries",
    "pages/agreement.py": "Agreement",
}


def test_a_first_visit_after_the_warm_up_builds_nothing_again(tmp_path, monkeypatch):
    workspace = samples_copy(tmp_path / "ws")  # its own cache keys
    calls = Counter()

    def count(module, name):
        count_calls(monkeypatch, module, name, calls)

    count(queries, "_build")
    count(failures, "_build")
    count(ranks, "_build")
    count(analyses, "compare")  # Compare's paired tests and intervals
    count(analyses, "top_scores")  # No-answer's top-1 scores
    count(analyses, "agreement")
    count(agreement, "gold_gaps")
    # the charts that wait in closed boxes: built when a box is opened, never ahead
    count(compare_view, "scatter_figure")
    count(no_answer_view, "score_figure")
    count(no_answer_view, "sweep_figure")

    page_warm.warm_pages(serve.warm_first_page(Source(workspace=workspace)))
    warmed = Counter(calls)
    every = {"_build", "compare", "top_scores", "agreement", "gold_gaps"}
    assert set(warmed) == every and warmed["_build"] == 3  # and no chart in a closed box

    at = app(workspace, monkeypatch)
    for page, title in PAGES.items():
        at.switch_page(page).run()
        no_exception(at)
        assert titles(at) == [title]
    assert calls == warmed, "a first visit built what the warm-up had built"


def test_a_stopping_server_begins_no_further_page(monkeypatch):
    """The warm-up thread is not a daemon (the interpreter's exit waits for it rather than
    kill it inside DuckDB, which aborted the process on a SIGTERM): once the server stops,
    no further page is begun and the wait for a first page ends."""
    import threading

    begun = []
    for name in page_warm.STEPS:
        monkeypatch.setattr(page_warm, name, lambda ctx, name=name: begun.append(name))
    monkeypatch.setattr(page_warm, "QUIET_S", 0.0)
    stop = threading.Event()
    page_warm.warm_pages(None, stop=stop)
    assert begun == list(page_warm.STEPS)
    stop.set()
    page_warm.warm_pages(None, stop=stop)
    assert begun == list(page_warm.STEPS), "a page was begun after the stop"
    daemons, ended = [], threading.Event()

    def warm_up():
        daemons.append(threading.current_thread().daemon)
        ended.set()

    monkeypatch.setattr(serve.cache_fill, "start", lambda args: None)
    assert launch_here(monkeypatch, warm_up=warm_up) == 0
    assert ended.wait() and daemons == [False]  # a thread begun ends: no time limit
    assert serve.STOPPING.is_set(), "the launcher tells the warm-up the server stopped"


def test_no_step_begins_while_a_session_script_runs(monkeypatch):
    """Issue 30: the pages and every k are built behind the first page on the server's
    cores; a session that opens meanwhile must not wait behind them. No step begins while a
    session's script runs (app.py says so first thing), nor until a quiet while after."""
    import threading

    begun = []
    for name in page_warm.STEPS:
        monkeypatch.setattr(page_warm, name, lambda ctx, name=name: begun.append(name))
    monkeypatch.setattr(page_warm, "QUIET_S", 0.05)
    monkeypatch.setattr(context, "_SCRIPTS", set())  # a script another test left running
    running, release = threading.Event(), threading.Event()

    def session():
        context.script_began()
        running.set()
        release.wait(30)

    script = threading.Thread(target=session)
    script.start()
    running.wait()
    warm = threading.Thread(target=page_warm.warm_pages, args=(None,))
    warm.start()
    warm.join(0.5)
    assert begun == [] and warm.is_alive(), "a step began while a session's script ran"
    release.set()
    script.join()
    warm.join()  # it ends once the script has: waited for, however loaded the machine
    assert begun == list(page_warm.STEPS), "every step runs once the session's script ends"


def test_the_quiet_while_counts_from_a_script_s_end(monkeypatch):
    """A script that ran long ended just now: the next step waits a quiet while from its
    end, not from its beginning (the next session's script begins about a second after a
    page is drawn). A clock of the test's own, never a timed assertion."""
    import threading
    import types

    now = [1000.0]
    monkeypatch.setattr(context, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    # only this test's script counts: one left running by another test would keep the
    # clock-less loop below waiting for good
    monkeypatch.setattr(context, "_SCRIPTS", set())
    monkeypatch.setattr(context, "_LAST_SEEN", [now[0]])
    monkeypatch.setattr(page_warm, "QUIET_S", 2.0)
    release = threading.Event()

    def session():
        context.script_began()
        release.wait(30)

    script = threading.Thread(target=session)
    script.start()
    now[0] += 60.0  # a long run
    release.set()
    script.join()
    assert held_back(), "a step began right after a script ended"
    now[0] += 2.0
    assert not held_back()


def arriving_session(monkeypatch, now: list[float]):
    """Streamlit's runtime as page_warm reads it, holding one connected session (``s1``, no
    finished run), and the clocks of page_warm and context reading ``now``; no script run
    of another test counts (the scripts seen and the last one's end are this test's)."""
    import types

    clock = types.SimpleNamespace(monotonic=lambda: now[0])
    monkeypatch.setattr(page_warm, "time", clock)
    monkeypatch.setattr(context, "time", clock)
    monkeypatch.setattr(context, "_SCRIPTS", set())
    monkeypatch.setattr(context, "_LAST_SEEN", [now[0]])
    monkeypatch.setattr(page_warm, "QUIET_S", 0.0)
    session = types.SimpleNamespace(id="s1")
    info = types.SimpleNamespace(session=session, script_run_count=0)
    manager = types.SimpleNamespace(list_active_sessions=lambda: [info])
    runtime = types.SimpleNamespace(_session_mgr=manager)
    monkeypatch.setattr(page_warm, "Runtime", types.SimpleNamespace(instance=lambda: runtime))
    return info


def held_back() -> bool:
    """Whether :func:`page_warm.wait_for_quiet` holds the next step back: it is stopped
    after a few polls, never by a timer (a timer of 0.3 s fired before a thread held up
    on a loaded machine had looked once, and a quiet server read as held back)."""
    return not page_warm.wait_for_quiet(PollLimit())


def test_no_step_begins_while_a_new_session_awaits_its_first_page(monkeypatch):
    """A browser session that has connected but not yet finished its first run is a page on
    its way (its script may not have begun yet): no step begins then, for ARRIVAL_S at most
    (a first run that never finishes well must not stop the warm-up for good)."""
    now = [5000.0]
    info = arriving_session(monkeypatch, now)
    assert held_back(), "a step began while a new session awaited its first page"
    info.script_run_count = 1
    assert not held_back(), "its first page is drawn: the steps go on"
    info.script_run_count, info.session.id = 0, "s2"
    assert held_back()
    now[0] += page_warm.ARRIVAL_S
    assert not held_back(), "a first run that never ends well held the warm-up for good"


class PollLimit(__import__("threading").Event):
    """A stop that sets itself at the ``polls``-th wait of the loop it stops (its poll):
    counted, never timed, so a thread held up on a loaded machine still looks first."""

    def __init__(self, polls: int = 5) -> None:
        super().__init__()
        self.left = polls

    def wait(self, timeout: float | None = None) -> bool:
        self.left -= 1
        if self.left <= 0:
            self.set()
        return self.is_set()
