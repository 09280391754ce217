"""The scope line at the top of every page (:mod:`ragrecall_core.views.scope` builds it)."""

from __future__ import annotations

from collections.abc import Collection

import streamlit as st

from ragrecall_app.context import Context
from ragrecall_app.render import escape_markdown
from ragrecall_core.views.scope import scope_line


def scope_note(ctx: Context, applies: Collection[str]) -> None:
    """One line naming the page's scope when anything is filtered (nothing otherwise): in the
    main area, so it shows in presentation mode too, where the sidebar is closed. The view
    it names is the one the page's URL carries (``context.sync_url``)."""
    line = scope_line(ctx.state, ctx.default_state, applies)
    if line:
        st.info(escape_markdown(line), icon=":material/filter_alt:")
