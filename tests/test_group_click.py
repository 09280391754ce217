"""The rule a Failures bar or group and a Ranks bar share (ragrecall_app/group_click.py): the
group clicked becomes the Queries page's one group filter, whichever page set the one before,
and ``opened_from`` names it for the banner there."""

from __future__ import annotations

import pytest

from ragrecall_app.group_click import opening
from tests.dashboard_support import app, no_exception, titles
from tests.test_app_failures import click_bar as failures_bar
from tests.test_app_ranks import click as ranks_bar

FAILURES = "pages/failures.py"
RANKS = "pages/ranks.py"


@pytest.mark.parametrize(
    ("cleared", "field", "value", "expected"),
    [
        # nothing set before: the field and where it came from
        ({}, "rank_bin", "2-3", {"opened_from": "rank_bin", "rank_bin": "2-3"}),
        # an earlier group's filter undone, the new one set
        (
            {"failure_class": "", "opened_from": ""},
            "rank_bin",
            "1",
            {"failure_class": "", "opened_from": "rank_bin", "rank_bin": "1"},
        ),
        # the same field set again: the new value, not the cleared one
        (
            {"section": "", "opened_from": ""},
            "section",
            "hr",
            {"section": "hr", "opened_from": "section"},
        ),
    ],
)
def test_opening_replaces_the_earlier_group(cleared, field, value, expected):
    assert opening(cleared, field, value) == expected


def group_state(at):
    no_exception(at)
    assert titles(at) == ["Queries"]
    return at.session_state["_ragrecall_ctx"].state


def test_a_ranks_bar_replaces_a_failures_group(monkeypatch):
    at = app(monkeypatch=monkeypatch).switch_page(FAILURES).run()
    failures_bar(at, "bm25", "partial")
    assert group_state(at).group_filters() == {"failure_class": "partial"}
    ranks_bar(at.switch_page(RANKS).run(), "bm25", "2-3")
    state = group_state(at)
    assert state.group_filters() == {"rank_bin": "2-3"} and state.opened_from == "rank_bin"
    assert state.focus == "bm25"


def test_a_failures_group_replaces_a_rank_bin(monkeypatch):
    at = ranks_bar(app(monkeypatch=monkeypatch).switch_page(RANKS).run(), "bm25", "1")
    assert group_state(at).group_filters() == {"rank_bin": "1"}
    at.switch_page(FAILURES).run()
    at.session_state["failures_by"] = "section"
    failures_bar(at.run(), "bm25", "hr")
    state = group_state(at)
    assert state.group_filters() == {"section": "hr"} and state.opened_from == "section"
    assert state.failing_only  # a Failures group opens failing queries only; a bin does not
