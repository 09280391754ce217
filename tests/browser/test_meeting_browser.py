"""The review meeting, played end to end in Debian's chromium at 1600x1000 on a copy of
data_samples: filter a section, open a failing query from Failures, read gold and
retrieved text, record a verdict, go to the next failing query, then see the verdict
grouped on Failures and in the report. Screenshots of each step go to $RAGRECALL_SHOTS."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from ragrecall_core import Workspace
from ragrecall_core.analysis.query_detail import query_detail
from ragrecall_core.analysis.query_table import (
    display_frame,
    failing_first,
    failing_ids,
    failing_runs,
    filter_table,
    query_table,
)
from tests.browser.conftest import Server, settled
from tests.dashboard_support import ROOT, samples_copy

TIMEOUT = 30_000
SECTION = "finance"
RUN = "bm25"


@pytest.fixture(scope="module")
def meeting(tmp_path_factory):
    workspace = samples_copy(tmp_path_factory.mktemp("meeting") / "ws")
    server = Server(workspace).wait()
    try:
        yield server, workspace
    finally:
        server.stop()


def choose(page: Page, box, value: str) -> None:
    """Pick ``value`` in a selectbox. A click that lands while the page redraws can toggle
    the list shut again, so the list is opened again until its option shows (3 tries)."""
    expect(box).to_be_visible(timeout=TIMEOUT)
    option = page.get_by_role("option", name=value, exact=True)
    for _attempt in range(3):
        box.click()
        try:
            option.wait_for(timeout=5_000)
            break
        except PlaywrightError:
            page.keyboard.press("Escape")
            settled(page, 400)
    option.click(timeout=TIMEOUT)


def failing_in_section(workspace) -> list[str]:
    """The run's failing queries of the section in the table's triage order."""
    ws = Workspace.open(workspace)
    table = query_table(ws, 5)
    rows = filter_table(table, {"section": SECTION}, [RUN], True)
    return failing_ids(failing_first(display_frame(rows, 5), failing_runs(table, ws.run_names)))


def split_of(workspace, query_id: str) -> str:
    ws = Workspace.open(workspace)
    sql = "SELECT split FROM queries WHERE query_id = $q"
    return ws.cursor().execute(sql, {"q": query_id}).fetchone()[0]


def gold_text(workspace, query_id: str) -> str:
    """The first sentence of the query's first gold chunk, as the corpus has it."""
    ws = Workspace.open(workspace)
    detail = query_detail(ws, RUN, query_id, 5)
    return detail.gold["text"].iloc[0].split(". ")[0]


def test_the_meeting(page: Page, meeting, shots):
    server, workspace = meeting
    failing = failing_in_section(workspace)
    assert len(failing) >= 2, "the sample needs two failing finance queries for this scene"
    page.goto(server.url)
    expect(page.locator("h1").filter(has_text="Overview")).to_be_visible(timeout=TIMEOUT)

    # 1. filter a section in the sidebar, then go to Failures
    settled(page, 400)  # a first page may still be rerunning: its widgets are redrawn
    sidebar = page.locator("[data-testid=stSidebar]")
    section = sidebar.get_by_role("radiogroup", name="Corpus section")
    section.get_by_role("radio", name=SECTION, exact=True).click(timeout=TIMEOUT)
    expect(section.get_by_role("radio", name=SECTION, exact=True)).to_be_checked(timeout=TIMEOUT)
    settled(page, 400)
    page.get_by_role("link", name="Failures").click()
    expect(page.locator("h1").filter(has_text="Failures")).to_be_visible(timeout=TIMEOUT)
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    settled(page, 400)
    page.screenshot(path=str(shots / "meeting_1_failures.png"))

    # 2. open the failing queries of a group from a bar: Queries names the filter
    page.locator(".js-plotly-plot .point path").first.click(force=True)
    expect(page.get_by_text("Opened from Failures")).to_be_visible(timeout=TIMEOUT)
    settled(page, 400)
    assert f"section={SECTION}" in page.url

    # 3. open the first failing query of the run from its table row
    page.goto(f"{server.url}/query-table?focus={RUN}&section={SECTION}&failing=1")
    expect(page.locator("h1").filter(has_text="Queries")).to_be_visible(timeout=TIMEOUT)
    settled(page, 400)
    table = page.locator(".st-key-queries_table [data-testid=stDataFrame]")
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
    first = failing[0]
    expect(page.get_by_text(f"Query {first} · run {RUN}")).to_be_visible(timeout=TIMEOUT)
    settled(page, 400)

    # 4. read: the gold chunk's text and the run's retrieved text are on the screen as text
    expect(page.get_by_text("Gold list: what the answer needs")).to_be_visible()
    expect(page.get_by_text(gold_text(workspace, first), exact=False).first).to_be_visible()
    page.screenshot(path=str(shots / "meeting_2_reading.png"))

    # 5. record the meeting's verdict
    form = page.locator("[data-testid=stForm]").first
    choose(page, form.get_by_role("combobox", name="Failure reason"), "chunk boundary")
    form.get_by_label("Note").fill("the answer continues in the next chunk")
    form.get_by_label("Owner (optional)").fill("dora")
    form.get_by_label("Recorded by").fill("team")
    form.get_by_role("button", name="Save verdict").click()
    expect(page.get_by_text(re.compile(r"Verdict: chunk boundary"))).to_be_visible(timeout=TIMEOUT)
    page.screenshot(path=str(shots / "meeting_3_verdict.png"))

    # 6. the next failing query, by keyboard (no text field has the focus)
    page.locator("h1").first.click()
    page.keyboard.press("j")
    expect(page.get_by_text(f"Query {failing[1]} · run {RUN}")).to_be_visible(timeout=TIMEOUT)
    settled(page, 400)
    expect(page).to_have_url(re.compile(rf"q={failing[1]}"))  # a copied link opens it

    # 7. the verdicts grouped on Failures
    page.get_by_role("link", name="Failures").click()
    expect(page.locator("h1").filter(has_text="Failures")).to_be_visible(timeout=TIMEOUT)
    page.get_by_role("radio", name="meeting reason").click()
    settled(page, 400)
    groups = page.locator(".st-key-failures_groups")
    expect(groups).to_be_visible(timeout=TIMEOUT)
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    assert "chunk boundary" in page.locator(".js-plotly-plot").first.inner_text()
    page.screenshot(path=str(shots / "meeting_4_grouped.png"))

    # 8. and in the report the command line writes from the same workspace, once the
    # server has let the store go (DuckDB lets one process write a database file)
    server.stop()
    out = workspace.parent / "report.md"
    split = split_of(workspace, first)  # the report covers one split (the held-out one)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "ragrecall_core", "report", str(workspace)),
            *("-o", str(out), "--split", split),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    report = out.read_text()
    assert "Meeting verdicts" in report
    verdicts = report.split("## Meeting verdicts", 1)[1].split("## Measure definitions")[0]
    assert first in verdicts and "chunk boundary" in verdicts and "dora" in verdicts
