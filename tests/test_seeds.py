"""The seeds' worked examples, in the seeds' own JSON-lines shapes (SPEC "Measures").

Expected numbers are the seeds' (quoted in SPEC.md); the inputs are built so
that they give exactly those numbers, with the arithmetic in comments.
"""

from __future__ import annotations

import pytest
from helpers import gold_row, grade_row, make_workspace, per_query, queries_in_mean, run_row

from ragrecall_core import Policy, evaluate

# --- seed 001 ------------------------------------------------------------------------
# q1: doc-a at rank 2 -> Recall@3 1/1, RR@3 1/2
# q2: doc-b at rank 1 -> Recall@3 1/1, RR@3 1/1
# q3: doc-c nowhere   -> Recall@3 0,   RR@3 0
SEED1_GOLD = [
    gold_row("q1", ["doc-a"]),
    gold_row("q2", ["doc-b"]),
    gold_row("q3", ["doc-c"]),
]
SEED1_RUN = [
    run_row("q1", ["doc-x", "doc-a", "doc-y"]),
    run_row("q2", ["doc-b", "doc-x", "doc-y"]),
    run_row("q3", ["doc-x", "doc-y", "doc-z"]),
]


def seed1(tmp_path, gold=SEED1_GOLD, run=SEED1_RUN):
    return make_workspace(tmp_path, gold, {"run": run})


def test_seed001_three_queries_at_k3(tmp_path):
    ws = seed1(tmp_path)
    ev = evaluate(ws, ["Recall@3", "RR@3"])
    recall, rr = per_query(ev, "run", "Recall@3"), per_query(ev, "run", "RR@3")
    assert [(recall[q], rr[q]) for q in ("q1", "q2", "q3")] == [(1.0, 0.5), (1.0, 1.0), (0.0, 0.0)]
    assert round(ev.value("run", "Recall@3"), 4) == 0.6667  # (1 + 1 + 0) / 3
    assert round(ev.value("run", "RR@3"), 4) == 0.5  # (0.5 + 1 + 0) / 3
    # MRR@3 is RR@3's mean under its own name: asked for alone (one measure, two spellings
    # in one evaluation are refused), the same mean
    assert round(evaluate(ws, ["MRR@3"]).value("run", "MRR@3"), 4) == 0.5


def test_seed001_moving_doc_a_first_raises_rr_not_recall(tmp_path):
    run = [run_row("q1", ["doc-a", "doc-x", "doc-y"]), *SEED1_RUN[1:]]
    ev = evaluate(seed1(tmp_path, run=run), ["Recall@3", "RR@3"])
    assert per_query(ev, "run", "RR@3")["q1"] == 1.0
    assert per_query(ev, "run", "Recall@3")["q1"] == 1.0


def test_seed001_at_k1_the_first_query_scores_zero(tmp_path):
    ev = evaluate(seed1(tmp_path), ["Recall@1", "RR@1"])
    assert per_query(ev, "run", "Recall@1")["q1"] == 0.0  # doc-a is at rank 2
    assert per_query(ev, "run", "RR@1")["q1"] == 0.0
    assert per_query(ev, "run", "RR@1")["q2"] == 1.0


def test_seed001_empty_list_with_labels_scores_zero_and_stays_in_the_mean(tmp_path):
    gold = [*SEED1_GOLD, gold_row("q4", ["doc-d"])]
    run = [*SEED1_RUN, run_row("q4", [])]
    ev = evaluate(seed1(tmp_path, gold, run), ["Recall@3", "MRR@3", "Hit@3"])
    for measure in ("Recall@3", "MRR@3", "Hit@3"):
        assert per_query(ev, "run", measure)["q4"] == 0.0
        assert queries_in_mean(ev, "run", measure) == 4
    assert ev.value("run", "Recall@3") == pytest.approx(2 / 4)  # (1 + 1 + 0 + 0) / 4
    assert ev.value("run", "MRR@3") == pytest.approx(1.5 / 4)  # (0.5 + 1 + 0 + 0) / 4


def test_seed001_query_missing_from_run_scores_zero_and_stays_in_the_mean(tmp_path):
    gold = [*SEED1_GOLD, gold_row("q4", ["doc-d"])]
    ev = evaluate(seed1(tmp_path, gold, SEED1_RUN), ["Recall@3", "MRR@3"])
    assert per_query(ev, "run", "Recall@3")["q4"] == 0.0
    assert queries_in_mean(ev, "run", "Recall@3") == 4
    assert ev.value("run", "Recall@3") == pytest.approx(2 / 4)
    assert any("q4" in w and "missing" in w for w in ev.warnings["run"])


def test_seed001_run_only_query_is_ignored_and_reported(tmp_path):
    run = [*SEED1_RUN, run_row("q9", ["doc-a"])]
    ev = evaluate(seed1(tmp_path, run=run), ["Recall@3", "MRR@3"])
    assert "q9" not in set(ev.per_query.query_id)
    assert queries_in_mean(ev, "run", "Recall@3") == 3
    assert round(ev.value("run", "Recall@3"), 4) == 0.6667
    assert any("q9" in w and "ignored" in w for w in ev.warnings["run"])


