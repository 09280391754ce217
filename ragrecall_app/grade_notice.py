"""The Overview's notice that reviewers' grades moved its numbers during this session.

One grade from the Judge page can move a headline number (Recall@5 0.795 → 0.791) while
the room still reads the number it saw first. The Overview keeps, per view (k, policy,
pass rule, filters, runs), the numbers it showed first in this session
(:class:`ragrecall_core.views.overview.Numbers`) and says what grades stored since changed
(:func:`ragrecall_core.views.overview.grade_change`), with links to the grades.
"""

from __future__ import annotations

import streamlit as st

from ragrecall_app.context import Context
from ragrecall_app.render import escape_markdown
from ragrecall_core.views import overview

SEEN = "_overview_numbers_seen"  # view signature -> the Numbers first shown for it


def _signature(ctx: Context) -> tuple:
    s = ctx.state
    return (ctx.files_key, s.k, ctx.policy, s.pass_rule, s.split, s.query_type, s.section, s.runs)


def grade_notice(ctx: Context, now: overview.Numbers) -> None:
    """Say how many grades were stored since the numbers were first shown in this session and
    which runs' numbers moved (nothing when none was stored); a button takes the numbers as
    seen. ``now``: the view's numbers as shown (:func:`ragrecall_core.views.overview.numbers`
    of its headline summary)."""
    seen = st.session_state.setdefault(SEEN, {})
    before = seen.setdefault(_signature(ctx), now)
    change = overview.grade_change(before, now)
    if change is None:
        return
    with st.container(border=True, key="overview_grade_notice"):
        st.markdown(":material/rate_review: " + escape_markdown(change.line()))
        links = st.columns([2, 2, 3])
        links[0].page_link(
            "pages/agreement.py", label="Grades: Agreement", icon=":material/groups:"
        )
        links[1].page_link("pages/judge.py", label="Judge", icon=":material/gavel:")
        links[2].button(
            "Take these numbers as seen",
            key="overview_grades_seen",
            on_click=seen.__setitem__,
            args=(_signature(ctx), now),
        )
