"""Showing untrusted text safely: never as HTML, never as live markdown."""

from __future__ import annotations

import json
from typing import Protocol

import pandas as pd
import streamlit as st

from ragrecall_core.errors import InputError
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import md_literal
from ragrecall_core.output.text import plural
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import reviewed


def escape_markdown(text: str) -> str:
    """``text`` shown literally in Markdown: the one escaping rule of
    :func:`ragrecall_core.output.literal.md_literal`, applied line by line so line breaks stay.

    >>> escape_markdown("[click](javascript:alert(1))")
    '\\\\[click\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\)'
    """
    return "  \n".join(md_literal(line) for line in str(text).split("\n"))


def literal_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell, header and index label escaped
    (:func:`~ragrecall_core.output.literal.md_literal`: on one line, every ASCII punctuation
    character but ``@`` and ``-`` backslash-escaped, ``|`` too); numbers stay numbers. Built
    once per view where it is cached (:meth:`ragrecall_app.context.Context.memo`), then
    shown by :func:`escaped_table` on every rerun."""
    shown = frame.set_axis([md_literal(c) for c in frame.columns], axis=1)
    if not pd.api.types.is_numeric_dtype(shown.index):
        shown.index = shown.index.map(_literal)
    if shown.index.name is not None:
        shown.index.name = md_literal(shown.index.name)
    for i in range(shown.shape[1]):  # by place: two headers may read alike once escaped
        if not _is_number(shown.iloc[:, i]):
            shown.isetitem(i, shown.iloc[:, i].map(_literal))
    return shown


def _literal(value):
    return value if pd.isna(value) else md_literal(value)


def markdown_table(frame: pd.DataFrame, hide_index: bool = True) -> str:
    """A frame :func:`literal_frame` escaped as a GitHub-flavoured Markdown table, its cells
    as ``st.table`` showed them: numbers right-aligned, whole numbers as they are, others to
    four places, a missing value empty. Each escaped cell is one line whose ``|`` and ``\\``
    are backslash-escaped, so it can neither end its cell nor its row."""
    columns = [frame.iloc[:, i] for i in range(frame.shape[1])]
    headers = [str(c) for c in frame.columns]
    if not hide_index:
        columns.insert(0, frame.index.to_series())
        headers.insert(0, "" if frame.index.name is None else str(frame.index.name))
    numeric = [_is_number(c) for c in columns]
    lines = [_row(headers), _row(["---:" if n else "---" for n in numeric])]
    cells = [[_cell(v, c.dtype) for v in c] for c in columns]
    lines += [_row(list(row)) for row in zip(*cells, strict=True)]
    return "\n".join(lines)


def _is_number(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _cell(value, dtype) -> str:
    if value is None or bool(pd.isna(value)):
        return ""
    if pd.api.types.is_integer_dtype(dtype):
        return str(int(value))
    if pd.api.types.is_float_dtype(dtype):
        return f"{value:.4f}"
    return str(value)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def escaped_table(frame: pd.DataFrame, hide_index: bool = True) -> None:
    """A frame :func:`literal_frame` escaped, as a static table: Markdown, drawn as plain
    HTML. ``st.table`` drew the same cells but made a new session's first page load and
    run Streamlit's Arrow table code (about 1 MB of JavaScript, 0.3 s of the browser's CPU
    here), and ``st.dataframe``'s canvas grid is slower still. Its style is drawn once per
    run (:func:`page_style`)."""
    page_style()
    st.markdown(markdown_table(frame, hide_index))


def scrolled_table(frame: pd.DataFrame, key: str, height: int) -> None:
    """:func:`escaped_table` in a box ``height`` px high that scrolls, its header kept on
    screen while the rows scroll (:data:`TABLE_CSS`; the box is named ``scrolled_{key}``).
    Style only: the cells stay escaped Markdown."""
    with st.container(height=height, border=False, key=f"scrolled_{key}"):
        escaped_table(frame)


# A static table as st.table drew it (the page's width, 14 px text), so a headline row of ten
# intervals stays on one line at 1600 px. A constant: nothing from any file goes in.
TABLE_CSS = """
<style>
[data-testid="stMarkdownContainer"] table {
  width: 100%; font-size: 0.875rem; font-variant-numeric: tabular-nums;
}
[data-testid="stMarkdownContainer"] :is(th, td) { padding: 0.25rem 0.375rem; }
/* a table in a box that scrolls (scrolled_table): its header stays at the box's top, opaque
   (the page's white) over the rows passing under it, its rule drawn with it */
