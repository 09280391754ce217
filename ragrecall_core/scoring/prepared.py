"""One prepared evaluation per workspace and policy.

:class:`PreparedEvaluation` is the only place where "judged", "relevant" and
"harmful" are decided. It materialises, once per (workspace, policy, state of
the judgments), in a schema of its own:

- ``chunk_judgments(query_id, chunk_id, grade, harmful)``: gold grades, plus
  reviewers' grades for what the gold set lacks (a recorded resolution wins;
  otherwise the lower median over annotators; partial and harmful counted as the
  policy says). A query the gold gives no relevant item stays a no-answer query
  whatever reviewers grade (their grades count as judged, not relevant). Every mark
  on every page comes from this table.
- ``judgments(query_id, item_id, grade, harmful)`` and ``ranked(run, query_id,
  item_id, rank, score)`` at the policy's unit: at document level a document
  keeps its first chunk's rank and its best grade.
- ``judged_rows``: the ranked rows that carry a judgment (the only rows any
  measure needs besides list lengths), and ``lists(run, query_id, listed)``.

Everything else (per-query values, failure classes, no-answer scores, marks)
is a query over these tables with the runs and queries in scope bound as
parameters, so nothing depends on state another function left on a cursor.
Schema and table names are generated here, never taken from input.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.corpus import doc_of_sql
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import DOC, RESOLUTIONS_ONLY, Policy

if TYPE_CHECKING:
    import pandas as pd

JUDGMENTS_SQL = """
CREATE TABLE {s}.chunk_judgments AS
WITH latest_resolution AS (
    SELECT query_id, chunk_id, arg_max(grade, (created_at, id)) AS grade,
           arg_max(harmful, (created_at, id)) AS harmful
    FROM all_resolutions GROUP BY query_id, chunk_id),
manual AS (
    SELECT query_id, chunk_id, bool_or(harmful) AS harmful,
           CAST(floor(quantile_disc(grade, 0.5)) AS INTEGER) AS grade
    FROM all_grades g WHERE $manual
      AND NOT EXISTS (SELECT 1 FROM latest_resolution r
                      WHERE r.query_id = g.query_id AND r.chunk_id = g.chunk_id)
    GROUP BY query_id, chunk_id
    UNION ALL
    SELECT query_id, chunk_id, harmful, grade FROM latest_resolution WHERE $manual
    UNION ALL
    -- a model judge counted (policy.judge): what no reviewer judged (all, without them)
    SELECT query_id, chunk_id, harmful, grade FROM judge_grades j
    WHERE annotator = $judge
      AND NOT ($manual AND (
          EXISTS (SELECT 1 FROM all_grades g
                  WHERE g.query_id = j.query_id AND g.chunk_id = j.chunk_id)
          OR EXISTS (SELECT 1 FROM latest_resolution r
                     WHERE r.query_id = j.query_id AND r.chunk_id = j.chunk_id)))),
manual_effective AS (
    SELECT query_id, chunk_id,
           CASE WHEN harmful AND $harmful_not_relevant THEN 0
                WHEN grade = 1 AND NOT $partial_relevant THEN 0
                -- the gold says the query has no answer: a reviewer cannot give it one (the
                -- grade is listed as a possible gold error until the gold is changed)
                WHEN NOT EXISTS (SELECT 1 FROM qrels g WHERE g.query_id = manual.query_id
                                 AND g.grade > 0) THEN least(grade, 0)
                ELSE grade END AS grade
    FROM manual),
-- a gold grade below 0 is in the pool but unjudged, as trec_eval reads it (a reviewer may
-- judge it); the query stays judged
pooled AS (SELECT query_id, chunk_id, grade FROM qrels WHERE grade >= 0),
merged AS (
    SELECT query_id, chunk_id, grade FROM pooled
    UNION ALL
    SELECT m.query_id, m.chunk_id, m.grade FROM manual_effective m
    ANTI JOIN pooled q ON q.query_id = m.query_id AND q.chunk_id = m.chunk_id)
SELECT x.query_id, x.chunk_id, x.grade, coalesce(m.harmful, false) AS harmful
FROM merged x LEFT JOIN manual m USING (query_id, chunk_id)
"""

# (at chunk level a list's length is counted once, when the run is loaded)
CHUNK_UNIT_SQL = """
CREATE VIEW {s}.judgments AS
    SELECT query_id, chunk_id AS item_id, grade, harmful FROM {s}.chunk_judgments;
