"""Runs of distances (FAISS L2, Chroma: lower is better) without a rank column, as the
rankless tests write them: the gold set, each list best first (scores rising, so a run
read highest first is backwards), the warning evaluate gives and what it says to do."""

from __future__ import annotations

# q1's and q2's relevant chunks, each its list's nearest
ANSWERED_GOLD = {"q1": ["doc-a#c1"], "q2": ["doc-b#c2"]}
# as FAISS returns them: the nearest first, its distance the lowest (read highest first,
# each list is backwards: Recall@1 = 0, Recall@3 = 1)
DISTANCES = [
    ("q1", "doc-a#c1", 0.10),
    ("q1", "doc-x#c1", 0.35),
    ("q1", "doc-y#c1", 0.80),
    ("q2", "doc-b#c2", 0.20),
    ("q2", "doc-z#c9", 0.50),
]
# the list of q3, a no-answer query
NO_ANSWER_DISTANCES = [("q3", "doc-u#c1", 0.30), ("q3", "doc-v#c1", 0.60)]
SAID = "without a rank, each query's items are ordered by score, highest first"
WHAT_TO_DO = "add a rank column (1 = best)"


def csv_text(rows, header="query_id,chunk_id,score") -> str:
    """``rows`` as a CSV file's text under ``header``."""
    return header + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)
