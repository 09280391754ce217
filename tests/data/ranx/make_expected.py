"""Writes expected.json: ranx's own numbers for the measures ragrecall maps ranx names to.

Run with ranx installed (not a test dependency; the tests read the JSON only):
    python tests/data/ranx/make_expected.py

Inputs are trec_eval's test files (../trec_eval): qrels.rel_level (grades -1..4) and
results.test. The run is handed to ranx in trec_eval's order (score descending, ties by
docno descending), as scores n, n - 1, ..., so ranx's tie order cannot differ from
ragrecall's reading of the TREC file.
"""

from __future__ import annotations

import json
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

from ranx import Qrels, Run, evaluate

HERE = Path(__file__).parent
DATA = HERE.parent / "trec_eval"
METRICS = [
    "hits@5",
    "hits@100",
    "hit_rate@5",
    "f1@5",
    "f1@100",
    "ndcg_burges@10",
    "ndcg_burges@100",
    "ndcg@10-l2",
    "ndcg@100-l2",
    "precision@5-l2",
    "recall@100-l2",
    "mrr@10",
    "map@100",
    "ndcg@10",
    "r-precision",
]


def read_qrels(path: Path) -> dict:
    qrels: dict = defaultdict(dict)
    for line in path.read_text().splitlines():
        qid, _, docno, grade = line.split()
        qrels[qid][docno] = int(grade)
    return dict(qrels)


def read_run(path: Path) -> dict:
    lists: dict = defaultdict(list)
    for line in path.read_text().splitlines():
        qid, _, docno, _, score, _ = line.split()
        lists[qid].append((float(score), docno))
    run = {}
    for qid, pairs in lists.items():
        ordered = sorted(pairs, reverse=True)  # score descending, then docno descending
        run[qid] = {docno: float(len(ordered) - i) for i, (_, docno) in enumerate(ordered)}
    return run


def main() -> None:
    qrels = Qrels(read_qrels(DATA / "qrels.rel_level"))
    run = Run(read_run(DATA / "results.test"), name="STANDARD")
    expected = {}
    for metric in METRICS:
        evaluate(qrels, run, metric)  # keeps each query's value in run.scores
        expected[metric] = {qid: float(v) for qid, v in sorted(run.scores[metric].items())}
    note = f"ranx {version('ranx')}, made by make_expected.py"
    text = json.dumps({"note": note, "values": expected}, indent=1, sort_keys=True)
    (HERE / "expected.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
