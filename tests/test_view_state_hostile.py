"""A link's values the open workspace does not have (stop 44's outside attacks).

A value of the right kind that this workspace lacks (a run spelled in another case, a
section of another workspace, a cutoff its lists do not reach) is refused with a line
that names it, like a value of the wrong kind: never a silent switch to another view
(another pair, every section), never a traceback. The lines show the value as literal
text. Values kept across a page switch (``KEPT_VIEW``) that a newly opened workspace
lacks are fitted to it, without a crash."""

from __future__ import annotations

import shutil

import pytest

from ragrecall_app import context
from ragrecall_core.views.dashboard_state import (
    ViewOptions,
    ViewState,
    from_params,
    read_params,
    to_params,
    unfitted,
)
from tests.dashboard_support import app, no_exception, trec_workspace, unescaped_text
from tests.samples import samples_copy
from tests.test_view_state import two_disagreements

OPTIONS = ViewOptions(
    runs=("bm25", "dense"), k_choices=(1, 5, 10, 20), sections=("intro", "faq"), judges=()
)


def warnings(at) -> list[str]:
    return [unescaped_text(w.value) for w in at.warning]


@pytest.mark.parametrize(
    ("params", "param", "value"),
    [
        ({"base": "BM25"}, "base", "BM25"),  # another case
        ({"cand": "bm25 "}, "cand", "bm25 "),  # a trailing space
        ({"run": ["bm25", "ｂｍ２５"]}, "run", "ｂｍ２５"),  # NFKC would make it bm25
        ({"focus": "nope"}, "focus", "nope"),
        ({"jrun": "nope"}, "jrun", "nope"),
        ({"k": "7"}, "k", "7"),
        ({"k": "9999"}, "k", "9999"),
        ({"section": "<b>x</b> **y**"}, "section", "<b>x</b> **y**"),
        ({"type": "[a](javascript:alert(1))"}, "type", "[a](javascript:alert(1))"),
        ({"split": "Test"}, "split", "Test"),
        ({"judge": "judge:gpt"}, "judge", "judge:gpt"),
        ({"fc": "23"}, "fc", "23"),
    ],
)
def test_a_value_the_workspace_lacks_is_refused_in_a_line(params, param, value, monkeypatch):
    at = app(None, monkeypatch, params=params)
    no_exception(at)
    lines = [w for w in warnings(at) if w.startswith(f"URL parameter {param}: ")]
    assert len(lines) == 1, warnings(at)
    assert repr(value) in lines[0]  # the value as it came, literal


def test_the_line_renders_markup_as_text(monkeypatch):
    at = app(None, monkeypatch, params={"section": "<b>x</b> **y**"})
    line = next(w for w in at.warning if "URL parameter section" in w.value)
    # escaped for Markdown: no tag and no emphasis survives as markup
    assert "<b>" not in line.value and "**" not in line.value
    assert "'<b>x</b> **y**'" in unescaped_text(line.value)


def test_a_link_within_the_workspace_gets_no_line(monkeypatch):
    params = {"base": "bm25", "cand": "dense-minilm", "run": "bm25", "k": "10", "fc": "25"}
    at = app(None, monkeypatch, params=params)
    no_exception(at)
    assert not [w for w in warnings(at) if w.startswith("URL parameter")]


def test_thousands_of_unknown_names_make_one_line(monkeypatch):
    names = ",".join(f"r{i}" for i in range(3000))
    at = app(None, monkeypatch, params={"run": names})
    no_exception(at)
    lines = [w for w in warnings(at) if w.startswith("URL parameter run: ")]
    assert len(lines) == 1 and "(3,000 names)" in lines[0] and len(lines[0]) < 400


def test_a_single_value_given_twice_is_refused():
    state, refused = read_params({"k": ["10", "20"], "run": ["bm25", "dense"]})
    assert state.k == ViewState().k and state.runs == ("bm25", "dense")
    assert refused == [
        "URL parameter k: given 2 times ('10', '20'), expected one value; using the default (5)"
    ]


def test_unfitted_names_each_value_left_out_and_what_is_shown():
    asked = ViewState(runs=("bm25", "BM25"), baseline="Dense", k=7, section="other")
    assert unfitted(asked, OPTIONS) == [
        "URL parameter run: 'BM25', expected a run of this workspace (bm25, dense); left out",
        "URL parameter k: '7', expected a cutoff this workspace offers (1, 5, 10, 20); using 5",
        "URL parameter section: 'other', expected a corpus section of this workspace "
        "(intro, faq); using all",
        "URL parameter base: 'Dense', expected a run of this workspace (bm25, dense); using 'bm25'",
    ]
    assert unfitted(ViewState(), OPTIONS) == []
    assert unfitted(asked.fit(OPTIONS), OPTIONS) == []  # a fitted view has nothing left


