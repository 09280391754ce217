"""A click that switches page from its callback keeps the view, in Debian's chromium.

A Failures bar and a Ranks bar open Queries from their widget's callback. Streamlit drops
the values of the widgets the page left holds before the next run (AppTest keeps them), so
only a browser shows whether the sidebar's view, the workspace folder typed in and the left
page's own choice come through: one home keeps them (ragrecall_app.context.restore_dropped).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import settled
from tests.browser.test_dashboard_browser import TIMEOUT, click_first_row, open_page
from tests.dashboard_support import samples_copy


@pytest.fixture(scope="module")
def typed(tmp_path_factory):
    """A copy of data_samples, typed into the sidebar's folder field (its own path)."""
    return samples_copy(tmp_path_factory.mktemp("typed") / "ws")


def type_folder(page: Page, folder) -> None:
    page.get_by_role("button", name="Workspace folder or uploads").click()
    field = page.get_by_role("textbox", name="Workspace folder", exact=True)
    field.fill(str(folder))
    field.press("Enter")
    page.keyboard.press("Escape")  # close the popover
    expect(page.locator("[data-testid=stSidebar]").get_by_text(str(folder))).to_be_visible(
        timeout=TIMEOUT
    )
    settled(page)


def kept(page: Page, folder) -> None:
    """Queries shows the view the click was made on, in the folder typed in."""
    expect(page.locator("h1").filter(has_text="Queries")).to_be_visible(timeout=TIMEOUT)
    expect(page).to_have_url(re.compile(r"[?&]k=10(&|$)"), timeout=TIMEOUT)
    assert "type=paraphrase" in page.url
    sidebar = page.locator("[data-testid=stSidebar]")
    expect(sidebar.get_by_text("Workspace: " + str(folder))).to_be_visible(timeout=TIMEOUT)
    cutoff = sidebar.get_by_role("radiogroup", name="Cutoff k")
    expect(cutoff.get_by_role("radio", name="10", exact=True)).to_be_checked(timeout=TIMEOUT)


def click_bar(page: Page, chart: int = 0) -> None:
    page.wait_for_selector(".js-plotly-plot .point path", timeout=TIMEOUT)
    page.wait_for_timeout(600)
    page.locator(".js-plotly-plot").nth(chart).locator(".point path").first.click(force=True)


def test_a_failures_bar_keeps_the_view_the_folder_and_the_grouping(page: Page, server, typed):
    open_page(page, f"{server.url}/failure-groups?k=10&type=paraphrase&by=section", "Group")
    type_folder(page, typed)
    click_bar(page)
    expect(page.get_by_text("Opened from Failures")).to_be_visible(timeout=TIMEOUT)
    kept(page, typed)
    settled(page)
    page.get_by_role("link", name="Failures").click()
    expect(page).to_have_url(re.compile("by=section"), timeout=TIMEOUT)
    kept_grouping = page.locator(".st-key-failures_by button[aria-checked=true]")
    expect(kept_grouping).to_have_text(re.compile("section", re.I), timeout=TIMEOUT)


def test_a_ranks_bar_keeps_the_view_and_the_folder(page: Page, server, typed):
    open_page(page, f"{server.url}/first-rank?k=10&type=paraphrase", "Hit@k as k grows")
    type_folder(page, typed)
    click_bar(page)
    expect(page.get_by_text("Opened from Ranks")).to_be_visible(timeout=TIMEOUT)
    kept(page, typed)


def test_a_failures_group_row_keeps_the_view_and_the_folder(page: Page, server, typed):
    open_page(page, f"{server.url}/failure-groups?k=10&type=paraphrase", "Groups")
    type_folder(page, typed)
    click_first_row(page, 0)  # the groups table (the chart is no dataframe)
    expect(page.get_by_text("Opened from Failures")).to_be_visible(timeout=TIMEOUT)
    kept(page, typed)
