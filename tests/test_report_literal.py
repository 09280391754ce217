"""The report shows every hostile id and name as written, and the same inputs give the same
bytes (stop 49's probe of ``ragrecall report``).

Before: the HTML report wrote a query id's terminal escape, bidi override and line break raw
into its cells (a browser shows ``q\\u202e13`` as "q31", ``q\\n2`` as "q 2"), the chart's legend
read a run named ``<i>r`` as HTML (plotly renders ``<i>``, ``<b>``, ``<a href>`` in trace names),
two renders of one report differed (plotly's random ``div`` id), and report.csv wrote a run
name's or query id's control characters raw, where every other CSV output shows them escaped
(docs/cli.md: "Every text, table, TSV / CSV and Markdown output").
"""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.errors import one_line
from ragrecall_core.output.report import ReportView, build_report

IDS = ["q\x1b[31m1", "q\u202e2", "q\n3", "<b>q4</b>", "=q5"]
RUN = "<i>r\x1b[2K"
GOLD = {qid: ["d1", "d2"] for qid in IDS}
RUNS = {RUN: {qid: ["d1", "x"] for qid in IDS}, "plain": {qid: ["d1", "d2"] for qid in IDS}}
RAW = ("\x1b", "\u202e", "q\n3")


@pytest.fixture(scope="module")
def report():
    ws = Workspace.from_memory(GOLD, RUNS)
    return build_report(ws, k=2, verdicts=pd.DataFrame(columns=["run", "query_id", "reason"]))


def test_html_shows_ids_and_run_names_escaped_never_raw(report):
    text = report.to_html()
    for raw in RAW:
        assert raw not in text, repr(raw)
    for qid in IDS[:3]:
        assert f"<td>{one_line(qid)}</td>" in text
    assert "<h2>Per query: &lt;i&gt;r\\x1b[2K</h2>" in text


def test_the_chart_legend_shows_a_run_name_as_text(report):
    names = [trace.name for trace in report.chart().data]
    assert "<i>" not in "".join(names) and "&lt;i&gt;r\\x1b[2K" in names


def test_the_same_report_renders_the_same_bytes(report):
    assert report.to_html() == report.to_html()
    assert report.to_markdown() == report.to_markdown()
    assert report.to_csv() == report.to_csv()


def test_csv_shows_ids_and_run_names_escaped(report):
    text = report.to_csv()
    assert "\x1b" not in text and "\u202e" not in text
    rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]
    header, body = rows[0], rows[1:]
    shown = {(row[header.index("run")], row[header.index("query_id")]) for row in body}
    assert ("<i>r\\x1b[2K", "q\\x1b[31m1") in shown
    assert ("plain", "q\\n3") in shown and ("plain", "q\\u202e2") in shown
    assert ("plain", "'=q5") in shown  # still no formula


def test_csv_comments_show_a_run_name_escaped(report):
    comments = [line for line in report.to_csv().split("\n") if line.lstrip('"').startswith("#")]
    assert any("<i>r\\x1b[2K" in line for line in comments)


@pytest.mark.parametrize(
    "asked",
    [
        {"k": "5"},
        {"k": 2.0},
        {"split": "nope"},
        {"view": ReportView(runs=("nope",))},
        {"view": ReportView(runs=("PLAIN",))},
        {"view": ReportView(split="nope")},
    ],
)
def test_build_report_refuses_what_would_make_it_empty_or_crash(asked):
    """From Python, k="5" raised a ValueError, and a split or a run the workspace lacks gave
    a report of no row that named the split as if it held queries."""
    ws = Workspace.from_memory(GOLD, RUNS)
    with pytest.raises(InputError):
        build_report(ws, verdicts=pd.DataFrame(columns=["run", "query_id", "reason"]), **asked)


def test_a_report_at_a_k_past_every_list_says_so_in_every_format(report):
    """Runs of two results reported at k = 5: Recall@5 is their Recall@2, said in the
    header of every format (as compare and the gate say it)."""
    ws = Workspace.from_memory(GOLD, RUNS)
    deep = build_report(ws, k=5, verdicts=pd.DataFrame(columns=["run", "query_id", "reason"]))
    for text in (deep.to_markdown(), deep.to_html(), deep.to_csv()):
        assert "k = 5 goes past every list of plain" in text
    assert "goes past" not in report.to_markdown()  # k = 2 is reached
