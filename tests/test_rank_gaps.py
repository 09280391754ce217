"""A run whose ranks skip places (2, 3, 7) is measured at its positions (1, 2, 3): the
user is told, in one warning naming the file and one query, whichever way the run was
read. A differential test: the same ranking as JSON lines (the listed read, the counted
read of a large file, the validating read), CSV and Parquet (typed and validating), in
memory (a DataFrame, seed records) and restored from the load cache gives the same
warning; a TREC run (ranks ignored, as by trec_eval), lists without ranks and ranks 1..n
give none."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis.query_table import build_measure_rows
from ragrecall_core.inputs import load_cache, runs
from ragrecall_core.output.text import render
from tests.helpers import count_cache_restores, gold_row, run_cli, write_jsonl, write_text

# (query, chunk, rank): q1 is ranked 2, 3, 7; q2 1..3 (no gap); q3 1, 2, 4, 6
RANKED = [
    ("q1", "a", 2), ("q1", "b", 3), ("q1", "c", 7),
    ("q2", "d", 1), ("q2", "e", 2), ("q2", "f", 3),
    ("q3", "g", 1), ("q3", "h", 2), ("q3", "i", 4), ("q3", "j", 6),
]  # fmt: skip
GAPS = "2 queries' ranks skip places ('q1': ranks 2, 3, 7 read as positions 1, 2, 3); "
GAPS += "measures count positions"
SKIP = "ranks skip places"
FORMATS = ["jsonl", "jsonl-shuffled", "csv", "parquet"]


def gold(tmp_path: Path) -> Path:
    rows = [gold_row("q1", ["c"]), gold_row("q2", ["d"]), gold_row("q3", ["j"])]
    return write_jsonl(tmp_path / "gold.jsonl", rows)


def records(ranked=RANKED, ranks: bool = True) -> list[dict]:
    """Seed run lines of ``ranked``, items in the order given."""
    lines: dict[str, list] = {}
    for qid, chunk, rank in ranked:
        item = {"chunk_id": chunk, "score": 1 - rank / 10}
        lines.setdefault(qid, []).append({**item, "rank": rank} if ranks else item)
    return [{"id": qid, "retrieved": items} for qid, items in lines.items()]


def frame(ranked=RANKED) -> pd.DataFrame:
    rows = [(qid, chunk, rank, 1 - rank / 10) for qid, chunk, rank in ranked]
    return pd.DataFrame(rows, columns=["query_id", "chunk_id", "rank", "score"])


def write_run(folder: Path, fmt: str, ranked=RANKED) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        return write_jsonl(folder / "run.jsonl", records(ranked))
    if fmt == "jsonl-shuffled":  # each list written in reverse
        lines = records(ranked)
        lines = [{**line, "retrieved": line["retrieved"][::-1]} for line in lines]
        return write_jsonl(folder / "run.jsonl", lines)
    if fmt == "csv":
        path = folder / "run.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["query_id", "chunk_id", "rank", "score"])
            writer.writerows(frame(ranked).itertuples(index=False))
        return path
    if fmt == "parquet":
        path = folder / "run.parquet"
        pq.write_table(pa.Table.from_pandas(frame(ranked), preserve_index=False), path)
        return path
    raise AssertionError(fmt)


def warnings_of(workspace: Workspace) -> list[str]:
    (run,) = workspace.run_names
    return evaluate(workspace, ["Recall@5"]).warnings.get(run, [])


def gap_warnings(workspace: Workspace) -> list[str]:
    return [w for w in warnings_of(workspace) if SKIP in w]


FILE_READS = [
    *((fmt, read) for fmt in FORMATS for read in ("typed", "validating")),
    ("jsonl", "counted"),
    ("jsonl-shuffled", "counted"),
]


@pytest.mark.parametrize(("fmt", "read"), FILE_READS)
def test_a_file_s_rank_gaps_are_one_warning_whichever_read(tmp_path, monkeypatch, fmt, read):
    if read == "validating":
        monkeypatch.setattr(runs, "read_typed", lambda *args: False)
    if read == "counted":  # the read of a large file: its bytes counted, chunk ids as text
        monkeypatch.setattr(runs, "COMMAS_COUNTED_FROM", 0)
        monkeypatch.setattr(runs, "bare_lines", lambda path: True)
    path = write_run(tmp_path / "runs", fmt)
    workspace = Workspace.from_files(gold(tmp_path), [path])
    assert gap_warnings(workspace) == [f"{path}: {GAPS}"]


def test_the_read_was_the_one_named(tmp_path, monkeypatch):
    """The JSON lines' typed read keeps the ranks given: its sorted read, not the validating
    one, loads them (else the differential test above proves less than it says)."""
    validating = []
    monkeypatch.setattr(
        runs, "_load_jsonl_validating", lambda *args: validating.append(args) or None
    )
    Workspace.from_files(gold(tmp_path), [write_run(tmp_path / "runs", "jsonl")])
    assert validating == []


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(lambda: frame(), id="frame"),
        pytest.param(lambda: records(), id="records"),
        pytest.param(lambda: frame().sample(frac=1, random_state=7), id="frame-shuffled"),
    ],
)
def test_a_run_in_memory_says_the_same(tmp_path, run):
    workspace = Workspace.from_memory(gold(tmp_path), {"mine": run()})
    assert gap_warnings(workspace) == [f"run 'mine': {GAPS}"]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_a_run_restored_from_the_load_cache_says_the_same(tmp_path, monkeypatch, fmt):
    hits: list[bool] = []
    count_cache_restores(monkeypatch, hits)
    path, gold_path = write_run(tmp_path / "runs", fmt), gold(tmp_path)
    fresh = Workspace.from_files(gold_path, [path], cache=tmp_path / "cache")
    load_cache.wait_for_writes()
    load_cache._DIGESTS.clear()
    restored = Workspace.from_files(gold_path, [path], cache=tmp_path / "cache")
    assert hits == [False, True]
    assert gap_warnings(restored) == gap_warnings(fresh) == [f"{path}: {GAPS}"]


def test_a_trec_run_s_ranks_are_ignored_so_no_warning(tmp_path):
    lines = [f"{qid} Q0 {chunk} {rank} {1 - rank / 10} t\n" for qid, chunk, rank in RANKED]
    path = write_text(tmp_path / "runs" / "run.trec", "".join(lines))
    assert gap_warnings(Workspace.from_files(gold(tmp_path), [path])) == []


DENSE = [(qid, chunk, i) for qid in ("q1", "q2") for i, chunk in enumerate("abc", 1)]


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(lambda: records(ranks=False), id="records-without-ranks"),
        pytest.param(lambda: {"q1": ["c", "a"], "q2": ["d"]}, id="lists"),
        pytest.param(lambda: {"q1": {"c": 0.1, "a": 0.9}, "q2": {"d": 0.5}}, id="scored"),
        pytest.param(lambda: frame().drop(columns="rank"), id="frame-without-ranks"),
        pytest.param(lambda: records(DENSE), id="records-1-to-n"),
        pytest.param(lambda: frame(DENSE[::-1]), id="frame-1-to-n-reversed"),
    ],
)
def test_no_warning_without_ranks_or_for_ranks_1_to_n(tmp_path, run):
    assert gap_warnings(Workspace.from_memory(gold(tmp_path), {"mine": run()})) == []


def test_a_csv_without_a_rank_column_ordered_by_score_has_no_warning(tmp_path):
    # rows written out of score order: each row's place in the file is not its position
    text = "query_id,chunk_id,score\nq1,a,0.1\nq1,b,0.9\nq1,c,0.5\nq2,d,0.3\n"
    path = write_text(tmp_path / "runs" / "run.csv", text)
    assert gap_warnings(Workspace.from_files(gold(tmp_path), [path])) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_files_ranked_1_to_n_have_no_warning(tmp_path, fmt):
    path = write_run(tmp_path / "runs", fmt, DENSE)
    assert gap_warnings(Workspace.from_files(gold(tmp_path), [path])) == []


def test_one_query_one_gap_late_in_its_list(tmp_path):
    """The example shows where the first place is skipped (at most three ranks), and one
    query is said in the singular."""
    ranks = [1, 2, 3, 4, 5, 6, 9]
    ranked = [("q1", chunk, rank) for chunk, rank in zip("abcdefg", ranks, strict=True)]
    path = write_run(tmp_path / "runs", "jsonl", ranked)
    (warning,) = gap_warnings(Workspace.from_files(gold(tmp_path), [path]))
    assert warning == (
        f"{path}: 1 query's ranks skip places ('q1': rank 9 read as position 7); "
        "measures count positions"
    )


def test_a_hostile_id_is_shown_quoted_escaped_and_bounded(tmp_path):
    qid = "q\n[x](http://e.example)<b>" + "z" * 500
    ranked = [(qid, "a", 3), (qid, "b", 4)]
    gold_path = write_jsonl(tmp_path / "gold.jsonl", [gold_row(qid, ["a"])])
    path = write_run(tmp_path / "runs", "csv", ranked)
    workspace = Workspace.from_files(gold_path, [path])
    (warning,) = gap_warnings(workspace)
    assert "\n" not in warning and len(warning) < len(str(path)) + 300
    assert "'q\\n[x](http://e.example)<b>zzz" in warning and "cut" in warning
    text = render(evaluate(workspace, ["Recall@5"]), "table")
    assert "ranks 3, 4 read as positions 1, 2" in text


def test_every_output_of_evaluate_shows_it(tmp_path, capsys):
    path = write_run(tmp_path / "runs", "jsonl")
    gold_path = gold(tmp_path)
    code, out, _ = run_cli(capsys, ["evaluate", gold_path, path])
    assert code == 0 and f"warning: run: {path}: {GAPS}" in out
    code, out, _ = run_cli(capsys, ["evaluate", gold_path, path, "--format", "json"])
    assert code == 0 and f"{path}: {GAPS}" in json.loads(out)["runs"][0]["warnings"]
    rows = build_measure_rows(Workspace.from_files(gold_path, [path]), 5)  # the dashboard's
    assert f"{path}: {GAPS}" in rows.warnings["run"]


def test_measures_count_positions(tmp_path):
    """What the warning says: q1's relevant chunk, ranked 7, is at position 3 and counts in
    Recall@5 (the measure reads positions, as the warning tells)."""
    path = write_run(tmp_path / "runs", "jsonl")
    evaluation = evaluate(Workspace.from_files(gold(tmp_path), [path]), ["Recall@5"])
    assert evaluation.value("run", "Recall@5") == pytest.approx(1.0)
