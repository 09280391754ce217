"""One query table for every k (issue 13): :class:`QueryTables` built once per workspace,
policy and rule, sliced with ``.at(k)``, gives exactly what the per-k build gave before it.

The reference below is the per-k build as it stood before the all-k object (commit 63c4839:
one ``evaluate`` per k, the failure classes and top-k grades per k, merged in pandas), kept
here verbatim so the comparison cannot drift with the code it checks.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragrecall_core import InputError, Policy, Workspace
from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, needed_sql, pass_measure, require_rule
from ragrecall_core.analysis.query_table import (
    CUTS_SQL,
    GOLD_LISTS_NONE,
    NO_ANSWER,
    NO_REASON,
    NONE_JUDGED_RELEVANT,
    QUERY_SQL,
    _doc_length,
    build_query_table,
    build_query_tables,
    headline,
    query_table,
    table_columns,
)
from ragrecall_core.inputs.store import attach_store, submit
from ragrecall_core.inputs.workspace import workspace_facts
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.prepared import SCOPE_CTES, prepare, run_scope, scope_params
from ragrecall_core.views.dashboard_state import k_choices
from tests.helpers import gold_row, grade_row, make_workspace, run_row
from tests.samples import shared_samples

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- the reference (per k)
OLD_FAILURES_SQL = """
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

