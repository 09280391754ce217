"""AppTest: the Failures page; an injected bar click opens the filtered Queries page."""

import pytest

from tests.dashboard_support import (
    app,
    charts,
    figures,
    no_exception,
    titles,
    trec_workspace,
)
from tests.plain_scores import failing
from tests.samples import samples_copy
from tests.test_app_queries import bm25_failing

PAGE = "pages/failures.py"


@pytest.fixture
def at(monkeypatch):
    return app(monkeypatch=monkeypatch).switch_page(PAGE).run()


def figure(at, index=0):
    return figures(at)[index]


def test_renders_with_counts_and_rates(at):
    no_exception(at)
    assert titles(at) == ["Failures"]
    groups = at.dataframe(key="failures_groups").value
    bm25 = groups[groups.run == "bm25"]
    assert bm25["failing"].sum() == bm25_failing()
    assert set(bm25["queries"]) == {129}
    assert (groups["rate"] == groups["failing"] / groups["queries"]).all()


@pytest.mark.parametrize("dimension", ["query_type", "section", "doc_length", "reason"])
def test_every_dimension_renders(at, dimension):
    at.session_state["failures_by"] = dimension
    at.run()
    no_exception(at)
    assert len(at.dataframe(key="failures_groups").value) > 0


def test_bar_click_opens_filtered_queries(at):
    at.session_state["failures_chart"] = {
        "selection": {
            "points": [
                {
                    "curve_number": 0,
                    "y": "never retrieved",
                    "x": 5,
                    "customdata": ["bm25", "never retrieved"],
                }
            ]
        }
    }
    at.run()
    no_exception(at)
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert len(table) > 0 and set(table["failure class"]) == {"never retrieved"}
    assert at.query_params["fclass"] in ("never retrieved", ["never retrieved"])


