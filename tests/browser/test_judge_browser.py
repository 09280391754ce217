"""The Judge page in Debian's chromium against a real `streamlit run` on a copy of
data_samples in tmp_path: keyboard judging, a server killed with SIGKILL and restarted,
and two annotators judging at the same time. Screenshots go to /tmp/shots3."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import duckdb
import pytest
from playwright.sync_api import Browser, Page, expect

from ragrecall_core import Workspace
from ragrecall_core.analysis import judge_session as js
from scripts.chromium import VIEWPORT
from tests.browser.conftest import Server
from tests.dashboard_support import samples_copy

TIMEOUT = 30_000
SHOTS3 = Path(os.environ.get("RAGRECALL_SHOTS3", "/tmp/shots3"))


def expected_queue(workspace: Path, annotator: str, n: int) -> list[tuple[str, str]]:
    """The first ``n`` chunks the page will show (its defaults: all runs, d = 10, k = 5)."""
    ws = Workspace.open(workspace)
    q = js.queue(ws, annotator, ws.run_names, 10, None, 5)
    ws.con.close()
    return list(zip(q.remaining["query_id"], q.remaining["chunk_id"], strict=True))[:n]


def stored(workspace: Path) -> list[tuple]:
    """Every row of judgments.duckdb (read once the server has stopped and let it go)."""
    with duckdb.connect(str(workspace / "judgments.duckdb"), read_only=True) as con:
        return con.execute(
            "SELECT annotator, query_id, chunk_id, grade, harmful FROM judgments ORDER BY id"
        ).fetchall()


def progress(page: Page, done: int, name: str):
    return page.get_by_text(re.compile(rf"^{done} of \d+ pooled chunks judged by {name}$"))


def open_judge(page: Page, url: str, name: str) -> None:
    """Root first (a fresh server's first deep link shows "Page not found"), then Judge."""
    page.goto(url)
    page.locator("h1").filter(has_text="Overview").wait_for(timeout=TIMEOUT)
    page.get_by_role("link", name="Judge", exact=True).click()
    page.locator("h1").filter(has_text="Judge").wait_for(timeout=TIMEOUT)
    expect(page.get_by_text("Enter your name to start judging")).to_be_visible(timeout=TIMEOUT)
    field = page.get_by_role("textbox", name="Your name (annotator)")
    field.fill(name)
    field.press("Enter")
    shown = progress(page, 0, name).or_(progress(page, 1, name)).or_(progress(page, 3, name))
    expect(shown).to_be_visible(timeout=TIMEOUT)  # the name's rerun is done: a click holds
    page.get_by_text("Retrieved chunk").wait_for(timeout=TIMEOUT)


def shoot(page: Page, path: Path, height: int = 2400) -> None:
    """A screenshot of the whole page (streamlit scrolls inside its own container)."""
    page.set_viewport_size({**VIEWPORT, "height": height})
    page.wait_for_timeout(700)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)


def press_when_settled(page: Page, key: str) -> None:
    """Press ``key`` once the last rerun has finished and its shortcuts are bound again (a
    key pressed while the page is still redrawing can reach the old, detached handler)."""
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stApp]')"
        ".getAttribute('data-test-script-state') !== 'running'",
        timeout=TIMEOUT,
    )
    page.wait_for_timeout(200)
    page.keyboard.press(key)


def press_grade(page: Page, grade: int) -> None:
    page.get_by_role("button", name=re.compile(rf"^{grade} · ")).click()


@pytest.fixture
def server_on(tmp_path):
    started: list[Server] = []

    def start(workspace: Path) -> Server:
        server = Server(workspace).wait()
        started.append(server)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.stop()


@pytest.fixture(scope="module")
def shots3():
    SHOTS3.mkdir(parents=True, exist_ok=True)
    return SHOTS3


def test_three_chunks_judged_by_keyboard(page: Page, tmp_path, server_on, shots3):
    workspace = samples_copy(tmp_path / "ws")
    want = expected_queue(workspace, "kim", 3)
    server = server_on(workspace)
    open_judge(page, server.url, "kim")
    expect(progress(page, 0, "kim")).to_be_visible(timeout=TIMEOUT)
    page.locator("h1").first.click()  # leave the name field: keys go to the shortcuts
    page.wait_for_timeout(300)
    shoot(page, shots3 / "judge.png")
    page.locator("h1").first.click()

    press_when_settled(page, "2")
    expect(progress(page, 1, "kim")).to_be_visible(timeout=TIMEOUT)
    press_when_settled(page, "h")
    expect(page.get_by_role("button", name=re.compile("Harmful: ON"))).to_be_visible(
        timeout=TIMEOUT
    )
    shoot(page, shots3 / "judge_harmful.png", height=1000)
    press_when_settled(page, "1")
    expect(progress(page, 2, "kim")).to_be_visible(timeout=TIMEOUT)
    press_when_settled(page, "0")
    expect(progress(page, 3, "kim")).to_be_visible(timeout=TIMEOUT)
    server.stop()
    assert stored(workspace) == [
        ("kim", *want[0], 2, False),
        ("kim", *want[1], 1, True),
        ("kim", *want[2], 0, False),
    ]


def test_judgments_survive_a_killed_server(page: Page, tmp_path, server_on):
    workspace = samples_copy(tmp_path / "ws")
    want = expected_queue(workspace, "lea", 4)
    first = server_on(workspace)
    open_judge(page, first.url, "lea")
    for done, grade in enumerate((2, 0, 1), start=1):
        press_grade(page, grade)
        expect(progress(page, done, "lea")).to_be_visible(timeout=TIMEOUT)
    os.kill(first.proc.pid, signal.SIGKILL)
    first.proc.wait(timeout=10)

    second = server_on(workspace)
    open_judge(page, second.url, "lea")
    expect(progress(page, 3, "lea")).to_be_visible(timeout=TIMEOUT)  # resumes after the three
    expect(page.get_by_text("Your grades (3)")).to_be_visible()
    expect(page.get_by_text(f"Chunk id: {want[3][1]}")).to_be_visible()
    second.stop()
    assert stored(workspace) == [
        ("lea", *want[0], 2, False),
        ("lea", *want[1], 0, False),
        ("lea", *want[2], 1, False),
    ]


def test_two_annotators_judge_at_the_same_time(browser: Browser, tmp_path, server_on, shots3):
    workspace = samples_copy(tmp_path / "ws")
    want = expected_queue(workspace, "ana", 3)
    server = server_on(workspace)
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        names = ("ana", "ben")
        for p, name in zip(pages, names, strict=True):
            open_judge(p, server.url, name)
        for done, grade in enumerate((2, 1, 2), start=1):
            for p in pages:  # both clicks go out before either rerun is awaited
                press_grade(p, grade)
            for p, name in zip(pages, names, strict=True):
                expect(progress(p, done, name)).to_be_visible(timeout=TIMEOUT)
        pages[0].get_by_role("link", name="Agreement", exact=True).click()
        pages[0].get_by_text("Annotator pairs").wait_for(timeout=TIMEOUT)
        expect(pages[0].get_by_text(re.compile(r"graded differently"))).to_be_visible()
        shoot(pages[0], shots3 / "agreement.png", height=3200)
    finally:
        for c in contexts:
            c.close()
    server.stop()
    rows = stored(workspace)
    for name in ("ana", "ben"):
        assert [r[1:4] for r in rows if r[0] == name] == [
            (*want[0], 2),
            (*want[1], 1),
            (*want[2], 2),
        ]