OLD_GRADES_SQL = """
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


def old_failure_classes(prepared, k, runs=None, rule=DEFAULT_RULE) -> pd.DataFrame:
    params = {**scope_params(runs, None), "k": k, "level": prepared.policy.rel_level}
    params["rule"] = require_rule(rule)
    sql = OLD_FAILURES_SQL.replace("{scope}", SCOPE_CTES).replace("{needed}", needed_sql())
    return prepared.query(sql, params)


def old_build_query_table(ws, k, policy=None, runs=None, rule=DEFAULT_RULE):
    """The per-k build before the all-k object: (table, warnings, no_answer)."""
    policy = policy or Policy()
    measures = [*headline(k), "FirstRank", f"RecallCap@{k}"]
    evaluation = evaluate(ws, measures, policy, runs)
    wide = evaluation.wide()
    prepared = prepare(ws, policy)
    classes = old_failure_classes(prepared, k, runs, rule=rule)[
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
    grades = prepared.query(OLD_GRADES_SQL, {"k": k, **run_scope(runs)})
    lo, hi, docs = prepared.fetch(CUTS_SQL)[0]
    run_names = [r for r in ws.run_names if runs is None or r in runs]
    base = pd.DataFrame({"run": run_names}).merge(queries, how="cross")
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
    order = {run: i for i, run in enumerate(ws.run_names)}
    table = table.assign(_order=table["run"].map(order)).sort_values(
        ["_order", "query_id"], kind="stable"
    )
    table = table[first + rest].reset_index(drop=True)
    return table, evaluation.warnings, evaluation.no_answer


# ---------------------------------------------------------------- workspaces
@pytest.fixture(scope="module")
def samples():
    return Workspace.open(shared_samples())


def _chunks(prefix: str, n: int) -> list[str]:
    return [f"{prefix}#c{i:02d}" for i in range(n)]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Graded relevance (gold grades 1 and 2), file and stored reviewer grades with reasons,
    no-answer queries of both kinds, ties across cutoffs, require_all queries, a query one
    run lacks, a relevant chunk not in the corpus, and query ids whose order is not their
    insertion order (upper / lower case, digits, non-ASCII)."""
    docs = ["alpha", "beta", "gamma", "delta"]
    corpus = [
        {"chunk_id": c, "doc_id": d, "text": " ".join(["word"] * (5 + 7 * i + j))}
        for i, d in enumerate(docs)
        for j, c in enumerate(_chunks(d, 12))
    ]
    a, b, g, d = (_chunks(x, 12) for x in docs)
    gold = [
        gold_row("q10", [a[0], b[3]], grades={a[0]: 2, b[3]: 1}, query_type="fact"),
        gold_row("q9", [g[1], g[2], g[3]], require_all=True, section="hr"),
        gold_row("Q2", [d[5]], grades={d[5]: 2}, split="dev"),
        gold_row("ä-query", [a[7], "ghost#c00"]),
        gold_row("none", []),  # the gold lists no relevant item
        gold_row("judged-none", [], grades={a[1]: 0}),  # judged, nothing relevant
        gold_row("z'; DROP TABLE runs; --", [b[0], b[1]], require_all=True),
        gold_row("q1", [g[0]], grades={g[0]: 2}),
    ]
    tied = [1.0, 0.9, 0.9, 0.8, 0.8, 0.8, 0.5, 0.5, 0.4, 0.4, 0.3, 0.2]
    first = [
        run_row("q10", [b[3], a[5], a[0], *a[8:12]], tied[:7]),
        run_row("q9", [g[3], g[9], g[1], g[10], g[11], g[2], b[5], b[6], b[7], b[8]], tied[:10]),
        run_row("Q2", [d[0], d[1], d[2], d[3], d[4], d[6], d[7], d[8], d[9], d[10], d[11], d[5]]),
        run_row("ä-query", [a[7], a[3]]),
        run_row("none", [a[2], a[3]]),
        run_row("judged-none", [a[1], a[4]]),
        run_row("z'; DROP TABLE runs; --", [b[1], b[2], b[0]], [0.5, 0.5, 0.5]),
        run_row("q1", [g[4], g[5], g[6], g[7], g[8]], tied[4:9]),
    ]
    second = [
        run_row("q10", [a[0], b[3]]),
        run_row("q9", [g[1], g[2], g[3]], [0.7, 0.7, 0.7]),
        run_row("ä-query", [a[3], a[4], a[5], a[7]]),
        run_row("none", [a[6]]),
        run_row("z'; DROP TABLE runs; --", [b[0], b[4], b[1]]),
        run_row("q1", [g[0]]),
    ]  # lacks Q2 and judged-none
    grades = [
        grade_row("q10", a[5], 0, reason="off topic"),
        grade_row("q10", a[8], 1, reason="partial answer"),
        grade_row("q9", g[9], 2),
        grade_row("q9", g[10], 0, harmful=True, reason="outdated"),
        grade_row("Q2", d[0], 0, reason="off topic"),
        grade_row("Q2", d[1], 0, reason="outdated"),
        grade_row("Q2", d[2], 0, reason="off topic"),
        grade_row("none", a[2], 2, reason="looks right"),
        grade_row("q1", g[4], 1, reason="partial answer"),
        grade_row("q1", g[6], 0, reason="wrong product"),
    ]
    folder = tmp_path_factory.mktemp("graded")
    make_workspace(folder, gold, {"first": first, "second": second}, grades=grades, corpus=corpus)
    ws = Workspace.open(folder)  # a folder workspace keeps its judgment store beside it
    attach_store(ws)
    submit(ws, "Q2", d[3], 0, "boris", reason="off topic")
    submit(ws, "q10", a[9], 2, "boris")
    submit(ws, "q9", g[11], 1, "boris", harmful=True, reason="outdated")
    submit(ws, "q1", g[5], 0, "boris", reason="wrong product")
    return ws


def choices(ws) -> tuple[int, ...]:
    return k_choices(max(workspace_facts(ws).depths.values()))


POLICIES = [Policy(), Policy(rel_level=2), Policy(unit="doc", manual_grades=False)]
RULES = ["capped", "recall", "hit"]


def assert_same(ws, ks, policy, rule, runs=None) -> None:
    tables = build_query_tables(ws, ks, policy, runs, rule)
    for k in ks:
        table, warnings, no_answer = old_build_query_table(ws, k, policy, runs, rule)
        sliced = tables.at(k)
        pd.testing.assert_frame_equal(sliced.table, table)
        assert sliced.warnings == warnings
        assert sliced.no_answer == no_answer
        assert (sliced.k, sliced.policy, sliced.rule) == (k, policy, rule)


# ---------------------------------------------------------------- the same table at every k
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("policy", POLICIES, ids=["default", "level-2", "doc-gold-only"])
def test_every_k_of_the_samples_matches_the_per_k_build(samples, policy, rule):
    assert_same(samples, choices(samples), policy, rule)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("policy", POLICIES, ids=["default", "level-2", "doc-gold-only"])
