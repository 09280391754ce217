"""Showing untrusted text safely: never as HTML, never as live markdown."""

from __future__ import annotations

import re

import streamlit as st

from ragrecall_core.errors import InputError
from ragrecall_core.policy import Policy

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


def escape_markdown(text: str) -> str:
    """Backslash-escape every markdown and HTML special character of ``text``.

    >>> escape_markdown("[click](javascript:alert(1))")
    '\\\\[click\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\)'
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")


def problems(error: InputError, title: str) -> None:
    """An input error as a short headline and the list of problems as literal text."""
    st.error(f"{title}: {len(error.problems)} problem(s) in the input. Fix them and reload.")
    st.code("\n".join(str(p) for p in error.problems), language=None, wrap_lines=True)


def notes(lines: list[str]) -> None:
    """Information about what the workspace lacks (plain text)."""
    for line in lines:
        st.info(escape_markdown(line), icon="ℹ️")


def policy_note(policy: Policy) -> None:
    """Which evaluation policy produced the numbers on this page (plain text)."""
    st.caption("Policy: " + escape_markdown(policy.describe()))
