"""The per-query table: one row per (run, query) at cutoff k.

Columns: ``run, query_id, query, query_type, section, split, require_all,
expected`` (relevant chunk ids, gold and reviewers' grade-2 additions, as the
measures see them), ``relevant, found, positions`` (ranks of relevant chunks
anywhere in the list), ``Recall@k, Hit@k, RR@k, P@k, nDCG@k, Judged@k,
FirstRank, RecallCap@k``, ``failure_class`` (:mod:`.failures`, plus ``no answer``),
``failing`` (the pass rule's measure < 1, :mod:`.pass_rule`), ``no_answer_source`` (for a
no-answer query: the gold lists none, or judged only non-relevant items),
``manual_grades`` (reviewers' grades of the
top-k), ``reasons`` / ``reason`` (all / the most frequent reviewer reason
given for a non-relevant top-k chunk) and ``doc_length`` (a length bucket of
the relevant document).

The dashboard offers several k: :func:`build_query_tables` builds the table at all of them
at once (one SQL pass per part, every k in it) and :meth:`QueryTables.at` slices one in
about a millisecond; :func:`build_query_table` is that with a single k.

>>> table = query_table(Workspace.open("data_samples"), k=5)        # doctest: +SKIP
>>> table.loc[table.failing, ["run", "query_id", "failure_class"]].head(1)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ragrecall_core.analysis.failures import failures_sql
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, pass_measure
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import parse_requests
from ragrecall_core.measures.base import parse_cutoff
from ragrecall_core.scoring import families as scoring
from ragrecall_core.scoring.evaluate import collect_warnings, no_answer_summary
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import PreparedEvaluation, prepare, run_scope, scope_params

NO_ANSWER = "no answer"
NO_REASON = "no reviewer reason"
NO_CORPUS = "unknown (no corpus)"
NOT_IN_CORPUS = "not in corpus"
MISSING = "(not given)"
# why a query has no relevant item: the gold lists none, or grades all it judges below the level
GOLD_LISTS_NONE = "gold lists none"
NONE_JUDGED_RELEVANT = "no relevant item judged"


def headline(k: int) -> list[str]:
    """The measure columns of the table at cutoff ``k``, in display order."""
    return [f"Recall@{k}", f"Hit@{k}", f"RR@{k}", f"P@{k}", f"nDCG@{k}", f"Judged@{k}", f"Pmax@{k}"]


# a query's own fields, the table's first columns (``q``: a row of ``queries``)
QUERY_FIELDS = """q.query_id, q.query, q.query_type, q.section, q.split,
       coalesce(q.require_all, false) AS require_all"""
QUERY_SQL = f"""
WITH rel AS (
    SELECT query_id, list(chunk_id ORDER BY chunk_id) AS expected
    FROM {{s}}.chunk_judgments WHERE grade >= $level GROUP BY query_id),
doc_words AS (
    SELECT doc_id, sum(len(string_split(trim(coalesce(text, '')), ' '))) AS words
    FROM corpus GROUP BY doc_id),
qdoc AS (
    SELECT j.query_id, max(d.words) AS doc_words
    FROM {{s}}.chunk_judgments j JOIN corpus c ON c.chunk_id = j.chunk_id
    JOIN doc_words d ON d.doc_id = c.doc_id
    WHERE j.grade >= $level GROUP BY j.query_id),
judged AS (SELECT query_id, count(*) AS judged FROM qrels GROUP BY query_id)
SELECT {QUERY_FIELDS}, coalesce(r.expected, []) AS expected, qd.doc_words,
       CASE WHEN r.expected IS NOT NULL THEN NULL
            WHEN coalesce(jd.judged, 0) > 0 THEN $none_judged ELSE $lists_none END
       AS no_answer_source
FROM queries q LEFT JOIN rel r USING (query_id) LEFT JOIN qdoc qd USING (query_id)
LEFT JOIN judged jd USING (query_id)
ORDER BY q.query_id
"""

CUTS_SQL = """
SELECT quantile_disc(words, 1 / 3), quantile_disc(words, 2 / 3), count(*)
FROM (SELECT doc_id, sum(len(string_split(trim(coalesce(text, '')), ' '))) AS words
      FROM corpus GROUP BY doc_id)
