"""Evaluate's no-answer summary sets the no-answer queries' mean top score beside the
answerable queries' (the queries with a relevant item), in JSON and in its text line."""

from __future__ import annotations

import pytest

from ragrecall_core.output.text import no_answer_text
from ragrecall_core.scoring.evaluate import evaluate
from tests.helpers import gold_row, make_workspace, run_row

GOLD = [
    gold_row("q1", ["a1"]),
    gold_row("q2", ["b1"]),
    gold_row("q3", ["c1"]),
    gold_row("na1", []),
    gold_row("na2", []),
]
RUN = [
    run_row("q1", ["a1", "a2"], [0.8, 0.1]),
    run_row("q2", ["x1"], [0.6]),
    run_row("q3", ["c1"], [0.4]),
    run_row("na1", ["a2", "b2"], [0.9, 0.5]),
    run_row("na2", []),
]


@pytest.fixture
def workspace(tmp_path):
    return make_workspace(tmp_path, GOLD, {"run": RUN})


def test_answerable_mean_top_score_beside_the_no_answer_one(workspace):
    summary = evaluate(workspace, ["Recall@3"]).no_answer["run"]
    assert summary["mean_top_score"] == pytest.approx(0.9)  # na2 retrieved nothing
    assert summary["answerable_mean_top_score"] == pytest.approx((0.8 + 0.6 + 0.4) / 3)
    assert no_answer_text(summary).endswith("(mean top score 0.9000; answerable queries 0.6000)")


def test_a_scope_of_queries_scopes_the_answerable_mean_too(workspace):
    summary = evaluate(workspace, ["Recall@3"], query_ids=["q1", "q2", "na1"]).no_answer["run"]
    assert summary["queries"] == 1
    assert summary["answerable_mean_top_score"] == pytest.approx((0.8 + 0.6) / 2)


def test_no_results_for_the_no_answer_queries_says_no_mean(workspace, tmp_path):
    run = [r if not r["id"].startswith("na") else run_row(r["id"], []) for r in RUN]
    other = make_workspace(tmp_path / "other", GOLD, {"run": run})
    summary = evaluate(other, ["Recall@3"]).no_answer["run"]
    assert summary["mean_top_score"] is None
    assert no_answer_text(summary) == ("2 no-answer queries outside the means, 0 still got results")
