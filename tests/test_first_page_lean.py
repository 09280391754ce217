"""A fresh server's first page reads less than the pages after it (issue 30): the Overview's
rows from the measures alone until the query table is built, Harm@k at its one k until
every k is built, the inputs hashed on two threads. Each short way against the long one."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from ragrecall_app import analyses, context, overview_sections, serve
from ragrecall_core.analysis.query_table import build_measure_rows, build_query_table
from ragrecall_core.inputs import load_cache
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views.dashboard_state import Source, content_hash
from ragrecall_core.views.harm_view import harm_for_cutoffs, harm_label
from tests.samples import samples_copy, shared_samples

POLICIES = [
    Policy(),
    Policy(rel_level=2),
    Policy(unit="doc"),
    Policy(manual_grades=False, partial="relevant"),
    Policy(compat="trec_eval", complete=True),
]


@pytest.fixture(scope="module")
def samples() -> Workspace:
    return Workspace.open(shared_samples())


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
@pytest.mark.parametrize("k", [1, 5, 20])
def test_the_measures_alone_are_the_query_table_s_columns(samples, policy, k):
    full = build_query_table(samples, k, policy)
    lean = build_measure_rows(samples, k, policy)
    assert list(lean.table.columns) == [
        "run",
        "query_id",
        "query",
        "query_type",
        "section",
        "split",
        "require_all",
        f"Recall@{k}",
        f"Hit@{k}",
        f"RR@{k}",
        f"P@{k}",
        f"nDCG@{k}",
        f"Judged@{k}",
        f"Pmax@{k}",
        "FirstRank",
        f"RecallCap@{k}",
    ]
    pd.testing.assert_frame_equal(lean.table, full.table[list(lean.table.columns)])
    assert lean.warnings == full.warnings
    assert (lean.k, lean.policy) == (full.k, full.policy)


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
@pytest.mark.parametrize("k", [1, 5, 20])
def test_a_table_of_measures_already_scored_is_the_table(samples, policy, k):
    """The Overview's measures (read first on a fresh server) are not scored again when the
    table of their k is built: the same table, warnings and no-answer summary."""
    full = build_query_table(samples, k, policy, rule="recall")
    reused = build_query_table(
        samples, k, policy, rule="recall", measured=build_measure_rows(samples, k, policy)
    )
    pd.testing.assert_frame_equal(reused.table, full.table)
    assert (reused.warnings, reused.no_answer) == (full.warnings, full.no_answer)


def test_measures_of_another_view_are_refused(samples):
    measured = build_measure_rows(samples, 5)
    for k, policy, runs in ((10, None, None), (5, Policy(rel_level=2), None), (5, None, ["bm25"])):
        with pytest.raises(ValueError, match="do not fit"):
            build_query_table(samples, k, policy, runs, measured=measured)


def test_the_measures_alone_of_some_runs(samples):
    runs = samples.run_names[1:3]
    full = build_query_table(samples, 5, runs=runs)
    lean = build_measure_rows(samples, 5, runs=runs)
    assert set(lean.table["run"]) == set(runs)
    pd.testing.assert_frame_equal(lean.table, full.table[list(lean.table.columns)])
    assert lean.warnings == full.warnings


@pytest.mark.parametrize("policy", POLICIES[:3], ids=repr)
def test_harm_at_one_k_is_every_k_s_slice(samples, policy):
    ks = (1, 2, 3, 5, 10, 20)
    every = harm_for_cutoffs(samples, ks, policy)
    for k in ks:
        one = harm_for_cutoffs(samples, (k,), policy)
        pd.testing.assert_frame_equal(one, every[["run", "query_id", harm_label(k)]])


def _same_overview(a: overview_sections.OverviewView, b: overview_sections.OverviewView):
    for f in dataclasses.fields(a):
        left, right = getattr(a, f.name), getattr(b, f.name)
        if isinstance(left, pd.DataFrame):
            pd.testing.assert_frame_equal(
                left.reset_index(drop=True), right.reset_index(drop=True), obj=f.name
            )
        elif isinstance(left, dict):
            assert left.keys() == right.keys(), f.name
            for column in left:
                pd.testing.assert_frame_equal(left[column], right[column], obj=column)
        else:
            assert left == right, f.name


@pytest.mark.parametrize(
    "view",
    [{}, {"k": 10}, {"query_type": "paraphrase"}, {"section": "hr", "runs": ("bm25",)}],
    ids=repr,
)
def test_the_overview_from_the_measures_alone_is_the_one_from_the_table(
    tmp_path, monkeypatch, view
):
    """The Overview a fresh server builds before the query table (its measures alone, Harm@k
    at its k) equals the one built from the table and every k's Harm@k."""
    workspace = samples_copy(tmp_path / "ws")  # its own cache keys
    first = serve.warm_first_page(Source(workspace=workspace))
    ctx = dataclasses.replace(first, state=dataclasses.replace(first.state, **view))
    built = []
    real = context.build_query_tables
    monkeypatch.setattr(
        context, "build_query_tables", lambda *a, **kw: built.append(a[1]) or real(*a, **kw)
    )
    lean = overview_sections._build(ctx)
    assert lean.headline is not None
    assert not built, "the Overview built the query table before it was there"

    context.every_k_tables(ctx)
    analyses.every_k_harm(ctx)
    assert built, "every k's tables were not built"
    assert context._table_built(
        ctx.key, ctx.state.k, ctx.policy, ctx.state.pass_rule, max(ctx.depths.values())
    )
    context._summary.clear()  # keyed by the view, not by the rows: built again from these
    from_table = overview_sections._build(ctx)
    _same_overview(lean, from_table)


def test_inputs_hashed_beside_each_other_key_as_one_by_one(tmp_path, monkeypatch):
    workspace = samples_copy(tmp_path / "ws")
    files = Source(workspace=workspace).input_files()
    monkeypatch.setattr(load_cache, "_DIGESTS", {})
    one_by_one = content_hash(files)
    monkeypatch.setattr(load_cache, "_DIGESTS", {})
    load_cache.hash_beside(files, threads=3)
    assert len(load_cache._DIGESTS) == len(set(files))
    assert content_hash(files) == one_by_one
