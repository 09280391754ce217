"""The notes that say a cutoff goes past every list of a run count the unit measured.

Before: under ``--unit doc`` the gate, the report and compare counted a list's chunks, so a
run of 10 chunks per query falling in 2 documents got no note at k = 5, though each of its
document lists holds 2 entries and every measure at 5 counts only those.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.output.report import build_report
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.policy import Policy
from tests.helpers import gold_row, run_cli, run_row, write_jsonl

CHUNKS = [f"doc-{d}#c{i}" for d in "ab" for i in range(1, 6)]  # 10 chunks, 2 documents
GOLD = {"q1": ["doc-a#c1"], "q2": ["doc-b#c2"]}
RUNS = {"base": {q: CHUNKS for q in GOLD}, "cand": {q: CHUNKS[::-1] for q in GOLD}}
DOC, CHUNK = Policy(unit="doc"), Policy()
NO_VERDICTS = pd.DataFrame(columns=["run", "query_id", "reason"])


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_memory(GOLD, RUNS)


def test_the_gate_counts_documents_under_the_doc_unit(ws):
    doc = check_gate(ws, "cand", ["Recall@5>=0"], baseline="base", k=5, policy=DOC)
    assert "Recall@5 goes past every list of cand, which lists at most 2 documents" in " ".join(
        doc.notes
    )
    assert any("k = 5 goes past every list of cand (at most 2) and base" in n for n in doc.notes)
    chunk = check_gate(ws, "cand", ["Recall@5>=0"], baseline="base", k=5, policy=CHUNK)
    assert chunk.notes == []


def test_the_report_counts_documents_under_the_doc_unit(ws):
    doc = build_report(ws, k=5, policy=DOC, verdicts=NO_VERDICTS)
    assert doc.notes == tuple(
        f"k = 5 goes past every list of {run} (at most 2 documents per query): its measures "
        "at k count only those"
        for run in ("base", "cand")
    )
    for text in (doc.to_markdown(), doc.to_html(), doc.to_csv()):
        assert "(at most 2 documents per query)" in text
    assert build_report(ws, k=5, policy=CHUNK, verdicts=NO_VERDICTS).notes == ()


def test_compare_counts_documents_under_the_doc_unit(ws):
    doc = compare(ws, "base", "cand", k=5, policy=DOC)
    assert any("fewer than k = 5 documents (base: 2, cand: 2)" in n for n in doc.notes)
    chunk = compare(ws, "base", "cand", k=5, policy=CHUNK)
    assert not any("fewer than k" in n for n in chunk.notes)


def test_a_chunk_run_keeps_counting_results(ws):
    """Under the chunk unit the notes still count results, each chunk one."""
    notes = check_gate(ws, "cand", ["Recall@20>=0"], k=5, policy=CHUNK).notes
    assert notes == [
        "Recall@20 goes past every list of cand, which lists at most 10 results per query: "
        "it counts only those"
    ]


@pytest.fixture
def files(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(q, r) for q, r in GOLD.items()])
    for name, lists in RUNS.items():
        write_jsonl(tmp_path / f"{name}.jsonl", [run_row(q, c) for q, c in lists.items()])
    return tmp_path, gold


def test_check_on_the_command_line_says_it_in_text_and_json(capsys, files):
    folder, gold = files
    argv = ["check", str(gold), str(folder / "cand.jsonl"), "-k", "5", "--unit", "doc"]
    argv += ["--baseline", str(folder / "base.jsonl"), "--max-regressions", "2"]
    argv += ["--require", "Recall@5>=0"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0 and "note: Recall@5 goes past every list of cand" in out
    assert "at most 2 documents per query" in out
    code, out, _ = run_cli(capsys, [*argv, "--format", "json"])
    assert any("at most 2 documents" in n for n in json.loads(out)["notes"])


def test_compare_on_the_command_line_says_it(capsys, files):
    folder, gold = files
    runs = [str(folder / "base.jsonl"), str(folder / "cand.jsonl")]
    code, out, _ = run_cli(capsys, ["compare", str(gold), *runs, "-k", "5", "--unit", "doc"])
    assert code == 0 and "fewer than k = 5 documents (base: 2, cand: 2)" in out


def depth_warnings(evaluation, run: str) -> list[str]:
    return [w for w in evaluation.warnings.get(run, []) if "goes past every list" in w]


def test_evaluate_warns_in_the_unit_measured(ws):
    """evaluate said nothing of a cutoff past every list, in any unit; now a warning per
    cutoff (kept at its cutoff, as a tie's is), counted as the measures count."""
    doc = evaluate(ws, ["Recall@5", "P@2"], DOC, runs=["base"])
    assert depth_warnings(doc, "base") == [
        "@5 goes past every list of the run, which lists at most 2 documents per query: "
        "measures at 5 count only those"
    ]
    assert [w.cutoff for w in depth_warnings(doc, "base")] == [5]
    assert depth_warnings(evaluate(ws, ["Recall@5"], CHUNK), "base") == []
    deep = evaluate(ws, ["Recall@20"], CHUNK, runs=["cand"])
    assert "at most 10 results per query" in depth_warnings(deep, "cand")[0]


def test_evaluate_on_the_command_line_says_it_in_text_and_json(capsys, files):
    folder, gold = files
    argv = ["evaluate", str(gold), str(folder / "base.jsonl"), "-k", "5", "--unit", "doc"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0 and "warning: base: @5 goes past every list of the run" in out
    code, out, _ = run_cli(capsys, [*argv, "--format", "json"])
    (run,) = json.loads(out)["runs"]
    assert any("at most 2 documents" in w for w in run["warnings"])


def test_the_report_says_it_once(ws):
    """The report states it as a note beside its k, not again among the warnings."""
    doc = build_report(ws, k=5, policy=DOC, verdicts=NO_VERDICTS)
    assert not [w for texts in doc.warnings.values() for w in texts if "goes past" in w]
