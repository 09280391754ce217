"""The per-query frame every measure's SQL plugs into, over a prepared evaluation.

Each measure declares its own SQL beside its name (``MeasureDef.sql``, in
``ragrecall_core/measures/<family>.py``): an aggregate over the judged rows of one
(run, query) list and the query's value from it. This module only composes those
fragments, from small named functions each giving one common table expression, into
one query for all measures of a request, in the long shape ``(run, query_id, m,
value)`` where ``m`` indexes the request's measures. The value of a query a run lacks
is declared on the measure (:attr:`~ragrecall_core.measures.MeasureDef.missing`).
Cutoffs and relevance levels are bound as parameters, never pasted into SQL; table
names come from the prepared evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragrecall_core.measures import REGISTRY, Measure
from ragrecall_core.measures.sql import Columns, FamilySQL
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import SCOPE_CTES, PreparedEvaluation, scope_params

# a table of the prepared evaluation by its name: ``judged_rows`` -> ``prep_3.judged_rows``
Tables = Callable[[str], str]


def require_every_family_computed() -> None:
    """A registered measure without SQL fails here, at import, not at run time."""
    missing = sorted(name for name, d in REGISTRY.items() if d.sql is None)
    if missing:
        raise RuntimeError(f"measures without SQL (MeasureDef.sql): {missing}")


require_every_family_computed()


@dataclass(frozen=True)
class Term:
    """One measure of a request, its named columns and the SQL its module declares."""

    measure: Measure
    columns: Columns
    sql: FamilySQL


def terms_of(measures: Sequence[Measure], policy: Policy) -> list[Term]:
    """Each measure with its named columns and the SQL its own module declares."""
    terms = []
    for i, measure in enumerate(measures):
        columns = Columns(i, measure, policy.rel_level)
        terms.append(Term(measure, columns, measure.definition.sql(columns)))
    return terms


def params_of(terms: Sequence[Term]) -> dict:
    """The measures' bound parameters (cutoffs ``$k{i}``, levels ``$l{i}``)."""
    return {key: value for t in terms for key, value in t.columns.params.items()}


def query_stats(terms: Sequence[Term], t: Tables) -> str:
    """Per query, from its judgments alone: relevant and judged non-relevant counts, and the
    ideal DCG at each measure's cutoff and gain."""
    stats = ", ".join(
        f"count(*) FILTER (WHERE grade >= {c.level}) AS {c.nrel}, "
        f"count(*) FILTER (WHERE {c.not_relevant}) AS {c.nonrel}, "
        f"coalesce(sum({x.sql.gain} / log2(pos + 1)) "
        f"FILTER (WHERE ({c.k} = 0 OR pos <= {c.k}) AND {c.gains}), 0) AS {c.idcg}"
        for x in terms
        for c in [x.columns]
    )
    return f"""qstats AS (
    SELECT query_id, {stats}
    FROM (SELECT query_id, grade,
                 row_number() OVER (PARTITION BY query_id ORDER BY grade DESC) AS pos
          FROM {t("judgments")}) GROUP BY query_id)"""


def judged_rows(terms: Sequence[Term], t: Tables) -> str:
    """The judged rows of the runs in scope, with each measure's running count (``cum``)."""
    cums = "".join(
        f", sum(CASE WHEN {x.sql.cumulative} THEN 1 ELSE 0 END) OVER "
        f"(PARTITION BY run, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING) AS {x.columns.cum}"
        for x in terms
        if x.sql.cumulative
    )
    return f"""joined AS (
    SELECT *{cums} FROM {t("judged_rows")} WHERE run IN (SELECT run FROM scope_runs))"""


def aggregates(terms: Sequence[Term]) -> str:
    """Each measure's aggregate over a (run, query) list's judged rows."""
    aggs = ", ".join(f"{x.sql.aggregate} AS {x.columns.agg}" for x in terms)
    return f"""agg AS (
    SELECT x.run, x.query_id, {aggs}
    FROM joined x LEFT JOIN qstats USING (query_id) GROUP BY x.run, x.query_id)"""


def top_positions(terms: Sequence[Term], t: Tables) -> str:
    """The positions within each cutoff a list fills, for the measures that need them (an
    empty table, never scanned, when none does)."""
    counted = [x.columns for x in terms if x.sql.needs_positions]
    positions = "".join(
        f", count(*) FILTER (WHERE rank <= {c.k}) AS {c.positions}" for c in counted
    )
    return f"""positions AS (
    SELECT run, query_id{positions} FROM {t("ranked")}
    WHERE {"true" if counted else "false"} AND run IN (SELECT run FROM scope_runs)
    GROUP BY run, query_id)"""


def scored_pairs(policy: Policy) -> str:
    """Which (run, query) pairs get a value: under trec_eval's averaging only judged queries,
    and without ``-c`` only those the run names, an empty list included (it counts 0, as
    pytrec_eval and ranx count ``{"q": {}}``; a TREC file cannot hold one)."""
    keep = "true"
    if policy.compat == "trec_eval":
        keep = "q.judged"
        if not policy.complete:
            keep += (
                " AND EXISTS (SELECT 1 FROM run_queries x WHERE x.run = rn.run "
                "AND x.query_id = q.query_id)"
            )
    return f"""base AS (
    SELECT rn.run, q.query_id FROM scope_runs rn, scope_queries q WHERE {keep})"""


