"""The sample workspace loads through the core's validation and shows what a real team
would see: lexical retrieval wins on exact terms, dense on paraphrases, and both fail
some multi-condition and confusable queries."""

from __future__ import annotations

import pytest

from ragrecall_core import Workspace, evaluate
from tests.samples import shared_samples

SAMPLES = shared_samples()


@pytest.fixture(scope="module")
def by_type():
    ws = Workspace.open(SAMPLES)
    evaluation = evaluate(ws, ["Recall@5"], runs=["bm25", "dense-minilm"])
    types = ws.cursor().execute("SELECT query_id, query_type FROM queries").df()
    rows = evaluation.per_query.merge(types, on="query_id")
    return rows.groupby(["run", "query_type"]).value.agg(["mean", "min"])


def test_every_sample_file_passes_validation():
    ws = Workspace.open(SAMPLES)
    assert ws.run_names == ["bm25", "dense-minilm", "hybrid-rrf-k10-titleboost", "hybrid-rrf"]
    assert [p.name for p in sorted(ws.grades)] == [
        "anna.jsonl",
        "boris.jsonl",
        "judge-minilm.jsonl",
    ]
    assert ws.corpus is not None


def test_lexical_wins_on_exact_terms_and_dense_on_paraphrases(by_type):
    assert (
        by_type.loc[("bm25", "exact_term"), "mean"]
        > by_type.loc[("dense-minilm", "exact_term"), "mean"]
    )
    assert (
        by_type.loc[("dense-minilm", "paraphrase"), "mean"]
        > by_type.loc[("bm25", "paraphrase"), "mean"]
    )


@pytest.mark.parametrize("query_type", ["multi_condition", "confusable"])
@pytest.mark.parametrize("run", ["bm25", "dense-minilm"])
def test_both_runs_fail_some_hard_queries(by_type, run, query_type):
    assert by_type.loc[(run, query_type), "min"] < 1.0