"""

# the query's own fields alone, in the table's row order (:data:`QUERY_SQL`'s first columns)
ATTRIBUTES_SQL = f"SELECT {QUERY_FIELDS} FROM queries q ORDER BY q.query_id"

# Row i of the table is (the i // $queries-th run of $run_names, the (i % $queries)-th query by
# id): the order of the table itself, so every part below lands by index, without a merge.
ROW_INDEX_SQL = """
row_index AS (
    SELECT r.run, q.query_id, (list_position($run_names, r.run) - 1) * $queries + q.pos AS i
    FROM (SELECT unnest($run_names) AS run) r,
         (SELECT query_id, row_number() OVER (ORDER BY query_id) - 1 AS pos FROM queries) q)
"""

# every measure of every cutoff, long (measure index m), as (row, m, value): numbers only
MEASURES_SQL = """
WITH {row_index}
SELECT x.i, l.m, l.value
FROM ({per_query}) l JOIN row_index x USING (run, query_id)
"""

CLASSES_SQL = """
WITH {row_index}
SELECT c.k, x.i, c.found, c.failure_class FROM ({failures}) c JOIN row_index x USING (run, query_id)
"""

# what the failure classes say independently of k, taken at the first cutoff asked for
RELEVANT_SQL = """
WITH {row_index}
SELECT x.i, c.relevant, c.positions, c.listed
FROM ({failures}) c JOIN row_index x USING (run, query_id) WHERE c.k = $ks[1]
"""

GRADES_SQL = """
WITH {row_index},
cutoffs AS (SELECT unnest($ks) AS k),
graded_chunks AS (SELECT DISTINCT query_id, chunk_id FROM all_grades),
top AS (SELECT c.k, t.run, t.query_id, t.chunk_id, t.rank
        FROM runs t JOIN graded_chunks USING (query_id, chunk_id) JOIN cutoffs c ON t.rank <= c.k
        WHERE $all_runs OR list_contains($runs, t.run)),
per_chunk AS (
    SELECT query_id, chunk_id, bool_or(coalesce(harmful, false)) AS harmful,
           string_agg(annotator || ' ' || grade, ', ' ORDER BY annotator) AS by_annotator
    FROM all_grades GROUP BY query_id, chunk_id),
reasons AS (
    SELECT t.k, t.run, t.query_id, g.reason, count(*) AS n
    FROM top t JOIN all_grades g ON g.query_id = t.query_id AND g.chunk_id = t.chunk_id
    WHERE coalesce(g.reason, '') <> '' AND g.grade < 2
    GROUP BY ALL),
reason_lists AS (
    SELECT k, run, query_id, string_agg(reason, '; ' ORDER BY n DESC, reason) AS reasons,
           arg_max(reason, n * 1000000 - rank_in) AS reason
    FROM (SELECT *, row_number() OVER (PARTITION BY k, run, query_id ORDER BY reason) AS rank_in
          FROM reasons)
    GROUP BY ALL),
graded AS (
    SELECT t.k, t.run, t.query_id,
           string_agg('#' || t.rank || ' ' || m.by_annotator
                      || CASE WHEN m.harmful THEN ' (harmful)' ELSE '' END, '; ' ORDER BY t.rank)
           AS manual_grades
    FROM top t JOIN per_chunk m ON m.query_id = t.query_id AND m.chunk_id = t.chunk_id
    GROUP BY ALL)
