"""Why a query fails at cutoff k: one failure class per (run, query).

Classes, checked in this order for every gold query with a relevant item:

- ``missing from run``: the run has no list (or an empty one) for the query;
- ``ok``: the query passes under the pass rule (:mod:`.pass_rule`): the top k holds
  min(k, relevant) relevant items (``capped``, the default), all of them (``recall``) or
  at least one (``hit``);
- ``gold not in corpus``: a relevant id is absent from the corpus (e.g. after
  re-chunking), so it can never be retrieved (only when a corpus is loaded);
- ``partial``: some relevant items are in the top k, fewer than the rule needs;
- ``ranked below k``: none in the top k, but one further down the list;
- ``never retrieved``: no relevant item anywhere in the list.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, needed_sql, require_rule
from ragrecall_core.scoring.prepared import SCOPE_CTES, PreparedEvaluation, scope_params

CLASSES = (
    "ok",
    "partial",
    "ranked below k",
    "never retrieved",
    "missing from run",
    "gold not in corpus",
)

FAILURES_SQL = """
WITH {scope},
rel AS (
    SELECT query_id, item_id FROM {s}.judgments WHERE grade >= $level),
nrel AS (SELECT query_id, relevant, {needed} AS needed
         FROM (SELECT query_id, count(*) AS relevant FROM rel GROUP BY query_id)),
found AS (
    SELECT r.run, r.query_id, count(*) FILTER (WHERE r.rank <= $k) AS found,
           min(r.rank) AS first_rank, list(r.rank ORDER BY r.rank) AS positions
    FROM {s}.judged_rows r JOIN rel USING (query_id, item_id) GROUP BY r.run, r.query_id),
outside AS (
    SELECT query_id, count(*) AS not_in_corpus FROM qrels
    WHERE grade >= $level AND (SELECT count(*) FROM corpus) > 0
      AND chunk_id NOT IN (SELECT chunk_id FROM corpus)
    GROUP BY query_id)
SELECT rn.run, q.query_id, n.relevant, coalesce(f.found, 0) AS found, f.first_rank,
       coalesce(f.positions, []) AS positions, coalesce(l.listed, 0) AS listed,
       CASE WHEN coalesce(l.listed, 0) = 0 THEN 'missing from run'
            WHEN coalesce(f.found, 0) >= n.needed THEN 'ok'
            WHEN o.not_in_corpus > 0 THEN 'gold not in corpus'
            WHEN coalesce(f.found, 0) > 0 THEN 'partial'
            WHEN f.first_rank IS NOT NULL THEN 'ranked below k'
            ELSE 'never retrieved' END AS failure_class
FROM scope_runs rn CROSS JOIN scope_queries q
JOIN nrel n ON n.query_id = q.query_id
LEFT JOIN found f ON f.run = rn.run AND f.query_id = q.query_id
LEFT JOIN {s}.lists l ON l.run = rn.run AND l.query_id = q.query_id
LEFT JOIN outside o ON o.query_id = q.query_id
ORDER BY rn.run, q.query_id
"""


def failure_classes(
    prepared: PreparedEvaluation,
    k: int,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
) -> pd.DataFrame:
    """``(run, query_id, relevant, found, first_rank, positions, listed, failure_class)``,
    ``ok`` meaning a pass under ``rule``."""
    params = {
        **scope_params(runs, query_ids),
        "k": k,
        "level": prepared.policy.rel_level,
        "rule": require_rule(rule),
    }
    sql = FAILURES_SQL.replace("{scope}", SCOPE_CTES).replace("{needed}", needed_sql())
    return prepared.query(sql, params)
