"""Deep links on a fresh server (issue #12): no "Page not found" dialog over the right page.

The dashboard is served the way ``ragrecall ui`` serves it (``python -m
ragrecall_app.serve``, see its docstring for the cause; conftest's server does that).
The first test is the first session of its server, which is when the dialog used to
appear; each page's link then opens in a new browser context.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import apart_from_the_checkout, samples_server
from tests.browser.test_dashboard_browser import TIMEOUT

# url path (query) -> the page's title
PAGES = {
    "": "Overview",
    "query-table?q=q001": "Queries",
    "failure-groups": "Failures",
    "first-rank": "Ranks",
    "blind-judging": "Judge",
    "grades-review": "Agreement",
    "runs-diff": "Compare",
    "refusals": "No-answer queries",
}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    server = samples_server(tmp_path_factory).wait()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fresh_url(fresh):
    return fresh.url


def open_and_check(page: Page, url: str, title: str) -> None:
    page.goto(url)
    expect(page.locator("h1").filter(has_text=title).first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    page.wait_for_timeout(800)  # a late dialog would be in the DOM by now
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_the_first_session_of_a_fresh_server_opens_a_deep_link_cleanly(page: Page, fresh_url):
    open_and_check(page, f"{fresh_url}/query-table?q=q001", "Queries")


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_link_opens_without_a_page_not_found_dialog(page: Page, fresh_url, path):
    open_and_check(page, f"{fresh_url}/{path}", PAGES[path])


LAYOUT = """() => {
  const table = document.querySelector('[data-testid=stMarkdownContainer] table');
  const main = document.querySelector('[data-testid=stMain]');
  const zoom = parseFloat(getComputedStyle(main).zoom);
  return {
    hidden_px: Math.max(table.scrollWidth - table.clientWidth,
                        table.getBoundingClientRect().right - main.getBoundingClientRect().right),
    cell_px: parseFloat(getComputedStyle(table.querySelector('td')).fontSize) * zoom,
    body_px: parseFloat(getComputedStyle(document.body).fontSize) * zoom,
    zoom: zoom,
    deploy: !!document.querySelector('[data-testid=stAppDeployButton]'),
  };
}"""


@pytest.mark.parametrize(("query", "body_px", "zoom"), [("", 16, 1), ("?present=1", 19.2, 1.2)])
def test_overview_table_fits_at_1600_px_in_both_modes(page: Page, fresh_url, query, body_px, zoom):
    """The headline table shows every column without a sideways scroll; presentation mode
    zooms the page (tables: the theme's 14 px times the zoom, at least 16 px)."""
    open_and_check(page, f"{fresh_url}/{query}", "Overview")
    page.wait_for_selector("[data-testid=stMarkdownContainer] table td", timeout=TIMEOUT)
    layout = page.evaluate(LAYOUT)
    assert layout["hidden_px"] <= 0, layout
    assert layout["body_px"] == pytest.approx(body_px) and layout["zoom"] == zoom, layout
    assert layout["cell_px"] >= (16 if zoom > 1 else 14), layout
    assert not layout["deploy"]


# the first static table that scrolls in a box of its own (not the page), scrolled down
# ``by`` px: where its header is then, against the box's top, and whether it is opaque
SCROLLED_HEADER = """(by) => {
  for (const table of document.querySelectorAll('[data-testid=stMarkdownContainer] table')) {
    let box = table.parentElement;
    while (box && getComputedStyle(box).overflowY === 'visible') box = box.parentElement;
    if (!box || box.matches('[data-testid=stMain]') || box.scrollHeight <= box.clientHeight) {
      continue;
    }
    box.scrollTop = by;
    const th = table.querySelector('th');
    return new Promise((done) => requestAnimationFrame(() => done({
      scrolled: box.scrollTop,
      offset_px: th.getBoundingClientRect().top - box.getBoundingClientRect().top,
      background: getComputedStyle(th).backgroundColor,
      header: th.textContent,
    })));
  }
  return null;
}"""


def test_a_long_lists_header_stays_on_screen_while_its_rows_scroll(page: Page, fresh_url):
    """Agreement's disagreements (51 on data_samples, a box past 12 rows): scrolled, the
    header still names the columns, drawn over the rows that pass under it."""
    open_and_check(page, f"{fresh_url}/grades-review", "Agreement")
    page.get_by_text("graded differently").first.wait_for(timeout=TIMEOUT)
    header = page.evaluate(SCROLLED_HEADER, 300)
    assert header is not None and header["scrolled"] == 300, header
    assert header["header"] == "query_id", header
    assert abs(header["offset_px"]) <= 1, header  # at the box's top, not 300 px above it
    assert header["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), header


def test_the_fresh_server_serves_a_folder_apart_from_the_checkout(page: Page, fresh):
    apart_from_the_checkout(page, fresh)
