"""Issue 29 at 1280x720 in Debian's chromium: no button or header text is cut on the right on
any page (sidebar open, and in presentation mode), and every page states the section filter
in its scope line. Screenshots at 1280x720 and 1600x1000 go to $RAGRECALL_SHOTS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ragrecall_app.render import ROW_PX
from ragrecall_core import Workspace
from ragrecall_core.analysis.query_table import query_table
from ragrecall_core.views.failure_groups import failure_groups
from tests.browser.conftest import Server, apart_from_the_checkout, settled
from tests.samples import shared_samples

TIMEOUT = 60_000
SECTION = "it-ops"
# url path -> the page's title (the default page is served at /)
PAGES = {
    "": "Overview",
    "query-table": "Queries",
    "failure-groups": "Failures",
    "first-rank": "Ranks",
    "blind-judging": "Judge",
    "grades-review": "Agreement",
    "runs-diff": "Compare",
    "refusals": "No-answer queries",
}
# text elements whose content is cut when wider than their box: every element inside a
# button (its label), table headers, page headings; zero-size (hidden) ones are skipped
CUT_TEXT = """() => {
  const cut = [];
  const wide = el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
  for (const b of document.querySelectorAll('[data-testid=stApp] button')) {
    // hidden, or off the screen (the collapsed sidebar of presentation mode)
    if (!b.offsetParent || b.getBoundingClientRect().right <= 0) continue;
    if ([b, ...b.querySelectorAll('*')].some(wide)) cut.push('button: ' + b.innerText.trim());
  }
  const texts = '[data-testid=stMarkdownContainer] table th, '
    + '[data-testid=stMarkdownContainer] table th *, '
    + '[data-testid=stMain] h1, [data-testid=stMain] h2, [data-testid=stMain] h3';
  for (const el of document.querySelectorAll(texts)) {
    if (wide(el)) cut.push(el.tagName + ': ' + el.innerText.trim());
  }
  return cut;
}"""


# text only the finished page shows, beyond its title
DRAWN = {"": "Run configurations", "query-table": "Select a row|Gold list"}


def open_page(page: Page, server: Server, path: str, params: str) -> None:
    page.goto(f"{server.url}/{path}?{params}")
    expect(page.locator("h1").filter(has_text=PAGES[path]).first).to_be_visible(timeout=TIMEOUT)
    if path in DRAWN:
        done = page.get_by_text(re.compile(DRAWN[path])).first
        expect(done).to_be_visible(timeout=TIMEOUT)
    settled(page)


@pytest.mark.parametrize("present", ["0", "1"])
def test_nothing_is_cut_at_1280(page: Page, server, present):
    """Every page, with a query open on Queries (its reading view and verdict form)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    cut = {}
    # every page; Queries twice: its table alone, then a query open above it
    visits = [(path, "") for path in PAGES] + [("query-table", "&q=q046")]
    for path, extra in visits:
        open_page(page, server, path, f"section={SECTION}&present={present}{extra}")
        scope = page.locator("[data-testid=stAlert]").filter(has_text="Scope:").first
        expect(scope).to_contain_text(f"section = {SECTION}")
        if found := page.evaluate(CUT_TEXT):
            cut[PAGES[path] + extra] = found
    assert cut == {}


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 720)])
def test_screenshots_of_the_filtered_meeting(page: Page, server, shots, size):
    """What the room sees, for a person to look at: Overview, Queries with a query open,
    Failures, each with the section filter on (and the Queries view in presentation mode)."""
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    views = (
        ("", "", "overview"),
        ("query-table", "&q=q046", "queries"),
        ("query-table", "&q=q046&present=1", "queries_present"),
        ("failure-groups", "", "failures"),
    )
    for path, extra, name in views:
        open_page(page, server, path, f"section={SECTION}{extra}")
        if path == "":  # the headline table is drawn a moment after the script ends
            cell = page.locator("[data-testid=stMarkdownContainer] table td").first
            expect(cell).to_be_visible(timeout=TIMEOUT)
            page.wait_for_timeout(1500)
        if path == "failure-groups":
            page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
            settled(page)
        page.screenshot(path=str(shots / f"narrow_{name}_{width}x{height}.png"))
    assert (shots / f"narrow_failures_{width}x{height}.png").stat().st_size > 0


def test_tables_size_to_their_rows(page: Page, server):
    """Failures' groups show every group without an inner scroll; a one-row result on
    Queries leaves no empty rows below it."""
    ws = Workspace.open(shared_samples())
    n_groups = len(failure_groups(query_table(ws, 5), "failure_class"))
    assert 10 < n_groups <= 20  # more than Streamlit's default of ten rows
    page.set_viewport_size({"width": 1600, "height": 1000})
    open_page(page, server, "failure-groups", "")
    groups = page.locator(".st-key-failures_groups [data-testid=stDataFrame]")
    expect(groups).to_be_visible(timeout=TIMEOUT)
    assert groups.bounding_box()["height"] >= ROW_PX * (n_groups + 1)
    one_row = "section=facilities&fclass=never%20retrieved&from=failure_class"
    open_page(page, server, "query-table", one_row)
    table = page.locator(".st-key-queries_table [data-testid=stDataFrame]")
    expect(table).to_be_visible(timeout=TIMEOUT)
    assert table.bounding_box()["height"] <= ROW_PX * 3


def test_the_modules_server_serves_a_folder_apart_from_the_checkout(page: Page, server):
    apart_from_the_checkout(page, server)
