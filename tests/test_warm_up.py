"""The launcher's warm-up (issue 13): a fresh server opens and scores the workspace while the
browser loads the page, into the caches the first session then finds."""

from __future__ import annotations

import sys
import threading

from dashboard_support import ROOT, app, no_exception

from ragrecall_app import context, serve
from ragrecall_core.views.dashboard_state import Source
from tests.samples import samples_copy


def counted_builds(monkeypatch) -> list:
    """The scorings from now on: the cutoffs of each query table (one k alone, or every k),
    and ``("measures", k)`` for the measures alone (:func:`build_measure_rows`)."""
    builds = []
    one, every = context.build_query_table, context.build_query_tables
    measures = context.build_measure_rows
    monkeypatch.setattr(
        context, "build_query_table", lambda *a, **kw: builds.append((a[1],)) or one(*a, **kw)
    )
    monkeypatch.setattr(
        context, "build_query_tables", lambda *a, **kw: builds.append(a[1]) or every(*a, **kw)
    )
    monkeypatch.setattr(
        context,
        "build_measure_rows",
        lambda *a, **kw: builds.append(("measures", a[1])) or measures(*a, **kw),
    )
    return builds


def test_the_first_session_finds_the_warmed_up_scoring(tmp_path, monkeypatch):
    """Issue 30: the first page needs the measures at its one k, not the query table (its
    failure classes, grades, reasons and ranks are the other pages'): about a quarter of it."""
    workspace = samples_copy(tmp_path / "ws")  # its own cache keys
    builds = counted_builds(monkeypatch)

    serve.warm_first_page(Source(workspace=workspace))
    assert builds == [("measures", 5)], "the first page needs its one k's measures"

    at = app(workspace, monkeypatch)
    no_exception(at)
    assert len(builds) == 1, "the first page scored the workspace again: another cache key"
    assert at.title[0].value == "Overview"


def test_every_k_is_built_behind_the_first_page_and_a_new_k_is_a_slice(tmp_path, monkeypatch):
    """Issue 30: the first page scores its one k's measures; the launcher then builds the
    query table at every k the sidebar offers, so a change of k scores nothing."""
    workspace = samples_copy(tmp_path / "ws")
    builds = counted_builds(monkeypatch)
    ctx = serve.warm_first_page(Source(workspace=workspace))
    context.every_k_tables(ctx)
    assert builds == [("measures", 5), (1, 2, 3, 5, 10, 20)]

    at = app(workspace, monkeypatch)
    at.pills(key="side_k").select(10).run()
    no_exception(at)
    assert len(builds) == 2, "a change of k scored the workspace again"
    assert "k = 10" in " ".join(h.value for h in at.subheader)


def test_the_first_session_finds_the_overview_built(tmp_path, monkeypatch):
    """Issue 30: the launcher's warm-up builds the whole default Overview (headline numbers
    with their intervals, harm, no-answer table, query counts), not only the scoring, so the
    first session only draws it; the workspace is opened and scored once in all."""
    from ragrecall_app import overview_sections, serve
    from ragrecall_core.inputs.workspace import Workspace

    workspace = samples_copy(tmp_path / "ws")
    calls = []

    def counting(name, real):
        def counted(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)

        return counted

    monkeypatch.setattr(overview_sections, "_build", counting("build", overview_sections._build))
    monkeypatch.setattr(context, "build_query_table", counting("table", context.build_query_table))
    monkeypatch.setattr(
        context, "build_measure_rows", counting("score", context.build_measure_rows)
    )
    monkeypatch.setattr(Workspace, "open", staticmethod(counting("open", Workspace.open)))
    once_each = ["build", "open", "score"]

    serve.warm_first_page(Source(workspace=workspace))
    assert sorted(calls) == once_each

    at = app(workspace, monkeypatch)
    no_exception(at)
    assert sorted(calls) == once_each, "the first session opened, scored or built again"
    assert at.title[0].value == "Overview"
    assert any(m.value.startswith("| run |") for m in at.markdown), "the Overview shows its tables"


