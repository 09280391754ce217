"""The other pages built ahead (issue 30): after the launcher's warm-up, a fresh server's
first visit to Queries, Failures, Ranks, Compare, No-answer or Agreement finds its shared
results built and only draws them. Counted by calls of the builders, never timed."""

from __future__ import annotations

import shutil
from collections import Counter

from ragrecall_app import agreement, analyses, context, failures, page_warm, queries, ranks
from ragrecall_core.views import compare_view, no_answer_view
from ragrecall_core.views.dashboard_state import Source
from tests.dashboard_support import ROOT, app, count_calls, no_exception, titles

PAGES = {
    "pages/queries.py": "Queries",
    "pages/failures.py": "Failures",
    "pages/ranks.py": "Ranks",
    "pages/compare.py": "Compare",
    "pages/no_answer.py": "No-answer queries",
    "pages/agreement.py": "Agreement",
}


def test_a_first_visit_after_the_warm_up_builds_nothing_again(tmp_path, monkeypatch):
    workspace = shutil.copytree(ROOT / "data_samples", tmp_path / "ws")  # its own cache keys
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
    count(compare_view, "scatter_figure")  # plotly's first figures: most of a first visit
    count(no_answer_view, "score_figure")
    count(no_answer_view, "sweep_figure")

    page_warm.warm_pages(context.warm_up(Source(workspace=workspace)))
    warmed = Counter(calls)
    every = {"_build", "compare", "top_scores", "agreement", "gold_gaps"}
    every |= {"scatter_figure", "score_figure", "sweep_figure"}
    assert set(warmed) == every and warmed["_build"] == 3

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

    from ragrecall_app import serve

    begun = []
    for name in ("_queries", "_failures", "_ranks", "_compare", "_no_answer", "_agreement"):
        monkeypatch.setattr(page_warm, name, lambda ctx, name=name: begun.append(name))
    stop = threading.Event()
    page_warm.warm_pages(None, stop=stop)
    assert len(begun) == 6
    stop.set()
    page_warm.warm_pages(None, stop=stop)
    assert len(begun) == 6, "a page was begun after the stop"
    daemons, ended = [], threading.Event()

    def warm_up():
        daemons.append(threading.current_thread().daemon)
        ended.set()

    monkeypatch.setattr(serve, "warm_up", warm_up)
    monkeypatch.setattr(serve.cli, "main", lambda: 0)
    monkeypatch.setattr(serve.sys, "argv", ["ragrecall-ui"])
    monkeypatch.setattr(serve.PagesManager, "uses_pages_directory", None)
    assert serve.main([]) == 0
    assert ended.wait(10) and daemons == [False]
    assert serve.STOPPING.is_set(), "the launcher tells the warm-up the server stopped"
    serve.STOPPING.clear()
