"""The line that states the pass rule a page's passes and failures follow.

The rule itself is part of the view state (``rule`` in the URL): the context's query
table and the cached comparison are built under it.
"""

from __future__ import annotations

import streamlit as st

from ragrecall_app.context import Context
from ragrecall_core.analysis.pass_rule import rule_line


def rule_note(ctx: Context) -> None:
    """One compact line: the pass rule the page's passes and failures follow."""
    st.caption(rule_line(ctx.state.pass_rule, ctx.state.k))
