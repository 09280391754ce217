"""`ragrecall report WORKSPACE` and the dashboard give the same numbers for the same policy.

Grades stored from the Judge page (judgments.duckdb in the workspace) count in the
dashboard's numbers; the report must use them exactly as the dashboard does, and say
how many it used.
"""

from __future__ import annotations

import pytest

from ragrecall_core.analysis import judge_session
from ragrecall_core.analysis.bootstrap import summary_with_ci
from ragrecall_core.analysis.query_table import build_query_table, filter_table
from ragrecall_core.cli import main
from ragrecall_core.inputs import store as judging
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views.overview import summary_measures
from tests.helpers import build_report
from tests.samples import samples_copy

K = 5
STORED = 50
# unjudged chunks in some run's top k, graded relevant by a reviewer on the Judge page
UNJUDGED_TOP_K = """
SELECT DISTINCT r.query_id, r.chunk_id FROM runs r
WHERE r.rank <= $k AND NOT EXISTS (
    SELECT 1 FROM grades g WHERE g.query_id = r.query_id AND g.chunk_id = r.chunk_id
    AND NOT starts_with(g.annotator, 'judge:'))  -- a model judge's grade judges nothing
  AND r.query_id IN (SELECT query_id FROM queries)
ORDER BY r.query_id, r.chunk_id LIMIT $n
"""


@pytest.fixture
def judged_workspace(tmp_path):
    folder = tmp_path / "ws"
    samples_copy(folder)
    ws = Workspace.open(folder)
    judge_session.open_store(ws, create=True)
    pairs = ws.cursor().execute(UNJUDGED_TOP_K, {"k": K, "n": STORED}).fetchall()
    assert len(pairs) == STORED
    for query_id, chunk_id in pairs:
        judging.submit(ws, query_id, chunk_id, 2, "tester")
    return folder, ws


def dashboard_means(ws: Workspace, policy: Policy, split: str) -> dict[tuple[str, str], float]:
    """The Overview's means: the query table under the sidebar's split, then the summary."""
    table = build_query_table(ws, K, policy).table
    rows = filter_table(table, {"split": split}, list(ws.run_names), False)
    summary = summary_with_ci(rows, summary_measures(K))
    return {(r.run, r.measure): r.value for r in summary.itertuples()}


def report_means(report) -> dict[tuple[str, str], float]:
    names = {"MRR@5": "RR@5"}  # the report names RR's mean MRR, as the Overview does
    return {
        (r.run, names.get(r.measure, r.measure)): r.value for r in report.aggregate.itertuples()
    }


@pytest.mark.parametrize("policy", [Policy(), Policy(rel_level=2), Policy(manual_grades=False)])
def test_report_numbers_equal_the_dashboards(judged_workspace, policy):
    folder, ws = judged_workspace
    dashboard = dashboard_means(ws, policy, "test")
    report = report_means(build_report(Workspace.open(folder), K, "test", policy))
    shared = sorted(set(dashboard) & set(report))
    assert len(shared) == 4 * 6  # four runs x Recall, Hit, MRR, P, nDCG, Judged
    for key in shared:
        assert report[key] == pytest.approx(dashboard[key], abs=1e-12), key


def test_stored_judgments_change_the_report_and_are_counted(judged_workspace, tmp_path):
    folder, ws = judged_workspace
    plain = tmp_path / "plain"
    samples_copy(plain)
    with_store = build_report(Workspace.open(folder), K, "test")
    without = build_report(Workspace.open(plain), K, "test")
    assert report_means(with_store) != report_means(without)
    assert with_store.stored_judgments.startswith(f"{STORED} used from judgments.duckdb")
    assert without.stored_judgments == "none (judgments.duckdb not found)"


@pytest.mark.parametrize("fmt", ["html", "md", "csv"])
def test_every_report_format_states_the_stored_judgments(judged_workspace, tmp_path, fmt):
    folder, ws = judged_workspace
    out = tmp_path / f"report.{fmt}"
    assert main(["report", str(folder), "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    assert "stored judgments" in text and f"{STORED} used from judgments" in text
