"""The dashboard's static tables are Markdown tables (``st.markdown``): a cell or header of
file text must show as written, never end its cell or row, nor become a link, image, HTML,
code, maths or a Streamlit directive; numbers read as ``st.table`` showed them."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from ragrecall_app.render import literal_frame, markdown_table
from ragrecall_core.errors import one_line
from ragrecall_core.output.literal import NO_LINK
from tests.dashboard_support import markdown_frame, table_cells

# name -> file text; each must read as written (line breaks as a space, controls escaped)
ATTACKS = {
    "pipe": "a|b",
    "lone pipe": "|",
    "escaped pipe": "a\\|b",
    "trailing backslash": "x\\",
    "backslashes": "\\\\",
    "backticks": "`code` ``x``",
    "script": "<script>alert(1)</script>",
    "img onerror": "<img src=x onerror=alert(1)>",
    "javascript link": "[x](javascript:alert(1))",
    "image": "![i](https://evil.example/i.png)",
    "autolink": "<https://evil.example> www.evil.example https://evil.example",
    "e-mail": "mail a@evil.example, <b@evil.example> WWW.EVIL.EXAMPLE HTTP://EVIL.EXAMPLE",
    "directive": ":red[x] :material/home: :smile:",
    "maths": "$x$ $$y$$",
    "entity": "&amp; &#124; &lt;b&gt;",
    "emphasis": "**b** _i_ ~~s~~",
    "delimiter row": "---",
    "padded": "  padded  ",
    "empty": "",
    "newline": "a\nb",
    "crlf": "a\r\nb",
    "carriage return": "a\rb",
    "unicode breaks": "a\u2028b\u2029c\x0bd\x0ce\x85f",
    "bidi": "\u202eevil\u202c \u2066x\u2069",
    "tab": "a\tb",
    "long id": "doc-" + "x" * 400 + "#chunk-01",
}
FORBIDDEN = {"link_open", "image", "html_inline", "html_block", "code_inline", "s_open"}


def shown(raw: str) -> str:
    """What a reader must read for ``raw``: md_literal's one-line text (a line break a
    space, a control or bidi character its escape), spaces as HTML collapses them."""
    flat = re.sub(r"[\r\n\u2028\u2029\x0b\x0c\x85]+", " ", raw)
    return collapsed(one_line(flat, keep="\t"))


def collapsed(text: str) -> str:
    """``text`` as a reader reads it: its runs of spaces and tabs one space, none at either
    end (as HTML), and without the word joiners that keep a URL from being linked (no
    width; one in the file's text is escaped: ``one_line``)."""
    return re.sub(r"[ \t]+", " ", text.replace(NO_LINK, "")).strip(" \t")


def attack_frame() -> pd.DataFrame:
    """One row per attack, and the attacks as headers too (their own frame)."""
    return pd.DataFrame({"name": list(ATTACKS), "text": list(ATTACKS.values())})


def header_frame() -> pd.DataFrame:
    values = [v for v in ATTACKS.values() if v.strip()]
    return pd.DataFrame([list(range(len(values)))], columns=values)


def _page(frames):
    from ragrecall_app.render import literal_table

    for frame, hide_index in frames:
        literal_table(frame, hide_index)


def page(*frames) -> AppTest:
    return AppTest.from_function(_page, args=(list(frames),), default_timeout=30).run()


def test_a_hostile_cell_is_one_escaped_markdown_cell():
    at = page((pd.DataFrame({"run": ["a|b", "x\\", "<b>[l](j:x)"], "q": [1, 22, 333]}), True))
    assert not at.exception
    (body,) = [m.value for m in at.markdown]
    assert body == (
        "| run | q |\n"
        "| --- | ---: |\n"
        "| a\\|b | 1 |\n"
        "| x\\\\ | 22 |\n"
        "| \\<b\\>\\[l\\]\\(j\\:x\\) | 333 |"
    )
    assert not at.table and not at.dataframe


def test_every_attack_reads_as_written_in_its_cell():
    at = page((attack_frame(), True))
    (body,) = [m.value for m in at.markdown]
    assert body == markdown_table(literal_frame(attack_frame()))
    lines = body.split("\n")
    assert len(lines) == 2 + len(ATTACKS), "a line break escaped its row"
    assert all(len(table_cells(line)) == 2 for line in lines), "a | ended a cell"
    read = markdown_frame(body)
    assert dict(zip(read["name"], map(collapsed, read["text"]), strict=True)) == {
        name: shown(raw) for name, raw in ATTACKS.items()
    }


def test_every_attack_reads_as_written_in_a_header():
    frame = header_frame()
    body = markdown_table(literal_frame(frame))
    read = [collapsed(c) for c in markdown_frame(body).columns]
    assert read == [shown(c) for c in frame.columns]


@pytest.mark.parametrize("frame", [attack_frame(), header_frame()], ids=["cells", "headers"])
def test_no_attack_becomes_markup(frame):
    body = markdown_table(literal_frame(frame))
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(body)
    inline = [c.type for t in tokens for c in t.children or []]
    assert not FORBIDDEN & {t.type for t in tokens} | FORBIDDEN & set(inline)
    assert "table_open" in {t.type for t in tokens}
    live = re.compile(r"(?<!\\)[:$`<\[]")  # a directive, maths, code, HTML or link start
    header, _align, *rows = body.split("\n")
    assert not [c for line in [header, *rows] for c in table_cells(line) if live.search(c)]


def test_an_index_of_file_text_is_escaped_too():
    frame = pd.DataFrame({"n": [1, 2]}, index=pd.Index(["[x](javascript:1)", "a|b"], name="<i>"))
    body = markdown_table(literal_frame(frame), hide_index=False)
    assert body.split("\n")[0] == "| \\<i\\> | n |"
    read = markdown_frame(body)
    assert read.iloc[:, 0].tolist() == ["[x](javascript:1)", "a|b"]
    assert read["n"].tolist() == [1, 2]


def test_numbers_read_as_st_table_showed_them():
    frame = pd.DataFrame(
        {
            "run": ["a", None, "c"],
            "count": [10000, 5, 1234567],
            "share": [0.123456789, 1.5, np.nan],
            "maybe": pd.array([1, None, 3], dtype="Int64"),
            "arrow": pd.array([7, 8, 9], dtype="int64[pyarrow]"),
            "flag": [True, False, True],
        }
    )
    lines = markdown_table(literal_frame(frame)).split("\n")
    assert lines[1] == "| --- | ---: | ---: | ---: | ---: | --- |"  # numbers right-aligned
    assert lines[2:] == [
        "| a | 10000 | 0.1235 | 1 | 7 | True |",
        "|  | 5 | 1.5000 |  | 8 | False |",
        "| c | 1234567 |  | 3 | 9 | True |",
    ]


def test_headers_that_read_alike_keep_their_own_columns():
    frame = pd.DataFrame([[1, 2, "<b>"]], columns=["a\nb", "a\rb", "a\r\nb"])
    lines = markdown_table(literal_frame(frame)).split("\n")
    assert lines == ["| a b | a b | a b |", "| ---: | ---: | --- |", "| 1 | 2 | \\<b\\> |"]


def test_an_empty_frame_is_its_header_alone():
    frame = pd.DataFrame({"a": pd.Series([], dtype=str), "b": pd.Series([], dtype=int)})
    assert markdown_table(frame) == "| a | b |\n| --- | ---: |"


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=60)
@given(st.lists(TEXT, min_size=1, max_size=5), TEXT)
def test_any_text_stays_in_its_cell(values, header):
    frame = pd.DataFrame({header or "h": values, "n": range(len(values))})
    body = markdown_table(literal_frame(frame))
    lines = body.split("\n")
    assert len(lines) == 2 + len(values)
    assert all(len(table_cells(line)) == 2 for line in lines)
    read = markdown_frame(body)
    assert [collapsed(v) for v in read.iloc[:, 0]] == [shown(v) for v in values]
    assert collapsed(read.columns[0]) == shown(header or "h")
