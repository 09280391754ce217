"""Pooling and judging the pool, seed 002 end to end (SPEC "Measures": seed 002).

Gold: q1 judges A relevant (grade 1), B and C not relevant (grade 0).
Runs: old [A, B, C], new [D, B, E].
  before judging   P@3 old 1/3 (A), judged 3/3; new 0/3, judged 1/3 (B only)
  pool (depth 3)   {A, B, C, D, E} minus the judged {A, B, C} = {D, E}
  after D and E are judged relevant (grade 2): P@3 old 1/3, new 2/3; both judged 3/3
"""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from fixtures_regressions import write_jsonl

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.analysis.pooling import build_pool, pool_coverage, write_pool
from ragrecall_core.cli import main
from ragrecall_core.inputs.store import attach_store, submit

GOLD = [
    {
        "id": "q1",
        "query": "how do I cancel an order?",
        "relevant_ids": ["A"],
        "grades": {"A": 1, "B": 0, "C": 0},
    }
]


def run(chunks):
    return [
        {
            "id": "q1",
            "retrieved": [
                {"chunk_id": c, "rank": i + 1, "score": 0.9 - i / 10} for i, c in enumerate(chunks)
            ],
        }
    ]


def seed002(folder, grades=None, corpus=None):
    """The seed-002 workspace as a folder; ``grades`` rows go to grades/judge.jsonl."""
    write_jsonl(folder / "gold.jsonl", GOLD)
    write_jsonl(folder / "runs" / "old.jsonl", run(["A", "B", "C"]))
    write_jsonl(folder / "runs" / "new.jsonl", run(["D", "B", "E"]))
    if grades:
        write_jsonl(folder / "grades" / "judge.jsonl", grades)
    if corpus:
        write_jsonl(folder / "corpus.jsonl", corpus)
    return Workspace.open(folder)


def p_and_judged(ws) -> dict[str, tuple[float, float]]:
    ev = evaluate(ws, ["P@3", "Judged@3"])
    return {r: (ev.value(r, "P@3"), ev.value(r, "Judged@3")) for r in ("old", "new")}


def test_before_judging_seed002_numbers(tmp_path):
    got = p_and_judged(seed002(tmp_path))
    assert got["old"] == pytest.approx((1 / 3, 1.0))
    assert got["new"] == pytest.approx((0.0, 1 / 3))


def test_the_pool_is_exactly_d_and_e(tmp_path):
    pool = build_pool(seed002(tmp_path), depth=3)
    assert sorted(pool.chunk_id) == ["D", "E"]
    assert set(pool.query_id) == {"q1"}
    assert list(pool.columns) == ["query_id", "chunk_id", "query", "text"]


def test_a_shallower_pool_takes_only_the_top_d(tmp_path):
    # depth 1: old's A (judged) and new's D -> {D}
    assert list(build_pool(seed002(tmp_path), depth=1).chunk_id) == ["D"]


def test_pooling_only_the_old_run_leaves_nothing_to_judge(tmp_path):
    assert build_pool(seed002(tmp_path), runs=["old"], depth=3).empty


def test_pool_coverage_before_and_after(tmp_path):
    cov = pool_coverage(seed002(tmp_path), depth=3, k=3).set_index("run")
    assert cov.loc["old", "judged_before"] == pytest.approx(1.0)
    assert cov.loc["new", "judged_before"] == pytest.approx(1 / 3)
    assert cov.loc["old", "judged_after"] == pytest.approx(1.0)
    assert cov.loc["new", "judged_after"] == pytest.approx(1.0)
    assert list(cov.in_pool) == [True, True]
    assert list(cov.pool_depth) == [3, 3]


def test_a_run_outside_the_pool_shows_what_the_pool_leaves_unjudged(tmp_path):
    cov = pool_coverage(seed002(tmp_path), runs=["old"], depth=3, k=3).set_index("run")
    assert bool(cov.loc["new", "in_pool"]) is False
    assert pd.isna(cov.loc["new", "pool_depth"])
    assert cov.loc["new", "judged_after"] == pytest.approx(1 / 3)  # D and E still unjudged


def test_depth_below_k_and_unknown_runs_are_invalid_input(tmp_path):
    ws = seed002(tmp_path)
    with pytest.raises(InputError) as error:
        build_pool(ws, runs=["old", "nope"], depth=2, k=3)
    text = str(error.value)
    assert "nope" in text and "d >= k = 3" in text


def test_write_pool_is_blind_and_its_order_is_fixed(tmp_path):
    corpus = [{"chunk_id": c, "text": f"chunk {c} text"} for c in "ABCDE"]
    ws = seed002(tmp_path / "ws", corpus=corpus)
    first, second = tmp_path / "pool1.jsonl", tmp_path / "pool2.jsonl"
    assert write_pool(build_pool(ws, depth=3), first) == 2
    assert write_pool(build_pool(ws, depth=3), second) == 2
    assert first.read_bytes() == second.read_bytes()
    # a fresh workspace over the same files gives the same order
    third = tmp_path / "pool3.jsonl"
    write_pool(build_pool(Workspace.open(tmp_path / "ws"), depth=3), third)
    assert third.read_bytes() == first.read_bytes()
    records = [json.loads(line) for line in first.read_text("utf-8").splitlines()]
    assert sorted(r["chunk_id"] for r in records) == ["D", "E"]
    for record in records:
        assert set(record) == {"query_id", "chunk_id", "query", "text"}
        assert record["query"] == GOLD[0]["query"]
        assert record["text"] == f"chunk {record['chunk_id']} text"
    text = first.read_text("utf-8")
    for hint in ('"run"', '"rank"', '"score"', "old", "new", "0.9", "0.7"):
        assert hint not in text, hint


