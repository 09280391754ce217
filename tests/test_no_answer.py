"""No-answer queries and the false-confidence sweep (SPEC "What the user does with it", 6).

Hand-made scores; every expected share is counted in the comments. k = 3.

run ``dense`` (cosine scale):
    no-answer  n1 0.90, n2 0.50, n3 0.20
    answerable a1 0.95 (relevant in top 3), a2 0.80 (yes), a3 0.40 (no: rank 5), a4 0.30 (yes)
run ``sparse`` (BM25 scale):
    no-answer  n1 12, n2 25, n3 3
    answerable a1 30 (yes), a2 20 (no: not retrieved), a3 8 (yes), a4 15 (yes)

false confidence(t)   = share of no-answer queries whose top score >= t
answerable coverage(t) = share of answerable queries whose top score >= t AND that have a
                         relevant chunk in the top k
"""

from __future__ import annotations

import json

import pytest
from fixtures_regressions import write_jsonl

from ragrecall_core import Workspace
from ragrecall_core.analysis.no_answer import no_answer_report
from ragrecall_core.cli import main
from tests.samples import shared_samples

GOLD = [
    {"id": "a1", "query": "a1", "relevant_ids": ["R1"]},
    {"id": "a2", "query": "a2", "relevant_ids": ["R2"]},
    {"id": "a3", "query": "a3", "relevant_ids": ["R3"]},
    {"id": "a4", "query": "a4", "relevant_ids": ["R4"]},
    {"id": "n1", "query": "n1", "relevant_ids": []},
    {"id": "n2", "query": "n2", "relevant_ids": []},
    {"id": "n3", "query": "n3", "relevant_ids": []},
]


def line(qid, chunks, top):
    """``chunks`` ranked 1..n, the first scoring ``top`` and each next one 1% less."""
    return {
        "id": qid,
        "retrieved": [
            {"chunk_id": c, "rank": i + 1, "score": round(top * (1 - i / 100), 6)}
            for i, c in enumerate(chunks)
        ],
    }


DENSE = [
    line("a1", ["R1", "x1", "x2"], 0.95),
    line("a2", ["x1", "R2", "x2"], 0.80),
    line("a3", ["x1", "x2", "x3", "x4", "R3"], 0.40),
    line("a4", ["x1", "x2", "R4"], 0.30),
    line("n1", ["x1", "x2"], 0.90),
    line("n2", ["x1"], 0.50),
    line("n3", ["x1", "x2", "x3"], 0.20),
]
SPARSE = [
    line("a1", ["R1"], 30.0),
    line("a2", ["x1", "x2", "x3"], 20.0),
    line("a3", ["x1", "R3"], 8.0),
    line("a4", ["R4", "x1"], 15.0),
    line("n1", ["x1"], 12.0),
    line("n2", ["x1"], 25.0),
    line("n3", ["x1"], 3.0),
]

DENSE_SWEEP = {  # threshold: (false confidence, answerable coverage)
    0.20: (3 / 3, 3 / 4),  # n1 n2 n3 | a1 a2 a4 (a3's relevant chunk is at rank 5)
    0.30: (2 / 3, 3 / 4),  # n1 n2    | a1 a2 a4
    0.40: (2 / 3, 2 / 4),  # n1 n2    | a1 a2 (a4's 0.30 is below)
    0.50: (2 / 3, 2 / 4),
    0.80: (1 / 3, 2 / 4),  # n1       | a1 a2
    0.90: (1 / 3, 1 / 4),  # n1       | a1
    0.95: (0 / 3, 1 / 4),  #          | a1
}
SPARSE_SWEEP = {
    3.0: (3 / 3, 3 / 4),  # all n | a1 a3 a4 (a2 has no relevant chunk in the top 3)
    8.0: (2 / 3, 3 / 4),  # n1 n2 | a1 a3 a4
    12.0: (2 / 3, 2 / 4),  # n1 n2 | a1 a4
    15.0: (1 / 3, 2 / 4),  # n2    | a1 a4
    20.0: (1 / 3, 1 / 4),  # n2    | a1
    25.0: (1 / 3, 1 / 4),
    30.0: (0 / 3, 1 / 4),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("no_answer")
    return {
        "gold": write_jsonl(root / "gold.jsonl", GOLD),
        "dense": write_jsonl(root / "dense.jsonl", DENSE),
        "sparse": write_jsonl(root / "sparse.jsonl", SPARSE),
    }


@pytest.fixture(scope="module")
def report(files):
    ws = Workspace.from_files(files["gold"], [files["dense"], files["sparse"]])
    return no_answer_report(ws, k=3)


def sweep_of(report, run) -> dict[float, tuple[float, float]]:
    rows = report.sweep[report.sweep.run == run]
    return {
        round(t, 6): (fc, cov)
        for t, fc, cov in zip(
            rows.threshold, rows.false_confidence, rows.answerable_coverage, strict=True
        )
    }


@pytest.mark.parametrize("run, expected", [("dense", DENSE_SWEEP), ("sparse", SPARSE_SWEEP)])
def test_sweep_rates_at_every_threshold(report, run, expected):
    got = sweep_of(report, run)
    assert sorted(got) == sorted(expected)  # thresholds: the run's own top scores only
    for t, (fc, cov) in expected.items():
        assert got[t] == pytest.approx((fc, cov)), t


def test_top_scores_and_kinds(report):
    top = report.top_scores[report.top_scores.run == "dense"].set_index("query_id")
    assert dict(top.kind) == {
        **{q: "answerable" for q in ("a1", "a2", "a3", "a4")},
        **{q: "no answer" for q in ("n1", "n2", "n3")},
    }
    assert top.top_score.to_dict() == pytest.approx(
        {"a1": 0.95, "a2": 0.8, "a3": 0.4, "a4": 0.3, "n1": 0.9, "n2": 0.5, "n3": 0.2}
    )
    assert dict(top.relevant_in_top_k) == {
        "a1": True,
        "a2": True,
        "a3": False,
        "a4": True,
        "n1": False,
        "n2": False,
        "n3": False,
    }


@pytest.mark.parametrize(
    "max_fc, dense, sparse",
    [
        # lowest threshold whose false confidence <= max_fc, per run
        (0.1, (0.95, 0.0, 0.25), (30.0, 0.0, 0.25)),
        (0.5, (0.80, 1 / 3, 0.5), (15.0, 1 / 3, 0.5)),
        (0.7, (0.30, 2 / 3, 0.75), (8.0, 2 / 3, 0.75)),
        (1.0, (0.20, 1.0, 0.75), (3.0, 1.0, 0.75)),
    ],
)
def test_pick_chooses_the_lowest_threshold_meeting_the_bound_per_run(report, max_fc, dense, sparse):
    picked = report.pick(max_fc).set_index("run")
    assert sorted(picked.index) == ["dense", "sparse"]
    for run, (t, fc, cov) in (("dense", dense), ("sparse", sparse)):
        row = picked.loc[run]
        assert (row.threshold, row.false_confidence, row.answerable_coverage) == pytest.approx(
            (t, fc, cov)
        ), run


def test_no_threshold_when_the_bound_cannot_be_met(tmp_path):
    # the only no-answer query outscores every answerable one: even the highest
    # threshold (its own score) keeps false confidence at 1
    gold = [
        {"id": "a", "query": "a", "relevant_ids": ["R"]},
        {"id": "n", "query": "n", "relevant_ids": []},
    ]
    run = [line("a", ["R"], 0.5), line("n", ["x"], 0.9)]
    ws = Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", gold), [write_jsonl(tmp_path / "r.jsonl", run)]
    )
    report = no_answer_report(ws, k=1)
    assert report.pick(0.5).empty
    assert report.to_dict(0.5)["runs"]["r"]["threshold"] is None
    assert "no threshold keeps false confidence <= 50%" in report.to_text(0.5)


