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

>>> table = query_table(Workspace.open("data_samples"), k=5)        # doctest: +SKIP
>>> table.loc[table.failing, ["run", "query_id", "failure_class"]].head(1)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ragrecall_core.analysis.failures import failure_classes
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, pass_measure
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import prepare, run_scope

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


QUERY_SQL = """
WITH rel AS (
    SELECT query_id, list(chunk_id ORDER BY chunk_id) AS expected
    FROM {s}.chunk_judgments WHERE grade >= $level GROUP BY query_id),
doc_words AS (
    SELECT doc_id, sum(len(string_split(trim(coalesce(text, '')), ' '))) AS words
    FROM corpus GROUP BY doc_id),
qdoc AS (
    SELECT j.query_id, max(d.words) AS doc_words
    FROM {s}.chunk_judgments j JOIN corpus c ON c.chunk_id = j.chunk_id
    JOIN doc_words d ON d.doc_id = c.doc_id
    WHERE j.grade >= $level GROUP BY j.query_id),
judged AS (SELECT query_id, count(*) AS judged FROM qrels GROUP BY query_id)
SELECT q.query_id, q.query, q.query_type, q.section, q.split, coalesce(q.require_all, false)
       AS require_all, coalesce(r.expected, []) AS expected, qd.doc_words,
       CASE WHEN r.expected IS NOT NULL THEN NULL
            WHEN coalesce(jd.judged, 0) > 0 THEN $none_judged ELSE $lists_none END
       AS no_answer_source
FROM queries q LEFT JOIN rel r USING (query_id) LEFT JOIN qdoc qd USING (query_id)
LEFT JOIN judged jd USING (query_id)
"""

CUTS_SQL = """
SELECT quantile_disc(words, 1 / 3), quantile_disc(words, 2 / 3), count(*)
FROM (SELECT doc_id, sum(len(string_split(trim(coalesce(text, '')), ' '))) AS words
      FROM corpus GROUP BY doc_id)
"""

GRADES_SQL = """
WITH top AS (SELECT run, query_id, chunk_id, rank FROM runs
             WHERE rank <= $k AND ($all_runs OR list_contains($runs, run))),
per_chunk AS (
    SELECT query_id, chunk_id, bool_or(coalesce(harmful, false)) AS harmful,
           string_agg(annotator || ' ' || grade, ', ' ORDER BY annotator) AS by_annotator
    FROM all_grades GROUP BY query_id, chunk_id),
reasons AS (
    SELECT t.run, t.query_id, g.reason, count(*) AS n
    FROM top t JOIN all_grades g ON g.query_id = t.query_id AND g.chunk_id = t.chunk_id
    WHERE coalesce(g.reason, '') <> '' AND g.grade < 2
    GROUP BY ALL),
reason_lists AS (
    SELECT run, query_id, string_agg(reason, '; ' ORDER BY n DESC, reason) AS reasons,
           arg_max(reason, n * 1000000 - rank_in) AS reason
    FROM (SELECT *, row_number() OVER (PARTITION BY run, query_id ORDER BY reason) AS rank_in
          FROM reasons)
    GROUP BY ALL),
graded AS (
    SELECT t.run, t.query_id,
           string_agg('#' || t.rank || ' ' || m.by_annotator
                      || CASE WHEN m.harmful THEN ' (harmful)' ELSE '' END, '; ' ORDER BY t.rank)
           AS manual_grades
    FROM top t JOIN per_chunk m ON m.query_id = t.query_id AND m.chunk_id = t.chunk_id
    GROUP BY ALL)
SELECT coalesce(g.run, r.run) AS run, coalesce(g.query_id, r.query_id) AS query_id,
       g.manual_grades, r.reasons, r.reason
FROM graded g FULL JOIN reason_lists r ON r.run = g.run AND r.query_id = g.query_id
"""


@dataclass
class QueryTable:
    """The per-query table with what the evaluation said about it."""

    table: pd.DataFrame
    k: int
    policy: Policy
    warnings: dict[str, list[str]] = field(default_factory=dict)
    no_answer: dict[str, dict] = field(default_factory=dict)
    rule: str = DEFAULT_RULE


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
) -> QueryTable:
    """:func:`query_table` with the evaluation's warnings and no-answer summary; ``failing``
    and the failure classes follow the pass ``rule`` (:mod:`.pass_rule`)."""
    policy = policy or Policy()
    measures = [*headline(k), "FirstRank", f"RecallCap@{k}"]
    evaluation = evaluate(workspace, measures, policy, runs)
    wide = evaluation.wide()
    prepared = prepare(workspace, policy)
    classes = failure_classes(prepared, k, runs, rule=rule)[
        ["run", "query_id", "relevant", "found", "positions", "listed", "failure_class"]
    ]
    queries = prepared.query(
        QUERY_SQL,
        {
            "level": policy.rel_level,
            "none_judged": NONE_JUDGED_RELEVANT,
            "lists_none": GOLD_LISTS_NONE,
        },
    )
    grades = prepared.query(GRADES_SQL, {"k": k, **run_scope(runs)})
    lo, hi, docs = prepared.fetch(CUTS_SQL)[0]

    run_names = [r for r in workspace.run_names if runs is None or r in runs]
    base = pd.DataFrame({"run": run_names}).merge(queries, how="cross")
    # wide() leaves out (run, query) pairs without any value, e.g. no-answer queries
    table = base.merge(wide, on=["run", "query_id"], how="left")
    for column in measures:
        if column not in table:
            table[column] = np.nan
    table = table.merge(classes, on=["run", "query_id"], how="left")
    table = table.merge(grades, on=["run", "query_id"], how="left")
    answerable = table["relevant"].notna()
    table["relevant"] = table["relevant"].fillna(0).astype(int)
    table["found"] = table["found"].fillna(0).astype(int)
    table["listed"] = table["listed"].fillna(0).astype(int)
    table["positions"] = [p if isinstance(p, list | np.ndarray) else [] for p in table["positions"]]
    table["positions"] = [list(map(int, p)) for p in table["positions"]]
    table["expected"] = [
        list(e) if isinstance(e, list | np.ndarray) else [] for e in table["expected"]
    ]
    table["failure_class"] = table["failure_class"].where(answerable, NO_ANSWER)
    passing = table[pass_measure(rule, k)]
    table["failing"] = answerable & (passing.isna() | (passing < 1))
    table["reason"] = table["reason"].where(table["reason"].notna(), NO_REASON)
    table["doc_length"] = _doc_length(table, lo, hi, docs)
    table = table.drop(columns=["doc_words"])
    first = ["run", "query_id", "query", "query_type", "section", "split", "require_all"]
    rest = [c for c in table.columns if c not in first]
    order = {run: i for i, run in enumerate(workspace.run_names)}
    table = table.assign(_order=table["run"].map(order)).sort_values(
        ["_order", "query_id"], kind="stable"
    )
    table = table[first + rest].reset_index(drop=True)
    return QueryTable(table, k, policy, evaluation.warnings, evaluation.no_answer, rule)


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


def failing_first(display: pd.DataFrame) -> pd.DataFrame:
    """Failing rows first, then by query id (a meeting starts from what fails)."""
    order = display.assign(_passing=~display["status"].eq(FAIL_MARK)).sort_values(
        ["_passing", "query_id"], kind="stable"
    )
    return order.drop(columns="_passing").reset_index(drop=True)


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
