"""Golden numbers from trec_eval 10.0's own test outputs (usnistgov/trec_eval, test/).

The files in tests/data/trec_eval are byte-identical copies; README.md there
carries NIST's notice and the command that produced each expected output.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from ragrecall_core import Policy, Workspace, evaluate

DATA = Path(__file__).parent / "data" / "trec_eval"
TOLERANCE = 5e-5  # trec_eval prints 4 decimals

FIXED = {"recip_rank": "RR", "map": "AP", "Rprec": "Rprec", "ndcg": "nDCG"}
PREFIXES = {
    "P_": "P@{}",
    "recall_": "Recall@{}",
    "success_": "Hit@{}",
    "ndcg_cut_": "nDCG@{}",
    "map_cut_": "AP@{}",
}


def our_name(trec_name: str) -> str | None:
    if trec_name in FIXED:
        return FIXED[trec_name]
    for prefix, pattern in PREFIXES.items():
        if trec_name.startswith(prefix) and trec_name[len(prefix) :].isdigit():
            return pattern.format(trec_name[len(prefix) :])
    return None


def expected_values(path: Path) -> dict[str, dict[str, float]]:
    """{our measure name: {query or 'all': value}} for the measures we share."""
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        name, query, value = line.split()
        ours = our_name(name)
        if ours:
            table[ours][query] = float(value)
    return table


def check(expected, evaluation) -> int:
    per_query = evaluation.per_query
    checked = 0
    for measure, values in expected.items():
        got = dict(
            zip(
                per_query[per_query.measure == measure].query_id,
                per_query[per_query.measure == measure].value,
                strict=True,
            )
        )
        for query, value in values.items():
            actual = evaluation.value(evaluation.runs[0], measure) if query == "all" else got[query]
            assert actual == pytest.approx(value, abs=TOLERANCE), (measure, query)
            checked += 1
    return checked


CASES = [
    # (expected output, qrels, run, relevance level, trec_eval -c)
    ("out.test.aq", "qrels.test", "results.test", 1, False),
    ("out.test.aql", "qrels.rel_level", "results.test", 2, False),
    ("out.test.aqc", "qrels.test", "results.trunc", 1, True),
    ("out.test.meas_params", "qrels.test", "results.test", 1, False),
]


@pytest.mark.parametrize(("expected", "qrels", "run", "level", "complete"), CASES)
def test_per_query_and_mean_match_trec_eval(expected, qrels, run, level, complete):
    table = expected_values(DATA / expected)
    ws = Workspace.from_files(DATA / qrels, [DATA / run])
    policy = Policy(rel_level=level, compat="trec_eval", complete=complete)
    evaluation = evaluate(ws, sorted(table), policy=policy)
    assert check(table, evaluation) >= len(table) * 2


def test_rag24_segment_run_summary_matches_trec_eval():
    """TREC RAG 2024 segment qrels: doc ids with '#', graded 0-3, 301 run topics, 31 judged."""
    table = expected_values(DATA / "out.comment.test")
    ws = Workspace.from_files(DATA / "qrels.comment.test", [DATA / "results.comment.test"])
    evaluation = evaluate(ws, sorted(table), policy=Policy(compat="trec_eval"))
    assert check(table, evaluation) == len(table)
    counts = evaluation.aggregate.set_index("measure").queries
    assert set(counts) == {31}


def test_comment_lines_in_qrels_are_ignored():
    table = expected_values(DATA / "out.test")
    ws = Workspace.from_files(DATA / "qrels.test.with-comments", [DATA / "results.test"])
    assert check(table, evaluate(ws, sorted(table), policy=Policy(compat="trec_eval"))) > 0


def test_judged_is_one_minus_trec_eval_unjudged():
    expected = defaultdict(dict)
    for line in (DATA / "out.test.aq").read_text().splitlines():
        name, query, value = line.split()
        if name.startswith("unj_"):
            expected[f"Judged@{name[4:]}"][query] = 1 - float(value)
    ws = Workspace.from_files(DATA / "qrels.test", [DATA / "results.test"])
    evaluation = evaluate(ws, sorted(expected), policy=Policy(compat="trec_eval"))
    assert check(expected, evaluation) == sum(len(v) for v in expected.values())
