"""A URL or an e-mail address in file text never becomes a link in Streamlit's Markdown.

Streamlit's Markdown (remark-gfm) links bare URLs and e-mail addresses found in the text it
has read, after backslash escapes and character references are undone, so md_literal's
escapes alone do not stop it (seen in chromium: every caption, expander, tab, metric and
widget label linked ``www.x``, ``https://x`` and ``a@b.x``). Here the text is read as
CommonMark reads it (escapes undone) and searched with remark-gfm's own patterns
(mdast-util-gfm-autolink-literal: JavaScript's ``\\w`` is ASCII); the browser test of the
same texts is tests/browser/test_table_markup_browser.py.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core.errors import one_line
from ragrecall_core.output.literal import NO_LINK, md_literal

URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII)
EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation

TEXTS = [
    "see www.evil.example now",
    "WWW.EVIL.EXAMPLE",
    "go https://evil.example/x?a=1",
    "HTTP://EVIL.EXAMPLE",
    "<https://evil.example>",
    "(https://evil.example)",
    "write a@evil.example",
    "<a.b+c@evil.example>",
    "x:www.evil.example",
    "mailto:a@evil.example",
    "a_b@evil_x.example",
    "x@a-b.c_d.example",
]


def read_as_commonmark(markdown: str) -> str:
    return ESCAPE.sub(r"\1", markdown)


def linked(text: str) -> list[str]:
    read = read_as_commonmark(md_literal(text))
    return [m.group(0) for pattern in (URL, EMAIL) for m in pattern.finditer(read)]


@pytest.mark.parametrize("text", TEXTS)
def test_no_url_or_address_is_linked(text):
    assert linked(text) == []
    assert URL.search(text) or EMAIL.search(text), "the text itself would be linked"


@pytest.mark.parametrize("text", TEXTS)
def test_it_reads_as_written(text):
    read = read_as_commonmark(md_literal(text))
    assert read.replace(NO_LINK, "") == one_line(text)


def test_a_word_joiner_in_the_file_is_shown_escaped():
    """An attacker's own U+2060 cannot pass for ours: it shows as its escape."""
    assert read_as_commonmark(md_literal("www\u2060.evil.example")) == "www\\u2060.evil.example"


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(
            ["www", ".", "@", ":", "/", "http", "https", "s", "a", "e.x", " ", "W", "_", "+", "5"]
        ),
        max_size=14,
    ).map("".join)
)
def test_no_generated_text_is_linked(text):
    assert linked(text) == []
    assert read_as_commonmark(md_literal(text)).replace(NO_LINK, "") == one_line(text)
