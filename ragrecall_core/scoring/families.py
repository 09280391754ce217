"""How each measure family is computed: SQL over a prepared evaluation.

:data:`FAMILIES` maps every registered family to a builder of its SQL: an
aggregate over the judged rows of one (run, query) list and the query's value
from it; the value of a query a run lacks is declared on the measure
(:attr:`~ragrecall_core.measures.MeasureDef.missing`). A registered family
without SQL fails at import. All families of one request run in one query, in
the long shape ``(run, query_id, measure, value)``. Cutoffs and relevance
levels are bound as parameters, never pasted into SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragrecall_core.measures import REGISTRY, Measure
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import SCOPE_CTES, PreparedEvaluation, scope_params


class Columns:
    """Names of the parameters and helper columns of measure ``i``."""

    def __init__(self, i: int, measure: Measure, policy: Policy):
        self.k = f"$k{i}"
        self.level = f"$l{i}"
        self.agg = f"a{i}"
        self.nrel = f"nrel{i}"
        self.nonrel = f"nnon{i}"
        self.idcg = f"idcg{i}"
        self.cum = f"cum{i}"
        self.positions = f"positions{i}"
        self.within = f"rank <= {self.k} AND " if measure.cutoff else ""
        self.relevant = f"grade >= {self.level}"
        # graded measures gain from every grade above 0 (trec_eval, whatever its -l); a
        # level asked for on the measure (ranx's -lN) drops the grades below it
        self.gains = self.relevant if measure.rel is not None else "grade > 0"
        # trec_eval: a judged non-relevant item has a grade from 0 up to the level
        self.not_relevant = f"grade >= 0 AND grade < {self.level}"
        self.params = {f"k{i}": measure.cutoff or 0, f"l{i}": measure.rel or policy.rel_level}

    def count_relevant(self) -> str:
        return f"count(*) FILTER (WHERE {self.within}{self.relevant})"

    def share_of_relevant(self) -> str:
        return f"coalesce(a.{self.agg} / nullif(s.{self.nrel}, 0), 0)"


@dataclass(frozen=True)
class FamilySQL:
    """How one measure family is computed: an aggregate over the judged rows of a
    (run, query) list, and the query's value from it (``a.`` the aggregates, ``s.`` the
    query's judgments, ``p.`` its counted top-k positions). ``cumulative``: a condition
    counted over the list's judged rows up to each row, in rank order (column ``cum``);
    ``gain``: a graded measure's gain of a grade (its ideal DCG is the query's ``idcg``)."""

    aggregate: str
    value: str
    needs_positions: bool = False
    cumulative: str | None = None
    gain: str = "grade"


def _recall(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), c.share_of_relevant())


def _capped_recall(c: Columns) -> FamilySQL:
    return FamilySQL(
        c.count_relevant(), f"coalesce(a.{c.agg} / nullif(least({c.k}, s.{c.nrel}), 0), 0)"
    )


def _precision(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"coalesce(a.{c.agg}, 0) / {c.k}")


def _hit(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END")


def _reciprocal_rank(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"max(1.0 / rank) FILTER (WHERE {c.within}{c.relevant})", f"coalesce(a.{c.agg}, 0)"
    )


def _average_precision(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"sum({c.cum} / rank) FILTER (WHERE {c.within}{c.relevant})",
        c.share_of_relevant(),
        cumulative=c.relevant,
    )


def _ndcg(c: Columns, gain: str = "grade") -> FamilySQL:
    return FamilySQL(
        f"sum({gain} / log2(rank + 1)) FILTER (WHERE {c.within}{c.gains})",
        f"coalesce(coalesce(a.{c.agg}, 0) / nullif(s.{c.idcg}, 0), 0)",
        gain=gain,
    )


def _ndcg_burges(c: Columns) -> FamilySQL:
    return _ndcg(c, "(2 ** grade - 1)")


def _hits(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"CAST(coalesce(a.{c.agg}, 0) AS DOUBLE)")


def _f1(c: Columns) -> FamilySQL:
    return FamilySQL(
        c.count_relevant(), f"coalesce(2.0 * a.{c.agg} / nullif({c.k} + s.{c.nrel}, 0), 0)"
    )


def _bpref(c: Columns) -> FamilySQL:
    # cum: the judged non-relevant items ranked above (a relevant row adds none itself)
    return FamilySQL(
        f"sum(CASE WHEN {c.cum} = 0 THEN 1.0 ELSE 1.0 - least({c.cum}, {c.nrel}) "
        f"/ least({c.nonrel}, {c.nrel}) END) FILTER (WHERE {c.relevant})",
        c.share_of_relevant(),
        cumulative=c.not_relevant,
    )


def _r_precision(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE rank <= {c.nrel} AND {c.relevant})", c.share_of_relevant()
    )


def _precision_upper(c: Columns) -> FamilySQL:
    # relevant minus judged in the top k; adding the top-k positions counts the unjudged
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}{c.relevant}) "
        f"- count(*) FILTER (WHERE {c.within}grade IS NOT NULL)",
        f"(coalesce(p.{c.positions}, 0) + coalesce(a.{c.agg}, 0)) / {c.k}",
        needs_positions=True,
    )


def _judged(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}grade IS NOT NULL)",
        f"coalesce(a.{c.agg}, 0) / p.{c.positions}",
        needs_positions=True,
    )


def _harm(c: Columns) -> FamilySQL:
    return FamilySQL(
        f"count(*) FILTER (WHERE {c.within}harmful)",
        f"CASE WHEN a.{c.agg} > 0 THEN 1.0 ELSE 0.0 END",
    )


def _first_rank(c: Columns) -> FamilySQL:
    return FamilySQL(f"min(rank) FILTER (WHERE {c.relevant})", f"a.{c.agg}")


FAMILIES: dict[str, Callable[[Columns], FamilySQL]] = {
    "Recall": _recall,
    "RecallCap": _capped_recall,
    "P": _precision,
    "Hit": _hit,
    "RR": _reciprocal_rank,
    "AP": _average_precision,
    "nDCG": _ndcg,
    "nDCG_burges": _ndcg_burges,
    "Hits": _hits,
    "F1": _f1,
    "Bpref": _bpref,
    "Rprec": _r_precision,
    "Pmax": _precision_upper,
    "Judged": _judged,
    "Harm": _harm,
    "FirstRank": _first_rank,
}


def require_every_family_computed() -> None:
    """A registered measure without SQL fails here, at import, not at run time."""
    missing = sorted(set(REGISTRY) - set(FAMILIES))
    unknown = sorted(set(FAMILIES) - set(REGISTRY))
    if missing or unknown:
        raise RuntimeError(f"measures without SQL: {missing}; SQL without a measure: {unknown}")


require_every_family_computed()


PER_QUERY_SQL = """
WITH {scope},
qstats AS (
    SELECT query_id, {qstats}
    FROM (SELECT query_id, grade,
                 row_number() OVER (PARTITION BY query_id ORDER BY grade DESC) AS pos
          FROM {s}.judgments) GROUP BY query_id),
