"""Two runs' ranked lists of one query side by side, marked by the prepared judgments.

Every mark comes from :class:`~ragrecall_core.scoring.prepared.PreparedEvaluation`'s
``chunk_judgments``, so the lists say what the measures count under the policy:
a reviewer's partial grade is relevant only when the policy says so, and reviewers'
grades count only when the policy uses them.
"""

from __future__ import annotations

import pandas as pd

from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import RELEVANCE_SQL, prepare

SIDE_BY_SIDE_SQL = """
WITH b AS (SELECT chunk_id, rank FROM runs WHERE run = $base AND query_id = $q),
     c AS (SELECT chunk_id, rank FROM runs WHERE run = $cand AND query_id = $q),
     judged AS (SELECT * FROM {s}.chunk_judgments WHERE query_id = $q),
     listed AS (
        SELECT chunk_id, b.rank AS baseline_rank, c.rank AS candidate_rank
        FROM b FULL JOIN c USING (chunk_id)
        UNION ALL
        -- relevant items neither run retrieved
        SELECT chunk_id, NULL, NULL FROM judged
        WHERE grade >= $level AND chunk_id NOT IN (SELECT chunk_id FROM b)
          AND chunk_id NOT IN (SELECT chunk_id FROM c))
SELECT x.chunk_id, x.baseline_rank, x.candidate_rank, {relevance} AS judgment,
       coalesce(j.harmful, false) AS harmful,
       CASE WHEN j.grade IS NULL THEN NULL
            WHEN EXISTS (SELECT 1 FROM qrels g WHERE g.query_id = $q AND g.chunk_id = x.chunk_id)
            THEN 'gold' ELSE 'reviewers' END AS judged_by,
       CASE WHEN coalesce(x.baseline_rank, 1e9) <= $k AND coalesce(x.candidate_rank, 1e9) > $k
                THEN 'left top k'
            WHEN coalesce(x.baseline_rank, 1e9) > $k AND coalesce(x.candidate_rank, 1e9) <= $k
                THEN 'entered top k'
            WHEN x.baseline_rank IS NULL AND x.candidate_rank IS NULL THEN 'not retrieved'
            WHEN coalesce(x.baseline_rank, 1e9) < coalesce(x.candidate_rank, 1e9)
                THEN 'moved down'
            WHEN coalesce(x.baseline_rank, 1e9) > coalesce(x.candidate_rank, 1e9)
                THEN 'moved up'
            ELSE 'same' END AS movement,
       t.text
FROM listed x
LEFT JOIN judged j USING (chunk_id)
LEFT JOIN corpus t USING (chunk_id)
WHERE coalesce(x.baseline_rank, 1e9) <= $k OR coalesce(x.candidate_rank, 1e9) <= $k
   OR (x.baseline_rank IS NULL AND x.candidate_rank IS NULL)
   -- a relevant item both runs rank below k: where it went is the failing query's story
   OR j.grade >= $level
ORDER BY least(coalesce(x.baseline_rank, 1e9), coalesce(x.candidate_rank, 1e9)), x.chunk_id
"""

NEW_UNJUDGED_SQL = """
SELECT c.query_id, c.chunk_id, c.rank
FROM runs c
WHERE c.run = $cand AND c.rank <= $k AND ($q IS NULL OR c.query_id = $q)
  AND NOT EXISTS (SELECT 1 FROM runs b WHERE b.run = $base AND b.query_id = c.query_id
                  AND b.chunk_id = c.chunk_id AND b.rank <= $k)
  AND NOT EXISTS (SELECT 1 FROM {s}.chunk_judgments j WHERE j.query_id = c.query_id
                  AND j.chunk_id = c.chunk_id)
ORDER BY c.query_id, c.rank
"""


def side_by_side(
    workspace: Workspace,
    baseline: str,
    candidate: str,
    query_id: str,
    k: int,
    policy: Policy | None = None,
) -> pd.DataFrame:
    """Every chunk in either top k of one query, and every relevant chunk below both top ks
    or retrieved by neither run: its rank in each run, how it moved, its judgment under ``policy``
    (``relevant`` / ``judged not relevant`` / ``unjudged``), the harmful flag and who
    judged it (``gold`` or ``reviewers``)."""
    prepared = prepare(workspace, policy)
    return prepared.query(
        SIDE_BY_SIDE_SQL.replace("{relevance}", RELEVANCE_SQL),
        {
            "base": baseline,
            "cand": candidate,
            "q": query_id,
            "k": k,
            "level": prepared.policy.rel_level,
        },
    )


def new_unjudged(
    workspace: Workspace,
    baseline: str,
    candidate: str,
    k: int,
    query_id: str | None = None,
    policy: Policy | None = None,
) -> pd.DataFrame:
    """Chunks in the candidate's top k that the baseline's top k lacks and that nothing
    judges under ``policy``: a new retriever can look worse only because its results
    were never judged."""
    return prepare(workspace, policy).query(
        NEW_UNJUDGED_SQL, {"cand": candidate, "base": baseline, "k": k, "q": query_id}
    )
