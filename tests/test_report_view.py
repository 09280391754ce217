"""The in-app report is the view on screen (issue 29): the sidebar's runs, split, type,
section, failures-only switch, k and pass rule choose what it covers; its header states
that scope and which grades and verdicts it includes.

The fixture is small enough to compute by hand. One run, four queries, each with one
relevant chunk:

    query  section  relevant  retrieved (ranks 1..5)   Recall@5  Hit@5  RR@5
    q1     it-ops   a1        a1 x y v w               1         1      1
    q2     it-ops   b1        x y z v w                0         0      0
    q3     hr       c1        x c1 y v w               1         1      1/2
    q4     hr       d1        d1 x y v w               1         1      1

Section it-ops: Recall@5 = (1 + 0) / 2 = 0.5, MRR@5 = (1 + 0) / 2 = 0.5.
Every query:    Recall@5 = 3 / 4 = 0.75, MRR@5 = (1 + 0 + 0.5 + 1) / 4 = 0.625.
"""

from __future__ import annotations

import csv
import io

import pytest

from ragrecall_app import analyses
from ragrecall_app.context import CTX
from ragrecall_core import Workspace
from ragrecall_core.analysis.verdicts import latest_verdicts, record_verdict
from ragrecall_core.inputs.store import submit
from ragrecall_core.output.report import ReportView, build_report
from tests.dashboard_support import app, no_exception, table
from tests.helpers import gold_row, run_row, write_jsonl

SECTIONS = {"q1": "it-ops", "q2": "it-ops", "q3": "hr", "q4": "hr"}
RELEVANT = {"q1": "a1", "q2": "b1", "q3": "c1", "q4": "d1"}
RETRIEVED = {"q1": "a1 x y v w", "q2": "x y z v w", "q3": "x c1 y v w", "q4": "d1 x y v w"}


def tiny(folder):
    gold = [gold_row(q, [RELEVANT[q]], section=SECTIONS[q]) for q in SECTIONS]
    gold[0]["grades"] = {"a1": 1, "x": 0}  # 4 relevant ids + x graded 0: 5 gold judgments
    write_jsonl(folder / "gold.jsonl", gold)
    write_jsonl(
        folder / "runs" / "bm25.jsonl", [run_row(q, c.split()) for q, c in RETRIEVED.items()]
    )
    return folder


def means(report) -> dict[str, float]:
    rows = report.aggregate[report.aggregate.run == "bm25"]
    return dict(zip(rows.measure, rows.value, strict=True))


def csv_means(text: str) -> dict[str, float]:
    """The report's CSV per-query rows, averaged here: what a reader recomputes."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith('"#'))
    body = "\n".join(line for line in body.splitlines() if not line.startswith("#"))
    rows = list(csv.DictReader(io.StringIO(body)))
    return {
        "queries": {r["query_id"] for r in rows},
        "Recall@5": sum(float(r["Recall@5"]) for r in rows) / len(rows),
        "RR": sum(float(r["RR"]) for r in rows) / len(rows),
    }


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(tiny(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def test_a_section_view_reports_that_slice_by_hand(ws):
    report = build_report(ws, 5, verdicts=latest_verdicts(ws), view=ReportView(section="it-ops"))
    assert means(report)["Recall@5"] == pytest.approx(0.5)
    assert means(report)["MRR@5"] == pytest.approx(0.5)
    assert sorted(report.per_query.query_id) == ["q1", "q2"]
    assert list(report.per_query.query_id)[0] == "q2"  # the failing query first
    whole = build_report(ws, 5, verdicts=latest_verdicts(ws), view=ReportView())
    assert means(whole)["Recall@5"] == pytest.approx(0.75)
    assert means(whole)["MRR@5"] == pytest.approx(0.625)
    assert whole.header()["scope"] == "Scope: run bm25 · k = 5 · all queries"


def test_the_report_names_its_scope_grades_and_verdicts(ws):
    submit(ws, "q2", "x", 0, "rita")  # a reviewer's grade: not relevant, numbers stay
    record_verdict(ws, "bm25", "q2", "paraphrase")
    record_verdict(ws, "bm25", "q3", "paraphrase")  # an hr query: outside the view
    view = ReportView(runs=("bm25",), section="it-ops", failing_only=True)
    report = build_report(ws, 5, verdicts=latest_verdicts(ws), view=view)
    header = report.header()
    assert header["scope"] == (
        "Scope: run bm25 · k = 5 · section = it-ops · per-query tables: failures only"
    )
    assert header["queries"] == "section = it-ops (2 queries; the dashboard's view)"
    assert header["grades"] == (
        "5 judgments in the gold, 0 reviewer grades from grade files, and the reviewers' "
        "stored judgments (next line)"
    )
    assert header["stored judgments"] == (
        "1 used from judgments.duckdb (each annotator's latest grade of a chunk)"
    )
    assert header["verdicts"] == (
        "1 current meeting verdict listed; 1 on queries outside this scope not listed"
    )
    assert list(report.per_query.query_id) == ["q2"]  # failures only
    md = report.to_markdown()
    assert "**scope**: Scope: run bm25" in md.replace("\\", "")
    assert "clear the dashboard's filters" in md and "--split" not in md


def test_the_in_app_report_equals_the_screen_for_a_section(tmp_path, monkeypatch):
    at = app(tiny(tmp_path / "ws"), monkeypatch, params={"section": "it-ops"})
    no_exception(at)
    screen = table(at).set_index("run")
    assert screen.at["bm25", "Recall@5"].split(" ")[0] == "0.500"  # the hand value
    assert screen.at["bm25", "MRR@5"].split(" ")[0] == "0.500"
    ctx = at.session_state[CTX]
    text = analyses.report_text(ctx, "csv")
    reported = csv_means(text)
    assert reported["queries"] == {"q1", "q2"}
    assert reported["Recall@5"] == pytest.approx(0.5)
    assert reported["RR"] == pytest.approx(0.5)
    assert "# scope: Scope: run bm25 · k = 5 · section = it-ops" in text
    md = analyses.report_text(ctx, "md")
    assert "| bm25 | 0.5000 |" in md  # Recall@5 is the aggregate table's first measure
