"""Real-browser tests: Debian's chromium driven by pytest-playwright against `streamlit run`.

Never `playwright install` here: the browser is /usr/bin/chromium (apt-get install chromium).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.chromium import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVE,
    VIEWPORT,
    free_port,
    healthy_within,
    server_flags,
)
from tests.dashboard_support import ROOT, hostile_workspace

SHOTS = Path(os.environ.get("RAGRECALL_SHOTS", "/tmp/shots"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": VIEWPORT}


class Server:
    def __init__(self, workspace: Path | None):
        self.port = free_port()
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop("RAGRECALL_WORKSPACE", None)
        if workspace is not None:
            env["RAGRECALL_WORKSPACE"] = str(workspace)
        self.proc = subprocess.Popen(
            [sys.executable, *SERVE, *server_flags(self.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://localhost:{self.port}"

    def wait(self, timeout: float = 40) -> Server:
        if healthy_within(self.url, timeout):
            return self
        self.stop()
        raise RuntimeError(f"streamlit did not start on port {self.port}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def settled(page, after_ms: int = 500, timeout_ms: int = 60_000) -> None:
    """The script has run and the page has painted: a rerun may start just after a click,
    so first a short wait, then until the app's script state leaves ``running``, then
    ``after_ms`` for the browser to paint."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stApp]')"
        ".getAttribute('data-test-script-state') !== 'running'",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(after_ms)


@pytest.fixture(scope="module")
def server():
    """A dashboard server on data_samples/ of one test module's own."""
    started = Server(None).wait()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    """Two servers started together: data_samples, and a workspace of hostile text. No
    warm-up visit: the launcher turns streamlit's pages/-folder mode off, so a fresh
    server's first deep link opens its page (tests/browser/test_deep_links.py)."""
    hostile = hostile_workspace(tmp_path_factory.mktemp("hostile"))
    started = {"samples": Server(None), "hostile": Server(hostile)}
    try:
        yield {name: s.wait() for name, s in started.items()}
    finally:
        for s in started.values():
            s.stop()


@pytest.fixture(scope="session")
def app_url(servers):
    return servers["samples"].url


@pytest.fixture(scope="session")
def hostile_url(servers):
    return servers["hostile"].url


@pytest.fixture(scope="session")
def shots():
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