joined AS (
    SELECT *{cums} FROM {s}.judged_rows WHERE run IN (SELECT run FROM scope_runs)),
agg AS (
    SELECT x.run, x.query_id, {aggs}
    FROM joined x LEFT JOIN qstats USING (query_id) GROUP BY x.run, x.query_id),
positions AS (
    SELECT run, query_id{positions} FROM {s}.ranked
    WHERE {any_positions} AND run IN (SELECT run FROM scope_runs) GROUP BY run, query_id),
base AS (
    SELECT rn.run, q.query_id FROM scope_runs rn, scope_queries q WHERE {keep}),
wide AS (
    SELECT b.run, b.query_id, {values}
    FROM base b LEFT JOIN {s}.lists l ON l.run = b.run AND l.query_id = b.query_id
    LEFT JOIN agg a ON a.run = b.run AND a.query_id = b.query_id
    LEFT JOIN positions p ON p.run = b.run AND p.query_id = b.query_id
    LEFT JOIN qstats s ON s.query_id = b.query_id)
UNPIVOT wide ON {value_cols} INTO NAME m VALUE value
"""


def per_query_sql(measures: Sequence[Measure], policy: Policy) -> tuple[str, dict]:
    """SQL over a prepared evaluation (``{s}``) giving ``(run, query_id, m, value)`` for
    every measure index ``m``; the scope's parameters are bound by the caller."""
    cols = [Columns(i, m, policy) for i, m in enumerate(measures)]
    parts = [FAMILIES[m.name](c) for m, c in zip(measures, cols, strict=True)]
    params: dict = {}
    for c in cols:
        params.update(c.params)
    qstats = ", ".join(
        f"count(*) FILTER (WHERE grade >= {c.level}) AS {c.nrel}, "
        f"count(*) FILTER (WHERE {c.not_relevant}) AS {c.nonrel}, "
        f"coalesce(sum({part.gain} / log2(pos + 1)) "
        f"FILTER (WHERE ({c.k} = 0 OR pos <= {c.k}) AND {c.gains}), 0) AS {c.idcg}"
        for part, c in zip(parts, cols, strict=True)
    )
    cums = "".join(
        f", sum(CASE WHEN {part.cumulative} THEN 1 ELSE 0 END) OVER "
        f"(PARTITION BY run, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING) AS {c.cum}"
        for part, c in zip(parts, cols, strict=True)
        if part.cumulative
    )
    positions = "".join(
        f", count(*) FILTER (WHERE rank <= {c.k}) AS {c.positions}"
        for part, c in zip(parts, cols, strict=True)
        if part.needs_positions
    )
    aggs = ", ".join(f"{p.aggregate} AS {c.agg}" for p, c in zip(parts, cols, strict=True))
    values = ", ".join(
        f"CASE WHEN {_excluded(policy, c, m)} THEN NULL "
        f"WHEN l.run IS NULL THEN {_missing(m)} ELSE {part.value} END AS v{i}"
        for i, (part, c, m) in enumerate(zip(parts, cols, measures, strict=True))
    )
    sql = (
        PER_QUERY_SQL.replace("{scope}", SCOPE_CTES)
        .replace("{qstats}", qstats)
        .replace("{cums}", cums)
        .replace("{aggs}", aggs)
        .replace("{positions}", positions)
        .replace("{any_positions}", "true" if positions else "false")
        .replace("{keep}", _keep_sql(policy))
        .replace("{values}", values)
        .replace("{value_cols}", ", ".join(f"v{i}" for i in range(len(measures))))
    )
    return sql, params


