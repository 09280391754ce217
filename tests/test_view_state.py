"""The dashboard's view state: one field table, and every page's choices in the URL.

The field table (:data:`ragrecall_core.views.dashboard_state.FIELDS`) is read off
:class:`ViewState`; URL reading and writing, session keys and defaults all come from it.
These tests check the table itself, that a link carrying each page's own choices opens
that page with them applied, that every value-holding widget of every page is either in
the table or named below with the reason it is not view state, and that no page or
app.py spells a view-state session key itself.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from ragrecall_core.views.dashboard_state import (
    FIELDS,
    PAGE_PREFIXES,
    Flag,
    Names,
    OneOf,
    ViewOptions,
    ViewState,
    WholeNumber,
    _field_table,
    from_params,
    to_params,
    view_field,
)
from tests.dashboard_support import ROOT, app, no_exception

FIELD_KEYS = {f.key for f in FIELDS}
# value-holding widgets whose key is deliberately not view state, with the reason
NOT_VIEW_STATE = {
    "side_ws": "the data source: a link must not make the server open another folder",
    "judge_annotator": "who judges, not what is shown: a link must not grade under a name",
    "judge_reason_pick": "part of the grade being entered",
    "judge_reason": "part of the grade being entered",
    "agreement_grade": "part of the resolution being entered",
    "agreement_harmful": "part of the resolution being entered",
    "agreement_reason": "part of the resolution being entered",
    "agreement_resolver": "who resolves, not what is shown",
    "overview_chart": "the headline drawn again as a chart: the same numbers; a link opens the "
    "quicker table",
}
VALUE_WIDGETS = (
    "selectbox",
    "multiselect",
    "slider",
    "select_slider",
    "number_input",
    "toggle",
    "checkbox",
    "radio",
    "text_input",
    "text_area",
    "segmented_control",
    "pills",
)
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


# ---------------------------------------------------------------- the table
def test_the_table_has_every_field_once_with_page_prefixed_keys():
    assert [f.name for f in FIELDS] == [f.name for f in fields(ViewState)]
    assert len({f.param for f in FIELDS}) == len(FIELDS)
    assert len(FIELD_KEYS) == len(FIELDS)
    assert all(f.key.split("_", 1)[0] in PAGE_PREFIXES for f in FIELDS)
    assert all(f.default == getattr(ViewState(), f.name) for f in FIELDS)


def test_a_field_without_a_url_parameter_fails_at_import():
    @dataclass(frozen=True)
    class Loose:
        k: int = view_field(5, "k", "side_k", WholeNumber(1, 10))
        forgotten: str = ""

    with pytest.raises(TypeError, match="forgotten"):
        _field_table(Loose)


def test_two_fields_sharing_a_url_parameter_fail_at_import():
    @dataclass(frozen=True)
    class Twice:
        a: str = view_field("", "q", "queries_a")
        b: str = view_field("", "q", "queries_b")

    with pytest.raises(TypeError, match="param"):
        _field_table(Twice)


def _other_value(f):
    """A value of field ``f`` that is not its default (what a user could pick)."""
    if isinstance(f.kind, Names):
        return ("a", "b")
    if isinstance(f.kind, Flag):
        return not f.default
    if isinstance(f.kind, OneOf):
        return next(v for v in f.kind.values if v != f.default)
    if isinstance(f.kind, WholeNumber):
        return f.kind.high if f.default != f.kind.high else f.kind.low
    return "x · y"


def test_every_field_round_trips_through_the_url():
    state = ViewState(**{f.name: _other_value(f) for f in FIELDS})
    params = to_params(state)
    assert set(params) == {f.param for f in FIELDS}
    assert from_params(params) == state
    assert to_params(ViewState()) == {}


def test_fit_keeps_page_choices_within_the_workspace():
    options = ViewOptions(runs=("bm25", "dense"), k_choices=(1, 5, 10, 20))
    state = ViewState(
        k=20, pool_runs=("gone", "dense"), pool_depth=3, max_false_confidence=23, group_by=None
    ).fit(options)
    assert state.pool_runs == ("dense",)
    assert state.pool_depth == 20  # a pool never shallower than k
    assert state.max_false_confidence == 25  # on the slider's 5 % steps
    assert state.group_by == "failure_class"  # a deselected control keeps the default
    assert ViewState(pool_runs=("gone",)).fit(options).pool_runs == ("bm25", "dense")


# ---------------------------------------------------------------- links open pages as given
def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def two_disagreements(folder: Path) -> Path:
    """anna and boris disagree on chunks Y and Z of q1 (so the Agreement page has a choice)."""
    write_jsonl(folder / "gold.jsonl", [{"id": "q1", "query": "q", "relevant_ids": ["A"]}])
    retrieved = [{"chunk_id": c, "rank": i + 1, "score": 1 - i / 10} for i, c in enumerate("AYZ")]
    write_jsonl(folder / "runs" / "r.jsonl", [{"id": "q1", "retrieved": retrieved}])
    for name, grades in (("anna", {"Y": 2, "Z": 2}), ("boris", {"Y": 0, "Z": 1})):
        rows = [{"query_id": "q1", "chunk_id": c, "grade": g} for c, g in grades.items()]
        write_jsonl(folder / "grades" / f"{name}.jsonl", rows)
    return folder


def open_page(page: str, params: dict, monkeypatch, workspace: Path | None = None):
    """The page as a copied link opens it: the URL read on the session's first run."""
    at = app(workspace, monkeypatch, params=params).switch_page(page).run()
    no_exception(at)
    return at


