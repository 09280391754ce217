"""The Overview's numbers and tables for one view, built once (:func:`view`), and its
sections below the headline numbers: queries in view, no-answer queries, validation
warnings and run configurations (the page composes them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import Context
from ragrecall_app.lazy import lazy_box
from ragrecall_app.render import (
    escape_markdown,
    escaped_table,
    grades_loaded,
    json_block,
    literal_frame,
)
from ragrecall_core.output.literal import as_words, md_labels
from ragrecall_core.views import overview
from ragrecall_core.views.harm_view import add_harm_cell, harm_label, with_harm

# query attribute -> (its label, the workspace fact listing its values)
COUNTED = {
    "query_type": ("query type", "query_types"),
    "section": ("corpus section", "sections"),
    "split": ("split", "splits"),
}


@dataclass(frozen=True)
class OverviewView:
    """What the Overview shows for one view, the tables escaped (render.literal_frame): shared
    by reruns and sessions (read-only), so a rerun only draws them."""

    queries: int  # distinct queries in view
    policy_text: str
    warnings: tuple[tuple[str, str], ...]  # (run, line) of the runs in view
    headline: pd.DataFrame | None = None  # None: no query in view
    chart_frame: pd.DataFrame | None = None
    numbers: overview.Numbers | None = None  # what the grade notice compares
    counts: dict[str, pd.DataFrame] = field(default_factory=dict)  # column -> its counts
    no_answer: pd.DataFrame | None = None


def view(ctx: Context) -> OverviewView:
    """The Overview of the view on screen (computed on its first rerun, then read)."""
    with st.spinner("Bootstrapping confidence intervals …"):
        return ctx.memo("overview", lambda: _build(ctx))


def _build(ctx: Context) -> OverviewView:
    s = ctx.state
    rows, warnings = ctx.measure_rows()  # the query table's, or its measures alone
    lines = tuple((run, line) for run in s.runs for line in warnings.get(run, []))
    base = OverviewView(rows["query_id"].nunique(), ctx.policy.describe(grades_loaded(ctx)), lines)
    if rows.empty:
        return base
    harm = analyses.view_harm(ctx)
    rows = with_harm(rows, harm, s.k)
    summary = ctx.summary(rows, [*overview.summary_measures(s.k), harm_label(s.k)])
    counts = {
        column: literal_frame(overview.query_counts(rows, column).rename(columns={"value": label}))
        for column, (label, fact) in COUNTED.items()
        if getattr(ctx.facts, fact)
    }
    return OverviewView(
        queries=base.queries,
        policy_text=base.policy_text,
        warnings=lines,
        headline=literal_frame(add_harm_cell(overview.headline_table(summary, s.k), summary, s.k)),
        chart_frame=overview.chart_frame(summary),
        numbers=overview.numbers(ctx.ws, summary, overview.notice_measures(s.k)),
        counts=counts,
        no_answer=_no_answer_table(ctx),
    )


def _no_answer_table(ctx: Context) -> pd.DataFrame:
    no_answer = analyses.view_no_answer(ctx)
    return literal_frame(
        as_words(
            overview.no_answer_table(no_answer.top_scores, ctx.state.runs),
            {"mean top score": ("{:.4f}", "no scores")},
        )
    )


# The query counts and the run configurations are in boxes sent only while open: every
# element of a page is sent, marked stale and drawn again by the browser on each rerun (a k
# change, a filter), and these two sections were about half of the Overview's own elements (its
# columns and tabs, among the costliest to draw), below the fold and seldom read in a meeting.
COUNTS_OPEN = "overview_counts_open"
CONFIGS_OPEN = "overview_configs_open"


def queries_in_view(shown: OverviewView) -> None:
    with lazy_box("Queries in view", COUNTS_OPEN) as is_open:
        if not is_open:
            return
        for col, (column, (label, _fact)) in zip(st.columns(3), COUNTED.items(), strict=True):
            with col:
                if column not in shown.counts:
                    st.caption(
                        f"No {label} in this data: add `{column}` to the gold to count by it."
                    )
                    continue
                escaped_table(shown.counts[column])


def no_answer_queries(shown: OverviewView) -> None:
    st.subheader("No-answer queries")
    st.caption(
        "Queries with no relevant chunk: the retriever should not return anything "
        "confident. They are measured apart from Recall, Hit and MRR."
    )
    escaped_table(shown.no_answer)


def validation_warnings(shown: OverviewView, filtered: bool) -> None:
    st.subheader("Validation warnings")
    if filtered:
        st.caption(
            "Validation warnings cover every query of each run: the sidebar's filters do not "
            "apply to them."
        )
    for run, line in shown.warnings:
        st.warning(f"**{escape_markdown(run)}**: {escape_markdown(line)}")
    if not shown.warnings:
        st.success("No warnings for the selected runs.")


def run_configurations(ctx: Context) -> None:
    with lazy_box("Run configurations", CONFIGS_OPEN) as is_open:
        if not is_open:
            return
        runs = ctx.state.runs
        st.caption("As loaded from each run's .config.json sidecar; secrets are redacted on load.")
        configs = ctx.memo("run_configs", ctx.ws.configs)
        for i, (tab, run) in enumerate(zip(st.tabs(md_labels(runs)), runs, strict=True)):
            with tab:
                if configs.get(run):
                    json_block(configs[run], f"run_config_{i}")
                else:
                    st.text("No config sidecar for this run.")
