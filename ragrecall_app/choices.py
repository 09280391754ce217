"""The sidebar's choices, each one click away (issue 30).

A workspace's runs, cutoffs, splits, query types and sections are few: they are drawn as
pills, every option in sight and one click to pick, where a drop-down showed only the
picked one and took two clicks. It also spares a new session's first page Streamlit's
drop-down code (about 150 KB of JavaScript it loads and runs for the first ``selectbox``
or ``multiselect`` on a page: ~0.09 s of the browser's first page here,
``benchmarks/README.md``, issue 30, stop 48). A choice among more options than
:data:`MOST_PILLS` is a drop-down still: a wall of pills is no quicker to read.

The widgets' values are the options themselves either way, under the same keys: the view
state (:mod:`ragrecall_app.context`) reads them alike. A pill's label is Markdown to
Streamlit (a drop-down's option is plain text): the names on it come from the user's files
(runs, sections, query types, splits), so each is escaped (:func:`.render.escape_markdown`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from ragrecall_app.render import escape_markdown

# the most options drawn as pills; a choice among more is a drop-down
MOST_PILLS = 12


def pick_one(
    label: str,
    options: Sequence,
    *,
    key: str,
    format_func: Callable = str,
    disabled: bool = False,
    help: str | None = None,  # noqa: A002 (streamlit's own name)
) -> None:
    """One of ``options`` (never none: a pill clicked again stays picked)."""
    if len(options) <= MOST_PILLS:
        st.pills(
            label,
            options,
            key=key,
            format_func=lambda option: escape_markdown(format_func(option)),
            disabled=disabled,
            help=help,
            required=True,
        )
    else:
        st.selectbox(label, options, key=key, format_func=format_func, disabled=disabled, help=help)


def pick_many(label: str, options: Sequence, *, key: str, help: str | None = None) -> None:  # noqa: A002
    """Any of ``options``, as many as wanted."""
    if len(options) <= MOST_PILLS:
        st.pills(
            label,
            options,
            selection_mode="multi",
            key=key,
            format_func=lambda option: escape_markdown(str(option)),
            help=help,
        )
    else:
        st.multiselect(label, options, key=key, help=help)
