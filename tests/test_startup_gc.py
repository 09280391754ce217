"""The launcher's cyclic collector (issue 30): off from its first line, back on once the first
page is drawn, whatever way the warm-up ends, with the start's survivors frozen."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading

import pytest
from dashboard_support import ROOT

from ragrecall_app import page_warm, serve
from tests.samples import shared_samples


@pytest.fixture
def collector_restored():
    """Whatever a test does to the collector, the next one finds it on and nothing frozen."""
    yield
    gc.enable()
    gc.unfreeze()


def fresh_interpreter(code: str, tmp_path) -> subprocess.CompletedProcess:
    """``code`` run by a new interpreter of this checkout (a home of its own); it must end
    well."""
    env = {**os.environ, "RAGRECALL_HOME": str(tmp_path / "home")}
    # app.py's own default workspace is the checkout's data_samples: a store left there
    # would be attached (and locked); the tests' shared copy has none
    env["RAGRECALL_WORKSPACE"] = str(shared_samples())
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_launcher_turns_the_collector_off_before_streamlit_runs(tmp_path):
    code = (
        "import gc\n"
        "from streamlit.web import cli\n"
        "from ragrecall_app import serve\n"
        "seen = []\n"
        "cli.main = lambda: seen.append(gc.isenabled()) or 0\n"
        "serve.warm_up = lambda: None\n"
        "serve.cache_fill.start = lambda args: None\n"
        "assert serve.main([]) == 0\n"
        "print(seen)\n"
    )
    done = fresh_interpreter(code, tmp_path)
    assert done.stdout.strip() == "[False]"


def test_the_collector_comes_back_on_with_the_start_frozen(collector_restored):
    gc.disable()
    serve.collect_startup()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    serve.collect_startup()  # a second call: nothing more is frozen
    assert gc.get_freeze_count() == frozen


def test_the_start_s_garbage_is_collected_before_the_freeze(collector_restored):
    class Cycle:
        pass

    gc.disable()
    cycle = Cycle()
    cycle.me = cycle
    gone = threading.Event()
    import weakref

    weakref.finalize(cycle, gone.set)
    del cycle
    serve.collect_startup()
    assert gone.is_set(), "a cycle of the start was frozen instead of collected"


def test_a_warm_up_that_ends_early_turns_the_collector_back_on(monkeypatch, collector_restored):
    monkeypatch.setattr(serve, "wait_until", lambda ready: False)
    gc.disable()
    serve.warm_up()
    assert gc.isenabled()


def test_a_warm_up_that_fails_turns_the_collector_back_on(monkeypatch, collector_restored):
    def fail(ready):
        raise RuntimeError("boom")

    monkeypatch.setattr(serve, "wait_until", fail)
    gc.disable()
    serve.warm_up()
    assert gc.isenabled()


def test_the_wait_for_quiet_sessions_gives_up_at_its_deadline(monkeypatch):
    monkeypatch.setattr(page_warm.context, "quiet_for", lambda: 0.0)  # a script always runs
    assert page_warm.wait_for_quiet(threading.Event(), timeout_s=0.05) is False


def test_the_launcher_skips_the_scan_of_installed_component_packages(monkeypatch):
    """The runtime's scan of every installed distribution's metadata for components is
    skipped: no distribution is listed."""
    import importlib.metadata

    from streamlit.components.v2 import component_manager, manifest_scanner

    listed = []
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: listed.append(1) or [])
    component_manager.BidiComponentManager().discover_and_register_components(
        start_file_watching=False
    )
    assert listed, "the test does not see the scan (did an earlier test launch in-process?)"
    listed.clear()
    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", None)  # restored after
    serve.skip_installed_components()
    component_manager.BidiComponentManager().discover_and_register_components(
        start_file_watching=False
    )
    assert listed == []


def test_what_streamlit_imports_in_a_first_run_is_imported_by_the_warm_up(tmp_path):
    """The modules streamlit imports only during a session's first run (page_icon's emoji
    check, ~30 ms) are imported ahead: a first run of the dashboard in a fresh interpreter,
    once the warm-up's imports are done, imports none of them (and each still exists)."""
    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "from ragrecall_app import serve\n"
        "serve.import_first_page([serve.APP, serve.FIRST_PAGE])\n"
        "serve.import_quietly(serve.FIRST_RUN_IMPORTS)\n"
        "serve.skip_installed_components()  # as the launcher, before the runtime starts\n"
        "missing = [m for m in serve.FIRST_RUN_IMPORTS if m not in sys.modules]\n"
        "before = set(sys.modules)\n"
        "at = AppTest.from_file(str(serve.APP), default_timeout=120).run()\n"
        "assert not at.exception, at.exception\n"
        "late = sorted(m for m in set(sys.modules) - before if m.startswith('streamlit'))\n"
        "print(missing, late)\n"
    )
    done = fresh_interpreter(code, tmp_path)
    missing, late = done.stdout.strip().split("] [")
    assert missing == "[", f"not in this streamlit: {missing}"
    assert late == "]", f"imported by the first run, not ahead: [{late}"
