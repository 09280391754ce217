"""Text from files shown as text: in Markdown (Streamlit labels, report.md) and in plotly.

Streamlit renders Markdown in tab, expander, widget and metric labels, subheaders,
captions and alerts (links, images, HTML-looking text, ``:red[...]`` directives,
``:emoji:`` shortcodes, ``$...$`` maths) and offers no literal mode for tab labels.
CommonMark shows a backslash-escaped ASCII punctuation character as itself, so escaping
every one of them is the one rule that holds for every renderer. Plotly renders a
subset of HTML (``<a href>``, ``<b>``, ``<br>``) in trace names, tick labels and hover
text, and ``%{...}`` in hover templates; it decodes character entities, so escaping
``<``, ``>``, ``&`` and ``%`` as entities shows the text as written.
"""

from __future__ import annotations

import html
import re
import string

import pandas as pd

from ragrecall_core.errors import one_line

# "@" and "-" are left alone: markup only at a line start (which md_literal's output never
# is) or in an e-mail autolink (whose "." is escaped)
_MARKDOWN_PUNCTUATION = re.compile(
    "([" + re.escape(string.punctuation.replace("@", "").replace("-", "")) + "])"
)
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
# Streamlit's Markdown links a bare URL (``https://``, ``www.``) or e-mail address in the
# text it has read, escapes already undone (remark-gfm's autolink literals), so no escape
# stops it; a word joiner (U+2060: no width, no line break) where such a pattern must run on
# does: before ``://``, after ``www`` before its dot, and before the ``@`` of an address
# (``Recall@5`` is none: its "domain" has no dot). A word joiner in file text itself is
# escaped (``one_line``), so the text shows as written, never as a link.
NO_LINK = "\u2060"
_LINK_STARTS = re.compile(
    r"(?i)(?=\\:\\/\\/)|(?<=www)(?=\\\.)"
    r"|(?<=[-.\w+])(?=@(?:[-\w]|\\_)+(?:\\\.(?:[-\w]|\\_)+)+)"  # "_" escaped as "\_"
)


def md_literal(text) -> str:
    """``text`` on one line (a line break of any kind as a space, so prose stays readable),
    every other control, bidi or format character but the tab escaped as in every text
    output (:func:`~ragrecall_core.errors.one_line`: ``\\x1b``, ``\\u202e``), then ASCII
    punctuation backslash-escaped (all but ``@`` and ``-``), and a word joiner where a URL
    or an e-mail address would be linked (:data:`NO_LINK`). An id or a name, whose line
    breaks must show, goes through ``one_line`` first (as the gate's summary does).

    >>> md_literal("[x](https://e.example) :red[y] $z$")
    '\\\\[x\\\\]\\\\(https\\u2060\\\\:\\\\/\\\\/e\\\\.example\\\\) \\\\:red\\\\[y\\\\] \\\\$z\\\\$'
    >>> md_literal("www.e.example a@b.example Recall@5")
    'www\\u2060\\\\.e\\\\.example a\\u2060@b\\\\.example Recall@5'
    >>> md_literal("a\\r\\nb\\x1b")
    'a b\\\\\\\\x1b'
    """
    flat = _LINE_BREAKS.sub(" ", str(text))
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", one_line(flat, keep="\t"))
    return _LINK_STARTS.sub(NO_LINK, escaped)


# what CommonMark, GitHub's tables, strikethrough and URL autolinks, and $maths$ read as
# markup in one line of file text: each such character is backslash-escaped, no other
_MARKUP = re.compile(
    r"[\\`*\[\]<|~$]"  # always
    r"|(?<![^\W_])_|_(?![^\W_])"  # _ but inside a word, where it cannot emphasise
    r"|(?:^|(?<=\s))#"  # a heading's opening or closing #
    r"|&(?=#?\w+;)"  # a character reference
    r"|:(?=//)|(?<=[Ww]{3})\."  # a URL GitHub would link: https://x, www.x
    r"|^[>+=-]"  # a block quote, list item or heading underline at the line's start
)
_LIST_NUMBER = re.compile(r"^(\d{1,9})([.)])")
# the "@" of an e-mail address GitHub would link (cmark-gfm's autolinks read the text after
# its escapes are undone): its domain has a dot, and may hold md_text's "\_" and "www\."
_ADDRESS_AT = re.compile(r"(?<=[-.\w+])(?=@(?:[-\w]|\\_)+(?:\\?\.(?:[-\w]|\\_)+)+)")


def md_text(text) -> str:
    """``text`` for report.md: its control, bidi and line-separator characters escaped as
    in every text output (:func:`~ragrecall_core.errors.one_line`), then only what Markdown
    would read as markup backslash-escaped (so it shows as written and no file text becomes
    a link, image, HTML or heading); all other text left as it is, readable in the file.

    No escape stops GitHub from linking an e-mail address: a word joiner (:data:`NO_LINK`,
    no width) before its ``@`` does, as in :func:`md_literal`.

    >>> print(md_text("[x](https://e.example) <b>_y_ a_b it's 1.5"))
    \\[x\\](https\\://e.example) \\<b>\\_y\\_ a_b it's 1.5
    >>> print(md_text("1. # -x"))
    1\\. \\# -x
    >>> md_text("a@b.example Recall@5")
    'a\\u2060@b.example Recall@5'
    """
    shown = _MARKUP.sub(r"\\\g<0>", one_line(text))
    return _ADDRESS_AT.sub(NO_LINK, _LIST_NUMBER.sub(r"\1\\\2", shown))


def md_labels(texts) -> list[str]:
    """Labels for ``st.tabs`` (which must be distinct strings) from file text."""
    return [md_literal(t) for t in texts]


# the browser's plotly settings for every chart (the dashboard's, ragrecall_app/chart.py, and
# a report's): no plotly logo, and no "Share chart..." button, which plotly.js 4 shows by
# default and which uploads the chart's data (query text, run names) to cloud.plotly.com
PLOTLY_CONFIG = {"displaylogo": False, "showSendToCloud": False, "plotlyServerURL": ""}


def plot_literal(text) -> str:
    """``text`` for a plotly name, tick label or hover template, shown as written.

    >>> plot_literal("<a href='x'>%{y}</a>")
    "&lt;a href='x'&gt;&#37;{y}&lt;/a&gt;"
    """
    return html.escape(str(text), quote=False).replace("%", "&#37;")


def as_words(frame: pd.DataFrame, formats: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """``frame`` with the given columns as text: each value formatted, a missing one a word.

    ``formats`` maps a column to ``(format spec, word for a missing value)``. Streamlit
    shows a missing cell as "None" and pandas as "<NA>" or "nan"; a reader should read
    a word (or nothing) instead.

    >>> as_words(pd.DataFrame({"r": [1, None]}), {"r": ("{:.0f}", "not found")})["r"].tolist()
    ['1', 'not found']
    """
    out = frame.copy()
    for column, (spec, word) in formats.items():
        if column in out.columns:
            out[column] = [word if _missing(v) else spec.format(v) for v in out[column]]
    return out


def _missing(value) -> bool:
    return value is None or bool(pd.isna(value))


def yes_no(value) -> str:
    """A flag as a word (never "True" / "False")."""
    return "yes" if bool(value) else "no"


def file_name_part(text, limit: int = 60) -> str:
    """``text`` as part of a download's file name: letters, digits, ``.``, ``_`` and ``-``
    only (no path separator, control character or leading dot), at most ``limit`` long.

    >>> file_name_part("../[x](https://e.example)\\n")
    'x_https_e.example'
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("._-")
    return safe[:limit] or "run"
