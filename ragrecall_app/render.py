"""Showing untrusted text safely: never as HTML, never as live markdown."""

from __future__ import annotations

import streamlit as st

from ragrecall_core.errors import InputError
from ragrecall_core.output.literal import md_literal
from ragrecall_core.output.text import plural
from ragrecall_core.scoring.policy import Policy


def escape_markdown(text: str) -> str:
    """``text`` shown literally in Markdown: the one escaping rule of
    :func:`ragrecall_core.output.literal.md_literal`, applied line by line so line breaks stay.

    >>> escape_markdown("[click](javascript:alert(1))")
    '\\\\[click\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\)'
    """
    return "  \n".join(md_literal(line) for line in str(text).split("\n"))


def problems(error: InputError, title: str) -> None:
    """An input error as a short headline and the list of problems as literal text."""
    found = plural(len(error.problems), "problem")
    st.error(f"{title}: {found} in the input. Fix them and reload.")
    st.code("\n".join(str(p) for p in error.problems), language=None, wrap_lines=True)


def notes(lines: list[str]) -> None:
    """Information about what the workspace lacks (plain text)."""
    for line in lines:
        st.info(escape_markdown(line), icon="ℹ️")


def policy_note(policy: Policy) -> None:
    """Which evaluation policy produced the numbers on this page (plain text)."""
    st.caption("Policy: " + escape_markdown(policy.describe()))
