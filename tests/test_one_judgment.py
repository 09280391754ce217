"""One meaning of "judged": a grade stored on the Judge page changes every view alike.

Gold: q1's relevant chunk is A. The baseline lists [A, B, C], the candidate
[D, A, E]. Before any review, D is unjudged everywhere; after one annotator
grades D relevant through the judgment store, the measures, the query table,
the query detail, Compare's lists, the new-unjudged list and the report all
count D as relevant, with nothing else changed.
"""

from __future__ import annotations

import pytest
from helpers import gold_row, run_row, write_jsonl

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.analysis.query_detail import query_detail
from ragrecall_core.analysis.query_table import query_table
from ragrecall_core.analysis.ranked_lists import new_unjudged, side_by_side
from ragrecall_core.inputs.store import attach_store, submit
from tests.helpers import build_report

K = 3


@pytest.fixture
def ws(tmp_path):
    write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["A"])])
    write_jsonl(tmp_path / "runs" / "base.jsonl", [run_row("q1", ["A", "B", "C"])])
    write_jsonl(tmp_path / "runs" / "cand.jsonl", [run_row("q1", ["D", "A", "E"])])
    workspace = Workspace.open(tmp_path)
    attach_store(workspace)
    return workspace


def views(ws, policy=None) -> dict:
    """What every view says about the candidate's chunk D and its P@3."""
    table = query_table(ws, K, policy).set_index("run")
    detail = query_detail(ws, "cand", "q1", K, policy).retrieved.set_index("chunk_id")
    lists = side_by_side(ws, "base", "cand", "q1", K, policy).set_index("chunk_id")
    report = build_report(ws, K, policy=policy)
    reported = report.aggregate.set_index(["run", "measure"])["value"]
    return {
        "P@3": evaluate(ws, [f"P@{K}"], policy).value("cand", f"P@{K}"),
        "table P@3": float(table.loc["cand", f"P@{K}"]),
        "table Judged@3": float(table.loc["cand", f"Judged@{K}"]),
        "detail mark": detail.loc["D", "mark"],
        "compare mark": lists.loc["D", "judgment"],
        "new unjudged": new_unjudged(ws, "base", "cand", K, policy=policy).chunk_id.tolist(),
        "report P@3": float(reported.loc[("cand", f"P@{K}")]),
    }


def test_a_stored_grade_changes_every_view_alike(ws):
    before = views(ws)
    assert before == {
        "P@3": pytest.approx(1 / 3),
        "table P@3": pytest.approx(1 / 3),
        "table Judged@3": pytest.approx(1 / 3),
        "detail mark": "unjudged",
        "compare mark": "unjudged",
        "new unjudged": ["D", "E"],
        "report P@3": pytest.approx(1 / 3),
    }
    assert submit(ws, "q1", "D", 2, "anna")
    after = views(ws)
    assert after == {
        "P@3": pytest.approx(2 / 3),
        "table P@3": pytest.approx(2 / 3),
        "table Judged@3": pytest.approx(2 / 3),
        "detail mark": "relevant",
        "compare mark": "relevant",
        "new unjudged": ["E"],
        "report P@3": pytest.approx(2 / 3),
    }
    # a policy that ignores reviewers sees the state before the grade, in every view
    assert views(ws, Policy(manual_grades=False)) == before
