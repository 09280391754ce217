"""The static tables' hostile cells in Debian's chromium: each reads as written in its own
cell, and no link, image, script, code or maths element comes of any (the Markdown a table
is drawn from: tests/adversarial/test_table_markup.py); a hostile run config reads as its
JSON text (tests/test_overview_configs.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ragrecall_app.render import printable_json
from scripts.chromium import free_port, server_flags
from tests.adversarial.test_table_markup import ATTACKS, collapsed, header_frame, shown
from tests.browser.conftest import Server
from tests.dashboard_support import ROOT
from tests.test_overview_configs import CONFIG

PAGE = f"""import sys
sys.path.insert(0, {str(ROOT)!r})
import pandas as pd
import streamlit as st
from ragrecall_app.render import json_block, literal_table
from tests.adversarial.test_table_markup import attack_frame, header_frame
from tests.test_overview_configs import CONFIG

literal_table(attack_frame())
literal_table(header_frame())
index = pd.Index(["[x](javascript:1)", "a|b"], name="<i>")
literal_table(pd.DataFrame({{"n": [1, 22]}}, index=index), hide_index=False)
json_block(CONFIG, "config")
st.write("Done")
"""
CELLS = """() => [...document.querySelectorAll('[data-testid=stMarkdown] table')].map(t =>
  [...t.querySelectorAll('tr')].map(r => [...r.children].map(c =>
    ({text: c.textContent, align: getComputedStyle(c).textAlign}))))"""
LIVE = "img, script, code, del, iframe, svg, .katex, [style*=color]"
# every link: none may come of file text, not even a bare https:// or www. URL or an e-mail
# address, which Streamlit's Markdown links whatever its escapes (md_literal's word joiners)
LINKS = """() => [...document.querySelectorAll('[data-testid=stMain] a')]
  .map(a => [a.getAttribute('href'), a.textContent])"""


class PageServer(Server):
    """conftest's server, serving one page script instead of the dashboard."""

    def __init__(self, script):
        self.port = free_port()
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        command = [sys.executable, "-m", "streamlit", "run", str(script), *server_flags(self.port)]
        self.proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.url = f"http://localhost:{self.port}"


@pytest.fixture(scope="module")
def cells(browser, tmp_path_factory, shots):
    script = tmp_path_factory.mktemp("tables") / "tables.py"
    script.write_text(PAGE)
    server = PageServer(script).wait()
    try:
        page = browser.new_page()
        page.goto(server.url)
        page.get_by_text("Done", exact=True).wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "table_markup.png"), full_page=True)
        live = page.locator(f"[data-testid=stMain] :is({LIVE})").count()
        config = page.locator(".st-key-json_config [data-testid=stText]").inner_text()
        yield page.evaluate(CELLS), (live, page.evaluate(LINKS)), config
    finally:
        server.stop()


def test_every_attack_reads_as_written_in_its_cell(cells):
    tables, _live, _config = cells
    assert len(tables) == 3, "each frame is one table"
    attacks = tables[0]
    assert [[c["text"] for c in row] for row in attacks[:1]] == [["name", "text"]]
    assert all(len(row) == 2 for row in attacks), "a | ended a cell"
    read = {row[0]["text"]: collapsed(row[1]["text"]) for row in attacks[1:]}
    assert read == {name: shown(raw) for name, raw in ATTACKS.items()}


def test_every_attack_reads_as_written_in_a_header(cells):
    tables, _live, _config = cells
    header, numbers = tables[1]
    assert [collapsed(c["text"]) for c in header] == [shown(c) for c in header_frame().columns]
    assert {c["align"] for c in numbers} == {"right"}, "numbers stay right-aligned"


def test_an_index_reads_as_written(cells):
    tables, _live, _config = cells
    rows = [[c["text"] for c in row] for row in tables[2]]
    assert rows == [["<i>", "n"], ["[x](javascript:1)", "1"], ["a|b", "22"]]


def test_no_attack_becomes_a_live_element(cells):
    _tables, live, _config = cells
    assert live == (0, [])


def test_a_run_config_reads_as_its_printable_json(cells):
    _tables, _live, config = cells
    assert config == printable_json(CONFIG)
