"""A box whose content is built and sent only while it is open (issue 30).

Every element of a page is sent, marked stale and drawn again by the browser on each rerun,
an ``st.expander``'s content too while the box is closed: a closed box's table, chart or
form cost each visit 0.02-0.06 s as measured (more for a chart). A lazy box draws its
content only while it is open, and reruns the page when it is opened or closed
(``on_change="rerun"``), so that opening it draws what it holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st


@contextmanager
def lazy_box(title: str, key: str) -> Iterator[bool]:
    """An expander titled ``title`` whose open state is ``st.session_state[key]`` (set it to
    open the box from code); inside it, whether it is open. Draw its content only then::

        with lazy_box("Run configurations", "overview_configs_open") as shown:
            if shown:
                draw_configs()
    """
    box = st.expander(title, key=key, on_change="rerun")
    with box:
        yield bool(box.open)
