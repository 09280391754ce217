"""report.md: file text shows as written and never as markup; the report's own prose is
not escaped at all (issue 29: "Share of the query\\'s … top k\\." was unreadable).

Only what Markdown would read as markup in file text (ids, names, notes, query text) is
backslash-escaped: no such text becomes a link, an image, HTML, a heading, a list or
struck-through text, and once rendered it reads exactly as written.
"""

from __future__ import annotations

import json
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ragrecall_core import Workspace
from ragrecall_core.analysis.verdicts import record_verdict
from ragrecall_core.errors import one_line
from ragrecall_core.output.literal import NO_LINK, md_text
from tests.helpers import build_report, write_jsonl
from tests.test_app_judge import seed002

SETTINGS = settings(max_examples=400)
HOSTILE_IDS = (
    "[q](https://evil.example)",
    "![i](https://evil.example/i.png)",
    "# heading",
    "<img src=x onerror=alert(1)>",
    "https://evil.example/x",
    "www.evil.example",
    "*em* _u_ `code` ~~s~~",
    "a | b",
    "1. list",
    "> quote",
    "- item",
    "+ item",
    "= underline",
    "&amp; &#60;b&#62;",
    "\\[x]",
    "x\\",
    "<https://evil.example>",
    "[^1]",
)
HOSTILE_RUN = "[run](https://evil.example) <b>x</b> #"
BAD_TOKENS = {"link_open", "image", "html_inline", "html_block", "s_open", "code_inline"}
BAD_BLOCKS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "code_block", "fence"}


def parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def inline_text(token) -> str:
    """An inline token's text as rendered; fails on anything that is not plain text."""
    kinds = {child.type for child in token.children}
    assert kinds <= {"text"}, (token.content, kinds)
    return "".join(child.content for child in token.children)


ALPHABET = st.sampled_from(string.punctuation + "ab1 _\t\n\r\x1b\u202e\u2028" + "é日")


@given(st.text(ALPHABET, max_size=12))
@settings(SETTINGS)
def test_md_text_reads_as_written_in_a_cell_a_heading_and_a_list_item(text):
    escaped = md_text(text)
    contexts = {  # where report.md puts file text: (source, static text before it, blocks)
        "cell": (f"| h |\n|---|\n| {escaped} |\n", "", {"table_open"}),
        "heading": (f"### run {escaped}\n", "run ", {"heading_open"}),
        "item": (f"- query: {escaped}\n", "query: ", {"bullet_list_open"}),
    }
    for source, before, blocks in contexts.values():
        tokens = parser().parse(source)
        opened = [t.type for t in tokens if t.nesting == 1 and t.level == 0]
        assert opened == [*blocks], (source, opened)
        others = (BAD_BLOCKS | {"heading_open"}) - blocks
        assert not [t.type for t in tokens if t.type in others], source
        assert sum(t.type in blocks for t in tokens) == 1, source  # no nested list
        inline = [t for t in tokens if t.type == "inline"][-1]
        # control characters read as their escapes (\\n, \\u202e), as in every text output
        read = inline_text(inline).replace(NO_LINK, "")
        assert read == (before + one_line(text)).strip(" "), source


# cmark-gfm's e-mail autolink (GitHub): a run of these before an "@", a domain with a dot
GITHUB_EMAIL = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.ASCII)
ADDRESSES = ["a@evil.example", "x a_b@evil_x.example", "mailto:a@evil.example",
             "_a@b_.example", "a@www.evil.example", "<a.b+c@evil.example>"]  # fmt: skip


@pytest.mark.parametrize("text", ADDRESSES)
def test_no_address_is_linked_on_github(text):
    """GitHub links an address in the text it has read, escapes undone; a word joiner
    before the "@" breaks it, and the text still reads as written."""
    assert GITHUB_EMAIL.search(text)
    inline = [t for t in parser().parse(f"- {md_text(text)}\n") if t.type == "inline"][-1]
    read = inline_text(inline)
    assert not GITHUB_EMAIL.search(read), read
    assert read.replace(NO_LINK, "") == text