def test_every_k_of_a_graded_workspace_matches_the_per_k_build(graded, policy, rule):
    ks = choices(graded)
    assert ks == (1, 2, 3, 5, 10, 12)
    assert_same(graded, ks, policy, rule)


def test_the_graded_workspace_exercises_what_it_claims(graded):
    """Each case of the fixture shows in the table at some k, so the comparison above
    covers stored grades, reasons, both no-answer sources, ties, require_all, order."""
    tables = build_query_tables(graded, [1, 5, 12])
    at5 = tables.at(5).table
    assert at5["query_id"].tolist()[:8] == sorted(at5["query_id"].tolist()[:8])
    assert at5["query_id"].iloc[0] == "Q2" and at5["query_id"].iloc[7] == "ä-query"
    assert set(at5["no_answer_source"].dropna()) == {GOLD_LISTS_NONE, NONE_JUDGED_RELEVANT}
    assert at5["manual_grades"].str.contains("boris").any()  # stored grades
    assert at5["manual_grades"].str.contains("anna").any()  # file grades
    assert at5["require_all"].any()
    assert {"missing from run", "gold not in corpus", "partial", "ranked below k", "ok"} <= set(
        at5["failure_class"]
    )
    assert any("tied scores at ranks 5 and 6" in w for w in tables.at(5).warnings["first"])
    assert not any("ranks 5 and 6" in w for w in tables.at(1).warnings.get("first", []))
    # a tie warning carries its cutoff as data, through a cache's pickling too
    kept = pickle.loads(pickle.dumps(tables))
    assert [w.cutoff for w in kept.at(5).warnings["first"] if "tied" in w] == [5]
    assert not any("ranks 5 and 6" in w for w in kept.at(1).warnings.get("first", []))
    # k changes the k-dependent columns
    assert not tables.at(1).table["found"].equals(tables.at(12).table["found"])
    assert not tables.at(1).table["reasons"].equals(tables.at(12).table["reasons"])


@pytest.mark.parametrize(
    "policy",
    [Policy(), Policy(compat="trec_eval"), Policy(compat="trec_eval", complete=True)],
    ids=["default", "trec_eval", "trec_eval-complete"],
)
def test_every_k_of_trec_files_matches_the_per_k_build(policy):
    """TREC qrels and run: no query text, corpus or reviewer grades, dozens of relevant
    items per topic; under trec_eval's averaging too (fewer (run, query) pairs scored)."""
    trec = ROOT / "tests" / "data" / "trec_eval"
    ws = Workspace.from_files(trec / "qrels.comment.test", [trec / "results.comment.test"])
    assert_same(ws, choices(ws), policy, "recall")


def test_a_subset_of_runs_matches_the_per_k_build(samples, graded):
    assert_same(samples, (1, 5, 20), Policy(), "recall", runs=["bm25", "hybrid-rrf"])
    assert_same(graded, (3, 10), Policy(rel_level=2), "hit", runs=["second"])


def test_build_query_table_and_query_table_stay_the_per_k_functions(graded):
    table, _warnings, _no_answer = old_build_query_table(graded, 3, Policy(), None, "hit")
    pd.testing.assert_frame_equal(build_query_table(graded, 3, rule="hit").table, table)
    pd.testing.assert_frame_equal(query_table(graded, 3, rule="hit"), table)


def test_columns_keep_their_place_when_no_run_retrieves_anything_relevant(tmp_path):
    """The one difference from the per-k build, on purpose: there, ``Evaluation.wide()``
    (pandas' pivot_table) dropped the all-NaN FirstRank column and the table re-added it
    after RecallCap@k; now every column keeps its place whatever the data, values equal."""
    gold = [gold_row("a", ["z"]), gold_row("b", ["w"]), gold_row("c", [])]
    ws = make_workspace(tmp_path, gold, {"r": [run_row("a", ["x", "y"]), run_row("c", ["x"])]})
    tables = build_query_tables(ws, [1, 2])
    for k in (1, 2):
        sliced = tables.at(k).table
        table, _warnings, _no_answer = old_build_query_table(ws, k)
        assert sliced["FirstRank"].isna().all()
        assert list(sliced.columns) == table_columns(k)
        assert list(table.columns) != table_columns(k)  # the per-k build's moved column
        pd.testing.assert_frame_equal(sliced, table[table_columns(k)])


