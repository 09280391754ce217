"""Issue 15 in Debian's chromium: the TREC RAG 2024 segment files opened as loose files
(``streamlit run app.py -- --gold qrels.comment.test --run results.comment.test``).

Under the default pass rule (RecallCap@5 = 1) some topics pass and some fail; under
``rule=recall`` every one fails; Failures shows no "(not given)" bar; Compare asks for a
second ``--run``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from scripts.chromium import free_port, server_flags
from tests.browser.conftest import Server, apart_from_the_checkout
from tests.browser.test_dashboard_browser import TIMEOUT, open_page
from tests.dashboard_support import ROOT, TREC

TREC_FILES = ("qrels.comment.test", "results.comment.test")


class LooseServer(Server):
    """conftest's server, started on loose files instead of a workspace folder."""

    def __init__(self, gold, run):
        self.port = free_port()
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop("RAGRECALL_WORKSPACE", None)
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "streamlit", "run", "app.py"),
                *server_flags(self.port),
                *("--", "--gold", str(gold), "--run", str(run)),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://localhost:{self.port}"


@pytest.fixture(scope="module")
def trec(browser, tmp_path_factory):
    """The server on copies of the TREC files: a loose gold's judgment store lives beside
    it, so a server on the checkout's files would attach or write one in the checkout."""
    folder = tmp_path_factory.mktemp("trec")
    gold, run = (shutil.copy(TREC / name, folder) for name in TREC_FILES)
    server = LooseServer(gold, run).wait()
    try:
        page = browser.new_page()  # the first session lands on the default page (conftest)
        page.goto(server.url)
        page.locator("h1").filter(has_text="Overview").wait_for(timeout=TIMEOUT)
        page.close()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def trec_url(trec):
    return trec.url


def rule_shown(page: Page, text: str) -> None:
    """The pass rule, behind the Queries page's "Policy and pass rule" button, says ``text``."""
    page.get_by_role("button", name="Policy and pass rule").click()
    expect(page.get_by_text(text).first).to_be_visible(timeout=TIMEOUT)


def test_queries_pass_and_fail_sensibly_under_the_default_rule(page: Page, trec_url, shots):
    open_page(page, f"{trec_url}/query-table", "Policy and pass rule")
    rule_shown(page, "Pass rule: a query passes when RecallCap@5 = 1")
    expect(page.get_by_text("of 30 answerable failing")).to_be_visible()
    expect(page.get_by_text("0 of 30 answerable failing")).to_have_count(0)
    expect(page.get_by_text("30 of 30 answerable failing")).to_have_count(0)
    page.screenshot(path=str(shots / "honest_queries.png"), full_page=True)


def test_every_topic_fails_under_the_recall_rule(page: Page, trec_url):
    open_page(page, f"{trec_url}/query-table?rule=recall", "Policy and pass rule")
    rule_shown(page, "Recall@5 = 1")
    expect(page.get_by_text("30 of 30 answerable failing")).to_be_visible()


def test_failures_show_no_meaningless_chart(page: Page, trec_url, shots):
    open_page(page, f"{trec_url}/failure-groups?by=section", "No corpus section in this data")
    expect(page.locator(".js-plotly-plot")).to_have_count(0)
    page.screenshot(path=str(shots / "honest_failures_section.png"), full_page=True)
    open_page(page, f"{trec_url}/failure-groups", "Failing queries (RecallCap@5 < 1)")
    expect(page.get_by_text("(not given)")).to_have_count(0)


def test_compare_asks_for_a_second_run_flag(page: Page, trec_url):
    open_page(page, f"{trec_url}/runs-diff", "Comparing needs two runs")
    expect(page.get_by_text("repeat --run FILE")).to_be_visible()


def test_the_server_serves_files_apart_from_the_checkout(page: Page, trec):
    apart_from_the_checkout(page, trec)