# --- seed 000 ------------------------------------------------------------------------


def test_seed000_two_required_fragments_one_found(tmp_path):
    gold = [gold_row("q1", ["doc-a#chunk-01", "doc-b#chunk-02"], require_all=True)]
    run = [run_row("q1", ["doc-a#chunk-01", "doc-x#chunk-01", "doc-y#chunk-01"])]
    ev = evaluate(make_workspace(tmp_path, gold, {"run": run}), ["Hit@3", "Recall@3"])
    assert per_query(ev, "run", "Hit@3") == {"q1": 1.0}
    assert per_query(ev, "run", "Recall@3") == {"q1": 0.5}  # one of two fragments


def test_seed000_no_answer_queries_are_outside_the_means(tmp_path):
    gold = [
        gold_row("q1", ["doc-a#chunk-01"]),
        gold_row("q2", ["doc-b#chunk-01"]),
        gold_row("na1", [], query_type="no_answer"),
        gold_row("na2", [], query_type="no_answer"),
    ]
    run = [
        run_row("q1", ["doc-a#chunk-01"]),  # Recall@3 1, RR 1
        run_row("q2", ["doc-x#chunk-01"]),  # Recall@3 0, RR 0
        run_row("na1", ["doc-a#chunk-02", "doc-b#chunk-02"], [0.9, 0.5]),  # answered anyway
        run_row("na2", []),  # correctly empty
    ]
    ev = evaluate(make_workspace(tmp_path, gold, {"run": run}), ["Recall@3", "Hit@3", "MRR@3"])
    for measure in ("Recall@3", "Hit@3", "MRR@3"):
        assert queries_in_mean(ev, "run", measure) == 2
        assert ev.value("run", measure) == pytest.approx(0.5)  # (1 + 0) / 2
        assert per_query(ev, "run", measure).get("na1") is None
    assert ev.no_answer["run"]["queries"] == 2
    assert ev.no_answer["run"]["with_results"] == 1
    assert ev.no_answer["run"]["mean_top_score"] == pytest.approx(0.9)
    queries = ev.to_dict()["runs"][0]["queries"]
    assert queries["Recall@3"] == 2


# --- seed 002 ------------------------------------------------------------------------
# Judged: A relevant (1), B and C not relevant (0). Old [A,B,C], new [D,B,E].
SEED2_GOLD = [gold_row("q1", ["A"], grades={"A": 1, "B": 0, "C": 0})]
SEED2_RUNS = {"old": [run_row("q1", ["A", "B", "C"])], "new": [run_row("q1", ["D", "B", "E"])]}


def test_seed002_unjudged_chunks_beside_precision(tmp_path):
    ev = evaluate(make_workspace(tmp_path, SEED2_GOLD, SEED2_RUNS), ["P@3", "Judged@3"])
    assert ev.value("old", "P@3") == pytest.approx(1 / 3)  # A
    assert ev.value("old", "Judged@3") == pytest.approx(3 / 3)  # 0/3 unjudged
    assert ev.value("new", "P@3") == pytest.approx(0 / 3)
    assert ev.value("new", "Judged@3") == pytest.approx(1 / 3)  # D, E unjudged: 2/3


def test_seed002_precision_band_spans_unjudged_as_not_relevant_to_relevant(tmp_path):
    ev = evaluate(make_workspace(tmp_path, SEED2_GOLD, SEED2_RUNS), ["P@3", "Pmax@3"])
    # old: everything judged, so the band is one point
    assert ev.value("old", "P@3") == ev.value("old", "Pmax@3") == pytest.approx(1 / 3)
    # new: D and E unjudged: from 0/3 (as not relevant) to 2/3 (as relevant)
    assert ev.value("new", "P@3") == pytest.approx(0.0)
    assert ev.value("new", "Pmax@3") == pytest.approx(2 / 3)


def test_seed002_after_d_and_e_are_judged_relevant(tmp_path):
    grades = [grade_row("q1", "D", 2), grade_row("q1", "E", 2)]
    ws = make_workspace(tmp_path, SEED2_GOLD, SEED2_RUNS, grades=grades)
    ev = evaluate(ws, ["P@3", "Judged@3", "Pmax@3"])
    assert ev.value("old", "P@3") == pytest.approx(1 / 3)  # A; D, E not retrieved by old
    assert ev.value("new", "P@3") == pytest.approx(2 / 3)  # D, E
    assert ev.value("new", "Judged@3") == pytest.approx(1.0)
    assert ev.value("new", "Pmax@3") == pytest.approx(2 / 3)  # nothing unjudged: no band


def test_seed002_manual_grades_can_be_switched_off(tmp_path):
    grades = [grade_row("q1", "D", 2), grade_row("q1", "E", 2)]
    ws = make_workspace(tmp_path, SEED2_GOLD, SEED2_RUNS, grades=grades)
    ev = evaluate(ws, ["P@3"], policy=Policy(manual_grades=False))
    assert ev.value("new", "P@3") == pytest.approx(0.0)