def value_of(term: Term, policy: Policy) -> str:
    """A measure's value for one (run, query): none when the policy leaves the query out,
    the declared ``missing`` value when the run lacks it, else the measure's own."""
    missing = term.measure.definition.missing
    return (
        f"CASE WHEN {excluded(term, policy)} THEN NULL "
        f"WHEN l.run IS NULL THEN {'NULL' if missing is None else repr(float(missing))} "
        f"ELSE {term.sql.value} END"
    )


def excluded(term: Term, policy: Policy) -> str:
    """ragrecall's policy keeps queries without relevant items (no-answer) out of the means,
    except for measures declared ``covers_no_answer`` (a harmful chunk harms any query)."""
    if policy.compat == "trec_eval" or term.measure.definition.covers_no_answer:
        return "false"
    return f"coalesce(s.{term.columns.nrel}, 0) = 0"


def long_values(terms: Sequence[Term], policy: Policy, t: Tables) -> str:
    """``(run, query_id, m, value)``: one row per measure ``m`` (its index in the request)
    that has a value, the measures' values unnested side by side with their indexes."""
    values = ", ".join(value_of(x, policy) for x in terms)
    return f"""unnested AS (
    SELECT b.run, b.query_id, unnest(range({len(terms)})) AS m, unnest([{values}]) AS value
    FROM base b LEFT JOIN {t("lists")} l ON l.run = b.run AND l.query_id = b.query_id
    LEFT JOIN agg a ON a.run = b.run AND a.query_id = b.query_id
    LEFT JOIN positions p ON p.run = b.run AND p.query_id = b.query_id
    LEFT JOIN qstats s ON s.query_id = b.query_id)
SELECT run, query_id, CAST(m AS INTEGER) AS m, CAST(value AS DOUBLE) AS value
FROM unnested WHERE value IS NOT NULL"""


def measure_rows_sql(measures: Sequence[Measure], policy: Policy, t: Tables) -> tuple[str, dict]:
    """SQL giving ``(run, query_id, m INTEGER, value DOUBLE)`` for every measure index ``m``
    with a value, and its parameters; the scope's (:func:`scope_params`) are the caller's."""
    terms = terms_of(measures, policy)
    ctes = [
        SCOPE_CTES.strip(),
        query_stats(terms, t),
        judged_rows(terms, t),
        aggregates(terms),
        top_positions(terms, t),
        scored_pairs(policy),
    ]
    return "WITH " + ",\n".join(ctes) + ",\n" + long_values(terms, policy, t), params_of(terms)


def means_sql(rows_sql: str) -> str:
    """Every query's value and each (run, measure)'s mean in one pass, told apart by the
    grouping: ``is_mean`` rows carry the mean over the queries with a value (summed in
    query order: a parallel sum's last bits would depend on thread timing) and its count."""
    return f"""
SELECT run, m, query_id, GROUPING(query_id) = 1 AS is_mean,
       CASE WHEN GROUPING(query_id) = 1 THEN avg(value ORDER BY query_id)
            ELSE any_value(value) END AS value,
       count(value) AS queries
FROM ({rows_sql}) GROUP BY GROUPING SETS ((run, m, query_id), (run, m))
ORDER BY run, m, is_mean DESC, query_id"""


def means_alone_sql(rows_sql: str) -> str:
    """Each (run, measure)'s mean and count as :func:`means_sql` gives them, without any
    query's value: for an output of the means alone (100,000 queries x 5 measures: 0.83 ->
    0.27 CPU s, no 500,000 rows sorted and fetched)."""
    return f"""
SELECT run, m, avg(value ORDER BY query_id) AS value, count(value) AS queries
FROM ({rows_sql}) GROUP BY run, m ORDER BY run, m"""


@dataclass(frozen=True)
class Scored:
    """What one pass of the measure SQL gives: every query's value and each mean.

    ``rows``: ``(run, query_id, m, value)`` ordered by run, measure index ``m``, query;
    ``means``: ``(run, m, mean, queries)``, the macro mean over the queries with a value.
    """

    rows: list[tuple]
    means: list[tuple]


def per_query(
    prepared: PreparedEvaluation,
    measures: Sequence[Measure],
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> Scored:
    """Every query's value of every measure (``m`` indexes ``measures``) and the means,
    in one query: plain tuples, so the command line needs no pandas."""
    fetched = _fetched(prepared, measures, runs, query_ids, means_sql)
    rows = [(run, q, m, v) for run, m, q, is_mean, v, n in fetched if not is_mean]
    means = [(run, m, v, n) for run, m, q, is_mean, v, n in fetched if is_mean]
    return Scored(rows, means)


def means_alone(
    prepared: PreparedEvaluation,
    measures: Sequence[Measure],
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> list[tuple]:
    """:func:`per_query`'s means, ``(run, m, mean, queries)``, without its rows."""
    return _fetched(prepared, measures, runs, query_ids, means_alone_sql)


def _fetched(prepared, measures, runs, query_ids, around: Callable[[str], str]) -> list[tuple]:
    """The rows of the measure SQL (:func:`measure_rows_sql`) wrapped by ``around``, in the
    scope of ``runs`` and ``query_ids``."""
    sql, params = measure_rows_sql(measures, prepared.policy, prepared.table)
    cursor = prepared.workspace.cursor()
    return cursor.execute(around(sql), {**params, **scope_params(runs, query_ids)}).fetchall()
