"""Real-browser tests: Debian's chromium driven by pytest-playwright against `streamlit run`.

Never `playwright install` here: the browser is /usr/bin/chromium (apt-get install chromium).
"""

from __future__ import annotations

import os
import re
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
from tests.dashboard_support import ROOT, hostile_workspace, samples_copy
from tests.held_files import family, files_held_under

SHOTS = Path(os.environ.get("RAGRECALL_SHOTS", "/tmp/shots"))
# the sidebar's caption naming the data a session shows (app.py)
SOURCE_CAPTION = re.compile(r"^(Files from the command line|Workspace): ")


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


def apart_from_the_checkout(page, server: Server) -> None:
    """The server shows a folder outside the checkout and holds no file of the checkout's
    data_samples: a server on data_samples attaches its judgment store (if one is there) and
    holds its lock, so a test in another module that attaches it at the same time fails
    (``pytest -n 2``), and a write would leave the store in the checkout."""
    page.goto(server.url)
    caption = page.locator("[data-testid=stSidebar]").get_by_text(SOURCE_CAPTION).first
    caption.wait_for(state="attached", timeout=60_000)
    shown = Path(SOURCE_CAPTION.sub("", caption.text_content() or ""))
    assert not shown.resolve().is_relative_to(ROOT), shown
    assert files_held_under(family(server.proc.pid)) == []


def samples_server(tmp_path_factory) -> Server:
    """A dashboard server (starting) on a copy of data_samples of its own."""
    return Server(samples_copy(tmp_path_factory.mktemp("samples") / "ws"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A dashboard server on a copy of data_samples of one test module's own."""
    started = samples_server(tmp_path_factory).wait()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    """Two servers started together: a copy of data_samples, and a workspace of hostile text. No
    warm-up visit: the launcher turns streamlit's pages/-folder mode off, so a fresh
    server's first deep link opens its page (tests/browser/test_deep_links.py)."""
    hostile = hostile_workspace(tmp_path_factory.mktemp("hostile"))
    started = {"samples": samples_server(tmp_path_factory), "hostile": Server(hostile)}
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
