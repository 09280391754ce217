"""A lazy box (:func:`ragrecall_app.lazy.lazy_box`) draws its content only while it is open,
and opening it from code (its key in the session state) draws it on the next run."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page() -> None:
    import streamlit as st

    from ragrecall_app.lazy import lazy_box

    with lazy_box("Details", "details_open") as is_open:
        if is_open:
            st.text("the content")
    st.text("after the box")


def test_a_closed_box_sends_its_title_only_and_an_opened_one_its_content():
    at = AppTest.from_function(_page, default_timeout=30).run()
    assert not at.exception
    assert [e.label for e in at.expander] == ["Details"]
    assert [t.value for t in at.text] == ["after the box"]
    at.session_state["details_open"] = True
    at.run()
    assert not at.exception
    assert [t.value for t in at.expander[0].text] == ["the content"]
    assert [t.value for t in at.text] == ["the content", "after the box"]
    at.session_state["details_open"] = False
    at.run()
    assert [t.value for t in at.text] == ["after the box"]