@given(st.lists(st.sampled_from(["a", "_", ".", "@", "b.c", "www", "+", " ", "-"]), max_size=12))
@settings(SETTINGS)
def test_no_generated_address_is_linked_on_github(parts):
    inline = [t for t in parser().parse(f"- x {md_text(''.join(parts))}\n") if t.type == "inline"]
    assert not GITHUB_EMAIL.search(inline_text(inline[-1]))


def test_md_text_leaves_prose_alone():
    prose = (
        "Share of the query's relevant items found in the top k. "
        "relevant = grade >= 1; 1 / rank (no cutoff: the whole list), Recall@5 = 1 "
        'doc-a#c1 snake_case_id 10:30 ranx\'s -lN 50% (a, b) "quoted" !'
    )
    assert md_text(prose) == prose


def hostile_workspace(folder):
    gold = [{"id": qid, "query": qid, "relevant_ids": ["d#1"]} for qid in HOSTILE_IDS]
    write_jsonl(folder / "gold.jsonl", gold)
    for stem, name in (("a", HOSTILE_RUN), ("b", "plain")):
        rows = [
            {"id": qid, "retrieved": [{"chunk_id": "d#1", "rank": 1, "score": 0.5}]}
            for qid in HOSTILE_IDS
        ]
        write_jsonl(folder / "runs" / f"{stem}.jsonl", rows)
        (folder / "runs" / f"{stem}.config.json").write_text(json.dumps({"name": name}))
    ws = Workspace.open(folder)
    for qid in HOSTILE_IDS[:6]:
        record_verdict(ws, HOSTILE_RUN, qid, "other", note=HOSTILE_IDS[-1], owner=qid)
    return ws


@pytest.fixture(scope="module")
def hostile_md(tmp_path_factory):
    ws = hostile_workspace(tmp_path_factory.mktemp("md"))
    text = build_report(ws, k=3).to_markdown()
    ws.con.close()
    return text


def test_hostile_ids_names_and_notes_never_become_markup(hostile_md):
    tokens = parser().parse(hostile_md)
    found = [t.type for t in tokens if t.type in BAD_TOKENS | BAD_BLOCKS - {"fence"}]
    found += [c.type for t in tokens for c in t.children or [] if c.type in BAD_TOKENS]
    # the report's own bullet list of header fields is the one list
    assert [t for t in found if t != "bullet_list_open"] == [], found
    assert found.count("bullet_list_open") == 1
    headings = [
        inline_text(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"
    ]
    assert f"Per query: {HOSTILE_RUN}" in headings and HOSTILE_RUN in headings
    assert not [h for h in headings if any(q in h for q in HOSTILE_IDS if q != "x\\")]


def test_hostile_ids_read_as_written_in_the_tables(hostile_md):
    tokens = parser().parse(hostile_md)
    cells = {
        inline_text(tokens[i + 1]) for i, t in enumerate(tokens) if t.type in ("td_open", "th_open")
    }
    assert set(HOSTILE_IDS) <= cells, set(HOSTILE_IDS) - cells
    assert HOSTILE_RUN in cells


def test_the_reports_own_prose_has_no_backslash(tmp_path):
    ws = Workspace.open(seed002(tmp_path / "ws"))
    record_verdict(ws, "old", "q1", "paraphrase", note="asks in other words", owner="ml")
    md = ws and build_report(ws, k=3).to_markdown()
    ws.con.close()
    outside_code = re.sub(r"```.*?```", "", md, flags=re.S)
    assert "\\" not in outside_code, [line for line in md.splitlines() if "\\" in line]
    assert "Share of the query's relevant items found in the top k." in md
    assert "relevant = grade >= 1" in md


def test_the_header_states_the_pass_rule_once(tmp_path):
    """Issue 29: the header read "pass rule: Pass rule: a query passes when …"."""
    ws = Workspace.open(seed002(tmp_path / "ws"))
    report = build_report(ws, k=3)
    ws.con.close()
    for text in (report.to_markdown(), report.to_html(), report.to_csv()):
        assert text.lower().count("pass rule") == 1, text[:600]
        assert "a query passes when RecallCap@3 = 1" in text
