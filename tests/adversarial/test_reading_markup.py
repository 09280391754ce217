"""Attack: the reading view (Queries, Compare) renders file text as HTML cards with the
query's words marked. Every field of every file (query, chunk text, title, section,
version, status, chunk id, reviewer reason, gold rationale) must reach the screen as text:
no tag or attribute of its own, no Markdown, no math, no coloured directive, while the
marking still applies around it."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragrecall_app.reading import CARD_CSS
from tests.dashboard_support import app, no_exception

PAYLOADS = (
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "**bold**",
    "[x](javascript:alert(1))",
    "$$math$$",
    ":red[x]",
)
HOSTILE = " ".join(PAYLOADS)
QUERY = f"vpn access {HOSTILE}"
# the tags the reading view writes itself (and Compare's two small tables of an open query,
# reading.table_html); the only attributes it writes are style and its own class names (the
# compact cards of issue 29, styled by the constant CARD_CSS)
OWN_TAGS = {"div", "span", "b", "code", "mark", "details", "summary"}
OWN_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}
OWN_CLASSES = {"rr-card", "rr-clip", "rr-clip rr-short"}


class Tags(HTMLParser):
    """Every tag, attribute and text piece of an HTML fragment."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.data: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.data.append(data)


def parsed(fragment: str) -> Tags:
    tags = Tags()
    tags.feed(fragment)
    return tags


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def hostile_reading_workspace(folder: Path) -> Path:
    """One query whose every text field carries every payload, retrieved by two runs."""
    (folder / "runs").mkdir(parents=True)
    (folder / "grades").mkdir()
    gold_id, other_id = f"doc-a#1 {PAYLOADS[0]}", "doc-a#2"
    write_jsonl(
        folder / "gold.jsonl",
        [
            {
                "id": "q1",
                "query": QUERY,
                "relevant_ids": [gold_id],
                "rationale": {gold_id: f"why {HOSTILE}"},
            },
            {"id": "q2", "query": "plain", "relevant_ids": [other_id]},
        ],
    )
    record = {"doc_id": "doc-a", "section": HOSTILE, "title": HOSTILE}
    record |= {"version": PAYLOADS[1], "status": PAYLOADS[5]}
    write_jsonl(
        folder / "corpus.jsonl",
        [
            {"chunk_id": "doc-a#0", **record, "text": f"before {HOSTILE}"},
            {"chunk_id": gold_id, **record, "text": f"VPN access: {HOSTILE} then vpn"},
            {"chunk_id": other_id, **record, "text": f"after {HOSTILE}"},
        ],
    )
    listed = [
        {"chunk_id": other_id, "rank": 1, "score": 0.9},
        {"chunk_id": gold_id, "rank": 2, "score": 0.8},
    ]
    for name, items in (("base", listed), ("cand", listed[::-1])):
        write_jsonl(
            folder / "runs" / f"{name}.jsonl",
            [
                {"id": "q1", "retrieved": items},
                {"id": "q2", "retrieved": [{"chunk_id": other_id, "rank": 1, "score": 1}]},
            ],
        )
    grade = {"query_id": "q1", "chunk_id": other_id, "grade": 0, "annotator": "eve"}
    write_jsonl(folder / "grades" / "eve.jsonl", [{**grade, "reason": HOSTILE}])
    return folder


def assert_text_only(fragments: list[str]) -> str:
    """No tag but the view's own, no attribute but style and its own classes (the one
    style sheet, a constant, aside); returns the visible text."""
    text = []
    for fragment in fragments:
        if fragment == CARD_CSS:
            continue
        tags = parsed(fragment)
        for tag, attrs in tags.tags:
            assert tag in OWN_TAGS, (tag, fragment[:200])
            assert all(name == "style" for name, _ in attrs if name != "class"), (tag, attrs)
            assert all(v in OWN_CLASSES for name, v in attrs if name == "class"), (tag, attrs)
        text.append("".join(tags.data))
    return "\n".join(text)


@pytest.fixture
def reading(tmp_path, monkeypatch):
    at = app(hostile_reading_workspace(tmp_path), monkeypatch, params={"q": "q1", "focus": "base"})
    return at.switch_page("pages/queries.py").run()


def test_every_field_shows_literally(reading):
    no_exception(reading)
    fragments = [h.value for h in reading.html]
    visible = assert_text_only(fragments)
    for payload in PAYLOADS:
        # query, text, title, section, reviewer reason, rationale: each shows it as typed
        assert visible.count(payload) >= 6, payload
    assert "version: " + PAYLOADS[1] in visible and "status: " + PAYLOADS[5] in visible
    assert "doc-a#1 " + PAYLOADS[0] in visible  # the chunk id itself


def test_marking_applies_around_the_payloads(reading):
    joined = "\n".join(h.value for h in reading.html)
    assert "<mark>VPN</mark> <mark>access</mark>: " in joined
    unmarked = re.sub("</?mark>", "", joined)
    assert f"VPN access: {html.escape(HOSTILE)} then vpn" in unmarked
    # the payloads' own words are query words too: marked, and still escaped around the mark
    assert "&lt;<mark>script</mark>&gt;<mark>alert</mark>(1)&lt;/<mark>script</mark>&gt;" in joined
    assert not re.search(r"<(script|img)\b", joined)


def test_text_without_query_words_shows_literally(tmp_path, monkeypatch):
    """q2's words mark nothing in its chunk: the payloads stand alone, unmarked."""
    params = {"q": "q2", "focus": "base"}
    at = app(hostile_reading_workspace(tmp_path), monkeypatch, params=params)
    at.switch_page("pages/queries.py").run()
    no_exception(at)
    visible = assert_text_only([h.value for h in at.html])
    assert "after " + HOSTILE in visible


def test_no_payload_reaches_markdown(reading):
    for element in (*reading.markdown, *reading.caption, *reading.subheader, *reading.info):
        for payload in PAYLOADS:
            assert payload not in element.value, (payload, element.value)


def test_neighbours_show_literally(reading):
    fragments = [h.value for h in reading.html]
    visible = assert_text_only(fragments)
    assert "before " + HOSTILE in visible and "after " + HOSTILE in visible


def test_compare_reading_view_shows_literally(tmp_path, monkeypatch):
    params = {"base": "base", "cand": "cand", "cq": "q1"}
    at = app(hostile_reading_workspace(tmp_path), monkeypatch, params=params)
    at.switch_page("pages/compare.py").run()
    no_exception(at)
    fragments = [h.value for h in at.html]
    assert fragments, "the regression's reading view renders"
    visible = assert_text_only(fragments)
    assert visible.count("VPN access: " + HOSTILE) >= 3  # gold, baseline, candidate
