"""Recall@k, RR@k, Hit@k, P@k, nDCG@k and Harm@k of ``data_samples`` computed from its raw
files in plain Python, without ragrecall: the independent side of the dashboard's
correctness tests.

By the definitions alone (SPEC's measure list, README's measure table and ``Policy``'s
docstring): a run's list is read in its ``rank`` order; Recall@k = relevant items in the top k
/ relevant items; RR@k = 1 / rank of the first relevant item in the top k (0 if none); Hit@k =
1 if any relevant item is in the top k; P@k = relevant items in the top k / k; nDCG@k = the
sum of grade / log2(rank + 1) over the top k, over the same sum for the query's judged grades
sorted from the best (every grade above 0 gains). Queries without a relevant item (no-answer)
are left out of these means. Harm@k (:func:`plain_harm`) = 1 if a chunk a reviewer flagged
harmful is in the top k; every gold query counts, no-answer ones too.

- Gold: each ``relevant_ids`` chunk has grade 1 unless the row's ``grades`` says otherwise;
  an item is relevant when its grade is at least ``rel_level``.
- Reviewers' grades (``grades/*.jsonl``; ``reviewers=False`` is ``manual_grades=False``) add a
  chunk the gold lacks when the lower median of its annotators' grades is 2 (a partial 1 is
  not relevant) and no annotator flags it harmful (``scoring/prepared.py``'s docstring). In
  ``data_samples`` that is q075's support-tiers#chunk-04 and q076's sick-leave#chunk-02 (both
  graded 2 by anna and boris); q127's onboarding-checklist#chunk-01 (anna 1, boris 2) has
  lower median 1 and stays not relevant. A model judge's grades (annotator ``judge:NAME``,
  ``grades/judge-minilm.jsonl``) are no reviewer's: by default they are shown, not counted.
- Judged grades (nDCG's ideal): the gold's, and for a chunk the gold lacks, the lower median
  of its reviewers' grades, taken as 0 when one of them flags it harmful or when it is a
  partial 1 (grades that are not relevant gain nothing either way).
- ``unit="doc"``: a chunk stands for its document (``doc_id`` in corpus.jsonl), which counts
  once, at the rank of its first chunk; a document is relevant when one of its chunks is.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "data_samples"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def gold_grades() -> dict[str, dict[str, int]]:
    """Query id -> {chunk id: gold grade}."""
    return {
        r["id"]: {**dict.fromkeys(r["relevant_ids"], 1), **r.get("grades", {})}
        for r in _lines(SAMPLES / "gold.jsonl")
    }


def reviewer_grades() -> dict[tuple[str, str], list[dict]]:
    """(query id, chunk id) -> its reviewers' rows (a model judge's left out: shown, not
    counted)."""
    graded: dict[tuple[str, str], list[dict]] = {}
    for path in sorted((SAMPLES / "grades").glob("*.jsonl")):
        for row in _lines(path):
            if not row["annotator"].startswith("judge:"):
                graded.setdefault((row["query_id"], row["chunk_id"]), []).append(row)
    return graded


def reviewed_grade(rows: list[dict]) -> int:
    """The grade a chunk's reviewers' ``rows`` give it: the lower median of their grades, 0
    when one of them flags it harmful."""
    if any(r["harmful"] for r in rows):
        return 0
    grades = sorted(r["grade"] for r in rows)
    return grades[(len(grades) - 1) // 2]


def reviewed_relevant(graded: dict[tuple[str, str], list[dict]]) -> dict[str, set[str]]:
    """Query id (the gold gives it a relevant chunk) -> the chunks the gold lacks that
    reviewers make relevant (``graded``: :func:`reviewer_grades`)."""
    gold = {q: g for q, g in gold_grades().items() if any(v > 0 for v in g.values())}
    found: dict[str, set[str]] = {}
    for (query_id, chunk_id), rows in graded.items():
        if query_id in gold and chunk_id not in gold[query_id] and reviewed_grade(rows) >= 2:
            found.setdefault(query_id, set()).add(chunk_id)
    return found


def judged_gains(
    query_id: str, gold: dict[str, int], graded: dict[tuple[str, str], list[dict]]
) -> dict[str, int]:
    """Chunk id -> the gain of its judged grade for ``query_id`` (only gains above 0):
    the gold's, and the reviewers' (``graded``) for what the gold lacks."""
    gains = {c: g for c, g in gold.items() if g > 0}
    for (q, chunk_id), rows in graded.items():
        if q == query_id and chunk_id not in gold and reviewed_grade(rows) >= 2:
            gains[chunk_id] = reviewed_grade(rows)
    return gains


def dcg(gains: list[int]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, 1))


def ranked(run: str) -> dict[str, list[str]]:
    """Query id -> the run's chunk ids in rank order."""
    rows = _lines(SAMPLES / "runs" / f"{run}.jsonl")
    return {
        r["id"]: [c["chunk_id"] for c in sorted(r["retrieved"], key=lambda c: c["rank"])]
        for r in rows
    }


