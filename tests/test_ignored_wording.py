"""The sentence about run queries the gold set lacks was written twice, in ``evaluate``'s
warnings and in the pool's (stop 49), and the two had drifted apart ("e.g." before a full
list): one sentence, one home."""

from __future__ import annotations

from ragrecall_core import evaluate
from ragrecall_core.analysis.pooling import pool_warnings
from tests.helpers import gold_row, make_workspace, run_row


def test_evaluate_and_the_pool_say_ignored_queries_in_one_sentence(tmp_path):
    gold = [gold_row("q1", ["A"])]
    run = [run_row("q1", ["A"]), run_row("qNOPE", ["Z"])]
    ws = make_workspace(tmp_path, gold, {"r": run})
    (said,) = [w for w in evaluate(ws, ["P@1"]).warnings["r"] if "ignored" in w]
    pooled = [w for w in pool_warnings(ws, depth=1) if "ignored" in w]
    assert said == "1 run query not in the gold set was ignored (qNOPE)"
    assert pooled == [f"r: {said}"]


def test_more_ignored_queries_than_shown_are_an_example(tmp_path):
    gold = [gold_row("q1", ["A"])]
    run = [run_row("q1", ["A"]), *(run_row(f"x{i}", ["Z"]) for i in range(7))]
    ws = make_workspace(tmp_path, gold, {"r": run})
    (said,) = [w for w in evaluate(ws, ["P@1"]).warnings["r"] if "ignored" in w]
    assert said == "7 run queries not in the gold set were ignored (e.g. x0, x1, x2, x3, x4)"
    assert [w for w in pool_warnings(ws, depth=1) if "ignored" in w] == [f"r: {said}"]