def test_judging_the_pool_with_a_grades_file(tmp_path):
    grades = [
        {"query_id": "q1", "chunk_id": c, "grade": 2, "annotator": "judge"} for c in ("D", "E")
    ]
    ws = seed002(tmp_path, grades=grades)
    got = p_and_judged(ws)
    assert got["old"] == pytest.approx((1 / 3, 1.0))
    assert got["new"] == pytest.approx((2 / 3, 1.0))
    assert build_pool(ws, depth=3).empty  # nothing left to judge
    cov = pool_coverage(ws, depth=3, k=3).set_index("run")
    assert list(cov.judged_before) == [1.0, 1.0]


def test_judging_the_pool_through_the_judgment_store(tmp_path):
    ws = seed002(tmp_path)
    attach_store(ws)
    for chunk in build_pool(ws, depth=3).chunk_id:
        submit(ws, "q1", chunk, 2, "judge")
    got = p_and_judged(ws)
    assert got["old"] == pytest.approx((1 / 3, 1.0))
    assert got["new"] == pytest.approx((2 / 3, 1.0))
    assert build_pool(ws, depth=3).empty
    ws.con.close()
    # a fresh workspace over the same folder sees the stored judgments once it attaches them
    again = Workspace.open(tmp_path)
    assert attach_store(again) == tmp_path / "judgments.duckdb"
    assert p_and_judged(again)["new"] == pytest.approx((2 / 3, 1.0))


def test_cli_pool_writes_the_file(tmp_path, capsys):
    seed002(tmp_path)
    out = tmp_path / "to_judge.jsonl"
    code = main(
        [
            "pool",
            str(tmp_path / "gold.jsonl"),
            str(tmp_path / "runs" / "old.jsonl"),
            str(tmp_path / "runs" / "new.jsonl"),
            "--depth",
            "3",
            "-k",
            "3",
            "-o",
            str(out),
        ]
    )
    stdout = capsys.readouterr().out
    assert code == 0
    assert sorted(json.loads(line)["chunk_id"] for line in out.read_text().splitlines()) == [
        "D",
        "E",
    ]
    assert f"2 (query, chunk) pairs to judge written to {out}" in stdout
    assert "judged share of each run's top 3" in stdout


def test_cli_pool_depth_below_k_is_invalid_input(tmp_path, capsys):
    seed002(tmp_path)
    out = tmp_path / "to_judge.jsonl"
    code = main(
        [
            "pool",
            str(tmp_path / "gold.jsonl"),
            str(tmp_path / "runs" / "old.jsonl"),
            "--depth",
            "2",
            "-k",
            "3",
            "-o",
            str(out),
        ]
    )
    assert code == 2
    assert "d >= k = 3" in capsys.readouterr().err
    assert not out.exists()


def pool_cli(folder) -> list[str]:
    runs = folder / "runs"
    return ["pool", str(folder / "gold.jsonl"), str(runs / "old.jsonl"), str(runs / "new.jsonl")]


def test_cli_pool_k_defaults_to_the_depth(tmp_path, capsys):
    seed002(tmp_path)
    out = tmp_path / "pool.jsonl"
    code = main(pool_cli(tmp_path) + ["--depth", "3", "-o", str(out)])
    stdout = capsys.readouterr().out
    assert code == 0
    assert "judged share of each run's top 3" in stdout
    # seed 002: new is judged 1/3 before and 3/3 after judging D and E
    assert "  new: 0.333 -> 1.000" in stdout and "  old: 1.000 -> 1.000" in stdout
    assert len(out.read_text().splitlines()) == 2


def test_cli_pool_writes_csv_for_a_csv_name(tmp_path, capsys):
    corpus = [{"chunk_id": "D", "doc_id": "d", "text": '=HYPERLINK("http://x")'}]
    seed002(tmp_path, corpus=corpus)
    out = tmp_path / "pool.csv"
    argv = pool_cli(tmp_path) + ["--depth", "3", "--corpus", str(tmp_path / "corpus.jsonl")]
    assert main(argv + ["-o", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text("utf-8"))))
    assert [r["chunk_id"] for r in sorted(rows, key=lambda r: r["chunk_id"])] == ["D", "E"]
    assert set(rows[0]) == {"query_id", "chunk_id", "query", "text"}
    texts = {r["chunk_id"]: r["text"] for r in rows}
    assert texts == {"D": '\'=HYPERLINK("http://x")', "E": ""}  # neutralised; missing = empty
    assert not out.read_text("utf-8").lstrip().startswith("{")


@pytest.mark.parametrize("name", ["pool.json", "pool.txt", "pool", "pool.xlsx"])
def test_cli_pool_refuses_an_unsupported_extension_before_the_work(tmp_path, capsys, name):
    seed002(tmp_path)
    out = tmp_path / name
    code = main(pool_cli(tmp_path) + ["--depth", "3", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert ".jsonl or .csv" in err and name in err
    assert not out.exists()


def test_write_pool_refuses_an_unsupported_extension(tmp_path):
    ws = seed002(tmp_path)
    with pytest.raises(InputError, match=r"\.jsonl or \.csv"):
        write_pool(build_pool(ws, depth=3, k=3), tmp_path / "pool.json")
