"""Capped recall, ``RecallCap@k``: relevant in the top k over min(k, |relevant|).

Expected values are computed by hand in the comments; the TREC RAG 2024 segment
files (tests/data/trec_eval, every judged topic with at least 9 relevant
segments) show why it exists: Recall@5 can never reach 1 there, RecallCap@5 can.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import gold_row, make_workspace, per_query, run_row

from ragrecall_core import Workspace, evaluate, parse_measure

TREC = Path(__file__).parent / "data" / "trec_eval"

GOLD = [
    gold_row("many", ["a", "b", "c"]),  # 3 relevant
    gold_row("one", ["d"]),  # 1 relevant
    gold_row("lost", ["e"]),  # missing from the run
    gold_row("none", []),  # no-answer query
]
RUN = [
    run_row("many", ["a", "x", "b", "c"]),
    run_row("one", ["y", "d"]),
    run_row("none", ["z"]),
]


def test_alias_parses_to_the_same_measure():
    assert parse_measure("R_cap@5") == parse_measure("RecallCap@5")
    assert str(parse_measure("r_cap@5")) == "RecallCap@5"


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        # many: a at 1, b at 3, c at 4 -> k=1: 1/min(1,3)=1; k=2: 1/2; k=3: 2/3; k=4: 3/3
        # one:  d at 2 -> k=1: 0/1; k>=2: 1/1
        (1, {"many": 1.0, "one": 0.0, "lost": 0.0}),
        (2, {"many": 0.5, "one": 1.0, "lost": 0.0}),
        (3, {"many": 2 / 3, "one": 1.0, "lost": 0.0}),
        (4, {"many": 1.0, "one": 1.0, "lost": 0.0}),
    ],
)
def test_hand_computed_values(tmp_path, k, expected):
    ev = evaluate(make_workspace(tmp_path, GOLD, {"run": RUN}), [f"RecallCap@{k}"])
    values = per_query(ev, "run", f"RecallCap@{k}")
    assert {q: values[q] for q in expected} == pytest.approx(expected)
    assert values.get("none") is None  # a no-answer query has no value: outside the mean
    assert ev.value("run", f"RecallCap@{k}") == pytest.approx(sum(expected.values()) / 3)


def test_equals_recall_when_no_query_has_more_relevant_items_than_k(tmp_path):
    ev = evaluate(make_workspace(tmp_path, GOLD, {"run": RUN}), ["RecallCap@3", "Recall@3"])
    capped, plain = per_query(ev, "run", "RecallCap@3"), per_query(ev, "run", "Recall@3")
    assert capped == plain


def test_trec_rag_topics_with_many_relevant_segments_can_pass():
    ws = Workspace.from_files(TREC / "qrels.comment.test", [TREC / "results.comment.test"])
    ev = evaluate(ws, ["RecallCap@5", "Recall@5", "P@5"])
    wide = ev.wide().dropna(subset=["Recall@5"])
    assert (wide["Recall@5"] < 1).all()  # >= 9 relevant segments: plain recall cannot pass
    # with at least 5 relevant items, capped recall at 5 is the share of the top 5 relevant
    assert wide["RecallCap@5"].tolist() == pytest.approx(wide["P@5"].tolist())
    assert (wide["RecallCap@5"] == 1).any()
