"""Honest on any data (issue 15): the TREC RAG 2024 segment files opened as loose files
(``ragrecall ui --gold qrels.comment.test --run results.comment.test``), which no one here
prepared: 30 judged topics with >= 9 relevant segments each, one topic judged only
non-relevant, no query text, type, section, corpus or reviewer grades.
"""

from __future__ import annotations

import sys

import pytest

from ragrecall_app.overview_sections import COUNTS_OPEN
from ragrecall_core import Workspace
from ragrecall_core.analysis.query_table import (
    GOLD_LISTS_NONE,
    NONE_JUDGED_RELEVANT,
    build_query_table,
)
from ragrecall_core.views.compare_view import second_run_message
from ragrecall_core.views.failure_groups import DIMENSIONS, missing_dimensions
from ragrecall_core.views.samples import (
    COMPARISON_MINIMUM,
    NO_ANSWER_MINIMUM,
    rate_with_n,
    small_sample_warning,
)
from tests import fixtures_regressions as fx
from tests.dashboard_support import TREC, app, charts, no_exception, titles
from tests.samples import shared_samples

QRELS = TREC / "qrels.comment.test"
RESULTS = TREC / "results.comment.test"
ALL_NON_RELEVANT = "2024-36302"


@pytest.fixture(scope="module")
def trec():
    return Workspace.from_files(QRELS, [RESULTS])


def open_loose(monkeypatch, page: str, params: dict | None = None):
    """The dashboard as ``streamlit run app.py -- --gold QRELS --run RESULTS``."""
    monkeypatch.setattr(sys, "argv", ["app.py", "--gold", str(QRELS), "--run", str(RESULTS)])
    return app(None, monkeypatch, params).switch_page(page).run()


def captions(at) -> str:
    return " ".join(c.value for c in at.caption)


# ---------------------------------------------------------------- no-answer from judgments
def test_a_topic_judged_only_non_relevant_is_a_no_answer_query_saying_why(trec):
    table = build_query_table(trec, 5).table
    row = table[table.query_id == ALL_NON_RELEVANT].iloc[0]
    assert (row.relevant, row.failure_class, bool(row.failing)) == (0, "no answer", False)
    assert row.no_answer_source == NONE_JUDGED_RELEVANT
    assert table.loc[table.relevant > 0, "no_answer_source"].isna().all()


def test_a_gold_query_listing_nothing_says_so():
    table = build_query_table(Workspace.open(shared_samples()), 5).table
    sources = set(table.loc[table.relevant == 0, "no_answer_source"])
    assert sources == {GOLD_LISTS_NONE}


# ---------------------------------------------------------------- what the data lacks
def test_every_grouping_the_trec_files_lack_is_named_with_what_enables_it(trec):
    missing = missing_dimensions(build_query_table(trec, 5).table)
    assert set(missing) == set(DIMENSIONS) - {"failure_class"}
    assert "add `section` to the gold or a corpus" in missing["section"]


def test_data_samples_lacks_no_grouping():
    assert missing_dimensions(build_query_table(Workspace.open(shared_samples()), 5).table) == {}


def test_small_samples_are_said_out_loud():
    assert small_sample_warning(1, NO_ANSWER_MINIMUM, "no-answer queries") is not None
    assert small_sample_warning(NO_ANSWER_MINIMUM, NO_ANSWER_MINIMUM, "no-answer queries") is None
    text = small_sample_warning(19, COMPARISON_MINIMUM, "compared queries", "every delta")
    assert "n = 19" in text and "fewer than 20" in text and "every delta" in text
    assert rate_with_n(2, 5) == "40% (2 / 5)" and rate_with_n(0, 0) == "– (0 / 0)"


def test_the_second_run_message_follows_how_the_data_was_given():
    assert "runs/" in second_run_message(["a"], from_folder=True)
    loose = second_run_message(["a"], from_folder=False)
    assert "--run" in loose and "runs/" not in loose


# ---------------------------------------------------------------- the pages, loose files
def test_queries_page_passes_some_topics_and_labels_the_no_answer_one(monkeypatch):
    at = open_loose(monkeypatch, "pages/queries.py")
    no_exception(at)
    assert titles(at) == ["Queries"]
    shown = at.dataframe(key="queries_table").value
    status = shown["status"].value_counts()
    assert status["✓ ok"] > 0 and status["✗ FAIL"] > 0 and status["– no answer"] == 1
    no_answer = shown[shown.query_id == ALL_NON_RELEVANT].iloc[0]
    assert no_answer["failure class"] == f"no answer ({NONE_JUDGED_RELEVANT})"
    assert "Pass rule: a query passes when RecallCap@5 = 1" in captions(at)
    assert f"{status['✗ FAIL']} of 30 answerable failing" in captions(at)


def test_queries_page_under_the_recall_rule_fails_every_topic(monkeypatch):
    at = open_loose(monkeypatch, "pages/queries.py", {"rule": "recall"})
    no_exception(at)
    status = at.dataframe(key="queries_table").value["status"].value_counts()
    assert status["✗ FAIL"] == 30 and "✓ ok" not in status
    assert "Recall@5 = 1" in captions(at)


def test_failures_page_shows_no_meaningless_chart(monkeypatch):
    at = open_loose(monkeypatch, "pages/failures.py")
    no_exception(at)
    groups = at.dataframe(key="failures_groups").value
    assert "(not given)" not in set(groups["failure class"])
    assert groups["failing"].sum() < 30  # some topics pass under the default rule
    for dimension in ("query_type", "section", "doc_length", "reason"):
        at.session_state["failures_by"] = dimension
        at.run()
        no_exception(at)
        assert not charts(at), dimension
        assert any("in this data" in i.value for i in at.info), dimension


def test_compare_page_asks_for_a_second_run_the_way_the_files_were_given(monkeypatch):
    at = open_loose(monkeypatch, "pages/compare.py")
    assert not at.exception and titles(at) == ["Compare"]
    warnings = " ".join(w.value for w in at.warning)
    assert "needs two runs" in warnings and "--run" in warnings and "runs/" not in warnings


def test_compare_warns_about_a_small_comparison(monkeypatch, tmp_path):
    ws = fx.write_workspace(tmp_path / "ws")
    at = app(ws, monkeypatch).switch_page("pages/compare.py").run()
    no_exception(at)
    assert any("Small sample: n = " in w.value for w in at.warning)


def test_compare_on_data_samples_has_enough_queries(monkeypatch):
    at = app(None, monkeypatch).switch_page("pages/compare.py").run()
    no_exception(at)
    assert not any("Small sample" in w.value for w in at.warning)
    assert "Pass rule:" in captions(at)


def test_overview_counts_only_fields_the_data_has_and_no_answer_warns_on_few(monkeypatch):
    """TREC qrels have no query type, section or split: the Overview names what to add
    instead of a single "(not given)" row; one no-answer topic gets a small-sample warning."""
    at = open_loose(monkeypatch, "pages/overview.py")
    no_exception(at)
    assert "No query type in this data" not in captions(at)  # its box is closed: not sent
    at.session_state[COUNTS_OPEN] = True  # the counts' box, opened
    at.run()
    no_exception(at)
    assert "No query type in this data" in captions(at)
    assert "No split in this data" in captions(at)
    at = open_loose(monkeypatch, "pages/no_answer.py")
    assert any("Small sample: n = 1 no-answer queries" in w.value for w in at.warning)