CREATE VIEW {s}.ranked AS
    SELECT run, query_id, chunk_id AS item_id, rank, score FROM runs;
CREATE VIEW {s}.lists AS
    SELECT run, query_id, listed FROM run_queries WHERE listed > 0;
"""

DOC_OF = f"coalesce(c.doc_id, {doc_of_sql('x.chunk_id')})"
DOC_UNIT_SQL = f"""
CREATE TABLE {{s}}.judgments AS
    SELECT x.query_id, {DOC_OF} AS item_id, max(x.grade) AS grade, bool_or(x.harmful) AS harmful
    FROM {{s}}.chunk_judgments x LEFT JOIN corpus c ON c.chunk_id = x.chunk_id
    GROUP BY ALL;
CREATE TABLE {{s}}.ranked AS
    SELECT x.run, x.query_id, {DOC_OF} AS item_id, min(x.rank) AS rank,
           arg_min(x.score, x.rank) AS score
    FROM runs x LEFT JOIN corpus c ON c.chunk_id = x.chunk_id GROUP BY ALL;
CREATE TABLE {{s}}.lists AS
    SELECT run, query_id, count(*) AS listed FROM {{s}}.ranked GROUP BY run, query_id;
"""

# The rows whose item is judged for some query are found first, on the item alone, then
# joined on query and item: each of a run's rows hashes one id instead of two (a 7M-row run:
# 0.34 -> 0.17 s CPU; judged items are a few thousand).
ROWS_SQL = """
CREATE TABLE {s}.judged_rows AS
    WITH judged_items AS MATERIALIZED (
        SELECT run, query_id, item_id, rank FROM {s}.ranked
        WHERE item_id IN (SELECT item_id FROM {s}.judgments))
    SELECT r.run, r.query_id, r.item_id, r.rank, j.grade, j.harmful
    FROM judged_items r JOIN {s}.judgments j
      ON j.query_id = r.query_id AND j.item_id = r.item_id;
"""

# The marks a chunk can carry, as every page and report names them.
RELEVANT, NOT_RELEVANT, HARMFUL, UNJUDGED = "relevant", "judged not relevant", "harmful", "unjudged"
# What a chunk's judgment (``j``: a row of ``chunk_judgments``) says at level ``$level``,
# and its one mark, where a harmful flag comes first.
RELEVANCE_SQL = f"""CASE WHEN j.grade IS NULL THEN '{UNJUDGED}'
     WHEN j.grade >= $level THEN '{RELEVANT}' ELSE '{NOT_RELEVANT}' END"""
MARK_SQL = f"CASE WHEN j.harmful THEN '{HARMFUL}' ELSE {RELEVANCE_SQL} END"

# The runs and queries in scope, bound as parameters ($all_runs, $runs, $all_queries, $ids).
SCOPE_CTES = """
scope_runs AS (SELECT run FROM run_files WHERE $all_runs OR list_contains($runs, run)),
scope_queries AS (
    SELECT q.query_id, EXISTS (SELECT 1 FROM qrels r WHERE r.query_id = q.query_id) AS judged
    FROM queries q WHERE $all_queries OR list_contains($ids, q.query_id))
"""

# The fingerprint of everything the judgments depend on that can change while the
# workspace is open: reviewers' grades and resolutions (gold and runs are fixed).
JUDGMENT_STATE_SQL = """
SELECT (SELECT count(*) || ':' || coalesce(sum(hash(query_id, chunk_id, grade, harmful,
                                                    annotator)), 0) FROM all_grades)
    || '/' ||
       (SELECT count(*) || ':' || coalesce(sum(hash(query_id, chunk_id, grade, harmful,
                                                    created_at)), 0) FROM all_resolutions)
    || '/' ||
       (SELECT count(*) || ':' || coalesce(sum(hash(query_id, chunk_id, grade, harmful,
                                                    annotator)), 0) FROM judge_grades)
