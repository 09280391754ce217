"""The same inputs give the same numbers, to the last bit: a mean is summed in query order.

DuckDB sums a column in parallel, in whatever order its threads finish, so a mean over
more rows than one row group could differ in its last bits from one evaluation to the
next (seen at 10,000 queries: 5 different results in 6 evaluations): a report's JSON or a
gate at its threshold must not depend on thread timing.
"""

from __future__ import annotations

import random

from ragrecall_core import Workspace, evaluate
from tests.helpers import write_jsonl

QUERIES = 12_000
MEASURES = [f"{name}@{k}" for name in ("P", "Recall", "RR", "nDCG", "Hit") for k in (1, 2, 3, 5)]
MEASURES += ["AP", "nDCG@4", "Recall@4"]


def test_means_are_the_same_on_every_evaluation(tmp_path):
    rng = random.Random(7)
    gold = [
        {"id": f"q{i}", "query": "q", "relevant_ids": [f"c{i}-{rng.randrange(8)}"]}
        for i in range(QUERIES)
    ]
    run = [
        {
            "id": f"q{i}",
            "retrieved": [
                {"chunk_id": f"c{i}-{j}", "rank": j + 1, "score": rng.random()} for j in range(5)
            ],
        }
        for i in range(QUERIES)
    ]
    ws = Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", gold), [write_jsonl(tmp_path / "run.jsonl", run)]
    )
    results = {tuple(evaluate(ws, MEASURES).aggregate["value"]) for _ in range(6)}
    assert len(results) == 1