def plain_scores(
    run: str, k: int, reviewers: bool = True, rel_level: int = 1, unit: str = "chunk"
) -> dict[str, dict[str, float]]:
    """Query id (with a relevant item) -> {"Recall", "RR", "Hit", "P"} at ``k`` for ``run``,
    and "nDCG" at chunk level with the default relevance level."""
    docs = {r["chunk_id"]: r["doc_id"] for r in _lines(SAMPLES / "corpus.jsonl")}
    item = (lambda c: docs[c]) if unit == "doc" else (lambda c: c)
    lists = ranked(run)
    graded = reviewer_grades() if reviewers else {}
    extra = reviewed_relevant(graded)
    scores = {}
    for query_id, grades in gold_grades().items():
        chunks = {c for c, g in grades.items() if g >= rel_level} | extra.get(query_id, set())
        relevant = {item(c) for c in chunks}
        if not relevant:
            continue
        # (rank, item) of each item's first chunk within the top k
        top: dict[str, int] = {}
        for rank, chunk in enumerate(lists.get(query_id, [])[:k], 1):
            top.setdefault(item(chunk), rank)
        ranks = sorted(rank for i, rank in top.items() if i in relevant)
        scores[query_id] = {
            "Recall": len(ranks) / len(relevant),
            "RR": 1 / ranks[0] if ranks else 0.0,
            "Hit": float(bool(ranks)),
            "P": len(ranks) / k,
        }
        if unit == "chunk" and rel_level == 1:
            gains = judged_gains(query_id, grades, graded)
            got = [gains.get(c, 0) for c in lists.get(query_id, [])[:k]]
            ideal = dcg(sorted((g for g in gains.values() if g > 0), reverse=True)[:k])
            scores[query_id]["nDCG"] = dcg(got) / ideal
    return scores


def plain_harm(run: str, k: int) -> dict[str, float]:
    """Every gold query id -> Harm@k of ``run``: 1.0 when a chunk a reviewer flagged harmful
    for that query is in its top k."""
    harmful = {key for key, rows in reviewer_grades().items() if any(r["harmful"] for r in rows)}
    lists = ranked(run)
    return {q: float(any((q, c) in harmful for c in lists.get(q, [])[:k])) for q in gold_grades()}


def mean(run: str, k: int, measure: str = "Recall", **policy) -> float:
    """``measure`` at ``k`` averaged over the queries with a relevant item."""
    scores = plain_scores(run, k, **policy)
    return sum(s[measure] for s in scores.values()) / len(scores)


def failing(run: str, k: int, measure: str = "Recall", **policy) -> list[str]:
    """The queries with a relevant item whose ``measure`` at ``k`` is below 1, sorted."""
    return sorted(q for q, s in plain_scores(run, k, **policy).items() if s[measure] < 1)