[class*="st-key-scrolled_"] thead th {
  position: sticky; top: 0; z-index: 1; background: #fff;
  box-shadow: inset 0 -1px rgba(47, 45, 43, 0.1);
}
</style>
"""


def literal_table(frame: pd.DataFrame, hide_index: bool = True) -> None:
    """``frame`` as a static table, every text cell and header shown as written."""
    escaped_table(literal_frame(frame), hide_index)


def printable_json(value) -> str:
    """``value`` as indented JSON that still parses to it: other scripts as written, every
    character that is not printable (a bidi control, a line separator, a C1 control) as its
    JSON escape, as :func:`~ragrecall_core.errors.one_line` does in every text output.

    >>> print(printable_json({"a": ["\u202ex"]}))
    {
      "a": [
        "\\u202ex"
      ]
    }
    """
    dumped = json.dumps(value, indent=2, ensure_ascii=False)
    if dumped.replace("\n", "").isprintable():
        return dumped
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in dumped)


def json_block(value, key: str) -> None:
    """``value`` as :func:`printable_json` in ``st.text`` (never Markdown, never HTML), in the
    code font; ``key`` names its container (unique on the page). ``st.json``'s viewer
    showed the same, but its code (143 KB of JavaScript) and tree cost a new session's
    first page about 0.1 s of the browser's CPU. Its style is drawn once per run
    (:func:`page_style`)."""
    page_style()
    with st.container(key=f"json_{key}"):
        st.text(printable_json(value))


# JSON lined up as code: a constant, nothing from any file goes in
JSON_CSS = """
<style>
[class*="st-key-json_"] [data-testid="stText"] span {
  font-family: "Source Code Pro", monospace; font-size: 0.875rem;
}
</style>
"""


def new_page() -> None:
    """A run of the page begins (app.py, before the page): its tables' and JSON blocks'
    style is not drawn yet (:func:`page_style`)."""
    st.session_state[STYLED] = False


def page_style() -> None:
    """The style of :func:`escaped_table`'s tables and :func:`json_block`'s JSON, drawn by
    the first of them in each run (after :func:`new_page`): one element per run, where each
    table and JSON block drew its own (nine on the Overview), every one of them sent,
    rendered and compared again by the browser on each rerun. A page without them draws
    none. No fragment draws them (a fragment's rerun would not draw it again). Style only:
    drawn in no place on the page."""
    if not st.session_state.get(STYLED, False):
        st.html(PAGE_CSS)
        st.session_state[STYLED] = True


# whether this run has drawn PAGE_CSS (page_style)
STYLED = "_ragrecall_styled"
PAGE_CSS = TABLE_CSS + JSON_CSS


# st.dataframe's row and header height in pixels, and its border
ROW_PX = 35
BORDER_PX = 3


def table_height(rows: int, most: int = 15) -> int:
    """The pixel height of an ``st.dataframe`` that shows its header and ``rows`` rows, up to
    ``most`` (then it scrolls): no empty rows below a short table, no inner scroll in one
    of up to ``most`` rows (Streamlit's own default stops at ten)."""
    return ROW_PX * (min(max(rows, 1), most) + 1) + BORDER_PX


def problems(error: InputError, title: str) -> None:
    """An input error as a short headline and the list of problems as literal text; the
    headline is escaped too, as a title may name a file (``f"{upload.name} was not
    imported"``) whose name would otherwise be read as Markdown."""
    found = plural(len(error.problems), "problem")
    st.error(escape_markdown(f"{title}: {found} in the input. Fix them and reload."))
    st.code("\n".join(str(p) for p in error.problems), language=None, wrap_lines=True)


def notes(lines: list[str]) -> None:
    """What the workspace lacks, as one compact block (plain text) rather than a banner
    per line: on a shared screen each banner pushed the page's content down."""
    if lines:
        st.info("  \n".join(escape_markdown(line) for line in lines))


class Viewed(Protocol):
    """What a policy note reads of a page's context (:class:`ragrecall_app.context.Context`,
    which imports this module): the content key, the workspace and the view's policy."""

    key: str
    ws: Workspace
    policy: Policy


def policy_note(ctx: Viewed) -> None:
    """Which evaluation policy produced the numbers on this page: one line, the full
    sentence on hover (plain text both), both in the core's words
    (:meth:`~ragrecall_core.scoring.policy.Policy.summary`, ``describe``), which say
    "used (none loaded)" when no reviewer's grade or resolution is loaded, as the command
    line's policy line does."""
    reviewed = grades_loaded(ctx)
    st.caption(
        escape_markdown("Policy: " + ctx.policy.summary(reviewed)),
        help=escape_markdown(ctx.policy.describe(reviewed)),
    )


def grades_loaded(ctx: Viewed) -> bool | str:
    """Whether any reviewer's grade is loaded (files or store), or only resolutions: what
    :meth:`Policy.describe` needs to say so (:func:`ragrecall_core.scoring.prepared.reviewed`,
    the command line's reading). Cached by the content key, which a stored grade changes."""
    return _reviewed(ctx.key, ctx.ws)


@st.cache_data(show_spinner=False, max_entries=16)
def _reviewed(key: str, _ws: Workspace) -> bool | str:
    return reviewed(_ws)


# Presentation mode: larger text and less chrome. A constant: nothing from any file goes in.
PRESENTATION_CSS = """
<style>
[data-testid="stDecoration"] { display: none; }
[data-testid="stHeader"] { background: transparent; }
/* every text, table canvas and chart of the page 1.2 times larger (16 px body -> 19 px,
   14 px tables -> 17 px); the tables' canvas font is fixed at load, so zoom, not font-size */
[data-testid="stMain"] { zoom: 1.2; }
[data-testid="stMainBlockContainer"] { padding: 1.5rem 1.5rem 1rem 1.5rem; max-width: none; }
/* a table measures its width in screen pixels: inside the zoom that is too wide */
[data-testid="stDataFrame"], [data-testid="stDataFrameResizable"] {
  width: 100% !important; max-width: 100%;
}
/* a chart too, and sets its own font sizes: it stays at its normal scale (ragrecall_app/chart) */
.ragrecall-chart { zoom: calc(1 / 1.2); }
[data-testid="stSidebarHeader"] { padding-bottom: 0.25rem; }
</style>
"""


def presentation_style() -> None:
    """Apply :data:`PRESENTATION_CSS` to this page."""
    st.html(PRESENTATION_CSS)
