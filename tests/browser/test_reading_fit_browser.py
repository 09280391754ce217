"""Issue 29 in Debian's chromium: on a shared screen of 1280x720 in presentation mode, the
open query's text, its gold chunks and the run's top 3 retrieved chunks are inside the first
screen, without scrolling; at 1600x1000 the top 5 too. Checked with the elements' boxes
against the viewport; screenshots of each go to $RAGRECALL_SHOTS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from ragrecall_core import Workspace
from ragrecall_core.analysis.query_detail import query_detail
from tests.browser.conftest import settled
from tests.samples import shared_samples

TIMEOUT = 60_000
RUN = "bm25"
# one gold chunk (q046), two gold chunks (q020), reviewers' grades on every retrieved (q045)
QUERIES = ("q046", "q020", "q045")
# a chunk card of the reading view: its mark-coloured left edge
CARD = "[data-testid=stMain] [data-testid=stHtml] div[style*='border-left']"
# a gold card's heading says where the run put the chunk (ragrecall_app.reading.found_text)
GOLD_HEADING = re.compile(r"^\W*(not retrieved|found at rank)")


def off_screen(page: Page, name: str, locator) -> list[str]:
    """``name`` when ``locator``'s box is not wholly inside the viewport (or not drawn)."""
    size = page.viewport_size
    box = locator.bounding_box()
    if box is None:
        return [f"{name}: not drawn"]
    inside = (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
        and box["y"] + box["height"] <= size["height"] + 0.5
    )
    return [] if inside else [f"{name}: {box} outside {size}"]


@pytest.mark.parametrize(("size", "top"), [((1280, 720), 3), ((1600, 1000), 5)])
@pytest.mark.parametrize("query_id", QUERIES)
def test_the_query_its_gold_and_the_top_retrieved_fit_the_first_screen(
    page: Page, server, shots, size, top, query_id
):
    width, height = size
    detail = query_detail(Workspace.open(shared_samples()), RUN, query_id, 5)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server.url}/query-table?q={query_id}&focus={RUN}&present=1")
    heading = page.get_by_text(f"Query {query_id} · run {RUN}")
    expect(heading).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(CARD).filter(has_text=f"#{top} · ").first).to_be_visible(timeout=TIMEOUT)
    settled(page, 800)
    page.screenshot(path=str(shots / f"reading_{query_id}_{width}x{height}.png"))
    query = page.locator("[data-testid=stHtml] div").filter(has_text=detail.query["query"])
    outside = off_screen(page, "query", query.last)
    gold = page.locator(CARD).filter(has_text=GOLD_HEADING)
    assert gold.count() == len(detail.gold) >= 1
    for i in range(gold.count()):
        outside += off_screen(page, f"gold {i + 1}", gold.nth(i))
    for rank in range(1, top + 1):
        card = page.locator(CARD).filter(has_text=f"#{rank} · ")
        outside += off_screen(page, f"retrieved #{rank}", card.first)
    assert outside == []


def test_a_click_opens_a_card_whole(page: Page, server, shots):
    """A retrieved card shows two lines of text at 1280x720 until clicked; then all of it.
    An opened gold card shows the chunks before and after it too."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server.url}/query-table?q=q045&focus={RUN}&present=1")
    first = page.locator(CARD).filter(has_text="#1 · ").first
    expect(first).to_be_visible(timeout=TIMEOUT)
    settled(page, 800)
    text = first.locator(".rr-clip").nth(1)  # the document line, then the text
    lines = (
        "e => [e.scrollHeight > e.clientHeight + 1, e.clientHeight / "
        "parseFloat(getComputedStyle(e).lineHeight)]"
    )
    cut, shown = text.evaluate(lines)
    assert cut and round(shown) == 2
    assert first.get_by_text("Reviewers").first.is_hidden()  # its mark says the verdict
    first.locator("summary").click()
    expect(first.get_by_text("Reviewers").first).to_be_visible()
    cut, opened = text.evaluate(lines)
    assert not cut and round(opened) > 2
    gold = page.locator(CARD).filter(has_text=GOLD_HEADING).first
    expect(gold.get_by_text("Before", exact=True)).to_be_hidden()
    gold.locator("summary").click()
    expect(gold.get_by_text("Before", exact=True)).to_be_visible()
    expect(gold.get_by_text("After", exact=True)).to_be_visible()
    page.screenshot(path=str(shots / "reading_opened_1280x720.png"))
