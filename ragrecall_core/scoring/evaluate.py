"""Evaluate runs against the gold set: the long result shape and its renderers.

>>> ev = evaluate(Workspace.open("data_samples"), ["Recall@5", "MRR@5"])  # doctest: +SKIP
>>> ev.means[0]                                                            # doctest: +SKIP
('bm25', 'Recall@5', 0.79..., 129)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING

from ragrecall_core.errors import MAX_FIELD_CHARS, gather, raise_if_any, shortened
from ragrecall_core.inputs.beside import in_background
from ragrecall_core.inputs.readers import CSV, JSONL, PARQUET, TREC_RUN
from ragrecall_core.inputs.secrets import redact_path, redact_warnings
from ragrecall_core.inputs.sql import quote_identifier
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import MeasureRequest, distinct_requests, measure_items
from ragrecall_core.measures.base import request_of
from ragrecall_core.output.text import plural, render
from ragrecall_core.scoring import families as scoring
from ragrecall_core.scoring.policy import Policy, listed_items
from ragrecall_core.scoring.prepared import (
    SCOPE_CTES,
    PreparedEvaluation,
    prepare,
    require_runs,
    reviewed,
    run_scope,
    scope_params,
)

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_CUTOFF = 5
DEFAULT_MEASURES = ("Recall@{k}", "Hit@{k}", "MRR@{k}", "P@{k}", "nDCG@{k}", "Judged@{k}")
LONG_COLUMNS = ["run", "query_id", "measure", "value"]
MEAN_COLUMNS = ["run", "measure", "value", "queries"]


def default_measures(cutoffs: Sequence[int] = (DEFAULT_CUTOFF,)) -> list[str]:
    return [m.format(k=k) for k in cutoffs for m in DEFAULT_MEASURES]


@dataclass
class Evaluation:
    """Per-query values in one long shape ``(run, query_id, measure, value)``.

    ``means`` holds the macro mean over the queries each measure covers, with their
    count: ``(run, measure, value, queries)``. ``measure`` is the name as the user asked
    for it, but a query's value never goes by a mean's name (:attr:`query_labels`: asked
    as ``MRR@5``, the mean is ``MRR@5`` and a query's value ``RR@5``); a missing value is
    ``None``. Both are plain tuples (the command line prints
    them without pandas); :attr:`per_query` and :attr:`aggregate` are the same as frames.
    :attr:`warnings` and :attr:`no_answer` are computed when first read (``notes``): an
    output that shows them reads them; a caller that wants the values alone (the gate's
    and compare's functions) never pays for them (their commands ask :func:`run_warnings`).
    """

    means: list[tuple]
    requests: list[MeasureRequest]
    policy: Policy
    runs: list[str]
    # what reviewers put into the numbers (:func:`reviewed`: a grade, only resolutions or
    # neither), which :attr:`policy_line` says
    reviewed: bool | str = True
    notes: Callable[[], tuple[dict[str, list[str]], dict[str, dict]]] = field(
        default=lambda: ({}, {}), repr=False, compare=False
    )
    # every query's values, ``(run, query_id, measure, value)``: :attr:`rows`
    values: Callable[[], list[tuple]] = field(default=list, repr=False, compare=False)

    @cached_property
    def rows(self) -> list[tuple]:
        """Every query's value, ``(run, query_id, measure, value)`` (:attr:`query_labels`),
        by run, measure and query; computed when first read if :func:`evaluate` was told no
        output shows them."""
        return self.values()

    @cached_property
    def _notes(self) -> tuple[dict[str, list[str]], dict[str, dict]]:
        return self.notes()

    @property
    def warnings(self) -> dict[str, list[str]]:
        """Per run: the warnings :func:`collect_warnings` finds."""
        return self._notes[0]

    @property
    def no_answer(self) -> dict[str, dict]:
        """Per run: :func:`no_answer_summary`."""
        return self._notes[1]

    @property
    def policy_line(self) -> str:
        """The policy's sentence, saying so when no reviewer's grade was loaded."""
        return self.policy.describe(self.reviewed)

    @property
    def labels(self) -> list[str]:
        """Each measure's name as asked: the means' keys."""
        return [r.label for r in self.requests]

    @property
    def query_labels(self) -> list[str]:
        """Each measure's name for one query's value (:attr:`rows`, :attr:`per_query`):
        as asked, but never a mean's name (``MRR@5`` asked: a query's value is ``RR@5``)."""
        return [r.query_label for r in self.requests]

    @property
    def asked(self) -> dict[str, str]:
        """A query's value's name (:attr:`query_labels`) -> its measure's name as asked
        (:attr:`labels`): ``RR@5`` -> ``MRR@5``, where the mean goes by what was asked."""
        return dict(zip(self.query_labels, self.labels, strict=True))

    @cached_property
    def per_query(self) -> pd.DataFrame:
        """``(run, query_id, measure, value)``, by run, measure (:attr:`query_labels`) and
        query."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=LONG_COLUMNS).astype({"value": "float64"})

    @cached_property
    def aggregate(self) -> pd.DataFrame:
        """``(run, measure, value, queries)``: each run's means, measures as asked."""
        import pandas as pd

        return pd.DataFrame(self.means, columns=MEAN_COLUMNS).astype(
            {"value": "float64", "queries": "int64"}
        )

    def to_text(self, per_query: bool = False) -> str:
        """The command line's table: the means (and every query's values when asked)."""
        return render(self, "table", per_query)

    def to_frame(self) -> pd.DataFrame:
        return self.per_query.copy()

    def table(self) -> pd.DataFrame:
        """The means: one row per run, one column per measure, as asked for."""
        table = self.aggregate.pivot(index="run", columns="measure", values="value")
        return table.reindex(index=self.runs, columns=self.labels).rename_axis(columns=None)

    def _repr_html_(self) -> str:
        """Jupyter shows the means as a table; run names are file text, so escaped."""
        return self.table().to_html(escape=True, float_format="{:.4f}".format, na_rep="")

    def wide(self) -> pd.DataFrame:
        """One row per (run, query), one column per measure."""
        table = self.per_query.pivot_table(
            index=["run", "query_id"],
            columns="measure",
            values="value",
            aggfunc="first",
            sort=False,
        )
        shown = [c for c in self.query_labels if c in table.columns]
        return table.reindex(columns=shown).reset_index()

    def mean(self, run: str, measure: str) -> tuple[float | None, int] | None:
        """``(mean, queries)`` of ``measure`` for ``run``; ``None`` when not computed."""
        return self._means_by_key.get((run, measure))

    @cached_property
    def _means_by_key(self) -> dict[tuple[str, str], tuple[float | None, int]]:
        return {(run, m): (v, n) for run, m, v, n in self.means}

    def value(self, run: str, measure: str) -> float:
        mean = self.mean(run, measure)
        return float("nan") if mean is None or mean[0] is None else float(mean[0])

    def to_dict(self, per_query: bool = False) -> dict:
        runs = []
        for run in self.runs:
            means = [(m, v, n) for r, m, v, n in self.means if r == run]
            entry = {
                "name": run,
                "aggregate": {m: _number(v) for m, v, _ in means},
                "queries": {m: int(n) for m, _, n in means},
                "no_answer": self.no_answer.get(run, {}),
                "warnings": self.warnings.get(run, []),
            }
            if per_query:
                nested: dict[str, dict[str, float | None]] = {}
                for r, q, m, v in self.rows:
                    if r == run:
                        nested.setdefault(q, {})[m] = _number(v)
                entry["per_query"] = nested
            runs.append(entry)
        return {"policy": self.policy_line, "runs": runs}


def _number(value) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def evaluate(
    workspace: Workspace | object,
    measures: Sequence[str | MeasureRequest] | None = None,
    policy: Policy | None = None,
    runs: Sequence[str] | object | None = None,
    query_ids: Sequence[str] | None = None,
    *,
    name: str | None = None,
    notes_now: bool = False,
    query_values: bool = True,
) -> Evaluation:
    """Compute ``measures`` (names such as ``"Recall@5"``, or requests already parsed) for
    the workspace's runs.

    ``workspace`` is a :class:`Workspace` (then ``runs`` picks run names), or the gold set
    as a file or in memory (then ``runs`` holds the runs: a dict of name to run, or one run
    named ``name``; see :meth:`Workspace.from_memory`). ``notes_now``: the caller shows the
    warnings and the no-answer summary, so they are computed beside the measures, in a
    thread on cursors of their own, not when first read. ``query_values=False``: the caller
    shows the means alone, so every query's values are computed only if read.
    """
    if not isinstance(workspace, Workspace):
        workspace, runs = Workspace.from_memory(workspace, runs, name=name), None
    runs = require_runs(workspace, runs)
    policy = policy or Policy()
    requests = as_requests(measures or default_measures())
    prepared = prepare(workspace, policy)
    cutoffs = sorted({r.measure.cutoff for r in requests if r.measure.cutoff})
    notes = partial(notes_of, workspace, policy, cutoffs, runs, query_ids)
    if notes_now:
        notes = in_background(notes)
    measured = [r.measure for r in requests]
    query_label = [r.query_label for r in requests]

    def labelled(rows: list[tuple]) -> list[tuple]:
        return [(run, q, query_label[m], v) for run, q, m, v in rows]

    if query_values:
        scored = scoring.per_query(prepared, measured, runs, query_ids)
        means, rows = scored.means, labelled(scored.rows)
        values = rows.copy
    else:
        means = scoring.means_alone(prepared, measured, runs, query_ids)
        values = partial(_query_values, workspace, policy, measured, runs, query_ids, labelled)
    label = [r.label for r in requests]
    run_names = [r for r in workspace.run_names if runs is None or r in runs]
    return Evaluation(
        values=values,
        means=[(run, label[m], v, n) for run, m, v, n in means],
        requests=requests,
        policy=policy,
        runs=run_names,
        reviewed=reviewed(workspace),
        notes=notes,
    )


def _query_values(workspace, policy, measures, runs, query_ids, labelled) -> list[tuple]:
    """Every query's values of an evaluation that computed its means alone (its prepared
    evaluation made again should it have been dropped meanwhile)."""
    prepared = prepare(workspace, policy)
    return labelled(scoring.per_query(prepared, measures, runs, query_ids).rows)


def as_requests(measures: Sequence[str | MeasureRequest]) -> list[MeasureRequest]:
    """``measures`` as requests: those already parsed kept, the others parsed, each measure
    once (:func:`~ragrecall_core.measures.distinct_requests`: two spellings of one are
    refused), every bad one reported at once; one measure alone is one
    (:func:`measure_items`)."""
    requests, problems = gather(
        measure_items(measures), lambda m: m if isinstance(m, MeasureRequest) else request_of(m)
    )
    distinct, repeated = distinct_requests(requests)
    raise_if_any(problems + repeated)
    return distinct


def notes_of(
    workspace: Workspace,
    policy: Policy,
    cutoffs: Sequence[int],
    runs: Sequence[str] | None,
    query_ids: Sequence[str] | None,
) -> tuple[dict[str, list[str]], dict[str, dict]]:
    """An evaluation's warnings and no-answer summary, from its prepared evaluation (made
    again should it have been dropped meanwhile)."""
    return (
        run_warnings(workspace, policy, cutoffs, runs, query_ids),
        no_answer_summary(prepare(workspace, policy), runs, query_ids),
    )


def run_warnings(
    workspace: Workspace,
    policy: Policy | None,
    cutoffs: Sequence[int],
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
    noted: Collection[int] = (),
) -> dict[str, list[str]]:
    """Per run of ``runs``, what evaluate warns of at ``cutoffs`` (:func:`collect_warnings`,
    the one home of every warning's text), for an output that shows it beside numbers it
    measured on its own (check, compare). ``noted``: the cutoffs whose depth that output
    notes in its own words, so their depth warnings are left out (said once, not twice)."""
    found = collect_warnings(prepare(workspace, policy), cutoffs, runs, query_ids)
    return {run: without_depth(texts, noted) for run, texts in found.items()}


def without_depth(warnings: Sequence[str], noted: Collection[int]) -> list[str]:
    """``warnings`` but a cutoff past every list at one of the ``noted`` cutoffs, which an
    output (the gate, compare, the report) states in its own note beside its k."""
    return [w for w in warnings if not (isinstance(w, DepthWarning) and w.cutoff in noted)]


IGNORED_SQL = """
SELECT run, count(*), list(query_id ORDER BY query_id)[1:5]
FROM {s}.lists r ANTI JOIN queries q USING (query_id)
WHERE $all_runs OR list_contains($runs, run)
GROUP BY run ORDER BY run
"""

# (an anti join, not NOT EXISTS: 104,700 queries, 0.07 -> 0.04 s)
MISSING_SQL = """
WITH {scope}
SELECT rn.run, count(*), list(q.query_id ORDER BY q.query_id)[1:5]
FROM scope_runs rn CROSS JOIN scope_queries q
ANTI JOIN {s}.lists x ON x.run = rn.run AND x.query_id = q.query_id
WHERE q.judged
GROUP BY rn.run ORDER BY rn.run
"""

# (``rank = ANY($edges)``, the cutoffs and the ranks after them, first: the scan keeps the
# few rows at those ranks of a 7M-row run before it reads their ids and scores; 0.78 ->
# 0.36 s CPU for ``rank <= max + 1``, then 0.065 -> 0.048 s for the ranks themselves)
TIES_SQL = """
WITH edge AS (
    SELECT run, query_id, rank, score FROM runs
    WHERE rank = ANY($edges) AND ($all_runs OR list_contains($runs, run)))
SELECT a.run, a.rank AS k, count(*) FROM edge a JOIN edge b
  ON a.run = b.run AND a.query_id = b.query_id AND b.rank = a.rank + 1
WHERE list_contains($cutoffs, a.rank) AND a.score = b.score
GROUP BY a.run, a.rank ORDER BY a.run, a.rank
"""

# A list of n items whose ranks skip places (2, 3, 7) is measured at its positions (1, 2, 3):
# a rank above n says so, and the highest rank, above every list place, sorts last (to
# position n). Read from the run tables, which keep each row's rank as given beside its
# position (the runs view has the position alone); TREC runs are left out (their ranks are
# ignored: trec_eval's order), a list without ranks has none (NULL), and a long-form run
# without a rank column ranks its rows 1..n in file order (never above n). Only the rows
# ranked above their position are joined to their list's length (in most runs none: one
# comparison per row); the example is the first such query by id, from its first row off its
# place on (at most three rows).
# a run table's rows of the queries measured ($all_queries, else those in $ids)
IN_SCOPE = "($all_queries OR qid IN (SELECT unnest($ids)))"
RANK_GAPS_SQL = """
WITH off AS ({rows}),
gapped AS (
    SELECT o.run, o.query_id
    FROM off o JOIN run_queries q ON q.run = o.run AND q.query_id = o.query_id
    WHERE o.position = q.listed AND o.rank > q.listed),
example AS (SELECT run, count(*) AS queries, min(query_id) AS query_id FROM gapped GROUP BY run)
SELECT e.run, e.queries, e.query_id, list(o.rank ORDER BY o.position)[1:3],
       list(o.position ORDER BY o.position)[1:3]
FROM example e JOIN off o ON o.run = e.run AND o.query_id = e.query_id
GROUP BY e.run, e.queries, e.query_id ORDER BY e.run
"""
# one run's rows off their place ({table}: its generated table's name, quoted; its run name
# a bound parameter)
OFF_PLACE_SQL = (
    "SELECT ${param} AS run, qid AS query_id, rank, position FROM {table} "
    "WHERE rank > position AND " + IN_SCOPE
)
# A list mixing items with a rank and items without one: an item without a rank takes its
# place as its rank, and a given rank equal to such a place sorts after it (list order), so
# the given rank is not where it is measured. Per run table ({table}, quoted; its run a
# bound parameter), the queries holding an unranked item (a scan for NULL ranks: in most
# runs none), then their ranked rows off their place; the example is the first such query
# by id, its first row off its place.
MIXED_SQL = """
WITH moved AS ({rows}),
queries AS (SELECT run, count(DISTINCT query_id) AS queries, min(query_id) AS query_id
            FROM moved GROUP BY run)
SELECT q.run, q.queries, q.query_id, min_by(m.rank, m.position), min(m.position)
FROM queries q JOIN moved m ON m.run = q.run AND m.query_id = q.query_id
GROUP BY q.run, q.queries, q.query_id ORDER BY q.run
"""
MOVED_SQL = (
    "SELECT ${param} AS run, qid AS query_id, rank, position FROM {table} "
    "WHERE rank IS NOT NULL AND rank <> position AND qid IN "
    "(SELECT qid FROM {table} WHERE rank IS NULL AND docno IS NOT NULL) AND " + IN_SCOPE
)

# the runs whose ranks are read as given, with their file, table and format: every one but
# a TREC run, and but a run of JSON lines read as listed, whose rank is its place (a
# generated column: every list was in rank order, so none skips; 7M rows: a scan of ~0.04 s
# saved)
RANKED_RUNS_SQL = f"""
SELECT run, path, tbl, format FROM run_files
WHERE format <> '{TREC_RUN}' AND ($all_runs OR list_contains($runs, run))
  AND NOT EXISTS (SELECT 1 FROM duckdb_columns() c
                  WHERE c.table_name = run_files.tbl AND c.column_name = 'rank'
                    AND c.is_generated)
ORDER BY run
"""
# of those, the formats whose items may lack a rank: JSON lines and records in memory (a
# long-form run's rows each have one, or none has: no rank column)
ITEM_FORMATS = (JSONL, "memory")

# A run without ranks (a CSV / Parquet run or a frame without a rank column, scored data in
# memory) is ordered by score, highest first, as trec_eval orders a run; its table's rank is
# then each row's place as given, its position the place measured. A query whose scores
# rise down its first rows as given (none falls), and whose first row given is not measured
# first, was written best first with distances (FAISS L2, Chroma): read backwards. In a run
# read by its ranks, the row ranked 1 is always measured first, so none is ever named. Over
# each list's head (its first GIVEN_HEAD places, as analysis/score_direction reads one) and
# every query of the run: the file's fact, whatever queries are measured. Said only when no
# query's scores fall as given (both: the order given says nothing of the direction).
GIVEN_HEAD = 10
GIVEN_ORDER_SQL = (
    "SELECT ${param} AS run, qid AS query_id, rank, position, score, "
    "score - lag(score) OVER (PARTITION BY qid ORDER BY rank) AS step FROM {table} "
    "WHERE rank <= $head AND score IS NOT NULL AND docno IS NOT NULL"
)
RISING_SQL = """
WITH given AS ({rows}),
per_query AS (
    SELECT run, query_id, bool_or(step > 0) AS rises, bool_or(step < 0) AS falls,
           bool_or(rank = 1 AND position > 1) AS moved
    FROM given GROUP BY run, query_id),
rising AS (
    SELECT run, count(*) FILTER (WHERE rises AND moved) AS queries,
           min(query_id) FILTER (WHERE rises AND moved) AS query_id
    FROM per_query GROUP BY run
    HAVING NOT bool_or(falls) AND count(*) FILTER (WHERE rises AND moved) > 0)
SELECT r.run, r.queries, r.query_id, list(g.score ORDER BY g.rank)[1:3]
FROM rising r JOIN given g ON g.run = r.run AND g.query_id = r.query_id
GROUP BY r.run, r.queries, r.query_id ORDER BY r.run
"""
# the formats whose runs may come without ranks, then ordered by score
SCORED_FORMATS = (CSV, PARQUET, "memory")
# of those, the runs with a list whose first row given is measured elsewhere: only a run
# without ranks has one (in a run read by its ranks, rank 1 is measured first), so the
# window above reads no row of the others (a ranked 1M-row CSV: ~60 ms of window saved)
MOVED_FIRST_SQL = "SELECT ${param} AS run FROM {table} WHERE rank = 1 AND position > 1"

NOT_IN_CORPUS_SQL = """
SELECT count(*), list(DISTINCT chunk_id ORDER BY chunk_id)[1:5] FROM qrels
WHERE (SELECT count(*) FROM corpus) > 0 AND grade > 0
  AND chunk_id NOT IN (SELECT chunk_id FROM corpus)
"""


# grades (reviewers' or a judge's) of a query the gold set lacks: they count nowhere
UNKNOWN_GRADES_SQL = """
SELECT count(*), list(DISTINCT query_id ORDER BY query_id)[1:5]
FROM grades ANTI JOIN queries USING (query_id)
"""


class RunWarning(str):
    """A warning about a run: its text, and the cutoff it concerns when it concerns one (a
    tie across rank k and k + 1 matters at @k alone), so a view at another k can leave it
    out without reading the text.

    >>> RunWarning.at_cutoff("2 queries have tied scores at ranks 5 and 6: ...", 5).cutoff
    5
    """

    cutoff: int | None = None

    @classmethod
    def at_cutoff(cls, text: str, cutoff: int) -> RunWarning:
        warning = cls(text)
        warning.cutoff = cutoff
        return warning


# the longest list of each run among the gold queries in scope, in the policy's unit
# ({s}.lists: a document once under --unit doc, as every measure counts it)
DEPTH_SQL = """
SELECT run, max(listed) FROM {s}.lists
WHERE ($all_runs OR list_contains($runs, run))
  AND query_id IN (SELECT query_id FROM queries
                   WHERE $all_queries OR list_contains($ids, query_id))
GROUP BY run
"""


class DepthWarning(RunWarning):
    """A cutoff past every list of a run (:func:`depth_warnings`): the report states it as a
    note beside its k rather than among the warnings."""


class DistanceWarning(RunWarning):
    """Scores that rise down a rankless run's lists (:func:`rising_warnings`): read highest
    first, distances read backwards, so the report says it again beside the no-answer
    numbers, whose top scores are the worst items of such a run."""


def list_depths(
    prepared: PreparedEvaluation, runs: Sequence[str] | None, query_ids: Sequence[str] | None
) -> dict[str, int]:
    """Each run's longest list among the gold queries ``query_ids`` (``None``: every one),
    counted in the prepared policy's unit (10 chunks of 2 documents: 2 under ``--unit
    doc``); a run that lists none of them is left out."""
    return dict(prepared.fetch(DEPTH_SQL, scope_params(runs, query_ids)))


def depth_warnings(
    prepared: PreparedEvaluation,
    cutoffs: Sequence[int],
    runs: Sequence[str] | None,
    query_ids: Sequence[str] | None,
) -> list[tuple[str, RunWarning]]:
    """(run, warning) per cutoff that goes past every list of a run: its measures at that
    cutoff count only what it lists (``Recall@100`` of a run captured at top 10 is its
    Recall@10), as the gate, compare and the report say too. A run that lists none of the
    queries is said missing instead."""
    items = listed_items(prepared.policy)
    return [
        (
            run,
            DepthWarning.at_cutoff(
                f"@{k} goes past every list of the run, which lists at most {depth} {items} "
                f"per query: measures at {k} count only those",
                k,
            ),
        )
        for run, depth in list_depths(prepared, runs, query_ids).items()
        for k in cutoffs
        if 0 < depth < k
    ]


def collect_warnings(
    prepared: PreparedEvaluation,
    cutoffs: Sequence[int],
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> dict[str, list[str]]:
    """Per run: ignored queries, missing queries, ranks that skip places, ties across a
    cutoff, labels not in the corpus, grades of queries the gold set lacks. Redacted once,
    as they are gathered by run (:func:`said_by_run`): a warning is prose for people that
    quotes ids from files, and every output says these texts as they are (the CLI's, the
    report, the gate's CI files, the dashboard)."""
    scope, runs_only = scope_params(runs, query_ids), run_scope(runs)
    said: list[tuple[str, str]] = []
    for run, n, sample in prepared.fetch(IGNORED_SQL, runs_only):
        said.append((run, ignored_queries_text(n, sample)))
    for run, n, sample in prepared.fetch(MISSING_SQL.replace("{scope}", SCOPE_CTES), scope):
        said.append(
            (
                run,
                f"{plural(n, 'gold query', 'gold queries')} {'is' if n == 1 else 'are'} "
                f"missing from the run and score 0 (e.g. {', '.join(sample)})",
            )
        )
    ranked = ranked_runs(prepared, runs)
    items = [row for row in ranked if row[3] in ITEM_FORMATS]
    queries = {name: scope[name] for name in ("all_queries", "ids")}  # IN_SCOPE's
    said += [
        *run_table_warnings(prepared, ranked, OFF_PLACE_SQL, RANK_GAPS_SQL, queries, rank_gap_text),
        *run_table_warnings(prepared, items, MOVED_SQL, MIXED_SQL, queries, mixed_text),
        *rising_warnings(prepared, ranked),
        *depth_warnings(prepared, cutoffs, runs, query_ids),
    ]
    if cutoffs:
        edges = sorted({rank for k in cutoffs for rank in (k, k + 1)})
        bounds = {"cutoffs": list(cutoffs), "edges": edges}
        for run, k, n in prepared.fetch(TIES_SQL, {**runs_only, **bounds}):
            text = (
                f"{plural(n, 'query', 'queries')} {'has' if n == 1 else 'have'} tied scores at "
                f"ranks {k} and {k + 1}: @{k} depends on tie order"
            )
            said.append((run, RunWarning.at_cutoff(text, k)))
    outside, sample = prepared.fetch(NOT_IN_CORPUS_SQL)[0]
    if outside:
        said += _for_each_run(
            prepared,
            runs,
            f"{plural(outside, 'relevant gold id')} {'is' if outside == 1 else 'are'} "
            f"not in the corpus (e.g. {', '.join(sample)})",
        )
    unknown, sample = prepared.fetch(UNKNOWN_GRADES_SQL)[0]
    if unknown:  # quoted: an id with a trailing space is the usual cause
        said += _for_each_run(
            prepared,
            runs,
            f"{plural(unknown, 'grade')} name{'s' if unknown == 1 else ''} queries the gold set "
            f"lacks, counted nowhere (e.g. {', '.join(map(repr, sample))})",
        )
    return said_by_run(said)


def said_by_run(said: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Warnings, ``(run, text)`` in the order made, as every output says them: by run, each
    text redacted here, once (:func:`~ragrecall_core.inputs.secrets.redact_warnings`)."""
    grouped: dict[str, list[str]] = {}
    for run, text in said:
        grouped.setdefault(run, []).append(text)
    return redact_warnings(grouped)


def ranked_runs(prepared: PreparedEvaluation, runs: Sequence[str] | None) -> list[tuple]:
    """:data:`RANKED_RUNS_SQL`'s rows (run, path, table, format) of ``runs`` (None: every
    run)."""
    return prepared.fetch(RANKED_RUNS_SQL, run_scope(runs))


def rising_warnings(prepared: PreparedEvaluation, ranked: list[tuple]) -> list[tuple[str, str]]:
    """(run, :func:`rising_text`) for each of ``ranked`` (:func:`ranked_runs`) without ranks
    whose scores rise as given (:data:`RISING_SQL`): read highest first, a distance run is
    read backwards. Evaluate's warnings say it, and so does every output that reads which
    way a run's scores point (no-answer)."""
    scored = moved_first(prepared, ranked)
    said = run_table_warnings(
        prepared, scored, GIVEN_ORDER_SQL, RISING_SQL, {"head": GIVEN_HEAD}, rising_text
    )
    return [(run, DistanceWarning(text)) for run, text in said]


def moved_first(prepared: PreparedEvaluation, ranked: list[tuple]) -> list[tuple]:
    """Of ``ranked`` (:data:`RANKED_RUNS_SQL`'s rows), those of :data:`SCORED_FORMATS` with
    a list whose first row given is measured elsewhere (:data:`MOVED_FIRST_SQL`)."""
    scored = [row for row in ranked if row[3] in SCORED_FORMATS]
    if not scored:
        return []
    rows, params = union_of_tables(scored, MOVED_FIRST_SQL)
    moved = {run for (run,) in prepared.fetch(f"SELECT DISTINCT run FROM ({rows})", params)}
    return [row for row in scored if row[0] in moved]


def union_of_tables(runs: list[tuple], rows_sql: str) -> tuple[str, dict]:
    """``rows_sql`` of each of ``runs``' tables (:data:`RANKED_RUNS_SQL`'s rows; the table
    quoted into ``{table}``, its run bound as ``${param}``), joined by UNION ALL, and the
    runs' parameters."""
    parts = [
        rows_sql.format(param=f"run{i}", table=quote_identifier(table))
        for i, (_, _, table, _) in enumerate(runs)
    ]
    return " UNION ALL ".join(parts), {f"run{i}": run for i, (run, *_) in enumerate(runs)}


def ignored_queries_text(n: int, sample: Sequence[str]) -> str:
    """The one sentence saying a run's ``n`` queries the gold set lacks were ignored (by
    the measures, by the pool), listing ``sample`` (the first few), "e.g." when more.

    >>> ignored_queries_text(1, ["qNOPE"])
    '1 run query not in the gold set was ignored (qNOPE)'
    >>> ignored_queries_text(7, ["x0", "x1"])
    '7 run queries not in the gold set were ignored (e.g. x0, x1)'
    """
    listed = ("e.g. " if n > len(sample) else "") + ", ".join(sample)
    return (
        f"{plural(n, 'run query', 'run queries')} not in the gold set "
        f"{'was' if n == 1 else 'were'} ignored ({listed})"
    )


def run_table_warnings(
    prepared: PreparedEvaluation,
    runs: list[tuple],
    rows_sql: str,
    whole_sql: str,
    params: dict,
    text: Callable[..., str],
) -> list[tuple[str, str]]:
    """(run, warning) for each of ``runs`` (:data:`RANKED_RUNS_SQL`'s rows) that
    ``whole_sql`` finds: its ``{rows}`` are ``rows_sql`` of each run's table (quoted; its
    run a bound parameter), and each row it gives (run, then the warning's figures) is said
    by ``text(file, *figures)``."""
    if not runs:
        return []
    rows, bound = union_of_tables(runs, rows_sql)
    params = bound | params
    # a file's path redacted whole before its warning cuts it; a run in memory: its label
    files = {run: path if fmt == "memory" else redact_path(path) for run, path, _, fmt in runs}
    sql = whole_sql.replace("{rows}", rows)
    return [(run, text(files[run], *figures)) for run, *figures in prepared.fetch(sql, params)]


def mixed_text(file: str, n: int, query_id: str, rank: int, position: int) -> str:
    """The warning of a run file (or a run in memory: its label) whose ``n`` queries mix
    items with and without a rank, with ``query_id``'s ``rank`` read as ``position``.

    >>> print(mixed_text("run.jsonl", 1, "q1", 2, 3))
    run.jsonl: 1 query mixes items with and without a rank ('q1': rank 2 read as position 3);
    an item without a rank is ranked at its place in the list, and a rank given equal to
    such a place comes after it
    """
    queries = plural(n, "query mixes", "queries mix")
    example = f"{str(shortened(query_id))!r}: rank {rank} read as position {position}"
    return (
        f"{shortened(file, MAX_FIELD_CHARS)}: {queries} items with and without a rank "
        f"({example}); an item without a rank is ranked at its place in the list, and a "
        "rank given equal to such a place comes after it"
    )


def rising_text(file: str, n: int, query_id: str, scores: list) -> str:
    """The warning of a run file (or a run in memory: its label) without ranks whose ``n``
    queries' scores rise as given (``query_id``'s first ``scores``): ordered by score,
    highest first, a distance run reads backwards. What to do is said with it.

    >>> print(rising_text("faiss.csv", 2, "q1", [0.1, 0.35, 0.8]))
    faiss.csv: without a rank, each query's items are ordered by score, highest first (as
    trec_eval orders a run), but the scores rise down 2 queries' items as given ('q1': 0.1,
    0.35, 0.8), as distances do (FAISS L2, Chroma): if lower is better, these lists are
    read backwards; add a rank column (1 = best) to keep the order given
    """
    queries = plural(n, "query's", "queries'")
    example = f"{str(shortened(query_id))!r}: {', '.join(f'{s:g}' for s in scores)}"
    return (
        f"{shortened(file, MAX_FIELD_CHARS)}: without a rank, each query's items are ordered "
        f"by score, highest first (as trec_eval orders a run), but the scores rise down "
        f"{queries} items as given ({example}), as distances do (FAISS L2, Chroma): if lower "
        "is better, these lists are read backwards; add a rank column (1 = best) to keep "
        "the order given"
    )


def rank_gap_text(file: str, n: int, query_id: str, ranks: list, positions: list) -> str:
    """The warning of a run file (or a run in memory: its label) whose ``n`` queries' ranks
    skip places, with ``query_id``'s ``ranks`` read as ``positions``; the id quoted and cut
    (:func:`~ragrecall_core.errors.shortened`), never a whole line of a file.

    >>> print(rank_gap_text("run.jsonl", 12, "q7", [2, 3, 7], [1, 2, 3]))
    run.jsonl: 12 queries' ranks skip places ('q7': ranks 2, 3, 7 read as positions 1, 2, 3);
    measures count positions
    """
    many = len(ranks) > 1
    given = f"rank{'s' if many else ''} {', '.join(map(str, ranks))}"
    read = f"position{'s' if many else ''} {', '.join(map(str, positions))}"
    queries = plural(n, "query's", "queries'")
    example = f"{str(shortened(query_id))!r}: {given} read as {read}"
    return (
        f"{shortened(file, MAX_FIELD_CHARS)}: {queries} ranks skip places ({example}); "
        "measures count positions"
    )


def _for_each_run(
    prepared: PreparedEvaluation, runs: Sequence[str] | None, text: str
) -> list[tuple[str, str]]:
    """``text``, a warning of the workspace rather than of a run, under each run shown."""
    return [(run, text) for run in prepared.workspace.run_names if runs is None or run in runs]


# beside the no-answer queries' mean top score, the answerable ones' (the queries in scope
# with a relevant item): how far apart the two are says whether a score threshold could
# turn the no-answer queries away (the no-answer command sweeps such thresholds)
# (the top rows are read only when some query has no answer: most gold sets have none, and
# the scan of every run's rank-1 rows and the answerable queries' mean, sorted, took 0.033 s
# of a 7M-row run's notes, 0.065 s at 104,700 queries; 0.009 and 0.04 s without them)
NO_ANSWER_SQL = """
WITH {scope},
na AS (SELECT q.query_id FROM scope_queries q
       WHERE NOT EXISTS (SELECT 1 FROM {s}.judgments j
                         WHERE j.query_id = q.query_id AND j.grade >= $level)),
top AS (SELECT run, query_id, score FROM {s}.ranked WHERE rank = 1 AND EXISTS (SELECT 1 FROM na)),
answerable AS (
    SELECT t.run, avg(t.score ORDER BY t.query_id) AS mean_top_score
    FROM top t JOIN scope_queries q USING (query_id) ANTI JOIN na USING (query_id)
    GROUP BY t.run)
SELECT rn.run, count(na.query_id) AS queries,
       count(t.query_id) AS with_results, avg(t.score ORDER BY t.query_id) AS mean_top_score,
       any_value(a.mean_top_score) AS answerable_mean_top_score
FROM scope_runs rn CROSS JOIN na
LEFT JOIN top t ON t.run = rn.run AND t.query_id = na.query_id
LEFT JOIN answerable a ON a.run = rn.run
GROUP BY rn.run
"""


def no_answer_summary(
    prepared: PreparedEvaluation,
    runs: Sequence[str] | None = None,
    query_ids: Sequence[str] | None = None,
) -> dict[str, dict]:
    """Per run, how the no-answer queries (no relevant item) were answered anyway."""
    rows = prepared.fetch(
        NO_ANSWER_SQL.replace("{scope}", SCOPE_CTES),
        {**scope_params(runs, query_ids), "level": prepared.policy.rel_level},
    )
    found = {
        run: {
            "queries": n,
            "with_results": w,
            "mean_top_score": _number(s),
            "answerable_mean_top_score": _number(a),
        }
        for run, n, w, s, a in rows
    }
    # the workspace's run order, as every other output lists runs (SQL grouping has none)
    return {run: found[run] for run in prepared.workspace.run_names if run in found}
