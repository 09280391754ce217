"""The launcher's warm-up (issue 13): a fresh server opens and scores the workspace while the
browser loads the page, into the caches the first session then finds."""

from __future__ import annotations

import shutil

from dashboard_support import ROOT, app, no_exception

from ragrecall_app import context
from ragrecall_core.views.dashboard_state import Source


def test_the_first_session_finds_the_warmed_up_scoring(tmp_path, monkeypatch):
    workspace = shutil.copytree(ROOT / "data_samples", tmp_path / "ws")  # its own cache keys
    builds = []
    build = context.build_query_tables
    monkeypatch.setattr(
        context, "build_query_tables", lambda *a, **kw: builds.append(a[1]) or build(*a, **kw)
    )

    context.warm_up(Source(workspace=workspace))
    assert len(builds) == 1

    at = app(workspace, monkeypatch)
    no_exception(at)
    assert len(builds) == 1, "the first page scored the workspace again: another cache key"
    assert at.title[0].value == "Overview"