def test_a_no_answer_query_with_nothing_retrieved_counts_as_not_confident(tmp_path):
    # n_empty has an empty list: no top score, but it stays in the denominator
    gold = [*GOLD, {"id": "n_empty", "query": "n4", "relevant_ids": []}]
    run = [*DENSE, {"id": "n_empty", "retrieved": []}]
    ws = Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", gold), [write_jsonl(tmp_path / "dense.jsonl", run)]
    )
    report = no_answer_report(ws, k=3)
    got = sweep_of(report, "dense")
    assert got[0.2][0] == pytest.approx(3 / 4)  # n1 n2 n3 of 4 no-answer queries
    assert got[0.95][0] == 0.0
    entry = report.to_dict()["runs"]["dense"]
    assert (entry["no_answer_queries"], entry["no_answer_with_results"]) == (4, 3)
    assert entry["no_answer_top_scores"]["n_empty"] is None


def test_to_dict_per_run(report):
    data = report.to_dict(0.5)
    json.dumps(data)  # plain JSON
    dense = data["runs"]["dense"]
    assert (dense["no_answer_queries"], dense["answerable_queries"]) == (3, 4)
    assert dense["no_answer_with_results"] == 3
    assert dense["no_answer_top_scores"] == pytest.approx({"n1": 0.9, "n2": 0.5, "n3": 0.2})
    assert dense["threshold"] == pytest.approx(
        {
            "max_false_confidence": 0.5,
            "threshold": 0.8,
            "confident_when": "top_score >= threshold",
            "false_confidence": 1 / 3,
            "answerable_coverage": 0.5,
        }
    )


def test_cli_no_answer_json(files, capsys):
    argv = ["no-answer", str(files["gold"]), str(files["dense"]), str(files["sparse"])]
    code = main([*argv, "-k", "3", "--max-false-confidence", "0.5", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["k"] == 3
    assert data["runs"]["dense"]["threshold"]["threshold"] == pytest.approx(0.8)
    assert data["runs"]["sparse"]["threshold"]["threshold"] == pytest.approx(15.0)
    assert data["runs"]["sparse"]["threshold"]["answerable_coverage"] == pytest.approx(0.5)


def test_cli_no_answer_text(files, capsys):
    code = main(["no-answer", str(files["gold"]), str(files["dense"]), "-k", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "dense: 3 no-answer queries, 3 still returned something" in out
    assert "n1: top score 0.9000" in out
    # default bound 10%: threshold 0.95, false confidence 0%, coverage 1 of 4
    assert "threshold 0.9500: false confidence 0.0% (at most 10%), answerable coverage 25.0%" in (
        out
    )


def test_the_no_answer_summary_lists_runs_in_the_workspace_order():
    """Grouped in SQL, the runs came back in a different order from one call to the next."""
    from ragrecall_core import Workspace
    from ragrecall_core.scoring.evaluate import no_answer_summary
    from ragrecall_core.scoring.prepared import prepare

    ws = Workspace.open(shared_samples())
    orders = {tuple(no_answer_summary(prepare(ws, None))) for _ in range(20)}
    assert orders == {tuple(ws.run_names)}
