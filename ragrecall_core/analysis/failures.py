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
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import (
    SCOPE_CTES,
    PreparedEvaluation,
    prepare,
    scope_params,
)

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
nrel AS (SELECT query_id, count(*) AS relevant FROM rel GROUP BY query_id),
found AS (
    SELECT r.run, r.query_id, min(r.rank) AS first_rank, list(r.rank ORDER BY r.rank) AS positions
    FROM {s}.judged_rows r JOIN rel USING (query_id, item_id) GROUP BY r.run, r.query_id),
outside AS (
    SELECT query_id, count(*) AS not_in_corpus FROM qrels
    WHERE grade >= $level AND (SELECT count(*) FROM corpus) > 0
      AND chunk_id NOT IN (SELECT chunk_id FROM corpus)
    GROUP BY query_id),
pairs AS (
    SELECT rn.run, q.query_id, n.relevant, f.first_rank, coalesce(f.positions, []) AS positions,
           coalesce(l.listed, 0) AS listed, o.not_in_corpus
    FROM scope_runs rn CROSS JOIN scope_queries q
    JOIN nrel n ON n.query_id = q.query_id
    LEFT JOIN found f ON f.run = rn.run AND f.query_id = q.query_id
    LEFT JOIN {s}.lists l ON l.run = rn.run AND l.query_id = q.query_id
    LEFT JOIN outside o ON o.query_id = q.query_id),
at_k AS (
    SELECT c.k, p.*, len(list_filter(p.positions, lambda x: x <= c.k)) AS found
    FROM (SELECT unnest($ks) AS k) c CROSS JOIN pairs p)
SELECT k, run, query_id, relevant, found, first_rank, positions, listed,
       CASE WHEN listed = 0 THEN 'missing from run'
            WHEN found >= {needed} THEN 'ok'
            WHEN not_in_corpus > 0 THEN 'gold not in corpus'
            WHEN found > 0 THEN 'partial'
            WHEN first_rank IS NOT NULL THEN 'ranked below k'
            ELSE 'never retrieved' END AS failure_class
FROM at_k
ORDER BY k, run, query_id
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
    sql, params = failures_sql([k], prepared.policy, runs, query_ids, rule)
    return prepared.query(sql, params).drop(columns="k")


def failures_sql(
    ks: Sequence[int],
    policy: Policy,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
) -> tuple[str, dict]:
    """SQL and parameters giving :func:`failure_classes`'s rows at every cutoff of ``ks``,
    with a leading column ``k``: one pass for all the cutoffs a dashboard offers."""
    params = {
        **scope_params(runs, query_ids),
        "ks": [int(k) for k in ks],
        "level": policy.rel_level,
        "rule": require_rule(rule),
    }
    return FAILURES_SQL.replace("{scope}", SCOPE_CTES).replace("{needed}", needed_sql("k")), params


def classify(
    workspace: Workspace,
    k: int,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    rule: str = "capped",
) -> pd.DataFrame:
    """The failure class of every (run, query) at cutoff ``k`` under the pass ``rule``
    (see :func:`failure_classes`)."""
    return failure_classes(prepare(workspace, policy), k, runs, query_ids, rule=rule)
