"""Cached analyses for the Compare, No-answer and Judge pages and Harm@k.

Keyed by content (``key``) and by the evaluation :class:`Policy` where it changes numbers.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ragrecall_app.built import remembered
from ragrecall_app.context import Context, files_key_of
from ragrecall_core.analysis import judge_session, pooling, verdicts
from ragrecall_core.analysis.agreement import Agreement, agreement
from ragrecall_core.analysis.compare import Comparison, compare
from ragrecall_core.analysis.no_answer import (
    NoAnswerReport,
    report_at,
    top_scores,
)
from ragrecall_core.analysis.ranked_lists import new_unjudged, side_by_side
from ragrecall_core.analysis.score_direction import run_directions
from ragrecall_core.inputs.store import export_grades
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.report import ReportView, build_report
from ragrecall_core.output.text import json_text
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views import no_answer_view
from ragrecall_core.views.harm_view import harm_for_cutoffs, harm_label
from ragrecall_core.views.report_view import report_view


@st.cache_resource(show_spinner=False, max_entries=32)
def comparison(
    key: str,
    baseline: str,
    candidate: str,
    k: int,
    policy: Policy,
    ids: tuple | None,
    rule: str,
    _ws: Workspace,
) -> Comparison:
    """Shared, read-only (all measures' paired tests and bootstrap CIs: ~0.5 s at 10k);
    regressions and improvements follow the pass ``rule``."""
    ids = None if ids is None else list(ids)
    return compare(_ws, baseline, candidate, k, policy=policy, query_ids=ids, rule=rule)


@st.cache_data(show_spinner=False, max_entries=32)
def unjudged(
    key: str, baseline: str, candidate: str, k: int, policy: Policy, _ws: Workspace
) -> pd.DataFrame:
    return new_unjudged(_ws, baseline, candidate, k, policy=policy)


@st.cache_data(show_spinner=False, max_entries=256)
def lists(
    key: str, baseline: str, candidate: str, query_id: str, k: int, policy: Policy, _ws: Workspace
) -> pd.DataFrame:
    return side_by_side(_ws, baseline, candidate, query_id, k, policy)


@st.cache_resource(show_spinner=False, max_entries=32)
def no_answer(
    key: str, k: int, policy: Policy, runs: tuple, ids: tuple | None, _ws: Workspace
) -> NoAnswerReport:
    """Shared, read-only; another k only cuts the cached top scores anew. Its ``warnings``
    stay empty: the page reads them once per data load (``no_answer.direction_warnings``)."""
    return report_at(_no_answer_scores(key, policy, runs, ids, _ws), k, _ws)


def view_no_answer(ctx: Context) -> NoAnswerReport:
    """:func:`no_answer` of ``ctx``'s view: its runs and k, the queries in view."""
    s = ctx.state
    return no_answer(ctx.key, s.k, ctx.policy, tuple(s.runs), ctx.view_ids(), ctx.ws)


@st.cache_data(show_spinner=False, max_entries=8)
def gold_errors(key: str, ids: tuple | None, _ws: Workspace) -> pd.DataFrame:
    """Relevant grades on no-answer queries; ``key`` changes with every stored grade."""
    return no_answer_view.gold_errors(_ws, None if ids is None else list(ids))


@st.cache_resource(show_spinner=False, max_entries=8)
def _no_answer_scores(
    key: str, policy: Policy, runs: tuple, ids: tuple | None, _ws: Workspace
) -> pd.DataFrame:
    """Shared, read-only (:func:`report_at` leaves it as it is). Each run's score direction
    is read once per loaded files (:func:`_run_direction`): no filter changes it."""
    directions = {run: _run_direction(files_key_of(key), run, _ws) for run in runs}
    return top_scores(_ws, policy, list(runs), None if ids is None else list(ids), directions)


@st.cache_data(show_spinner=False, max_entries=64)
def _run_direction(files_key: str, run: str, _ws: Workspace) -> str:
    """Run ``run``'s score direction, a fact of its rows: keyed by the content of the
    loaded files and the run's name, never by a filter, k, policy or stored grade."""
    return run_directions(_ws, [run])[run]


def harm(key: str, k: int, policy: Policy, ks: tuple, _ws: Workspace) -> pd.DataFrame:
    """``(run, query_id, Harm@k)``: a slice of every offered cutoff's (``ks``) values once
    those are built (:func:`every_k_harm`: the session's k is one of them; were it not, it
    would join them); until then (a fresh server's first page) the values of ``k`` alone,
    the same numbers (``tests/test_first_page_lean.py``)."""
    cutoffs = ks if k in ks else (*ks, k)
    if not _harm_for_cutoffs.was_built(key, policy, cutoffs):
        cutoffs = (k,)
    return _harm_for_cutoffs(key, policy, cutoffs, _ws)[["run", "query_id", harm_label(k)]]


def view_harm(ctx: Context) -> pd.DataFrame:
    """:func:`harm` of ``ctx``'s view: its k, among every cutoff the sidebar offers."""
    return harm(ctx.key, ctx.state.k, ctx.policy, tuple(ctx.options.k_choices), ctx.ws)


def every_k_harm(ctx: Context) -> None:
    """Build Harm@k at every cutoff the sidebar offers for ``ctx``'s view (the launcher does
    so behind the first page, which needs its one k), so a change of k is a slice."""
    ks = tuple(ctx.options.k_choices)
    k = ctx.state.k
    _harm_for_cutoffs(ctx.key, ctx.policy, ks if k in ks else (*ks, k), ctx.ws)


@remembered(max_entries=8)
def _harm_for_cutoffs(key: str, policy: Policy, ks: tuple, _ws: Workspace) -> pd.DataFrame:
    """Shared, read-only: ``harm`` selects columns (a new frame) and never writes."""
    return harm_for_cutoffs(_ws, ks, policy)


@st.cache_resource(show_spinner=False, max_entries=8)
def pool_order(
    files_key: str, runs: tuple, depth: int, ids: tuple | None, k: int, _ws: Workspace
) -> pd.DataFrame:
    """Shared, read-only. Keyed by the input files alone: no grade changes the pool's order,
    so a grade reuses it (:func:`judge_session.advance`); ~0.4 s and 14 MB at 10k x 4 runs."""
    return judge_session.pool_order(_ws, runs, depth, ids, k)


@st.cache_data(show_spinner=False, max_entries=16)
def pool_coverage(
    key: str, runs: tuple, depth: int, k: int, ids: tuple | None, _ws: Workspace
) -> pd.DataFrame:
    return pooling.pool_coverage(_ws, runs, depth, k, ids)


def report_text(ctx: Context, fmt: str) -> str:
    """The reproducible report of the view on screen (:func:`report_view`: its runs, split,
    type, section, failures-only, k, pass rule and policy) as ``html``, ``md`` or ``csv``
    (built on the first download); a new meeting verdict changes it, so its cache key
    carries the verdicts' version, and ``ctx.key`` the stored grades'."""
    s = ctx.state
    view = report_view(s)
    version = ctx.verdicts_version()
    return _report_text(ctx.key, version, s.k, ctx.policy, s.pass_rule, view, fmt, ctx.ws)


@st.cache_data(show_spinner=False, max_entries=8)
def _report_text(
    key: str,
    verdicts_version: str,
    k: int,
    policy: Policy,
    rule: str,
    view: ReportView,
    fmt: str,
    _ws: Workspace,
) -> str:
    report = build_report(
        _ws, k, None, policy, rule, verdicts=verdicts.latest_verdicts(_ws), view=view
    )
    return {"html": report.to_html, "md": report.to_markdown, "csv": report.to_csv}[fmt]()


@st.cache_data(show_spinner=False, max_entries=16)
def agreement_view(key: str, ids: tuple | None, _ws: Workspace) -> tuple[Agreement, pd.DataFrame]:
    """Annotator pairs and one row per disagreeing chunk; a stored grade or resolution
    changes ``key`` (:func:`judge_session.store_version`)."""
    result = agreement(_ws, None if ids is None else list(ids))
    return result, judge_session.disagreement_items(result.disagreements)


@st.cache_data(show_spinner=False, max_entries=4)
def grade_exports(key: str, _ws: Workspace) -> tuple[int, str, str]:
    """How many grades there are (files and store, the latest per annotator and chunk), and
    all of them as JSON lines and as CSV, for the download buttons."""
    grades = export_grades(_ws)
    return len(grades), judge_session.grades_jsonl(grades), judge_session.grades_csv(grades)


def comparison_json(c: Comparison) -> str:
    return json_text(c.to_dict())