# ---------------------------------------------------------------- kept across a switch
def test_kept_values_of_another_workspace_are_fitted_to_the_new_one(tmp_path, monkeypatch):
    """Compare's pair is kept (KEPT_VIEW) while Ranks is shown and its widgets dropped;
    the folder typed in then opens a workspace of one run: Compare says it needs two runs,
    the Queries page shows that run, and nothing crashes."""
    at = app(None, monkeypatch, params={"base": "hybrid-rrf", "cand": "bm25", "jrun": "bm25"})
    at.switch_page("pages/compare.py").run()
    at.switch_page("pages/ranks.py").run()
    for key in ("compare_base", "compare_cand", "judge_runs"):  # as a browser drops them
        del at.session_state[key]
    assert at.session_state[context.KEPT_VIEW]["baseline"] == "hybrid-rrf"
    trec = trec_workspace(tmp_path / "trec")
    at.text_input(key=context.FOLDER_KEY).input(str(trec)).run()
    no_exception(at)
    for page in ("pages/compare.py", "pages/judge.py", "pages/queries.py", "pages/ranks.py"):
        at.switch_page(page).run()
        no_exception(at)
        assert at.session_state["compare_base"] == "results.comment"
        assert at.session_state["side_runs"] == ["results.comment"]
        assert "base" not in at.query_params and "jrun" not in at.query_params


# ---------------------------------------------------------------- a page's own picks
def test_a_linked_disagreement_not_listed_is_named_not_replaced(tmp_path, monkeypatch):
    """?pick= names a disagreement this view does not list: the page says so and opens no
    reading (it opened the first disagreement's, with its resolution form, as if linked)."""
    folder = two_disagreements(tmp_path / "ws")
    at = app(folder, monkeypatch, params={"pick": "q9 · <b>Z</b>"})
    at.switch_page("pages/agreement.py").run()
    no_exception(at)
    said = [w for w in warnings(at) if "q9 · <b>Z</b>" in w]
    assert len(said) == 1 and "not among" in said[0], warnings(at)
    assert not at.session_state["agreement_review_open"]
    assert "pick" not in at.query_params


def test_a_linked_measure_the_comparison_lacks_is_named(monkeypatch):
    at = app(None, monkeypatch, params={"gm": "nDCG@**7**"})
    at.switch_page("pages/compare.py").run()
    at.session_state["compare_by_group_open"] = True
    at.run()
    no_exception(at)
    said = [w for w in warnings(at) if "nDCG@**7**" in w]
    assert len(said) == 1 and "not among" in said[0], warnings(at)
    assert "gm" not in at.query_params
    assert (
        at.selectbox(key="compare_group_measure").value
        == at.selectbox(key="compare_group_measure").options[0]
    )


# ---------------------------------------------------------------- a run named with a comma
def test_a_run_named_with_a_comma_round_trips_through_a_link(tmp_path, monkeypatch):
    """A run file ``a,b.jsonl`` is run ``a,b`` (an id is the text the file holds): a link
    the sidebar wrote for it (``run=a,b``) opens it, not runs ``a`` and ``b``; commas
    between names the workspace has still separate them."""
    folder = samples_copy(tmp_path / "ws")
    shutil.copy(folder / "runs" / "bm25.jsonl", folder / "runs" / "a,b.jsonl")
    options = ViewOptions(runs=("a,b", "bm25", "dense-minilm"))
    assert from_params(to_params(ViewState(runs=("a,b",)))).fit(options).runs == ("a,b",)
    assert from_params({"run": "bm25,dense-minilm"}).fit(options).runs == ("bm25", "dense-minilm")
    assert unfitted(from_params({"run": "a,b"}), options) == []
    at = app(folder, monkeypatch, params={"run": "a,b", "jrun": ["a,b", "bm25"]})
    no_exception(at)
    assert at.session_state["side_runs"] == ["a,b"]
    assert not [w for w in warnings(at) if w.startswith("URL parameter")], warnings(at)
    at.switch_page("pages/judge.py").run()
    assert at.session_state["judge_runs"] == ["a,b", "bm25"]
