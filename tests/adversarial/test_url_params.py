"""Crafted dashboard links: a bad URL parameter falls back to its default, never a traceback.

``"²".isdigit()`` is true in Python while ``int("²")`` fails, so ``?k=²`` used to crash
every page; so did ``fc`` and ``rel``. Every field of the URL table is attacked here,
on every page this module's owner keeps, and each refused parameter gets one line that
names it and what was expected.
"""

from __future__ import annotations

import pytest

from ragrecall_core.views.dashboard_state import (
    FIELDS,
    Names,
    Text,
    ViewState,
    from_params,
    read_params,
)
from tests.dashboard_support import EVERY_PAGE, app, no_exception

PAGES = EVERY_PAGE
# parameter -> values that are not what it takes
BAD = {
    "k": ["²", "-1", "abc", "0", "1e3", " 5", "５", "99999999999999999999999"],
    "fc": ["²", "-5", "101", "nan", "abc"],
    "rel": ["²", "0", "3", "abc"],
    "failing": ["maybe", "²"],
    "manual": ["perhaps"],
    "present": ["big", "<style>x</style>"],
    "unit": ["page", "<b>x</b>"],
    "partial": ["half"],
    "harmful": ["ignore"],
    "by": ["nosuch", "[x](https://evil.example)"],
    "rule": ["strict", "[x](https://evil.example)", "²"],
    "depth": ["²", "0", "-3", "abc", "10001"],
    "list": ["regression", "Regressions", "<b>x</b>", "[x](https://evil.example)", "²"],
}
DEFAULTS = ViewState()


def test_every_parameter_that_can_refuse_a_value_is_attacked():
    refusing = {f.param for f in FIELDS if type(f.kind) not in (Text, Names)}
    assert refusing == set(BAD)


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, vs in BAD.items() for v in vs])
def test_a_bad_parameter_falls_back_and_is_named(key, value):
    state, refused = read_params({key: [value]})
    (name,) = [f.name for f in FIELDS if f.param == key]
    assert getattr(state, name) == getattr(DEFAULTS, name)
    assert len(refused) == 1
    assert refused[0].startswith(f"URL parameter {key}: ")
    assert "expected" in refused[0]
    assert from_params({key: [value]}) == state


def test_good_values_are_kept_and_not_refused():
    params = {"k": ["10"], "fc": ["0"], "rel": ["2"], "failing": ["no"], "unit": ["doc"]}
    state, refused = read_params(params)
    assert (state.k, state.max_false_confidence, state.rel_level) == (10, 0, 2)
    assert (state.failing_only, state.unit) == (False, "doc")
    assert refused == []


def test_every_refusal_is_reported_at_once_and_the_value_is_cut():
    long = "x" * 500
    _state, refused = read_params({"k": ["abc"], "fc": ["²"], "unit": [long], "rel": ["9"]})
    assert [line.split(":")[0] for line in refused] == [
        "URL parameter k",  # in the order of the URL table
        "URL parameter fc",
        "URL parameter rel",
        "URL parameter unit",
    ]
    assert all(len(line) < 300 for line in refused)


def test_free_text_parameters_are_kept_as_data():
    state, refused = read_params({"q": ["<script>x</script>"], "run": ["a,b"], "split": ["²"]})
    # a list is read whole: fit splits it at commas only when it names no run (a run may
    # be named a,b: tests/test_view_state_hostile.py)
    assert (state.query_id, state.runs, state.split) == ("<script>x</script>", ("a,b",), "²")
    assert refused == []


@pytest.mark.parametrize("page_script", PAGES)
def test_no_page_shows_a_traceback_for_crafted_parameters(page_script, monkeypatch):
    params = {key: values[0] for key, values in BAD.items()}
    at = app(monkeypatch=monkeypatch, params=params).switch_page(page_script).run()
    no_exception(at)
    assert at.session_state["side_k"] == DEFAULTS.k
    assert at.session_state["side_rel"] == DEFAULTS.rel_level


@pytest.mark.parametrize("key", ["k", "fc", "rel"])
def test_superscript_two_no_longer_crashes_the_overview(key, monkeypatch):
    at = app(monkeypatch=monkeypatch, params={key: "²"})
    no_exception(at)
    assert [t.value for t in at.title] == ["Overview"]


def test_a_refused_parameter_is_named_once_on_the_page(monkeypatch):
    at = app(monkeypatch=monkeypatch, params={"k": "²"})
    warnings = [w.value for w in at.warning if "URL parameter k" in w.value]
    assert len(warnings) == 1
    assert "using the default" in warnings[0]
    at.run()  # the next rerun does not repeat it
    assert not [w for w in at.warning if "URL parameter" in w.value]
