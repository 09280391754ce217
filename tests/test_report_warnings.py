"""The report says what evaluate warns of (stop 49): a gold query a run lacks, a run query
the gold lacks, ranks that skip places, ties across k. A report is what a team files and
sends on; its numbers without the warnings beside them read as clean."""

from __future__ import annotations

import pytest

from ragrecall_core.cli import main
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.evaluate import DepthWarning, evaluate
from tests.helpers import build_report, write_text

GOLD = (
    '{"id": "q1", "query": "a", "relevant_ids": ["d1"], "split": "test"}\n'
    '{"id": "q2", "query": "b", "relevant_ids": ["d2"], "split": "test"}\n'
)
# q2 missing, q9 not in the gold, ranks 2 and 5 for two items: places skipped
RUN = (
    '{"id": "q1", "retrieved": [{"chunk_id": "d1", "rank": 2}, {"chunk_id": "x", "rank": 5}]}\n'
    '{"id": "q9", "retrieved": [{"chunk_id": "d9", "rank": 1}]}\n'
)


@pytest.fixture
def ws(tmp_path):
    write_text(tmp_path / "gold.jsonl", GOLD)
    write_text(tmp_path / "runs" / "gappy.jsonl", RUN)
    return tmp_path


def warnings_of(ws) -> list[str]:
    """evaluate's warnings but a cutoff past every list, which the report says once, as a
    note beside its k (tests/test_depth_notes_unit.py)."""
    workspace = Workspace.open(ws)
    found = evaluate(workspace, ["Recall@5"]).warnings["gappy"]
    return [w for w in found if not isinstance(w, DepthWarning)]


def test_every_format_lists_evaluate_s_warnings(ws, capsys):
    expected = warnings_of(ws)
    assert len(expected) >= 3  # missing, ignored, skipped places
    for suffix in (".md", ".html", ".csv"):
        out = ws.parent / f"report{suffix}"
        assert main(["report", str(ws), "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        assert "Warnings" in text or "warning" in text, suffix
        for warning in expected:
            # each as that format writes text (its own escaping of quotes and < > &)
            core = warning.split(" (")[0].replace("'", "")
            assert core[:30] in text.replace("&#x27;", "").replace("'", ""), (suffix, warning)


def test_a_report_without_warnings_says_none(tmp_path):
    write_text(tmp_path / "gold.jsonl", '{"id": "q1", "query": "a", "relevant_ids": ["d1"]}\n')
    write_text(
        tmp_path / "runs" / "clean.jsonl",
        '{"id": "q1", "retrieved": [{"chunk_id": "d1", "rank": 1}]}\n',
    )
    report = build_report(Workspace.open(tmp_path), k=5)
    assert report.warnings == {}
    assert "No warnings" in report.to_markdown()
