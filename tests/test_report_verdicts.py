"""The report's "Meeting verdicts" section: counts per reason per run and the list, in
Markdown, HTML and CSV; one line when there are none; read from the workspace's store."""

from __future__ import annotations

import csv
import io

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.verdicts import record_verdict
from ragrecall_core.output.report import NO_VERDICTS
from tests.helpers import build_report, run_cli
from tests.samples import samples_copy
from tests.test_app_judge import seed002


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace.open(seed002(tmp_path / "ws"))
    yield workspace
    workspace.con.close()


def test_no_verdicts_is_one_line_in_every_format(ws):
    report = build_report(ws, k=3)
    md = report.to_markdown()
    assert "## Meeting verdicts\n\nNo meeting verdicts recorded.\n" in md
    assert f"<h2>Meeting verdicts</h2>\n<p>{NO_VERDICTS}</p>" in report.to_html()
    assert f"# meeting verdicts: {NO_VERDICTS}" in report.to_csv().splitlines()


def test_counts_per_reason_per_run_and_the_list(ws):
    record_verdict(ws, "old", "q1", "paraphrase", note="asks in other words", owner="ml")
    record_verdict(ws, "new", "q1", "paraphrase")
    record_verdict(ws, "new", "q1", "chunk boundary", note="cut", owner="")  # latest wins
    report = build_report(ws, k=3)
    assert report.verdict_counts().values.tolist() == [
        ["new", "chunk boundary", 1],
        ["old", "paraphrase", 1],
    ]
    md = report.to_markdown()
    section = md.split("## Meeting verdicts", 1)[1].split("## Measure definitions")[0]
    assert "| run | reason | queries |" in section
    assert "| old | q1 | paraphrase | ml | asks in other words |" in section
    assert "| new | q1 | chunk boundary |  | cut |" in section
    html = report.to_html()
    assert "<td>asks in other words</td>" in html
    comments = [row[0] for row in csv.reader(io.StringIO(report.to_csv())) if row[0][:1] == "#"]
    assert "# meeting verdicts new: chunk boundary 1" in comments
    assert "# verdict old q1: paraphrase; owner: ml; note: asks in other words" in comments


def test_the_report_command_reads_verdicts_from_the_store(ws, tmp_path, capsys):
    record_verdict(ws, "old", "q1", "outdated document", note="v2 of the policy")
    folder = ws.folder
    ws.con.close()  # the command opens the workspace itself
    out = tmp_path / "report.md"
    code, _, err = run_cli(capsys, ["report", folder, "-o", out, "-k", "3"])
    assert (code, err) == (0, "")
    assert "| old | q1 | outdated document |  | v2 of the policy |" in out.read_text()


def test_verdicts_outside_the_reports_split_are_counted_not_dropped(tmp_path):
    """The report covers the held-out split by default; a verdict on a dev query is not
    listed there, and the report says how many were left out and how to see them."""
    folder = samples_copy(tmp_path / "ws")
    ws = Workspace.open(folder)
    dev = ws.cursor().execute("SELECT min(query_id) FROM queries WHERE split = 'dev'").fetchone()[0]
    record_verdict(ws, "bm25", dev, "paraphrase", recorded_by="team")
    held_out = build_report(ws).to_markdown().split("## Meeting verdicts")[1]
    assert dev not in held_out.split("## Measure definitions")[0]
    assert "1 verdict on queries outside this report" in held_out.replace("\\", "")
    assert "No meeting verdicts recorded" not in held_out
    on_dev = build_report(ws, split="dev")
    assert on_dev.verdicts_elsewhere == 0 and dev in on_dev.to_markdown()
    assert "1 verdict on queries outside" in build_report(ws).to_csv()
