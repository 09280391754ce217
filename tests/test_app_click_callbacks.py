"""AppTest: a Failures bar or group row and a Ranks bar switch to Queries from their widget's
callback, before the page's script runs again (issue 30: one run per click, not two). One
contract, every path: the callback's Queries (its URL, its rows) equals the one the page's own
:func:`follow_click` opens for the same selection, and the page it left is not run again.

The browser sends a chart's click or a table's selection as a widget state; AppTest has no
browser to click in, so these tests send that widget state as the browser does (a table's
selection as JSON under its id; a chart's click, ragrecall_app.chart, as a trigger payload
under its events widget's id): streamlit then runs the widget's callback first, as it does
for the browser's click. The page path is the one AppTest takes when the selection is written
into the session state (no callback runs)."""

from __future__ import annotations

import json

import pytest
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.runtime.pages_manager import PagesManager

from ragrecall_app import context, failures, ranks
from tests.dashboard_support import app, no_exception, samples_workspace, titles
from tests.samples import samples_copy

NEVER = "never retrieved"
FAILURES_BAR = {"points": [{"curve_number": 0, "y": NEVER, "x": 5, "customdata": ["bm25", NEVER]}]}
RANKS_BAR = {"points": [{"curve_number": 0, "x": "2-3", "customdata": ["dense-minilm", "2-3"]}]}
GROUP_ROW = {"rows": [3], "columns": [], "cells": []}
CHARTS = ("failures_chart", "ranks_hist")  # ragrecall_app.chart's elements; the rest tables


@pytest.fixture
def samples(tmp_path, monkeypatch):
    return samples_workspace(tmp_path, monkeypatch)


@pytest.fixture
def followed(monkeypatch):
    """The pages whose follow_click ran, in order (the callback calls it too), and "run"
    for each script run (app.py's first call)."""
    ran: list[str] = []
    original_began = context.script_began
    monkeypatch.setattr(context, "script_began", lambda: (ran.append("run"), original_began()))
    for name, module in (("failures", failures), ("ranks", ranks)):
        original = module.follow_click

        def counting(ctx, shown, original=original, name=name):
            ran.append(name)
            return original(ctx, shown)

        monkeypatch.setattr(module, "follow_click", counting)
    return ran


def element_id(at, key: str) -> str:
    """The id of the chart or table drawn under ``key`` (what the browser's state names)."""
    found = [e for e in at.main if getattr(e, "key", None) == key]
    assert len(found) == 1, key
    return found[0].proto.id


def send_selection(at, key: str, selection: dict, monkeypatch):
    """Rerun as the browser does after a click: the widget's new value in the widget
    states (streamlit runs its callback before the script). A server's session keeps one
    page registry across its runs, which a callback's page switch reads; AppTest starts a
    new one each run, so it is given the pages of the last."""
    registered = dict(at._registered_pages)
    original = PagesManager.__init__

    def with_pages(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._pages = dict(registered)

    monkeypatch.setattr(PagesManager, "__init__", with_pages)
    states = at._tree.get_widget_states()
    state = states.widgets.add()
    element = element_id(at, key)
    if key in CHARTS:  # a chart's click is a trigger: its events widget, one payload each
        state.id = _make_trigger_id(element, "events")
        state.json_trigger_value = json.dumps([{"event": "selection", "value": selection}])
    else:
        state.id = element
        state.string_value = json.dumps({"selection": selection})
    return at._run(states)


def with_sidebar(at):
    """The sidebar's view changed from its defaults (k, a filter, a toggle), two runs
    before the click: the Queries opened must keep it."""
    at.pills(key="side_k").select(10).run()
    at.pills(key="side_type").select("paraphrase").run()
    return at.toggle(key="side_present").set_value(True).run()


def shown(at) -> tuple:
    """What Queries shows: its title, the URL and the table's rows."""
    no_exception(at)
    params = {k: at.query_params[k] for k in sorted(at.query_params)}
    return titles(at), params, at.dataframe(key="queries_table").value.to_dict("list")


@pytest.mark.parametrize(
    ("page", "key", "selection", "param"),
    [
        ("pages/failures.py", "failures_chart", FAILURES_BAR, "fclass"),
        ("pages/failures.py", "failures_groups", GROUP_ROW, "fclass"),
        ("pages/ranks.py", "ranks_hist", RANKS_BAR, "bin"),
    ],
)
def test_a_click_switches_from_its_callback_as_the_page_would(
    samples, followed, monkeypatch, page, key, selection, param
):
    by_page = with_sidebar(app().switch_page(page).run())
    by_page.session_state[key] = {"selection": selection}
    expected = shown(by_page.run())
    assert expected[0] == ["Queries"] and param in expected[1]
    assert expected[1]["k"] == "10" and expected[1]["type"] == "paraphrase"

    by_callback = with_sidebar(app().switch_page(page).run())
    followed.clear()
    got = shown(send_selection(by_callback, key, selection, monkeypatch))
    assert got == expected
    # the callback opened Queries, then one run drew it: the page it left was not run
    # again (a click without the callback runs it, and its follow_click switches)
    assert followed == [page.removeprefix("pages/").removesuffix(".py"), "run"]


def test_a_click_keeps_the_workspace_folder_typed_in(tmp_path, monkeypatch):
    """A folder typed into the sidebar stays open through a click that switches page from
    its callback: the switch drops every widget value the script did not write, and the
    folder field going back to the launch workspace would show another workspace's
    numbers."""
    at = app(monkeypatch=monkeypatch)  # the launch workspace: the shared copy
    typed = samples_copy(tmp_path / "typed")
    at.text_input(key=context.FOLDER_KEY).input(str(typed)).run()
    at.switch_page("pages/failures.py").run()
    no_exception(at)
    at = send_selection(at, "failures_chart", FAILURES_BAR, monkeypatch)
    no_exception(at)
    assert titles(at)[0] == "Queries"
    assert at.text_input(key=context.FOLDER_KEY).value == str(typed)
    shown = [c.value.replace("\\", "") for c in at.sidebar.get("caption")]
    assert "Workspace: " + str(typed) in shown
