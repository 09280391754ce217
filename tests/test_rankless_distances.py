"""A run without ranks whose scores are distances is said to read backwards, never silently.

A CSV / Parquet run (or a frame in memory) without a rank column is ordered by score,
highest first, as trec_eval orders a run. FAISS L2 and Chroma write distances (lower is
better), usually in the order they returned them: best first, scores rising. Before, such a
file was read backwards without a word (its best chunk last); now every output that shows
the evaluation's warnings names the file and what to do (add a rank column).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis.query_table import build_measure_rows
from tests.distance_runs import (
    ANSWERED_GOLD,
    DISTANCES,
    NO_ANSWER_DISTANCES,
    SAID,
    WHAT_TO_DO,
    csv_text,
)
from tests.helpers import gold_row, run_cli, write_jsonl, write_text

GOLD = ANSWERED_GOLD


@pytest.fixture
def gold(tmp_path):
    return write_jsonl(tmp_path / "gold.jsonl", [gold_row(q, r) for q, r in GOLD.items()])


def warnings_of(gold, run) -> list[str]:
    (found,) = evaluate(str(gold), runs=[str(run)], measures=["Recall@1"]).warnings.values() or [[]]
    return found


def test_a_rankless_csv_of_distances_is_warned_of_naming_the_file(gold, tmp_path):
    run = write_text(tmp_path / "faiss.csv", csv_text(DISTANCES))
    (warning,) = [w for w in warnings_of(gold, run) if SAID in w]
    assert warning.startswith(f"{run}: ") and WHAT_TO_DO in warning
    assert "2 queries" in warning and "'q1': 0.1, 0.35, 0.8" in warning


def test_a_rankless_parquet_run_of_distances_is_warned_of(gold, tmp_path):
    run = tmp_path / "faiss.parquet"
    pd.DataFrame(DISTANCES, columns=["query_id", "chunk_id", "score"]).to_parquet(run)
    assert any(SAID in w for w in warnings_of(gold, run))


@pytest.mark.parametrize(
    "text",
    [
        # similarities written best first: the order ragrecall reads them in
        csv_text([(q, c, 1 - s) for q, c, s in DISTANCES]),
        # distances with their ranks: read by rank, nothing backwards
        csv_text(
            [(q, c, r, s) for r, (q, c, s) in zip([1, 2, 3, 1, 2], DISTANCES, strict=True)],
            "query_id,chunk_id,rank,score",
        ),
        # one query rises, one falls: not a distance file by its order alone
        csv_text([*DISTANCES[:3], ("q2", "doc-b#c2", 0.5), ("q2", "doc-z#c9", 0.2)]),
    ],
    ids=["similarities", "ranked-distances", "mixed"],
)
def test_no_warning_where_the_order_read_is_the_order_given(gold, tmp_path, text):
    run = write_text(tmp_path / "run.csv", text)
    assert not any(SAID in w for w in warnings_of(gold, run))


def test_a_frame_in_memory_without_ranks_is_warned_of_by_its_label():
    frame = pd.DataFrame(DISTANCES, columns=["query_id", "chunk_id", "score"])
    ev = evaluate(GOLD, runs={"faiss": frame}, measures=["Recall@1"])
    assert any(w.startswith("run 'faiss': ") and SAID in w for w in ev.warnings["faiss"])


def test_the_command_line_says_it_in_text_and_json(capsys, gold, tmp_path):
    run = write_text(tmp_path / "faiss.csv", csv_text(DISTANCES))
    code, out, _ = run_cli(capsys, ["evaluate", str(gold), str(run), "-k", "1"])
    assert code == 0 and f"warning: faiss: {run}: {SAID}" in out
    code, out, _ = run_cli(capsys, ["evaluate", str(gold), str(run), "--format", "json"])
    (entry,) = json.loads(out)["runs"]
    assert any(SAID in w for w in entry["warnings"])


def test_the_dashboard_overview_shows_it(gold, tmp_path):
    """The Overview's warnings (an uploaded file is loaded by the same reader)."""
    run = write_text(tmp_path / "faiss.csv", csv_text(DISTANCES))
    rows = build_measure_rows(Workspace.from_files(gold, [run]), 5)
    assert any(SAID in w for w in rows.warnings["faiss"])


def test_no_answer_says_a_rankless_distance_run_reads_backwards(gold, tmp_path, capsys):
    """no-answer reads which way a run's scores point from the order it measures: for a
    rankless file that order is the scores' own, so it said "higher is better (scores fall
    with rank)" of distances, and picked its threshold the wrong way round, without a word.
    Its text and JSON now carry the same warning evaluate gives, naming the file."""
    from ragrecall_core.analysis.no_answer import no_answer_report

    answerless = [*DISTANCES, *NO_ANSWER_DISTANCES]
    run = write_text(tmp_path / "faiss.csv", csv_text(answerless))
    gold3 = write_jsonl(
        tmp_path / "gold3.jsonl", [*(gold_row(q, r) for q, r in GOLD.items()), gold_row("q3", [])]
    )
    code, out, _ = run_cli(capsys, ["no-answer", gold3, run])
    assert code == 0
    (said,) = [line for line in out.splitlines() if SAID in line]
    assert said.startswith("  warning: ") and "faiss.csv" in said and WHAT_TO_DO in said
    code, out, _ = run_cli(capsys, ["no-answer", gold3, run, "--format", "json"])
    (warning,) = json.loads(out)["runs"]["faiss"]["warnings"]
    assert SAID in warning and WHAT_TO_DO in warning
    ranked = write_text(
        tmp_path / "ranked.csv",
        csv_text(
            [(*row, i + 1) for i, row in enumerate(answerless)], "query_id,chunk_id,score,rank"
        ),
    )
    report = no_answer_report(Workspace.from_files(gold3, [ranked]))
    assert report.warnings == {}, "a run read by its ranks is never said to read backwards"
