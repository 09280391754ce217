"""How each measure is computed: DuckDB SQL over one ranked-and-judged table.

The pipeline (all SQL, all in DuckDB):

1. ``judgments(query_id, item_id, grade, harmful)``: gold grades, plus reviewers'
   grades for what the gold set lacks (a recorded resolution wins; otherwise merged
   over annotators: the lower median; partial and harmful counted as
   :class:`~ragrecall_core.policy.Policy` says).
2. ``ranked(run, query_id, item_id, rank, score)``: each run's list in its
   evaluation order; at document level a document keeps its first chunk's rank.
3. One aggregate per (run, query) and measure, then the value per query, in the
   long shape ``(run, query_id, measure, value)``.

Cutoffs and relevance levels are bound as parameters, never pasted into SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pandas as pd

from .corpus import doc_of_sql
from .measures import Measure
from .policy import DOC, Policy

JUDGMENTS_SQL = """
CREATE OR REPLACE TEMP TABLE chunk_judgments AS
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
    SELECT query_id, chunk_id, harmful, grade FROM latest_resolution WHERE $manual),
manual_effective AS (
    SELECT query_id, chunk_id,
           CASE WHEN harmful AND $harmful_not_relevant THEN 0
                WHEN grade = 1 AND NOT $partial_relevant THEN 0
                ELSE grade END AS grade
    FROM manual),
merged AS (
    SELECT query_id, chunk_id, grade FROM qrels
    UNION ALL
    SELECT m.query_id, m.chunk_id, m.grade FROM manual_effective m
    ANTI JOIN qrels q ON q.query_id = m.query_id AND q.chunk_id = m.chunk_id)
SELECT x.query_id, x.chunk_id, x.grade, coalesce(m.harmful, false) AS harmful
FROM merged x LEFT JOIN manual m USING (query_id, chunk_id)
"""

CHUNK_VIEWS_SQL = """
CREATE OR REPLACE TEMP VIEW judgments AS
    SELECT query_id, chunk_id AS item_id, grade, harmful FROM chunk_judgments;
CREATE OR REPLACE TEMP VIEW ranked AS
    SELECT run, query_id, chunk_id AS item_id, rank, score FROM eval_runs;
"""

DOC_OF = f"coalesce(c.doc_id, {doc_of_sql('x.chunk_id')})"
DOC_VIEWS_SQL = f"""
CREATE OR REPLACE TEMP VIEW judgments AS
    SELECT x.query_id, {DOC_OF} AS item_id, max(x.grade) AS grade, bool_or(x.harmful) AS harmful
    FROM chunk_judgments x LEFT JOIN corpus c ON c.chunk_id = x.chunk_id
    GROUP BY ALL;
CREATE OR REPLACE TEMP VIEW ranked AS
    SELECT x.run, x.query_id, {DOC_OF} AS item_id, min(x.rank) AS rank,
           arg_min(x.score, x.rank) AS score
    FROM eval_runs x LEFT JOIN corpus c ON c.chunk_id = x.chunk_id GROUP BY ALL;
