"""The dashboard in Debian's chromium: deep links, clicks on tables and charts, safe text."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ragrecall_core import Workspace
from ragrecall_core.analysis.query_table import (
    display_frame,
    failing_first,
    failing_ids,
    failing_runs,
    filter_table,
    query_table,
)
from ragrecall_core.output.text import plural
from tests.browser.conftest import apart_from_the_checkout
from tests.samples import shared_samples

TIMEOUT = 30_000


def samples_table():
    return query_table(Workspace.open(shared_samples()), 5)


def open_page(page: Page, url: str, ready: str) -> None:
    page.goto(url)
    page.wait_for_selector("[data-testid=stApp]", timeout=TIMEOUT)
    expect(page.get_by_text(ready).first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(600)  # let charts and canvases paint


def click_first_row(page: Page, table_index: int = 0) -> None:
    """Click the selection checkbox of the first data row of a st.dataframe canvas."""
    frame = page.locator("[data-testid=stDataFrame]").nth(table_index)
    frame.scroll_into_view_if_needed()
    box = frame.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)


def test_overview_opens(page: Page, app_url, shots):
    open_page(page, app_url, "Headline measures at k = 5")
    expect(page.get_by_text("Validation warnings")).to_be_visible()
    expect(page.get_by_text("Page not found")).to_have_count(0)
    page.screenshot(path=str(shots / "overview.png"), full_page=True)


def test_deep_link_reproduces_filtered_view(page: Page, app_url, shots):
    rows = filter_table(samples_table(), {"section": "finance"}, ["dense-minilm"], True)
    open_page(
        page, f"{app_url}/query-table?focus=dense-minilm&section=finance&failing=1", "Select a row"
    )
    shown = plural(len(rows), "query", "queries")
    expect(page.get_by_text(re.compile(rf"{shown} shown"))).to_be_visible()
    sidebar = page.locator("[data-testid=stSidebar]")
    # the sidebar may still be drawing (a fresh server's first session): ask until it shows
    section = sidebar.get_by_role("radiogroup", name="Corpus section")
    expect(section.get_by_role("radio", name="finance")).to_be_checked(timeout=TIMEOUT)
    assert "section=finance" in page.url and "failing=1" in page.url
    # the state survives a real page switch (which drops the URL's parameters)
    page.get_by_role("link", name="Overview").click()
    expect(page.get_by_text("Headline measures at k = 5")).to_be_visible(timeout=TIMEOUT)
    expect(page).to_have_url(re.compile(r"section=finance"), timeout=TIMEOUT)
    assert "failing=1" in page.url


def triage(run: str) -> list[str]:
    """The failing queries of ``run`` in the meeting's triage order, as the Queries page
    lists them (failing in most of the four sample runs first within a class)."""
    table = samples_table()
    display = display_frame(filter_table(table, {}, [run], True), 5)
    runs = sorted(table["run"].unique())
    return failing_ids(failing_first(display, failing_runs(table, runs)))


def test_click_failing_row_opens_detail(page: Page, app_url, shots):
    order = triage("bm25")
    first = order[0]
    open_page(page, f"{app_url}/query-table?failing=1", "Select a row")
    click_first_row(page)
    expect(page.get_by_text(f"Query {first} · run bm25")).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_text("Gold list")).to_be_visible()
    assert f"q={first}" in page.url
    page.get_by_role("button", name="Next failing ▶").click()
    second = order[1]
    expect(page.get_by_text(f"Query {second} · run bm25")).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(800)
    page.screenshot(path=str(shots / "queries_detail.png"), full_page=True)


def test_failures_bar_click_lands_on_filtered_queries(page: Page, app_url, shots):
    open_page(page, f"{app_url}/failure-groups", "Group failing queries by")
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    page.screenshot(path=str(shots / "failures.png"), full_page=True)
    page.locator(".js-plotly-plot .point path").first.click(force=True)
    expect(page.get_by_text("Opened from Failures")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("h1").filter(has_text="Queries")).to_be_visible()
    assert "failing=1" in page.url and "fclass=" in page.url


def test_ranks_page(page: Page, app_url, shots):
    open_page(page, f"{app_url}/first-rank", "Hit@k as k grows")
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    page.locator(".js-plotly-plot").first.locator(".point path").first.click(force=True)
    expect(page.get_by_text("Opened from Ranks: first relevant rank = 1")).to_be_visible(
        timeout=TIMEOUT
    )
    expect(page.locator("h1").filter(has_text="Queries")).to_be_visible()
    page.screenshot(path=str(shots / "ranks.png"), full_page=True)


def test_the_dashboard_asks_no_other_host(page: Page, app_url):
    """Offline, or where a team must not call out: the first page, a chart page and the
    favicon come from the server alone (a Material icon as page icon was fetched from
    fonts.gstatic.com on every run)."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    open_page(page, app_url, "Headline measures at k = 5")
    page.wait_for_timeout(1500)  # the charts' code, loaded once the first page is drawn
    open_page(page, f"{app_url}/first-rank", "Hit@k as k grows")
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    own = re.compile(rf"^({re.escape(app_url)}|data:|blob:)")
    assert asked and [url for url in asked if not own.match(url)] == []


def test_charts_draw_with_the_small_bundle_loaded_once(page: Page, app_url):
    """The charts' plotly.js is ragrecall's bundle (static/, ragrecall_app/chart.py), fetched
    once for the session's chart pages, and streamlit's 4.7 MB plotly module never."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    open_page(page, f"{app_url}/first-rank", "Hit@k as k grows")
    page.wait_for_selector(".ragrecall-chart .point path", timeout=TIMEOUT)
    page.get_by_role("link", name="Failures").click()
    expect(page.get_by_text("Group failing queries by")).to_be_visible(timeout=TIMEOUT)
    page.wait_for_selector(".ragrecall-chart .point path", timeout=TIMEOUT)
    bundles = [url for url in asked if url.endswith("/app/static/plotly-ragrecall.min.js")]
    assert len(bundles) == 1, bundles
    assert not [url for url in asked if "PlotlyChart" in url]
    assert page.evaluate("() => typeof window.Plotly.react") == "function"
    # the mode bar offers no upload of the chart's data, and no selection tool
    titles = page.evaluate(
        "() => [...document.querySelectorAll('.ragrecall-chart .modebar-btn')]"
        ".map(b => b.getAttribute('data-title'))"
    )
    assert "Zoom" in titles
    assert not [t for t in titles if re.search("Share|Select", t)], titles


def test_hostile_chunk_text_is_literal(page: Page, hostile_url, shots):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_page(page, f"{hostile_url}/query-table?q=q1", "Query q1 · run r")
    expect(page.get_by_text("Page not found")).to_have_count(0)
    # the chunk is both a gold chunk and retrieved: its text shows in both columns
    expect(page.get_by_text("<script>alert(1)</script>", exact=True).first).to_be_visible()
    expect(page.get_by_text("[click](javascript:alert(1))", exact=True).first).to_be_visible()
    expect(page.get_by_text(re.compile(r"^<b>bold\?</b> \[click\]")).first).to_be_visible()
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("script:text('alert(1)')").count() == 0
    assert page.locator("b:text('bold?')").count() == 0
    page.screenshot(path=str(shots / "hostile.png"), full_page=True)
    assert dialogs == []


@pytest.mark.parametrize("name", ["samples", "hostile"])
def test_each_session_server_serves_a_folder_apart_from_the_checkout(page: Page, servers, name):
    apart_from_the_checkout(page, servers[name])