"""

# whether any reviewer judged anything: a grade from a file or the store; a resolution
REVIEWED_SQL = """
SELECT EXISTS (SELECT 1 FROM all_grades), EXISTS (SELECT 1 FROM all_resolutions)
"""

KEPT_PER_WORKSPACE = 8
_schema_numbers = itertools.count(1)


def scope_params(runs: Sequence[str] | None, query_ids: Sequence[str] | None) -> dict:
    """Parameters of :data:`SCOPE_CTES`: ``None`` means every run / every query."""
    return {**run_scope(runs), "all_queries": query_ids is None, "ids": list(query_ids or [])}


def require_runs(workspace: Workspace, runs: object, source: str = "runs") -> list[str] | None:
    """``runs`` (names of the workspace's runs; ``None``: every run) as a list, or an
    :class:`InputError` naming each one the workspace lacks, with the runs it has: a name
    misspelt would otherwise leave no run to measure and every number empty. One name given
    alone (a string) is taken as that name, never as its letters."""
    if runs is None:
        return None
    names = [runs] if isinstance(runs, str) else list(runs)
    known = workspace.run_names
    expected = f"one of the workspace's runs: {', '.join(map(repr, known))}"
    problems = [
        Problem(source, None, redact_text(str(name)), expected)
        for name in names
        if name not in known
    ]
    if problems:
        raise InputError(problems)
    return names


def run_scope(runs: Sequence[str] | None) -> dict:
    """Parameters ``$all_runs`` and ``$runs`` alone, for SQL that filters runs only."""
    return {"all_runs": runs is None, "runs": list(runs or [])}


@dataclass(frozen=True)
class PreparedEvaluation:
    """Judgments and ranked lists of one workspace under one policy, built once.

    >>> prep = prepare(Workspace.open("data_samples"), Policy())  # doctest: +SKIP
    >>> prep.table("judgments")                                   # doctest: +SKIP
    'prep_1.judgments'
    """

    workspace: Workspace
    policy: Policy
    schema: str

    def table(self, name: str) -> str:
        return f"{self.schema}.{name}"

    def sql(self, template: str) -> str:
        """``template`` with ``{s}`` naming this evaluation's schema (a generated name)."""
        return template.replace("{s}", self.schema)

    def query(self, template: str, params: dict | None = None) -> pd.DataFrame:
        """Run ``template`` (see :meth:`sql`) on a fresh cursor; values stay bound."""
        return self.workspace.cursor().execute(self.sql(template), params or {}).df()

    def fetch(self, template: str, params: dict | None = None) -> list[tuple]:
        return self.workspace.cursor().execute(self.sql(template), params or {}).fetchall()


def judgment_state(workspace: Workspace) -> str:
    return workspace.cursor().execute(JUDGMENT_STATE_SQL).fetchone()[0]


def reviewed(workspace: Workspace) -> bool | str:
    """What reviewers put into the numbers, as the policy line says it: True when a grade
    is loaded, :data:`RESOLUTIONS_ONLY` when only resolutions are (their grades undone since:
    each still judges its chunk, while the sidebar counts 0 grades), False when neither."""
    graded, resolved = workspace.cursor().execute(REVIEWED_SQL).fetchone()
    return True if graded else RESOLUTIONS_ONLY if resolved else False


def _build(workspace: Workspace, policy: Policy) -> PreparedEvaluation:
    schema = f"prep_{next(_schema_numbers)}"
    con = workspace.cursor()
    con.execute(f"CREATE SCHEMA {schema}")
    prepared = PreparedEvaluation(workspace, policy, schema)
    con.execute(
        prepared.sql(JUDGMENTS_SQL),
        {
            "manual": policy.manual_grades,
            "harmful_not_relevant": policy.harmful == "not_relevant",
            "partial_relevant": policy.partial == "relevant",
            "judge": policy.judge,
        },
    )
    con.execute(prepared.sql(DOC_UNIT_SQL if policy.unit == DOC else CHUNK_UNIT_SQL))
    con.execute(prepared.sql(ROWS_SQL))
    return prepared


def prepare(workspace: Workspace, policy: Policy | None = None) -> PreparedEvaluation:
    """The prepared evaluation of ``workspace`` under ``policy``, built on first use.

    Cached per (policy, state of the judgments): a new grade or resolution makes
    the next call build afresh; the oldest of more than a few are dropped.
    """
    policy = policy or Policy()
    key = (policy, judgment_state(workspace))
    cache = workspace.prepared
    with workspace.lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        prepared = cache[key] = _build(workspace, policy)
        while len(cache) > KEPT_PER_WORKSPACE:
            _, old = cache.popitem(last=False)
            workspace.cursor().execute(f"DROP SCHEMA {old.schema} CASCADE")
        return prepared