def test_section_group_row_opens_queries(at):
    at.session_state["failures_by"] = "section"
    at.run()
    groups = at.dataframe(key="failures_groups").value
    row = int(groups.index[(groups.run == "bm25") & (groups["corpus section"] == "hr")][0])
    at.session_state["failures_groups"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert titles(at) == ["Queries"]
    table = at.dataframe(key="queries_table").value
    assert set(table["section"]) == {"hr"} and set(table["status"]) == {"✗ FAIL"}


def test_trec_data(tmp_path, monkeypatch):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    no_exception(at)
    assert titles(at) == ["Failures"]
    assert "RecallCap@5 = 1" in " ".join(c.value for c in at.caption)
    groups = at.dataframe(key="failures_groups").value
    # under the default rule some TREC topics pass: not every answerable query fails
    assert 0 < groups["failing"].sum() < 30


@pytest.mark.parametrize(
    ("dimension", "enabler"),
    [("section", "add `section` to the gold or a corpus"), ("reason", "reviewers' grades")],
)
def test_a_dimension_the_data_lacks_is_one_line_not_a_not_given_bar(
    tmp_path, monkeypatch, dimension, enabler
):
    at = app(trec_workspace(tmp_path), monkeypatch).switch_page(PAGE).run()
    at.session_state["failures_by"] = dimension
    at.run()
    no_exception(at)
    assert not charts(at) and not at.dataframe
    assert any(enabler in i.value for i in at.info)


def test_the_sidebar_rule_changes_what_fails(at):
    at.session_state["side_rule"] = "hit"
    at.run()
    no_exception(at)
    groups = at.dataframe(key="failures_groups").value
    bm25 = groups[groups.run == "bm25"]
    # under Hit@5 = 1 only the queries without any relevant chunk in bm25's top 5 fail:
    # 24 (tests/plain_scores.py, from the raw files), fewer than Recall@5's 29
    assert bm25["failing"].sum() == len(failing("bm25", 5, "Hit")) == 24 < bm25_failing()
    assert at.query_params["rule"] in ("hit", ["hit"])
    assert "Hit@5 = 1" in " ".join(c.value for c in at.caption)


# --- the meeting's verdicts as a grouping; one behaviour for every bar click ----------
@pytest.fixture
def meeting(tmp_path, monkeypatch):
    """The Failures page on a copy of data_samples (verdicts are written to its store)."""
    folder = tmp_path / "ws"
    samples_copy(folder)
    return app(folder, monkeypatch).switch_page(PAGE).run()


def failing_bm25(at) -> list[str]:
    rows = at.session_state["_ragrecall_ctx"].rows(runs=["bm25"], failing=True)
    return sorted(rows.loc[rows["relevant"] > 0, "query_id"])


def click_bar(at, run: str, group: str) -> None:
    point = {"curve_number": 0, "y": group, "x": 1, "customdata": [run, group]}
    at.session_state["failures_chart"] = {"selection": {"points": [point]}}
    at.run()


def test_meeting_reason_groups_failing_queries_and_the_rest_wait(meeting):
    first, second = failing_bm25(meeting)[:2]
    ctx = meeting.session_state["_ragrecall_ctx"]
    ctx.record_verdict("bm25", first, "paraphrase", note="asks in other words", by="dora")
    ctx.record_verdict("bm25", second, "chunk boundary")
    meeting.session_state["failures_by"] = "verdict"
    meeting.run()
    no_exception(meeting)
    groups = meeting.dataframe(key="failures_groups").value
    bm25 = groups[groups.run == "bm25"].set_index("meeting reason")
    assert bm25.loc["paraphrase", "failing"] == 1 and bm25.loc["chunk boundary", "failing"] == 1
    assert bm25.loc["no verdict yet", "failing"] == bm25_failing() - 2
    assert set(bm25["queries"]) == {129}
    assert meeting.query_params["by"] in ("verdict", ["verdict"])


def test_a_verdict_bar_opens_its_queries_with_the_filter_named(meeting):
    first = failing_bm25(meeting)[0]
    meeting.session_state["_ragrecall_ctx"].record_verdict("bm25", first, "other")
    meeting.session_state["failures_by"] = "verdict"
    meeting.run()
    click_bar(meeting, "bm25", "other")
    no_exception(meeting)
    assert titles(meeting) == ["Queries"]
    assert meeting.dataframe(key="queries_table").value["query_id"].tolist() == [first]
    assert meeting.query_params["verdict"] in ("other", ["other"])
    assert any("Failures: verdict = other" in i.value.replace("\\", "") for i in meeting.info)


def test_the_no_verdict_yet_bar_opens_the_queries_still_waiting(meeting):
    first = failing_bm25(meeting)[0]
    meeting.session_state["_ragrecall_ctx"].record_verdict("bm25", first, "other")
    meeting.session_state["failures_by"] = "verdict"
    meeting.run()
    click_bar(meeting, "bm25", "no verdict yet")
    no_exception(meeting)
    shown = meeting.dataframe(key="queries_table").value["query_id"]
    assert first not in set(shown) and len(shown) == bm25_failing() - 1


@pytest.mark.parametrize(
    ("dimension", "group", "field"),
    [("query_type", "paraphrase", "query_type"), ("section", "hr", "section")],
)
def test_a_sidebar_grouping_bar_is_named_as_opened_from_failures(at, dimension, group, field):
    at.session_state["failures_by"] = dimension
    at.run()
    click_bar(at, "bm25", group)
    no_exception(at)
    assert titles(at) == ["Queries"]
    state = at.session_state["_ragrecall_ctx"].state
    assert state.group_filters() == {field: group}  # what the Queries banner names
    assert at.query_params["from"] in (field, [field])
    table = at.dataframe(key="queries_table").value
    column = "type" if field == "query_type" else "section"
    assert set(table[column]) == {group} and set(table["status"]) == {"✗ FAIL"}
    # the way back clears what the click set, and only that
    assert state.without_group_filters() == {field: "", "opened_from": ""}


def test_a_second_bar_replaces_the_first_groups_filter(at):
    click_bar(at, "bm25", "never retrieved")
    at.switch_page(PAGE).run()
    at.session_state["failures_by"] = "section"
    at.run()
    click_bar(at, "bm25", "hr")
    state = at.session_state["_ragrecall_ctx"].state
    assert state.group_filters() == {"section": "hr"}
    assert state.failure_class == ""
