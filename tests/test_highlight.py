"""The query's words marked in chunk text: split into segments, escaped, Unicode-aware."""

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ragrecall_core.views.highlight import highlight_html, query_terms, segments


def marked(text: str, query: str) -> list[str]:
    return [piece for piece, hit in segments(text, query_terms(query))]


def hits(text: str, query: str) -> list[str]:
    return [piece for piece, hit in segments(text, query_terms(query)) if hit]


def test_terms_drop_stop_words_and_short_words():
    assert query_terms("What is the VPN of an office?") == ["office", "vpn"]
    assert query_terms("Как оформить отпуск в ИТ?") == ["оформить", "отпуск"]
    assert query_terms("") == [] and query_terms(None) == []


def test_matching_is_case_insensitive_and_extends_words():
    text = "Maintenance WINDOWS open; a window-cleaner is not a wind."
    assert hits(text, "maintenance window") == ["Maintenance", "WINDOWS", "window"]


def test_cyrillic_case_insensitive():
    text = "ОТПУСК оформляют заранее; отпуск в декабре."
    assert hits(text, "отпуск декабре") == ["ОТПУСК", "отпуск", "декабре"]


def test_vietnamese_composed_and_decomposed_match():
    query = "Thời hạn nghỉ phép năm"
    composed = "Nghỉ phép năm: thời hạn là 12 ngày."
    decomposed = unicodedata.normalize("NFD", composed)
    assert hits(composed, query) == ["Nghỉ", "phép", "năm", "thời", "hạn"]
    # decomposed diacritics stay inside their word and still match
    assert [unicodedata.normalize("NFC", h) for h in hits(decomposed, query)] == [
        "Nghỉ",
        "phép",
        "năm",
        "thời",
        "hạn",
    ]


def test_no_terms_no_marks():
    assert segments("some text", []) == [("some text", False)]
    assert highlight_html("a <b>", []) == "a &lt;b&gt;"


def test_markup_in_text_is_escaped_around_marks():
    out = highlight_html('<img src=x onerror="alert(1)"> vpn', ["vpn"])
    assert out == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; <mark>vpn</mark>"


@given(st.text(), st.text())
def test_segments_give_the_text_back(text, query):
    assert "".join(marked(text, query)) == text


@given(st.text(), st.text())
def test_only_mark_tags_survive(text, query):
    out = highlight_html(text, query_terms(query))
    stripped = out.replace("<mark>", "").replace("</mark>", "")
    assert "<" not in stripped and ">" not in stripped