def test_a_link_opens_the_judge_page_with_its_runs_and_depth(monkeypatch):
    at = open_page("pages/judge.py", {"jrun": "bm25", "depth": "30"}, monkeypatch)
    assert at.multiselect(key="judge_runs").value == ["bm25"]
    assert at.number_input(key="judge_depth").value == 30
    at.multiselect(key="judge_runs").set_value(["bm25", "hybrid-rrf"]).run()
    assert at.query_params["jrun"] == ["bm25", "hybrid-rrf"]
    assert at.query_params["depth"] in ("30", ["30"])


def test_a_link_opens_the_compare_page_with_its_pair_query_and_measure(monkeypatch):
    params = {"base": "dense-minilm", "cand": "bm25", "cq": "q042", "gm": "MRR@5"}
    at = open_page("pages/compare.py", params, monkeypatch)
    assert at.selectbox(key="compare_base").value == "dense-minilm"
    assert at.selectbox(key="compare_cand").value == "bm25"
    assert [s.value for s in at.subheader if "q042" in s.value]
    # the deltas by group are in a box sent only while open: the link's measure waits there
    at.session_state["compare_by_group_open"] = True
    at.run()
    assert at.selectbox(key="compare_group_measure").value == "MRR@5"


def test_a_link_opens_the_compare_page_on_its_outcome_list(monkeypatch):
    at = open_page("pages/compare.py", {"list": "still_failing"}, monkeypatch)
    assert at.button_group(key="compare_list").value == "still_failing"
    lists = {"compare_regressions", "compare_improvements", "compare_still_failing"}
    assert [d.key for d in at.dataframe if d.key in lists] == ["compare_still_failing"]
    at.button_group(key="compare_list").set_value("improvements").run()
    no_exception(at)
    assert at.query_params["list"] in ("improvements", ["improvements"])
    at.button_group(key="compare_list").set_value("regressions").run()
    assert "list" not in at.query_params  # the default is left out of the link


def test_a_link_opens_the_queries_page_on_its_query(monkeypatch):
    at = open_page("pages/queries.py", {"q": "q042", "focus": "dense-minilm"}, monkeypatch)
    assert [s.value for s in at.subheader] == ["Query q042 · run dense-minilm"]


def test_a_link_opens_the_failures_page_grouped_as_given(monkeypatch):
    at = open_page("pages/failures.py", {"by": "section"}, monkeypatch)
    assert at.segmented_control(key="failures_by").value == "section"


def test_deselecting_the_grouping_falls_back_to_the_default(monkeypatch):
    at = open_page("pages/failures.py", {"by": "section"}, monkeypatch)
    at.segmented_control(key="failures_by").set_value(None).run()
    no_exception(at)
    assert at.segmented_control(key="failures_by").value == "failure_class"
    assert "by" not in at.query_params


def test_a_link_opens_the_queries_of_a_rank_bin(monkeypatch):
    at = open_page(
        "pages/queries.py", {"bin": "1", "focus": "bm25", "from": "rank_bin"}, monkeypatch
    )
    shown = at.dataframe(key="queries_table").value
    assert len(shown) and (shown["first rank"] == "1").all()
    assert any("Opened from Ranks" in i.value for i in at.info)


def test_a_link_opens_the_no_answer_page_with_its_trade_off(monkeypatch):
    at = open_page("pages/no_answer.py", {"fc": "23"}, monkeypatch)
    assert at.slider(key="noans_fc").value == 25  # put on the slider's steps


def test_a_link_opens_the_agreement_page_on_its_disagreement(tmp_path, monkeypatch):
    folder = two_disagreements(tmp_path / "ws")
    at = open_page("pages/agreement.py", {"pick": "q1 · Z"}, monkeypatch, folder)
    assert at.selectbox(key="agreement_pick").value == "q1 · Z"
    assert at.session_state["agreement_review_open"]  # a link's disagreement is read at once
    assert [b.key for b in at.button if b.key == "agreement_record"] == ["agreement_record"]
    at.selectbox(key="agreement_pick").select("q1 · Y").run()
    assert at.query_params["pick"] in ("q1 · Y", ["q1 · Y"])


# ---------------------------------------------------------------- every widget accounted for
def widget_keys(at) -> set[str]:
    """Keys of the value-holding widgets the page drew (main area and sidebar)."""
    return {w.key for kind in VALUE_WIDGETS for w in getattr(at, kind) if w.key}


@pytest.mark.parametrize("page", PAGES)
def test_every_widget_that_holds_a_choice_is_view_state(page, tmp_path, monkeypatch):
    workspace = two_disagreements(tmp_path / "ws") if page.endswith("agreement.py") else None
    at = open_page(page, {}, monkeypatch, workspace)
    if page.endswith("judge.py"):  # the judging widgets appear once a name is given
        at.text_input(key="judge_annotator").input("anna").run()
    if page.endswith("agreement.py"):  # the resolution form is drawn while its box is open
        at.session_state["agreement_review_open"] = True
        at.run()
    keys = widget_keys(at)
    assert {"side_runs", "side_k", "side_rel"} <= keys  # the sidebar is read too
    assert keys - FIELD_KEYS - set(NOT_VIEW_STATE) == set()


def session_key_literals(path: Path) -> list[str]:
    """String constants in ``path`` that spell a view-state session key."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in FIELD_KEYS
    ]


@pytest.mark.parametrize("path", ["app.py", *PAGES])
def test_no_page_spells_a_view_state_key(path):
    assert session_key_literals(ROOT / path) == []
