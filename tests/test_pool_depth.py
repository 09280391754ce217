"""A pool deeper than the runs' lists holds every result they have: said, so a depth of 100
over lists of 20 is not read as a pool to depth 100."""

from __future__ import annotations

from helpers import gold_row, make_workspace, run_row

from ragrecall_core.analysis.pooling import coverage_text

GOLD = [gold_row("q1", ["A"]), gold_row("q2", ["B"])]


def test_a_depth_beyond_the_longest_list_is_said_per_run(tmp_path):
    runs = {
        "short": [run_row("q1", ["A", "X"]), run_row("q2", ["B"])],
        "long": [run_row("q1", ["A", "X", "Y", "Z"]), run_row("q2", ["B", "C", "D"])],
    }
    workspace = make_workspace(tmp_path, GOLD, runs)
    text = coverage_text(workspace, depth=3, k=1)
    assert "short: its lists hold at most 2 results, fewer than the pool depth 3" in text
    assert "long: its lists" not in text
    assert "its lists hold" not in coverage_text(workspace, depth=2, k=1)
