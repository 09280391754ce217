"""Harm@k: a chunk a reviewer flagged harmful (convincing but outdated or contradicting)
in the top k (SPEC "Manual grades"; measures/harm.py). Hand-made example.

gold: h1 [G1], h2 [G2], h3 [] (no answer), h4 [G4], h5 [G5] (missing from the run)
grades: anna flags Z harmful for h1, h2 and h3; boris grades Z for h1 without the flag
run:  h1 [G1, Z, a]        Z at 2        Harm@3 1, Harm@5 1
      h2 [G2, a, b, Z]     Z at 4        Harm@3 0, Harm@5 1
      h3 [Z, a]            Z at 1        Harm@3 1, Harm@5 1  (no-answer: still counted)
      h4 [Z, G4]           Z not flagged for h4        0, 0
      h5 missing from the run: scores 0 and stays in the mean
Harm@3 mean = (1 + 0 + 1 + 0 + 0) / 5 = 0.4; Harm@5 = (1 + 1 + 1 + 0 + 0) / 5 = 0.6.
Recall@3 covers h1, h2, h4, h5 only (h3 has no relevant chunk): (1 + 1 + 1 + 0) / 4 = 0.75.
"""

from __future__ import annotations

import pytest
from fixtures_regressions import write_jsonl

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.measures import parse_measure
from ragrecall_core.views.harm_view import harm_for_cutoffs, harm_per_query

GOLD = [
    {"id": "h1", "query": "h1", "relevant_ids": ["G1"]},
    {"id": "h2", "query": "h2", "relevant_ids": ["G2"]},
    {"id": "h3", "query": "h3", "relevant_ids": []},
    {"id": "h4", "query": "h4", "relevant_ids": ["G4"]},
    {"id": "h5", "query": "h5", "relevant_ids": ["G5"]},
]


def line(qid, chunks):
    return {
        "id": qid,
        "retrieved": [
            {"chunk_id": c, "rank": i + 1, "score": 1 - i / 10} for i, c in enumerate(chunks)
        ],
    }


RUN = [
    line("h1", ["G1", "Z", "a"]),
    line("h2", ["G2", "a", "b", "Z"]),
    line("h3", ["Z", "a"]),
    line("h4", ["Z", "G4"]),
]


def flag(qid, chunk, harmful=True, grade=0, annotator="anna"):
    return {
        "query_id": qid,
        "chunk_id": chunk,
        "grade": grade,
        "harmful": harmful,
        "reason": "outdated price list" if harmful else "",
        "annotator": annotator,
    }


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("harm")
    anna = [flag("h1", "Z"), flag("h2", "Z"), flag("h3", "Z")]
    boris = [flag("h1", "Z", harmful=False, annotator="boris")]
    return Workspace.from_files(
        write_jsonl(root / "gold.jsonl", GOLD),
        [write_jsonl(root / "run.jsonl", RUN)],
        [write_jsonl(root / "anna.jsonl", anna), write_jsonl(root / "boris.jsonl", boris)],
    )


def values(ev, measure):
    rows = ev.per_query[(ev.per_query.run == "run") & (ev.per_query.measure == measure)]
    return {
        q: (None if v != v else float(v)) for q, v in zip(rows.query_id, rows.value, strict=True)
    }


def test_harm_at_3_per_query(workspace):
    ev = evaluate(workspace, ["Harm@3"])
    assert values(ev, "Harm@3") == {"h1": 1.0, "h2": 0.0, "h3": 1.0, "h4": 0.0, "h5": 0.0}


def test_harm_at_5_sees_the_deeper_chunk(workspace):
    ev = evaluate(workspace, ["Harm@5"])
    assert values(ev, "Harm@5") == {"h1": 1.0, "h2": 1.0, "h3": 1.0, "h4": 0.0, "h5": 0.0}


def test_harm_mean_counts_no_answer_and_missing_queries(workspace):
    ev = evaluate(workspace, ["Harm@3", "Harm@5", "Recall@3"])
    agg = ev.aggregate.set_index("measure")
    assert agg.loc["Harm@3", "value"] == pytest.approx(2 / 5)
    assert agg.loc["Harm@5", "value"] == pytest.approx(3 / 5)
    assert int(agg.loc["Harm@3", "queries"]) == 5  # h3 (no answer) and h5 (missing) count
    assert agg.loc["Recall@3", "value"] == pytest.approx(3 / 4)
    assert int(agg.loc["Recall@3", "queries"]) == 4  # h3 is outside Recall's mean


def test_harm_is_lower_is_better_and_covers_no_answer():
    definition = parse_measure("Harm@3").definition
    assert definition.higher_is_better is False
    assert definition.covers_no_answer is True


def test_a_harmful_relevant_grade_counts_as_not_relevant_unless_asked(tmp_path):
    # h4: the reviewer grades Y 2 but flags it harmful. Default: harmful = not relevant,
    # so P@3 = |{G4}| / 3; with harmful "as_graded": |{G4, Y}| / 3.
    ws = Workspace.from_files(
        write_jsonl(tmp_path / "gold.jsonl", [GOLD[3]]),
        [write_jsonl(tmp_path / "run.jsonl", [line("h4", ["Z", "G4", "Y"])])],
        [write_jsonl(tmp_path / "anna.jsonl", [flag("h4", "Y", grade=2)])],
    )
    default = evaluate(ws, ["P@3", "Harm@3"])
    assert values(default, "P@3") == {"h4": pytest.approx(1 / 3)}
    assert values(default, "Harm@3") == {"h4": 1.0}
    as_graded = evaluate(ws, ["P@3", "Harm@3"], Policy(harmful="as_graded"))
    assert values(as_graded, "P@3") == {"h4": pytest.approx(2 / 3)}
    assert values(as_graded, "Harm@3") == {"h4": 1.0}


def test_harm_for_every_cutoff_is_each_cutoff_alone(workspace):
    """The dashboard's one evaluation of every offered k equals each k evaluated alone."""
    wide = harm_for_cutoffs(workspace, (1, 3, 5))
    for k in (1, 3, 5):
        alone = harm_per_query(workspace, k)
        merged = alone.merge(wide, on=["run", "query_id"], suffixes=("", " (all k)"))
        assert len(merged) == len(alone) == len(wide)
        label = f"Harm@{k}"
        assert merged[label].equals(merged[f"{label} (all k)"]), k