def test_the_warm_up_imports_what_the_first_page_imports(tmp_path, monkeypatch):
    """The first page's modules are imported before the first session asks for them (the
    script itself is not run)."""
    from ragrecall_app import serve

    package = tmp_path / "warmpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sub.py").write_text("")
    (package / "other.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    script = tmp_path / "page.py"
    script.write_text(
        "import warmpkg.other\nfrom warmpkg import sub\nraise SystemExit('the script ran')\n"
    )
    for name in ("warmpkg", "warmpkg.sub", "warmpkg.other"):
        monkeypatch.delitem(sys.modules, name, raising=False)

    serve.import_first_page([script])
    assert {"warmpkg.sub", "warmpkg.other"} <= set(sys.modules)


def test_the_warm_up_opens_the_workspace_while_the_server_starts(tmp_path, monkeypatch):
    """Issue 30: hashing the inputs and restoring the load cache need no streamlit runtime
    (the workspace is a resource every session shares): the warm-up begins them as soon as
    streamlit has set the app's arguments, not once its server has started."""
    from streamlit.runtime import Runtime

    from ragrecall_app import serve
    from ragrecall_core.inputs.workspace import Workspace

    workspace = samples_copy(tmp_path / "ws")
    opened, real, opening = [], Workspace.open, threading.Event()

    def open_(*args, **kwargs):
        opened.append(args)
        opening.set()
        return real(*args, **kwargs)

    imported_while_opening = []
    monkeypatch.setattr(Workspace, "open", staticmethod(open_))
    # the imports are seconds of the same start: the workspace is opened beside them
    monkeypatch.setattr(
        serve, "import_first_page", lambda scripts: imported_while_opening.append(opening.wait(10))
    )
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: False))  # not started
    monkeypatch.setattr(serve, "RUNTIME_WAIT_S", 0.2)
    monkeypatch.setattr(serve.sys, "argv", [str(serve.APP), "--workspace", str(workspace)])

    serve.warm_up()
    assert len(opened) == 1, "the workspace waited for the server"
    assert imported_while_opening == [True], "the workspace waited for the imports"
    context.open_source(Source(workspace=workspace))
    assert len(opened) == 1, "the session opened it again: under another key"


def test_the_overview_s_other_parts_are_built_beside_the_scoring(tmp_path, monkeypatch):
    """Issue 30: the first Overview's Harm@k at every cutoff and its no-answer top scores
    need the workspace, not the query table: the warm-up begins them beside the scoring
    (the server has two cores and the scoring is much Python), once each in all."""
    from ragrecall_app import analyses, serve

    workspace = samples_copy(tmp_path / "ws")
    calls, begun = [], {"harm": threading.Event(), "top": threading.Event()}
    seen_while_scoring = []

    def counting(name, real):
        def counted(*args, **kwargs):
            calls.append(name)
            begun[name].set()
            return real(*args, **kwargs)

        return counted

    monkeypatch.setattr(analyses, "harm_for_cutoffs", counting("harm", analyses.harm_for_cutoffs))
    monkeypatch.setattr(analyses, "top_scores", counting("top", analyses.top_scores))
    score = context.build_measure_rows

    def scoring(*args, **kwargs):
        seen_while_scoring.append(all(event.wait(10) for event in begun.values()))
        return score(*args, **kwargs)

    monkeypatch.setattr(context, "build_measure_rows", scoring)
    serve.warm_first_page(Source(workspace=workspace))
    assert seen_while_scoring == [True], "harm and no-answer waited for the scoring"

    at = app(workspace, monkeypatch)
    no_exception(at)
    assert sorted(calls) == ["harm", "top"], "the first session built them again"


