"""Markup from file content: run names, query text, types and sections are shown as text.

Streamlit renders Markdown (links, images, HTML-looking text, ``:red[...]`` directives,
``$...$`` maths) in tab, expander and widget labels, subheaders, captions and alerts, and
plotly renders ``<a href>`` in legend and axis text. A run named ``[click](https://evil...)``
must not become a live link on any page, nor a remote image; the report must show it as
written in every format, and report.csv must hold no cell a spreadsheet would evaluate.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from ragrecall_app.overview_sections import CONFIGS_OPEN, COUNTS_OPEN
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import NO_LINK, file_name_part
from tests.dashboard_support import app, figures, no_exception
from tests.helpers import build_report, write_jsonl

LINK = "[click](https://evil.example)"
IMAGE = "![x](https://evil.example/i.png)"
HOSTILE_NAME = f"{LINK} {IMAGE} <b>x</b> :red[x] $x$"
OTHER_NAME = "<a href='https://evil.example'>other</a> **bold**"
PAGES = (
    "pages/overview.py",
    "pages/queries.py",
    "pages/failures.py",
    "pages/ranks.py",
    "pages/compare.py",
    "pages/no_answer.py",
)
FORBIDDEN_TOKENS = {"link_open", "image", "html_inline", "html_block"}
# a Streamlit directive (:red[...], :material/icon:) or maths that is not backslash-escaped
LIVE_DIRECTIVE = re.compile(r"(?<!\\):[a-z]+(?<!\\)\[|(?<!\\)\$[^$]+(?<!\\)\$")


def hostile_named_workspace(folder: Path) -> Path:
    """Two runs whose configured names, and a gold set whose types and sections, are markup."""
    gold = [
        {
            "id": "q1",
            "query": f"question {LINK}",
            "relevant_ids": ["d#1"],
            "query_type": IMAGE,
            "section": "<i>sec</i>",
        },
        {"id": "q2", "query": "plain", "relevant_ids": ["d#2"], "query_type": "plain"},
        {"id": "q3", "query": "no answer", "relevant_ids": []},
    ]
    write_jsonl(folder / "gold.jsonl", gold)
    for stem, name, order in (("a", HOSTILE_NAME, ["d#9", "d#1"]), ("b", OTHER_NAME, ["d#2"])):
        rows = [
            {
                "id": qid,
                "retrieved": [
                    {"chunk_id": c, "rank": i + 1, "score": 0.9 - i / 10}
                    for i, c in enumerate(order)
                ],
            }
            for qid in ("q1", "q2", "q3")
        ]
        write_jsonl(folder / "runs" / f"{stem}.jsonl", rows)
        (folder / "runs" / f"{stem}.config.json").write_text(json.dumps({"name": name}))
    return folder


def markdown_hazards(text: str) -> list[str]:
    """What Markdown rendering would turn ``text`` into besides text (code blocks are text)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    found = [t.type for t in tokens if t.type in FORBIDDEN_TOKENS]
    for token in tokens:
        found += [c.type for c in token.children or [] if c.type in FORBIDDEN_TOKENS]
        if token.type == "inline":
            found += LIVE_DIRECTIVE.findall(token.content)
    return found


def rendered_markdown(at) -> list[str]:
    """Every string a page hands to Streamlit's Markdown renderer."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption"):
        texts += [e.value for e in at.get(kind)]
    for kind in ("info", "warning", "success", "error"):
        texts += [e.value for e in at.get(kind)]
    for kind in ("tab", "expander", "metric"):
        texts += [e.label for e in at.get(kind)]
    for kind in ("selectbox", "multiselect", "button", "toggle", "slider", "radio"):
        texts += [e.label for e in at.get(kind)]
    texts += [str(o) for e in at.get("radio") for o in e.options]
    texts += [str(o) for e in at.get("button_group") for o in getattr(e, "options", [])]
    for table in at.get("table"):  # st.table renders Markdown in every cell and header
        frame = table.value
        texts += [str(c) for c in frame.columns]
        texts += [str(v) for column in frame.columns for v in frame[column]]
    return texts


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return hostile_named_workspace(tmp_path_factory.mktemp("markup"))


@pytest.mark.parametrize("page", PAGES)
def test_file_text_is_never_live_markup_on_a_page(workspace, page, monkeypatch):
    at = app(workspace, monkeypatch)
    at.session_state[COUNTS_OPEN] = True  # the Overview's boxes, opened
    at.session_state[CONFIGS_OPEN] = True
    at = at.switch_page(page).run()
    no_exception(at)
    texts = rendered_markdown(at)
    assert any("evil" in t for t in texts) or page != "pages/overview.py"
    hazards = {t: markdown_hazards(t) for t in texts if markdown_hazards(t)}
    assert not hazards, hazards


def test_run_names_in_tabs_read_as_written(workspace, monkeypatch):
    at = app(workspace, monkeypatch)
    at.session_state[CONFIGS_OPEN] = True  # the run configurations' box, opened
    at.run()
    labels = [t.label for t in at.tabs]
    assert len(labels) == 2
    for label in labels:
        assert not markdown_hazards(label)
    # unescaping gives back the name exactly
    unescaped = [re.sub(r"\\(.)", r"\1", label).replace(NO_LINK, "") for label in labels]
    assert unescaped == [HOSTILE_NAME, OTHER_NAME]


def test_chart_text_carries_no_html(workspace, monkeypatch):
    at = app(workspace, monkeypatch).run()
    at.toggle(key="overview_chart").set_value(True).run()  # the chart is shown on demand
    strings = [s for figure in figures(at) for s in json_strings(figure)]
    assert any("evil" in s for s in strings)
    tags = [s for s in strings if re.search(r"<b>x|<a href|<i>sec", s)]
    assert not tags, tags


def json_strings(value) -> list[str]:
    """Every string inside a JSON value (plotly renders tags in any of them)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in json_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in json_strings(v)]
    return []


def test_report_md_and_html_show_names_as_text(workspace, tmp_path):
    report = build_report(Workspace.open(workspace), k=5)
    md = report.to_markdown()
    assert "evil" in md
    assert not markdown_hazards(md)
    page = report.to_html()
    body = page.split("</style>", 1)[1]
    body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    assert "<b>x</b>" not in body and "<a href='https://evil" not in body
    assert "&lt;b&gt;x&lt;/b&gt;" in body


def formula_cells(text: str) -> list[str]:
    cells = []
    for row in csv.reader(io.StringIO(text)):
        cells += [c for c in row if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    return cells


def test_report_csv_has_no_formula_cell_comment_lines_included(workspace, tmp_path):
    (workspace / "runs" / "b.config.json").write_text(
        json.dumps({"name": "b,=2+3\r\n@SUM(1)\n-1+2", "=2+3": "x,=2+3", "k": "-1+2"})
    )
    try:
        text = build_report(Workspace.open(workspace), k=5).to_csv()
    finally:
        (workspace / "runs" / "b.config.json").write_text(json.dumps({"name": OTHER_NAME}))
    assert "2+3" in text
    assert not formula_cells(text), formula_cells(text)


@pytest.mark.parametrize("name", [HOSTILE_NAME, OTHER_NAME, "../../etc/passwd", "\x00a\nb", "..."])
def test_run_names_in_download_file_names_carry_no_path_or_markup(name):
    part = file_name_part(name)
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", part), part
    assert ".." not in part.split("_")


def test_text_helper_examples_hold():
    import doctest

    import ragrecall_core.output.literal

    result = doctest.testmod(ragrecall_core.output.literal)
    assert result.attempted >= 4 and result.failed == 0
