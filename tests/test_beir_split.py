"""BEIR folders: ``--split`` for evaluate / compare / check, BEIR's published averaging
(``--compat trec_eval``), and negative qrels scores read as trec_eval reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from ragrecall_core import Policy, Workspace, evaluate

QUERIES = ["q1", "q2", "q3", "q4", "q5"]
# q4's qrels are all 0 (a no-answer query for ragrecall's default mean); d7 scores -1
QRELS = {
    "test": [
        ("q1", "d1", 1),
        ("q1", "d2", 0),
        ("q2", "d3", 2),
        ("q2", "d4", 1),
        ("q3", "d5", 1),
        ("q3", "d7", -1),
        ("q4", "d1", 0),
        ("q4", "d6", 0),
    ],
    "dev": [("q5", "d2", 1)],
}
RUN = {
    "q1": ["d2", "d1", "d8"],
    "q2": ["d4", "d9", "d3"],
    "q3": ["d7", "d8", "d5"],
    "q4": ["d1", "d6"],
    "q5": ["d2"],
}
# BEIR's EvaluateRetrieval.evaluate on the test qrels: pytrec_eval-terrier 0.5.11 with
# {map_cut.3, ndcg_cut.3, recall.3, P.3}, each measure's mean over the queries it scored
# (q1-q4; q5 has no test qrels), the run's lists given as scores 3, 2, 1.
BEIR_PUBLISHED = {
    "nDCG@3": 0.4727793217508315,
    "AP@3": 0.41666666666666663,
    "Recall@3": 0.75,
    "P@3": 0.3333333333333333,
}


def beir_folder(root: Path) -> Path:
    root.mkdir()
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": f"query {q}"}) + "\n" for q in QUERIES)
    )
    docs = sorted({d for rows in QRELS.values() for _, d, _ in rows} | {"d8", "d9"})
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": d, "text": f"doc {d}"}) + "\n" for d in docs)
    )
    (root / "qrels").mkdir()
    for split, rows in QRELS.items():
        lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{g}" for q, d, g in rows)]
        (root / "qrels" / f"{split}.tsv").write_text("\n".join(lines) + "\n")
    return root


def trec_run(path: Path, name: str = "bm25", run: dict | None = None) -> Path:
    lines = [
        f"{q} Q0 {d} {i + 1} {len(ids) - i} {name}"
        for q, ids in (run or RUN).items()
        for i, d in enumerate(ids)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def files(tmp_path):
    return beir_folder(tmp_path / "beir"), trec_run(tmp_path / "bm25.trec")


def means(out: str) -> dict[str, float]:
    return json.loads(out)["runs"][0]["aggregate"]


def test_compat_trec_eval_on_the_test_split_reproduces_beirs_published_numbers(files, capsys):
    root, run = files
    argv = ["evaluate", root, run, "--split", "test", "--compat", "trec_eval", "--format", "json"]
    code, out, err = run_cli(capsys, [*argv, *(a for m in BEIR_PUBLISHED for a in ("-m", m))])
    assert code == 0, err
    assert means(out) == pytest.approx(BEIR_PUBLISHED, abs=1e-12)


def test_the_default_mean_leaves_the_all_zero_query_out_so_it_differs_from_beir(files, capsys):
    root, run = files
    code, out, err = run_cli(
        capsys, ["evaluate", root, run, "--split", "test", "-m", "Recall@3", "--format", "json"]
    )
    assert code == 0, err
    assert means(out)["Recall@3"] == 1.0  # q1-q3 only; BEIR counts q4 as 0: 0.75
    assert json.loads(out)["runs"][0]["queries"]["Recall@3"] == 3


def test_evaluate_split_keeps_only_that_splits_queries(files, capsys):
    root, run = files
    argv = ["evaluate", root, run, "-m", "Recall@1", "--format", "json", "--per-query"]
    code, out, _ = run_cli(capsys, [*argv, "--split", "dev"])
    assert code == 0
    assert set(json.loads(out)["runs"][0]["per_query"]) == {"q5"}
    code, out, _ = run_cli(capsys, argv)
    assert set(json.loads(out)["runs"][0]["per_query"]) == {"q1", "q2", "q3", "q5"}


def test_an_unknown_split_is_refused_naming_the_splits(files, capsys):
    root, run = files
    code, _, err = run_cli(capsys, ["evaluate", root, run, "--split", "train"])
    assert code == 2
    assert "'dev', 'test'" in err


def test_evaluate_split_on_a_gold_file_with_a_split_field(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    records = [
        {"id": "q1", "query": "a", "relevant_ids": ["d1"], "split": "test"},
        {"id": "q5", "query": "b", "relevant_ids": ["d2"], "split": "dev"},
    ]
    gold.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = trec_run(tmp_path / "bm25.trec")
    code, out, err = run_cli(
        capsys, ["evaluate", gold, run, "-m", "Recall@1", "--split", "dev", "--format", "json"]
    )
    assert code == 0, err
    assert json.loads(out)["runs"][0]["queries"]["Recall@1"] == 1


def test_compare_and_check_take_a_split_of_a_beir_folder(files, tmp_path, capsys):
    root, run = files
    other = trec_run(tmp_path / "dense.trec", "dense", {**RUN, "q5": ["d9", "d2"]})
    code, out, err = run_cli(
        capsys, ["compare", root, run, other, "-k", "1", "--split", "dev", "--format", "json"]
    )
    assert code == 0, err
    gate = ["check", root, run, "--require", "Recall@1>=0.9"]
    assert run_cli(capsys, [*gate, "--split", "dev"])[0] == 0  # q5 finds its answer first
    assert run_cli(capsys, [*gate, "--split", "test"])[0] == 1


def test_a_negative_beir_score_is_unjudged_as_trec_eval_reads_it(files):
    root, run = files
    ws = Workspace.from_files(root, [run])
    ev = evaluate(ws, ["Judged@1", "Recall@3"], policy=Policy(compat="trec_eval"))
    values = {(q, m): v for _, q, m, v in ev.rows}
    assert values[("q3", "Judged@1")] == 0.0  # d7 (-1) is first: in the pool, unjudged
    assert values[("q3", "Recall@3")] == 1.0  # and not relevant: q3 has one relevant item