SELECT coalesce(g.k, r.k) AS k, x.i, g.manual_grades, r.reasons, r.reason
FROM graded g FULL JOIN reason_lists r ON r.k = g.k AND r.run = g.run AND r.query_id = g.query_id
JOIN row_index x ON x.run = coalesce(g.run, r.run) AND x.query_id = coalesce(g.query_id, r.query_id)
"""

# the leading columns of the table (the query's own fields), in order
FIRST = ["run", "query_id", "query", "query_type", "section", "split", "require_all"]


def table_columns(k: int) -> list[str]:
    """Every column of the table at cutoff ``k``, in order."""
    return [
        *FIRST,
        "expected",
        "no_answer_source",
        *headline(k),
        "FirstRank",
        f"RecallCap@{k}",
        "relevant",
        "found",
        "positions",
        "listed",
        "failure_class",
        "manual_grades",
        "reasons",
        "reason",
        "failing",
        "doc_length",
    ]


def measures_at(k: int) -> list[str]:
    """The measures the table holds at cutoff ``k`` besides FirstRank."""
    return [*headline(k), f"RecallCap@{k}"]


@dataclass
class QueryTable:
    """The per-query table with what the evaluation said about it."""

    table: pd.DataFrame
    k: int
    policy: Policy
    warnings: dict[str, list[str]] = field(default_factory=dict)
    no_answer: dict[str, dict] = field(default_factory=dict)
    rule: str = DEFAULT_RULE


@dataclass(frozen=True)
class QueryTables:
    """The per-query table at every cutoff of ``ks``, built once; :meth:`at` slices one.

    ``base`` holds what no cutoff changes (queries, expected, relevant, positions, listed,
    FirstRank, doc_length, no_answer_source), in the table's row order; ``by_k`` each
    cutoff's columns over the same rows. Shared read-only (the dashboard caches one per
    workspace, policy and rule): :meth:`at` returns a new frame without copying the columns;
    pandas' copy-on-write keeps whatever is written to it (a column added, a cell changed)
    in that frame alone.
    """

    ks: tuple[int, ...]
    policy: Policy
    rule: str
    base: pd.DataFrame
    by_k: dict[int, dict[str, pd.Series]]
    warnings: dict[str, list[str]]
    no_answer: dict[str, dict]

    def at(self, k: int) -> QueryTable:
        """The table :func:`build_query_table` gives at ``k``, columns in the order of
        :func:`table_columns`; ``k`` must be one of :attr:`ks` (ValueError otherwise: build
        another with :func:`build_query_table`)."""
        if k not in self.by_k:
            built = ", ".join(map(str, self.ks))
            raise ValueError(f"k = {k} was not built (built for k = {built})")
        columns = {**{c: self.base[c] for c in self.base.columns}, **self.by_k[k]}
        table = pd.DataFrame({c: columns[c] for c in table_columns(k)}, copy=False)
        warnings = _warnings_at(self.warnings, k)
        return QueryTable(table, k, self.policy, warnings, self.no_answer, self.rule)


def _warnings_at(warnings: dict[str, list], k: int) -> dict[str, list]:
    """The lines of ``warnings`` (run -> lines) that hold at cutoff ``k``; runs left with
    none dropped."""
    kept = {
        run: [line for line in lines if getattr(line, "cutoff", None) in (None, k)]
        for run, lines in warnings.items()
    }
    return {run: lines for run, lines in kept.items() if lines}


@dataclass(frozen=True)
class MeasureRows:
    """The per-query table's leading columns (:data:`FIRST`) and its measures at one cutoff
    (FirstRank and :func:`measures_at`), the same rows in the same order, with the
    evaluation's warnings at that cutoff: what the Overview reads, without the failure
    classes, grades, reasons, ranks and lengths the other pages read (at 10,000 x 100 x 4
    about a quarter of the table's build). ``table`` equals those columns of
    :func:`build_query_table`'s table (``tests/test_first_page_lean.py``), which takes it
    instead of scoring them again (``measured``)."""

    table: pd.DataFrame
    k: int
    policy: Policy
    warnings: dict[str, list[str]]


def build_measure_rows(
    workspace: Workspace,
    k: int,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
) -> MeasureRows:
    """:func:`build_query_table`'s :data:`FIRST` columns and measures at cutoff ``k``
    (:class:`MeasureRows`), from the same SQL: the measures' own (what ``evaluate`` runs)."""
    policy = policy or Policy()
    k = parse_cutoff(k)
    prepared = prepare(workspace, policy)
    run_names = [r for r in workspace.run_names if runs is None or r in runs]
    queries = prepared.query(ATTRIBUTES_SQL)
    rows = {"run_names": run_names, "queries": len(queries)}
    table = pd.DataFrame({"run": run_names}).merge(queries, how="cross")
    labels = _measure_labels([k])
    values = _measure_values(prepared, labels, runs, rows, len(table))
    columns = [c for c in table_columns(k) if c in labels]  # the table's order
    table = table.assign(**{c: values[:, labels.index(c)] for c in columns})
    warnings = _warnings_at(collect_warnings(prepared, [k], runs), k)
    return MeasureRows(table, k, policy, warnings)


def _measure_labels(ks: Sequence[int]) -> list[str]:
    """The measures the table of cutoffs ``ks`` scores in one pass: FirstRank, then each
    cutoff's."""
    return ["FirstRank", *(m for k in dict.fromkeys(ks) for m in measures_at(k))]


def query_table(
    workspace: Workspace,
    k: int,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
) -> pd.DataFrame:
    """One row per (run, query) at cutoff ``k`` (see the module docstring for columns)."""
    return build_query_table(workspace, k, policy, runs, rule).table


def build_query_table(
    workspace: Workspace,
    k: int,
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
    measured: MeasureRows | None = None,
) -> QueryTable:
    """:func:`query_table` with the evaluation's warnings and no-answer summary; ``failing``
    and the failure classes follow the pass ``rule`` (:mod:`.pass_rule`). ``measured``: the
    measures and warnings at ``k`` already scored (:func:`build_measure_rows` of every run,
    same policy), taken instead of scoring them again: the same table."""
    return build_query_tables(workspace, [k], policy, runs, rule, measured).at(k)


def build_query_tables(
    workspace: Workspace,
    ks: Sequence[int],
    policy: Policy | None = None,
    runs: Sequence[str] | None = None,
    rule: str = DEFAULT_RULE,
    measured: MeasureRows | None = None,
) -> QueryTables:
    """The per-query table at every cutoff of ``ks`` in one pass per part: the measures of
    every cutoff in one SQL query, fetched as numbers; the failure classes, top-k grades and
    reasons of every cutoff in one query each (a join with the list of cutoffs). With
    ``measured`` (one cutoff, every run: :func:`build_measure_rows`), its measures and
    warnings instead of that query and the warnings' (ValueError when it is of another
    cutoff, policy or set of rows)."""
    policy = policy or Policy()
    ks = tuple(dict.fromkeys(parse_cutoff(k) for k in ks))
    if not ks:
        raise ValueError("no cutoff k to build the query table at")
    prepared = prepare(workspace, policy)
    run_names = [r for r in workspace.run_names if runs is None or r in runs]
    queries = prepared.query(
        QUERY_SQL,
        {
            "level": policy.rel_level,
            "none_judged": NONE_JUDGED_RELEVANT,
            "lists_none": GOLD_LISTS_NONE,
        },
    )
    rows = {"run_names": run_names, "queries": len(queries)}
    base = pd.DataFrame({"run": run_names}).merge(queries, how="cross")
    failures, params = failures_sql(ks, policy, runs, rule=rule)
    failures_params = {**params, **rows}
    labels = _measure_labels(ks)
    if measured is None:
        values = _measure_values(prepared, labels, runs, rows, len(base))
        warnings = collect_warnings(prepared, list(ks), runs)
    else:
        _require_rows_of(measured, ks, policy, base)
        values = measured.table[labels].to_numpy(dtype=float)
        warnings = measured.warnings  # of its one cutoff: those the table keeps at it
    relevance = prepared.query(_with_rows(RELEVANT_SQL, failures), failures_params)
    base = _k_independent(base, prepared, relevance, values[:, 0])
    classes = prepared.query(_with_rows(CLASSES_SQL, failures), failures_params)
    grades = prepared.query(_with_rows(GRADES_SQL), {"ks": list(ks), **run_scope(runs), **rows})
    by_k = {}
    for k in ks:
        measured = {m: values[:, labels.index(m)] for m in measures_at(k)}
        by_k[k] = _at_cutoff(
            k, rule, base, measured, classes[classes["k"] == k], grades[grades["k"] == k]
        )
    return QueryTables(
        ks=ks,
        policy=policy,
        rule=rule,
        base=base,
        by_k=by_k,
        warnings=warnings,
        no_answer=no_answer_summary(prepared, runs),
    )


def _require_rows_of(measured: MeasureRows, ks: tuple[int, ...], policy: Policy, base) -> None:
    """ValueError unless ``measured`` holds the measures of ``base``'s rows (same runs and
    queries, in order) at the one cutoff of ``ks`` under ``policy``."""
    table = measured.table
    same_rows = len(table) == len(base) and all(
        table[c].reset_index(drop=True).equals(base[c]) for c in ("run", "query_id")
    )
    if ks != (measured.k,) or measured.policy != policy or not same_rows:
        raise ValueError(
            f"measures of k = {measured.k} under {measured.policy!r} do not fit a table of "
            f"k = {', '.join(map(str, ks))} under {policy!r} over these rows"
        )


def _with_rows(template: str, failures: str = "") -> str:
    """``template`` with the row index CTE (and the failure classes' SQL) in place."""
    return template.replace("{row_index}", ROW_INDEX_SQL.strip()).replace("{failures}", failures)


def _measure_values(
    prepared: PreparedEvaluation, labels: list[str], runs, rows: dict, n: int
) -> np.ndarray:
    """A (row, measure) matrix of every measure in ``labels`` from the measures' own SQL
    (:func:`~ragrecall_core.scoring.families.measure_rows_sql`, what ``evaluate`` runs),
    fetched as numbers: NaN where a row has no value (e.g. a no-answer query's)."""
    requests = parse_requests(labels)
    measures = [r.measure for r in requests]
    sql, params = scoring.measure_rows_sql(measures, prepared.policy, prepared.table)
    fetched = (
        prepared.workspace.cursor()
        .execute(
            prepared.sql(_with_rows(MEASURES_SQL).replace("{per_query}", sql)),
            {**params, **scope_params(runs, None), **rows},
        )
        .fetchnumpy()
    )
    values = np.full((n, len(labels)), np.nan)
    values[fetched["i"], fetched["m"]] = fetched["value"]
    return values


def _k_independent(
    base: pd.DataFrame, prepared: PreparedEvaluation, relevance: pd.DataFrame, first_rank
) -> pd.DataFrame:
    """``base`` (queries x runs) with FirstRank, relevant, positions, listed and doc_length."""
    at, n = relevance["i"].to_numpy(), len(base)
    base["FirstRank"] = first_rank
    base["relevant"] = _spread(relevance["relevant"], at, n).fillna(0).astype(int)
    base["positions"] = _spread_lists(relevance["positions"], at, n)
    base["listed"] = _spread(relevance["listed"], at, n).fillna(0).astype(int)
    base["expected"] = [list(e) if isinstance(e, list | np.ndarray) else [] for e in base.expected]
    lo, hi, docs = prepared.fetch(CUTS_SQL)[0]
    base["doc_length"] = _doc_length(base, lo, hi, docs)
    return base.drop(columns=["doc_words"])


def _at_cutoff(
    k: int,
    rule: str,
    base: pd.DataFrame,
    measured: dict[str, np.ndarray],
    classes: pd.DataFrame,
    grades: pd.DataFrame,
) -> dict[str, pd.Series]:
    """The columns of the table that change with ``k``, over ``base``'s rows."""
    n = len(base)
    columns = {m: pd.Series(v) for m, v in measured.items()}
    at = classes["i"].to_numpy()
    answerable = pd.Series(np.zeros(n, dtype=bool))
    answerable[at] = True
    columns["found"] = _spread(classes["found"], at, n).fillna(0).astype(int)
    found_class = _spread(classes["failure_class"], at, n)
    columns["failure_class"] = found_class.where(answerable, NO_ANSWER)
    at = grades["i"].to_numpy()
    columns["manual_grades"] = _spread(grades["manual_grades"], at, n)
    columns["reasons"] = _spread(grades["reasons"], at, n)
    reason = _spread(grades["reason"], at, n)
    columns["reason"] = reason.where(reason.notna(), NO_REASON)
    passing = columns[pass_measure(rule, k)]
    columns["failing"] = answerable & (passing.isna() | (passing < 1))
    return columns


def _spread(values: pd.Series, at: np.ndarray, n: int) -> pd.Series:
    """``values`` placed at rows ``at`` of a column of ``n`` rows, missing elsewhere."""
    return values.set_axis(at).reindex(pd.RangeIndex(n))


def _spread_lists(values: pd.Series, at: np.ndarray, n: int) -> list[list[int]]:
    """Lists of ranks at rows ``at`` (plain ints), empty lists elsewhere."""
    lists: list[list[int]] = [[] for _ in range(n)]
    for row, ranks in zip(at, values, strict=True):
        lists[row] = list(map(int, ranks))
    return lists


def _doc_length(table: pd.DataFrame, lo, hi, docs: int) -> pd.Series:
    """Bucket of the relevant document's length in words (tertiles of the corpus)."""
    if not docs:
        return pd.Series(
            np.where(table["relevant"] > 0, NO_CORPUS, NO_ANSWER), index=table.index, dtype=object
        )
    lo, hi = int(lo), int(hi)
    words = table["doc_words"]
    labels = np.select(
        [table["relevant"] == 0, words.isna(), words <= lo, words <= hi],
        [NO_ANSWER, NOT_IN_CORPUS, f"short (≤ {lo} words)", f"medium ({lo + 1}–{hi} words)"],
        default=f"long (> {hi} words)",
    )
    return pd.Series(labels, index=table.index, dtype=object)


def filter_table(
    table: pd.DataFrame,
    filters: dict[str, str] | None = None,
    runs: Sequence[str] | None = None,
    failing_only: bool = False,
) -> pd.DataFrame:
    """Rows of ``table`` matching every ``column: value`` filter, the runs, and failing."""
    mask = pd.Series(True, index=table.index)
    if runs is not None:
        mask &= table["run"].isin(list(runs))
    for column, value in (filters or {}).items():
        if value:
            mask &= table[column].astype("string").fillna(MISSING).replace("", MISSING) == value
    if failing_only:
        mask &= table["failing"]
    return table[mask]


FAIL_MARK = "✗ FAIL"


def status(row_failing: pd.Series, failure_class: pd.Series) -> pd.Series:
    """A textual mark per row (readable without colour): FAIL, ok or no answer."""
    return pd.Series(
        np.where(
            failure_class == NO_ANSWER, "– no answer", np.where(row_failing, FAIL_MARK, "✓ ok")
        ),
        index=row_failing.index,
    )


def display_frame(rows: pd.DataFrame, k: int) -> pd.DataFrame:
    """The per-query table as shown: text columns, the measures at k, failing marked."""
    if rows.empty:
        return pd.DataFrame(columns=DISPLAY_COLUMNS(k))
    out = pd.DataFrame(
        {
            "status": status(rows["failing"], rows["failure_class"]),
            "query_id": rows["query_id"],
            "query": rows["query"].fillna("—"),
            "type": rows["query_type"].fillna("—"),
            "section": rows["section"].fillna("—"),
            "expected": [_join(e, "— (no answer)") for e in rows["expected"]],
            "found at": [_join(list(map(str, p)), "—") for p in rows["positions"]],
            f"Recall@{k}": rows[f"Recall@{k}"],
            f"RecallCap@{k}": rows[f"RecallCap@{k}"],
            f"Hit@{k}": rows[f"Hit@{k}"],
            "RR": rows[f"RR@{k}"],
            "first rank": rows["FirstRank"].astype("Int64"),
            "failure class": class_label(rows["failure_class"], rows["no_answer_source"]),
            "manual grades (top k)": rows["manual_grades"].fillna(""),
            "reviewer reason": rows["reasons"].fillna(""),
        }
    )
    if "verdict" in rows.columns:
        out["verdict"] = rows["verdict"].fillna("")
    return out.reset_index(drop=True)


def review_columns(k: int, columns) -> list[str]:
    """The columns a review meeting reads, in reading order, of those ``columns`` has: they
    fit a 1600 px screen without a sideways scroll; the page puts the others after them."""
    wanted = [
        "status",
        "query_id",
        "query",
        "type",
        "section",
        "failure class",
        "first rank",
        f"Recall@{k}",
        f"Hit@{k}",
        "verdict",
    ]
    return [c for c in wanted if c in set(columns)]


# failure classes in triage order, the worst first: nothing relevant in the list at all,
# then relevant items only below k, then some of them in the top k
SEVERITY = (
    "missing from run",
    "never retrieved",
    "gold not in corpus",
    "ranked below k",
    "partial",
)
TRIAGE_ORDER = (
    "failing first, the worst first: never retrieved, ranked below k, partial; "
    "then those failing in most runs"
)


def failing_runs(table: pd.DataFrame, runs: Sequence[str]) -> pd.Series:
    """How many of ``runs`` fail each query (by query id), from the per-query table."""
    rows = table[table["run"].isin(list(runs))]
    return rows.groupby("query_id", sort=False)["failing"].sum().astype(int)


def failing_first(display: pd.DataFrame, fails_in: pd.Series | None = None) -> pd.DataFrame:
    """The meeting's triage order: failing rows first, the worst class first
    (:data:`SEVERITY`), then those ``fails_in`` (query id -> runs failing it) counts in most
    runs, then by query id; the rows that pass or expect no answer follow by query id."""
    failing = display["status"].eq(FAIL_MARK)
    rank = {c: i for i, c in enumerate(SEVERITY)}
    severity = display["failure class"].map(rank).fillna(len(SEVERITY)).where(failing, 0)
    spread = display["query_id"].map(fails_in) if fails_in is not None else 0
    order = display.assign(
        _passing=~failing,
        _severity=severity,
        _spread=-pd.Series(spread, index=display.index).fillna(0).where(failing, 0),
    ).sort_values(["_passing", "_severity", "_spread", "query_id"], kind="stable")
    return order.drop(columns=["_passing", "_severity", "_spread"]).reset_index(drop=True)


def failing_ids(display: pd.DataFrame) -> list[str]:
    """The failing query ids of ``display`` in its order (J / K step through them)."""
    return list(display.loc[display["status"].eq(FAIL_MARK), "query_id"])


def class_label(failure_class: pd.Series, no_answer_source: pd.Series) -> pd.Series:
    """The failure class, a no-answer query's with where that came from."""
    sourced = failure_class + " (" + no_answer_source.astype("string") + ")"
    return sourced.where(no_answer_source.notna(), failure_class).astype(object)


# display column -> the table column that fills it, for text the data may not give at all
OPTIONAL_DISPLAY = {
    "query": "query",
    "type": "query_type",
    "section": "section",
    "manual grades (top k)": "manual_grades",
    "reviewer reason": "reasons",
}


def unfilled_display_columns(table: pd.DataFrame) -> list[str]:
    """Display columns no row of ``table`` fills (e.g. TREC qrels: no query text, type or
    section): a column of dashes says nothing, so the page leaves it out."""
    return [
        shown
        for shown, column in OPTIONAL_DISPLAY.items()
        if table[column].astype("string").replace("", pd.NA).isna().all()
    ]


def _join(items: Sequence[str], empty: str, limit: int = 8) -> str:
    if not len(items):
        return empty
    shown = ", ".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} … ({len(items)} in all)"


def DISPLAY_COLUMNS(k: int) -> list[str]:  # noqa: N802 - reads as a constant
    return [
        "status",
        "query_id",
        "query",
        "type",
        "section",
        "expected",
        "found at",
        f"Recall@{k}",
        f"RecallCap@{k}",
        f"Hit@{k}",
        "RR",
        "first rank",
        "failure class",
        "manual grades (top k)",
        "reviewer reason",
    ]


def neighbour(ids: Sequence[str], current: str, step: int) -> str | None:
    """The id ``step`` places after ``current`` in ``ids`` (wrapping); the first if absent."""
    ids = list(ids)
    if not ids:
        return None
    if current not in ids:
        return ids[0] if step > 0 else ids[-1]
    return ids[(ids.index(current) + step) % len(ids)]
