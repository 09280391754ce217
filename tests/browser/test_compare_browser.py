"""Compare and No-answer pages in Debian's chromium (server pattern of conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests import fixtures_regressions as fx
from tests.browser.conftest import Server, settled
from tests.browser.test_dashboard_browser import TIMEOUT, click_first_row, open_page


@pytest.fixture(scope="module")
def regressions_url(tmp_path_factory):
    server = Server(fx.write_workspace(tmp_path_factory.mktemp("regressions"))).wait()
    try:
        yield server.url
    finally:
        server.stop()


def test_click_a_regression_shows_both_lists(page: Page, regressions_url, shots):
    open_page(page, f"{regressions_url}/runs-diff", "Regressions: passed in the baseline")
    expect(page.get_by_text("More than one factor changed")).to_be_visible()
    page.screenshot(path=str(shots / "compare.png"), full_page=True)
    # tables: config diff, deltas, then the regressions list
    click_first_row(page, 2)
    expect(page.get_by_text("Query t01: baseline → candidate")).to_be_visible(timeout=TIMEOUT)
    expect(page.get_by_text("Baseline baseline: top 5")).to_be_visible()
    expect(page.get_by_text("Candidate candidate: top 5")).to_be_visible()
    expect(page.get_by_text("Where each relevant chunk moved")).to_be_visible()
    assert "cq=t01" in page.url
    page.wait_for_timeout(800)
    page.get_by_text("Query t01: baseline → candidate").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "compare_detail.png"), full_page=True)
    # drawn in place under the list, not in a dialog
    expect(page.get_by_role("dialog")).to_have_count(0)
    # the lists and the open query rerun alone (a fragment): closing it and picking the row
    # again must work as on a whole-page rerun
    page.locator(".st-key-compare_close button").click()
    expect(page.get_by_text("Query t01: baseline → candidate")).to_have_count(0, timeout=TIMEOUT)
    expect(page).not_to_have_url(re.compile("cq=t01"), timeout=TIMEOUT)
    frame = page.locator("[data-testid=stDataFrame]").nth(2)
    box = frame.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 35 + 17)  # the second regression
    expect(page.get_by_text("Query t02: baseline → candidate")).to_be_visible(timeout=TIMEOUT)
    assert "cq=t02" in page.url


def open_box(page: Page, title: str) -> None:
    """Open the expander ``title`` (its content is sent only once it is open)."""
    summary = page.locator("[data-testid=stExpander] summary", has_text=title)
    summary.scroll_into_view_if_needed()
    summary.click()


def test_no_answer_page_on_samples(page: Page, app_url, shots):
    open_page(page, f"{app_url}/refusals", "The threshold a trade-off picks")
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.locator("[data-testid=stDataFrame]").first).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("[data-testid=stExpander]")).to_have_count(4)
    expect(page.locator(".js-plotly-plot")).to_have_count(0)  # the charts wait in boxes
    open_box(page, "The threshold sweep as a chart")
    page.wait_for_selector(".js-plotly-plot", timeout=TIMEOUT)
    page.wait_for_timeout(800)
    page.screenshot(path=str(shots / "no_answer.png"), full_page=True)
    open_box(page, "Top-1 score: answerable vs no-answer queries")
    expect(page.locator(".js-plotly-plot")).to_have_count(2, timeout=TIMEOUT)
    open_box(page, "What each run returned on top")
    expect(page.locator("[data-testid=stDataFrame]")).to_have_count(2, timeout=TIMEOUT)
    # the slider reruns the trade-off alone (a fragment): the URL still follows it
    page.get_by_role("slider").first.press("ArrowRight")
    expect(page).to_have_url(re.compile("fc=15"), timeout=TIMEOUT)
    expect(page.locator(".js-plotly-plot")).to_have_count(2, timeout=TIMEOUT)


def test_compare_page_on_samples(page: Page, app_url, shots):
    open_page(page, f"{app_url}/runs-diff?split=test", "Measures: candidate minus baseline")
    expect(page.get_by_text(re.compile("comparing on the test split"))).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(0)  # the scatter waits in its box
    open_box(page, "Per query: RecallCap@5 before and after")
    page.wait_for_selector(".js-plotly-plot", timeout=TIMEOUT)
    page.wait_for_timeout(800)
    page.screenshot(path=str(shots / "compare_samples.png"), full_page=True)
    # the pair reruns alone (a fragment): the URL and the comparison follow the pickers
    page.get_by_role("button", name="⇄ Swap").click()
    expect(
        page.get_by_text(re.compile("^Candidate bm25 against baseline dense-minilm"))
    ).to_be_visible(timeout=TIMEOUT)
    expect(page).to_have_url(re.compile("base=dense-minilm"), timeout=TIMEOUT)
    settled(page)  # a click while the swap's rerun still draws can be lost (a loaded CI)
    page.locator(".st-key-compare_list button", has_text="Improvements (").click()
    expect(page.get_by_text(re.compile("^Improvements: failed in the baseline"))).to_be_visible(
        timeout=TIMEOUT
    )


def test_the_comparison_downloads_as_json(page: Page, app_url):
    """The JSON download is built when clicked (not on every rerun): it holds the comparison."""
    import json

    open_page(page, f"{app_url}/runs-diff", "Measures: candidate minus baseline")
    open_box(page, "Download the report or this comparison")  # sent only once it is open
    button = page.get_by_role("button", name="This comparison (JSON)")
    button.scroll_into_view_if_needed()
    with page.expect_download(timeout=TIMEOUT) as download:
        button.click()
    saved = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert saved["baseline"] and saved["candidate"] and saved["deltas"], sorted(saved)


def test_a_pages_own_choice_survives_a_visit_to_another_page(page: Page, app_url):
    """A meeting picks Compare's pair, looks at Ranks, comes back: the pair is still its
    pick (streamlit drops a page's widget values when another page is shown)."""
    open_page(page, f"{app_url}/runs-diff", "Baseline run (before)")
    select = page.locator("[data-testid=stSelectbox]").filter(has_text="Baseline run (before)")
    select.click()
    page.get_by_role("option", name="hybrid-rrf", exact=True).click()
    expect(page).to_have_url(re.compile("base=hybrid-rrf"), timeout=TIMEOUT)
    page.locator("[data-testid=stSidebarNav] a", has_text="Ranks").click()
    expect(page.locator("h1").filter(has_text="Ranks")).to_be_visible(timeout=TIMEOUT)
    page.locator("[data-testid=stSidebarNav] a", has_text="Compare").click()
    expect(page.locator("h1").filter(has_text="Compare")).to_be_visible(timeout=TIMEOUT)
    expect(page).to_have_url(re.compile("base=hybrid-rrf"), timeout=TIMEOUT)
    chosen = select.locator("input").first
    expect(chosen).to_have_value("hybrid-rrf", timeout=TIMEOUT)