# ---------------------------------------------------------------- a k that was not built
def test_a_k_not_built_is_refused_by_name(graded):
    tables = build_query_tables(graded, [1, 5])
    with pytest.raises(ValueError, match=r"k = 7 was not built \(built for k = 1, 5\)"):
        tables.at(7)
    # the per-k function builds any k on demand
    table, _warnings, _no_answer = old_build_query_table(graded, 7)
    pd.testing.assert_frame_equal(build_query_table(graded, 7).table, table)


@pytest.mark.parametrize("bad", [0, -3, "5; DROP TABLE runs", "²"])
def test_a_cutoff_that_is_no_positive_whole_number_is_an_input_error(graded, bad):
    with pytest.raises(InputError) as error:
        build_query_tables(graded, [5, bad])
    assert error.value.problems[0].value == str(bad)


def test_repeated_cutoffs_are_built_once_in_order(graded):
    assert build_query_tables(graded, [10, 1, 10, 5]).ks == (10, 1, 5)


# ---------------------------------------------------------------- slices are independent
def test_a_slice_written_to_leaves_the_shared_object_unchanged(graded):
    """The dashboard caches one object for every session and adds a column to its slice."""
    tables = build_query_tables(graded, [1, 5])
    first = tables.at(5)
    first.table["rank_bin"] = "x"
    first.table.loc[0, "Recall@5"] = -1.0
    first.table.loc[0, "failure_class"] = "changed"
    again = tables.at(5).table
    assert "rank_bin" not in again
    assert again.loc[0, "Recall@5"] != -1.0
    assert again.loc[0, "failure_class"] != "changed"
    assert list(tables.base.columns).count("rank_bin") == 0


# ---------------------------------------------------------------- the dashboard's cache
def test_the_dashboard_slices_offered_ks_from_one_build_and_builds_others_alone(
    samples, monkeypatch
):
    """Before every offered k is built (the launcher does it behind the first page), a k is
    built alone; then an offered k is a slice of that one build, and any other k is built
    alone. Every way gives the table the old one-k build gives."""
    import streamlit as st

    from ragrecall_app import context
    from ragrecall_core.views.ranks import bin_labels

    built: list[tuple[int, ...]] = []

    def counted(ws, ks, *args, **kwargs):
        built.append(tuple(ks))
        return build_query_tables(ws, ks, *args, **kwargs)

    def alone(ws, k, *args, **kwargs):
        built.append((k,))
        return build_query_tables(ws, [k], *args, **kwargs).at(k)

    monkeypatch.setattr(context, "build_query_tables", counted)
    monkeypatch.setattr(context, "build_query_table", alone)
    st.cache_resource.clear()
    try:
        offered = choices(samples)
        for k in (5, "every", 10, 7):
            if k == "every":
                context._query_tables("samples-key", offered, Policy(), "hit", samples)
                continue
            got = context._query_table("samples-key", k, Policy(), "hit", samples)
            table, _warnings, _no_answer = old_build_query_table(samples, k, Policy(), None, "hit")
            bins = bin_labels(table["FirstRank"], max(offered)).where(table["relevant"] > 0)
            pd.testing.assert_frame_equal(got.table, table.assign(rank_bin=bins))
        assert 7 not in offered
        assert built == [(5,), offered, (7,)]  # 10 sliced from the one build of every k
    finally:
        st.cache_resource.clear()


@pytest.mark.parametrize("unit", ["chunk", "doc"])
def test_list_lengths_count_the_ranked_rows(graded, unit):
    """At chunk level ``lists`` reads the lengths counted when each run was loaded; they
    must be what counting the ranked rows gives (as the document level still does)."""
    prepared = prepare(graded, Policy(unit=unit))
    counted = prepared.fetch(
        "SELECT run, query_id, count(*) FROM {s}.ranked GROUP BY ALL ORDER BY ALL"
    )
    assert counted and prepared.fetch("SELECT * FROM {s}.lists ORDER BY ALL") == counted
