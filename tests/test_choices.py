"""The sidebar's choices: pills for a few options, a drop-down for many, one value either way."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragrecall_app.choices import MOST_PILLS


def choices_script(count: int) -> None:
    import streamlit as st

    from ragrecall_app.choices import pick_many, pick_one

    options = [f"section-{i}" for i in range(count)]
    st.session_state.setdefault("one", options[-1])
    st.session_state.setdefault("many", options[:2])
    pick_one("One", options, key="one")
    pick_many("Many", options, key="many")


def run(count: int) -> AppTest:
    at = AppTest.from_function(choices_script, args=(count,))
    return at.run()


@pytest.mark.parametrize("count", [1, MOST_PILLS])
def test_a_few_options_are_pills_holding_the_sessions_values(count):
    at = run(count)
    assert not at.exception
    assert not at.selectbox and not at.multiselect
    assert at.pills(key="one").value == f"section-{count - 1}"
    assert at.pills(key="one").proto.required  # clicked again, a pill stays picked
    assert at.pills(key="many").value == [f"section-{i}" for i in range(min(count, 2))]
    at.pills(key="one").set_value("section-0").run()
    assert at.session_state["one"] == "section-0"


def test_more_options_than_pills_are_drop_downs_holding_the_same_values():
    count = MOST_PILLS + 1
    at = run(count)
    assert not at.exception
    assert not at.pills
    assert at.selectbox(key="one").value == f"section-{count - 1}"
    assert at.multiselect(key="many").value == ["section-0", "section-1"]
    at.selectbox(key="one").set_value("section-0").run()
    assert at.session_state["one"] == "section-0"


MARKDOWN_NAMES = ("**bold**", "[x](javascript:alert(1))", ":material/home:", "$x^2$", "<b>b</b>")


def markdown_workspace(folder):
    """A workspace whose sections, query types, splits and a run's name are Markdown."""
    import json

    (folder / "runs").mkdir(parents=True)
    gold = [
        {
            "id": f"q{i}",
            "query": "question",
            "relevant_ids": [f"doc#{i}"],
            "section": name,
            "query_type": name,
            "split": name,
        }
        for i, name in enumerate(MARKDOWN_NAMES)
    ]
    run = [
        {"id": f"q{i}", "retrieved": [{"chunk_id": f"doc#{i}", "rank": 1, "score": 1.0}]}
        for i in range(len(MARKDOWN_NAMES))
    ]
    (folder / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (folder / "runs" / "**run**.jsonl").write_text("".join(json.dumps(r) + "\n" for r in run))
    return folder


def test_no_name_from_a_file_is_read_as_markdown_on_a_pill(tmp_path, monkeypatch):
    from ragrecall_app.render import escape_markdown
    from tests.dashboard_support import app, no_exception

    at = app(markdown_workspace(tmp_path), monkeypatch)
    no_exception(at)
    for key in ("side_section", "side_type", "side_split"):
        shown = [option.content for option in at.pills(key=key).proto.options]
        assert shown[0] == "all", key
        assert sorted(shown[1:]) == sorted(escape_markdown(n) for n in MARKDOWN_NAMES), key
    for key in ("side_runs", "side_focus"):
        shown = [option.content for option in at.pills(key=key).proto.options]
        assert shown == [escape_markdown("**run**")], key
