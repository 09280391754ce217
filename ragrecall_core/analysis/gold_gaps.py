"""Gold gap candidates: what reviewers found relevant that the gold set lacks.

Three kinds: a chunk graded relevant (2) for a query whose gold list lacks it; a
relevant (2) grade on a no-answer query; and a gold-relevant chunk that a reviewer
flagged harmful (outdated or contradicting: the gold label itself may be wrong). They are
exported as a *proposed* update; the gold file is never rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ragrecall_core.inputs.workspace import Workspace

GAPS_SQL = """
WITH relevant AS (
    SELECT query_id, chunk_id, list(DISTINCT annotator ORDER BY annotator) AS annotators,
           max(grade) AS grade,
           coalesce(string_agg(DISTINCT nullif(reason, ''), '; '), '') AS reasons
    FROM all_grades WHERE grade = 2 AND NOT harmful GROUP BY query_id, chunk_id),
no_answer AS (
    SELECT query_id FROM queries q
    WHERE NOT EXISTS (SELECT 1 FROM qrels r WHERE r.query_id = q.query_id AND r.grade > 0)),
harmful_gold AS (
    SELECT a.query_id, a.chunk_id, list(DISTINCT a.annotator ORDER BY a.annotator) AS annotators,
           coalesce(string_agg(DISTINCT nullif(a.reason, ''), '; '), '') AS reasons
    FROM all_grades a JOIN qrels g ON g.query_id = a.query_id AND g.chunk_id = a.chunk_id
    WHERE a.harmful AND g.grade > 0 GROUP BY a.query_id, a.chunk_id)
SELECT * FROM (
    SELECT r.query_id, q.query, r.chunk_id, r.annotators, r.reasons,
           CASE WHEN n.query_id IS NOT NULL THEN 'relevant grade on a no-answer query'
                ELSE 'graded relevant, missing from gold' END AS kind
    FROM relevant r JOIN queries q USING (query_id)
    LEFT JOIN no_answer n USING (query_id)
    WHERE NOT EXISTS (SELECT 1 FROM qrels g WHERE g.query_id = r.query_id
                      AND g.chunk_id = r.chunk_id AND g.grade > 0)
    UNION ALL
    SELECT h.query_id, q.query, h.chunk_id, h.annotators, h.reasons,
           'gold chunk flagged harmful by a reviewer' AS kind
    FROM harmful_gold h JOIN queries q USING (query_id))
ORDER BY kind, query_id, chunk_id
"""


def gold_gaps(workspace: Workspace) -> pd.DataFrame:
    """``(query_id, query, chunk_id, annotators, reasons, kind)`` for every candidate."""
    return workspace.cursor().execute(GAPS_SQL).df()


def write_proposal(gaps: pd.DataFrame, path: Path) -> int:
    """One JSON line per query: the chunk ids reviewers propose to add, with evidence."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for query_id, group in gaps.groupby("query_id", sort=True):
            record = {
                "id": query_id,
                "add_relevant_ids": list(group.chunk_id),
                "kind": sorted(set(group.kind)),
                "evidence": {
                    c: {"annotators": list(a), "reasons": r or ""}
                    for c, a, r in zip(group.chunk_id, group.annotators, group.reasons, strict=True)
                },
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
