"""Properties of the measures on random small gold sets and runs (hypothesis).

The reference below is written from SPEC.md's definitions ("Measures and their
exact semantics"), not from the SQL in ``scoring.py``:

- R = chunks with grade >= 1; top-k = the first k of the ranked list;
- Recall@k = |R & top-k| / |R|; Hit@k = 1 if R & top-k else 0;
- RR@k = 1 / rank of the first relevant in top-k, else 0;
- P@k = |R & top-k| / k (a short list counts as padded);
- AP = mean over R of the precision at each relevant item's rank (0 if not retrieved);
- nDCG@k = sum grade / log2(rank + 1) over the top k, over the same sum for the
  ideal order of all the query's judged grades;
- a gold query missing from the run, or with an empty list, scores 0;
- a query without relevant items (no-answer) has no value.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from helpers import gold_row, make_workspace, per_query, run_row
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core import Policy, evaluate

CUTOFFS = (1, 2, 3, 5, 10)
SETTINGS = settings(max_examples=15)


def chunk_ids(chunks_per_doc: int) -> list[str]:
    return [f"d{d}#c{c}" for d in range(6) for c in range(chunks_per_doc)]


@st.composite
def datasets(draw, chunks_per_doc: int = 2):
    """``(gold, run)``: gold ``{qid: {chunk: grade}}``, run ``{qid: [chunk, ...]}``."""
    universe = chunk_ids(chunks_per_doc)
    n = draw(st.integers(1, 4))
    gold, run = {}, {}
    for i in range(n):
        qid = f"q{i}"
        judged = draw(st.lists(st.sampled_from(universe), unique=True, max_size=4))
        gold[qid] = {c: draw(st.integers(0, 2)) for c in judged}
        # q0 always has a non-empty list (a run sharing no query is an input error)
        if i == 0 or draw(st.booleans()):
            size = draw(st.integers(1 if i == 0 else 0, 7))
            run[qid] = draw(st.permutations(universe))[:size]
    return gold, run


def load(folder: Path, gold: dict, run: dict):
    gold_rows = [
        gold_row(q, [c for c, g in grades.items() if g >= 1], grades=grades)
        for q, grades in gold.items()
    ]
    run_rows = [run_row(q, chunks) for q, chunks in run.items()]
    return make_workspace(folder, gold_rows, {"run": run_rows})


def evaluated(gold, run, measures, policy=None):
    with tempfile.TemporaryDirectory() as folder:
        ws = load(Path(folder), gold, run)
        return evaluate(ws, measures, policy=policy)


# --- reference -----------------------------------------------------------------------


def reference(measure: str, grades: dict[str, int], ranked: list[str] | None) -> float | None:
    relevant = {c for c, g in grades.items() if g >= 1}
    if not relevant:
        return None
    ranked = ranked or []
    name, _, cut = measure.partition("@")
    k = int(cut) if cut else len(ranked)
    top = ranked[:k]
    found = [c in relevant for c in top]
    if name == "Recall":
        return sum(found) / len(relevant)
    if name == "Hit":
        return 1.0 if any(found) else 0.0
    if name == "RR":
        return next((1 / (i + 1) for i, f in enumerate(found) if f), 0.0)
    if name == "P":
        return sum(found) / k
    if name == "AP":
        hits, total = 0, 0.0
        for i, f in enumerate(found):
            if f:
                hits += 1
                total += hits / (i + 1)
        return total / len(relevant)
    if name == "nDCG":
        dcg = sum(grades.get(c, 0) / math.log2(i + 2) for i, c in enumerate(top))
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg else 0.0
    raise KeyError(measure)


REFERENCE_MEASURES = [
    f"{name}@{k}" for k in CUTOFFS for name in ("Recall", "Hit", "RR", "P", "nDCG", "AP")
] + ["RR", "AP"]


def test_reference_itself_on_a_hand_example():
    # relevant a (2), b (1); judged-not-relevant x; list [x, a, y, b]
    grades, ranked = {"a": 2, "b": 1, "x": 0}, ["x", "a", "y", "b"]
    assert reference("Recall@3", grades, ranked) == 0.5
    assert reference("Hit@1", grades, ranked) == 0.0
    assert reference("RR@3", grades, ranked) == 0.5
    assert reference("P@3", grades, ranked) == pytest.approx(1 / 3)
    assert reference("AP", grades, ranked) == pytest.approx((1 / 2 + 2 / 4) / 2)
    # DCG@3 = 2/log2(3); IDCG@3 = 2/log2(2) + 1/log2(3)
    expected = (2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert reference("nDCG@3", grades, ranked) == pytest.approx(expected)
    assert reference("Recall@3", {"x": 0}, ranked) is None


@settings(SETTINGS, max_examples=20)
@given(datasets())
def test_per_query_values_match_the_reference(data):
    gold, run = data
    ev = evaluated(gold, run, REFERENCE_MEASURES)
    for measure in REFERENCE_MEASURES:
        got = per_query(ev, "run", measure)
        for qid, grades in gold.items():
            expected = reference(measure, grades, run.get(qid))
            if expected is None:
                assert got.get(qid) is None, (measure, qid)
            else:
                assert got[qid] == pytest.approx(expected), (measure, qid, grades, run.get(qid))


ALL_MEASURES = [
    f"{name}@{k}"
    for k in CUTOFFS
    for name in ("Recall", "Hit", "RR", "P", "Pmax", "nDCG", "AP", "Judged")
] + ["RR", "AP", "nDCG", "Rprec"]


@SETTINGS
@given(datasets())
def test_bounds_recall_grows_with_k_hit_covers_recall_and_judged_share(data):
    gold, run = data
    ev = evaluated(gold, run, ALL_MEASURES)
    values = ev.per_query.value.dropna()
    assert ((values >= 0) & (values <= 1 + 1e-12)).all()
    means = ev.aggregate.value.dropna()
    assert ((means >= 0) & (means <= 1 + 1e-12)).all()
    for qid in gold:
        recalls = [per_query(ev, "run", f"Recall@{k}").get(qid) for k in CUTOFFS]
        if recalls[0] is None:
            continue
        assert recalls == sorted(recalls), (qid, recalls)
        for k in CUTOFFS:
            recall = per_query(ev, "run", f"Recall@{k}")[qid]
            hit = per_query(ev, "run", f"Hit@{k}")[qid]
            assert hit >= recall
            if recall > 0:
                assert hit == 1.0
    # the precision band: P@k <= Pmax@k, equal when every top-k chunk is judged
    for k in CUTOFFS:
        low, high = per_query(ev, "run", f"P@{k}"), per_query(ev, "run", f"Pmax@{k}")
        for qid, value in low.items():
            assert value <= high[qid] + 1e-12
            top = (run.get(qid) or [])[:k]
            if all(c in gold[qid] for c in top):
                assert value == pytest.approx(high[qid])
    # Judged@k: judged share of the top-k positions the list has; an empty list has none
    for k in CUTOFFS:
        got = per_query(ev, "run", f"Judged@{k}")
        for qid, grades in gold.items():
            top = (run.get(qid) or [])[:k]
            if not any(g >= 1 for g in grades.values()) or not top:
                assert got.get(qid) is None, (k, qid)  # outside the mean / no value
            else:
                assert got[qid] == pytest.approx(sum(c in grades for c in top) / len(top))


@settings(SETTINGS, max_examples=10)
@given(datasets(chunks_per_doc=1))
def test_doc_level_equals_chunk_level_when_every_document_has_one_chunk(data):
    gold, run = data
    with tempfile.TemporaryDirectory() as folder:
        ws = load(Path(folder), gold, run)
        chunk = evaluate(ws, ALL_MEASURES)
        doc = evaluate(ws, ALL_MEASURES, policy=Policy(unit="doc"))
    key = ["run", "query_id", "measure"]
    left = chunk.per_query.sort_values(key).reset_index(drop=True)
    right = doc.per_query.sort_values(key).reset_index(drop=True)
    assert left[key].equals(right[key])
    for a, b, m in zip(left.value, right.value, left.measure, strict=True):
        assert (a != a and b != b) or a == pytest.approx(b), m