def _excluded(policy: Policy, c: Columns, measure: Measure) -> str:
    """ragrecall's policy keeps queries without relevant items (no-answer) out of the means,
    except for measures declared ``covers_no_answer`` (a harmful chunk harms any query)."""
    if policy.compat == "trec_eval" or measure.definition.covers_no_answer:
        return "false"
    return f"coalesce(s.{c.nrel}, 0) = 0"


def _missing(measure: Measure) -> str:
    """The value of a query the run lacks, as the measure declares it (NULL: no value)."""
    missing = measure.definition.missing
    return "NULL" if missing is None else repr(float(missing))


def _keep_sql(policy: Policy) -> str:
    """Which (run, query) pairs enter the per-query table."""
    if policy.compat == "trec_eval":
        if policy.complete:
            return "q.judged"
        return (
            "q.judged AND EXISTS (SELECT 1 FROM {s}.lists x WHERE x.run = rn.run "
            "AND x.query_id = q.query_id)"
        )
    return "true"


MEANS_SQL = """
WITH long AS MATERIALIZED (
    SELECT run, query_id, CAST(substr(m, 2) AS INTEGER) AS m, value FROM ({per_query}))
SELECT run, m, query_id, value, NULL::BIGINT AS queries FROM long
UNION ALL
-- summed in query order: a parallel sum's last bits would depend on thread timing
SELECT run, m, NULL, avg(value ORDER BY query_id), count(value) FROM long GROUP BY run, m
ORDER BY run, m, query_id NULLS FIRST
"""


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
    sql, params = per_query_sql(measures, prepared.policy)
    fetched = prepared.fetch(
        MEANS_SQL.replace("{per_query}", sql), {**params, **scope_params(runs, query_ids)}
    )
    rows = [(run, q, m, v) for run, m, q, v, n in fetched if n is None]
    means = [(run, m, v, n) for run, m, q, v, n in fetched if n is not None]
    return Scored(rows, means)