"""


# One row per (run, query) list: its length. Scoring joins only judged rows, so this is
# the only pass over every ranked row (Judged@k adds one, for its top-k positions).
RUN_LISTS_SQL = """
CREATE OR REPLACE TEMP TABLE run_lists AS
SELECT run, query_id, count(*) AS listed FROM ranked GROUP BY run, query_id
"""


def prepare(con: duckdb.DuckDBPyConnection, policy: Policy) -> None:
    """Create the ``judgments`` and ``ranked`` views for ``policy``."""
    con.execute(
        JUDGMENTS_SQL,
        {
            "manual": policy.manual_grades,
            "harmful_not_relevant": policy.harmful == "not_relevant",
            "partial_relevant": policy.partial == "relevant",
        },
    )
    con.execute(DOC_VIEWS_SQL if policy.unit == DOC else CHUNK_VIEWS_SQL)
    con.execute(RUN_LISTS_SQL)


class Columns:
    """Names of the parameters and helper columns of measure ``i``."""

    def __init__(self, i: int, measure: Measure, policy: Policy):
        self.k = f"$k{i}"
        self.level = f"$l{i}"
        self.agg = f"a{i}"
        self.nrel = f"nrel{i}"
        self.idcg = f"idcg{i}"
        self.cum = f"cum{i}"
        self.positions = f"positions{i}"
        self.params = {f"k{i}": measure.cutoff or 0, f"l{i}": measure.rel or policy.rel_level}


def _within(c: Columns, measure: Measure) -> str:
    return f"rank <= {c.k} AND " if measure.cutoff else ""


# family -> (aggregate over the (run, query) rows, value from it, value when the
# query is missing from the run: None keeps no value)
def _aggregate(measure: Measure, c: Columns) -> tuple[str, str, float | None]:
    w = _within(c, measure)
    rel = f"grade >= {c.level}"
    count_rel = f"count(*) FILTER (WHERE {w}{rel})"
    family = measure.name
    if family == "Recall":
        return count_rel, f"coalesce(a.{c.agg} / nullif(s.{c.nrel}, 0), 0)", 0.0
    if family == "P":
        return count_rel, f"coalesce(a.{c.agg}, 0) / {c.k}", 0.0
    if family == "Hit":
        return count_rel, f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END", 0.0
    if family == "RR":
        return f"max(1.0 / rank) FILTER (WHERE {w}{rel})", f"coalesce(a.{c.agg}, 0)", 0.0
    if family == "AP":
        return (
            f"sum({c.cum} / rank) FILTER (WHERE {w}{rel})",
            f"coalesce(a.{c.agg} / nullif(s.{c.nrel}, 0), 0)",
            0.0,
        )
    if family == "nDCG":
        return (
            f"sum(grade / log2(rank + 1)) FILTER (WHERE {w}grade > 0)",
            f"coalesce(coalesce(a.{c.agg}, 0) / nullif(s.{c.idcg}, 0), 0)",
            0.0,
        )
    if family == "Rprec":
        return (
            f"count(*) FILTER (WHERE rank <= {c.nrel} AND {rel})",
            f"coalesce(a.{c.agg} / nullif(s.{c.nrel}, 0), 0)",
            0.0,
        )
    if family == "Pmax":
        # relevant minus judged in the top k; adding the top-k positions counts the unjudged
        return (
            f"count(*) FILTER (WHERE {w}{rel}) - count(*) FILTER (WHERE {w}grade IS NOT NULL)",
            f"(coalesce(p.{c.positions}, 0) + coalesce(a.{c.agg}, 0)) / {c.k}",
            0.0,
        )
    if family == "Judged":
        return (
            f"count(*) FILTER (WHERE {w}grade IS NOT NULL)",
            f"coalesce(a.{c.agg}, 0) / p.{c.positions}",
            None,
        )
    if family == "Harm":
        return (
            f"count(*) FILTER (WHERE {w}harmful)",
            f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END",
            0.0,
        )
    if family == "FirstRank":
        return f"min(rank) FILTER (WHERE {rel})", f"a.{c.agg}", None
    raise KeyError(family)


def per_query_sql(measures: Sequence[Measure], policy: Policy) -> tuple[str, dict]:
    """SQL giving ``(run, query_id, m, value)`` for every measure index ``m``."""
    cols = [Columns(i, m, policy) for i, m in enumerate(measures)]
    params: dict = {}
    for c in cols:
        params.update(c.params)
    parts = [_aggregate(m, c) for m, c in zip(measures, cols, strict=True)]
    qstats = ", ".join(
        f"count(*) FILTER (WHERE grade >= {c.level}) AS {c.nrel}, "
        f"coalesce(sum(grade / log2(pos + 1)) "
        f"FILTER (WHERE ({c.k} = 0 OR pos <= {c.k}) AND grade > 0), 0) "
        f"AS {c.idcg}"
        for c in cols
    )
    cums = "".join(
        f", sum(CASE WHEN grade >= {c.level} THEN 1 ELSE 0 END) OVER "
        f"(PARTITION BY run, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING) AS {c.cum}"
        for m, c in zip(measures, cols, strict=True)
        if m.name == "AP"
    )
    positions = "".join(
        f", count(*) FILTER (WHERE rank <= {c.k}) AS {c.positions}"
        for m, c in zip(measures, cols, strict=True)
        if m.name in ("Judged", "Pmax")
    )
    aggs = ", ".join(f"{agg} AS {c.agg}" for (agg, _, _), c in zip(parts, cols, strict=True))
    values = ", ".join(
        f"CASE WHEN {_excluded(policy, c, m)} THEN NULL "
        f"WHEN l.run IS NULL THEN {_missing(missing)} ELSE {value} END AS v{i}"
        for i, ((_, value, missing), c, m) in enumerate(zip(parts, cols, measures, strict=True))
    )
    value_cols = ", ".join(f"v{i}" for i in range(len(measures)))
    keep = _keep_sql(policy)
    sql = f"""
    WITH qstats AS (
        SELECT query_id, {qstats}
        FROM (SELECT query_id, grade,
                     row_number() OVER (PARTITION BY query_id ORDER BY grade DESC) AS pos
              FROM judgments) GROUP BY query_id),
    rows AS (
        SELECT r.run, r.query_id, r.rank, j.grade, j.harmful
        FROM ranked r JOIN judgments j ON j.query_id = r.query_id AND j.item_id = r.item_id),
    joined AS (SELECT *{cums} FROM rows),
    agg AS (
        SELECT x.run, x.query_id, {aggs}
        FROM joined x LEFT JOIN qstats USING (query_id) GROUP BY x.run, x.query_id),
    positions AS (
        SELECT run, query_id{positions} FROM ranked
        WHERE {"true" if positions else "false"} GROUP BY run, query_id),
    base AS (
        SELECT rn.run, q.query_id FROM eval_run_names rn, eval_queries q
        WHERE {keep["base"]}),
    wide AS (
        SELECT b.run, b.query_id, {values}
        FROM base b LEFT JOIN run_lists l ON l.run = b.run AND l.query_id = b.query_id
        LEFT JOIN agg a ON a.run = b.run AND a.query_id = b.query_id
        LEFT JOIN positions p ON p.run = b.run AND p.query_id = b.query_id
        LEFT JOIN qstats s ON s.query_id = b.query_id)
    UNPIVOT wide ON {value_cols} INTO NAME m VALUE value
    """
    return sql, params


def _excluded(policy: Policy, c: Columns, measure: Measure) -> str:
    """ragrecall's policy keeps queries without relevant items (no-answer) out of the means,
    except for measures declared ``covers_no_answer`` (a harmful chunk harms any query)."""
    if policy.compat == "trec_eval" or measure.definition.covers_no_answer:
        return "false"
    return f"coalesce(s.{c.nrel}, 0) = 0"


def _missing(value: float | None) -> str:
    return "NULL" if value is None else repr(value)


def _keep_sql(policy: Policy) -> dict[str, str]:
    """Which (run, query) pairs enter the per-query table."""
    if policy.compat == "trec_eval":
        if policy.complete:
            return {"base": "q.judged"}
        return {
            "base": "q.judged AND EXISTS (SELECT 1 FROM run_lists x WHERE x.run = rn.run "
            "AND x.query_id = q.query_id)"
        }
    return {"base": "true"}


def per_query(
    con: duckdb.DuckDBPyConnection, measures: Sequence[Measure], policy: Policy
) -> pd.DataFrame:
    """Long per-query values ``(run, query_id, m, value)``; ``m`` indexes ``measures``."""
    sql, params = per_query_sql(measures, policy)
    frame = con.execute(sql, params).df()
    frame["m"] = frame["m"].str.slice(1).astype(int)
    return frame