def test_the_launcher_s_own_hashing_keys_the_inputs_as_the_warm_up_does(tmp_path, monkeypatch):
    """Issue 30: the launcher hashes the inputs its arguments (or $RAGRECALL_WORKSPACE)
    name first thing, beside streamlit's start; the content key made from those digests is
    the one made from the bytes, and a file changed since is read again."""
    import os

    from ragrecall_app import serve
    from ragrecall_core.inputs import load_cache
    from ragrecall_core.views.dashboard_state import content_hash

    workspace = samples_copy(tmp_path / "ws")
    source = Source(workspace=workspace)
    inputs = source.input_files()
    load_cache._DIGESTS.clear()
    from_bytes = content_hash(inputs)
    argv = ["--server.port", "8501", "--", "--workspace", str(workspace)]
    for args, env in ((argv, {}), ([], {"RAGRECALL_WORKSPACE": str(workspace)})):
        load_cache._DIGESTS.clear()
        serve.hash_inputs(serve.named_inputs(args, env))
        hashed = {identity[0] for identity in load_cache._DIGESTS}
        assert {str(p.resolve()) for p in inputs} <= hashed, "an input was left to the key"
        assert content_hash(inputs) == from_bytes

    gold = workspace / "gold.jsonl"
    data, stat = gold.read_bytes(), gold.stat()
    gold.write_bytes(data.replace(b"VPN", b"VPX", 1))
    os.utime(gold, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size and mtime
    changed = content_hash(inputs)
    load_cache._DIGESTS.clear()
    assert changed == content_hash(inputs) != from_bytes


def test_the_launcher_opens_the_workspace_before_pandas_is_imported(tmp_path):
    """Issue 30: the source and the workspace's restore need neither pandas nor the
    dashboard's modules, so the launcher begins them while those are still being imported."""
    import subprocess

    workspace = samples_copy(tmp_path / "ws")
    code = (
        "import sys\n"
        "from ragrecall_app import opened\n"
        "from ragrecall_core.views.source import parse_source\n"
        f"opened.open_ahead(parse_source(['--workspace', {str(workspace)!r}], {{}}, None))\n"
        "assert len(opened._AHEAD) == 1, 'not opened'\n"
        "heavy = {'pandas', 'ragrecall_app.context', 'ragrecall_core.views.dashboard_state'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    env = {**__import__("os").environ, "RAGRECALL_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_workspace_opened_ahead_is_the_one_the_session_would_open(tmp_path, monkeypatch):
    """One contract, every path: the workspace the launcher opened ahead, taken by the first
    read under the same key, holds what a session's own open holds (runs, facts, key); a
    file changed in between is read under its new key, never from the stale one."""
    import os

    from ragrecall_app import opened
    from ragrecall_core.inputs.workspace import workspace_facts

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    workspace = samples_copy(tmp_path / "ws")
    source = Source(workspace=workspace)
    context._load_workspace.clear()
    own, own_key, _store = context.open_source(source)  # the session's own open
    context._load_workspace.clear()
    opened._AHEAD.clear()

    opened.open_ahead(source)
    _key, ahead = next(iter(opened._AHEAD.values())).result()
    taken, key, _store = context.open_source(source)
    assert taken is ahead and not opened._AHEAD, "the session did not take it"
    assert key == own_key
    assert taken.run_names == own.run_names
    assert workspace_facts(taken) == workspace_facts(own)

    context._load_workspace.clear()
    opened.open_ahead(source)
    gold = workspace / "gold.jsonl"
    stat = gold.stat()
    gold.write_bytes(gold.read_bytes().replace(b"VPN", b"VPX", 1))
    os.utime(gold, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    changed, changed_key, _store = context.open_source(source)
    assert changed_key != key and changed is not taken
    assert not opened._AHEAD, "the stale workspace was kept"


def test_a_source_that_fails_ahead_is_opened_again_and_reports_its_problems(tmp_path, monkeypatch):
    """What fails in the launcher is left to the session, which reports it as before."""
    import pytest

    from ragrecall_app import opened
    from ragrecall_core.errors import InputError

    monkeypatch.setenv("RAGRECALL_HOME", str(tmp_path / "home"))
    workspace = samples_copy(tmp_path / "ws")
    (workspace / "gold.jsonl").write_text('{"query_id": \n', encoding="utf-8")
    source = Source(workspace=workspace)
    context._load_workspace.clear()
    opened._AHEAD.clear()
    opened.open_ahead(source)
    with pytest.raises(InputError) as ahead:
        next(iter(opened._AHEAD.values())).result()
    with pytest.raises(InputError) as own:
        context.open_source(source)
    assert [str(p) for p in own.value.problems] == [str(p) for p in ahead.value.problems]
