"""The Overview's sections below the headline numbers: queries in view, no-answer queries,
validation warnings and run configurations (the page composes them)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.context import Context
from ragrecall_app.render import escape_markdown, literal_table
from ragrecall_core.analysis.query_table import QueryTable
from ragrecall_core.output.literal import as_words, md_labels
from ragrecall_core.views import overview
from ragrecall_core.views.compare_view import view_query_ids

# query attribute -> (its label, the workspace fact listing its values)
COUNTED = {
    "query_type": ("query type", "query_types"),
    "section": ("corpus section", "sections"),
    "split": ("split", "splits"),
}


def queries_in_view(ctx: Context, rows: pd.DataFrame) -> None:
    st.subheader("Queries in view")
    for col, (column, (label, fact)) in zip(st.columns(3), COUNTED.items(), strict=True):
        with col:
            if not getattr(ctx.facts, fact):
                st.caption(f"No {label} in this data: add `{column}` to the gold to count by it.")
                continue
            counts = overview.query_counts(rows, column)
            literal_table(counts.rename(columns={"value": label}))


def no_answer_queries(ctx: Context) -> None:
    s = ctx.state
    st.subheader("No-answer queries")
    st.caption(
        "Queries with no relevant chunk: the retriever should not return anything "
        "confident. They are measured apart from Recall, Hit and MRR."
    )
    view_ids = view_query_ids(ctx.ws, s.split, s.query_type, s.section)
    ids = None if view_ids is None else tuple(view_ids)
    no_answer = analyses.no_answer(ctx.key, s.k, ctx.policy, tuple(s.runs), ids, ctx.ws)
    literal_table(
        as_words(
            overview.no_answer_table(no_answer.top_scores, s.runs),
            {"mean top score": ("{:.4f}", "no scores")},
        )
    )


def validation_warnings(ctx: Context, qt: QueryTable, filtered: bool) -> None:
    st.subheader("Validation warnings")
    if filtered:
        st.caption(
            "Validation warnings cover every query of each run: the sidebar's filters do not "
            "apply to them."
        )
    lines = [(run, line) for run in ctx.state.runs for line in qt.warnings.get(run, [])]
    for run, line in lines:
        st.warning(f"**{escape_markdown(run)}**: {escape_markdown(line)}")
    if not lines:
        st.success("No warnings for the selected runs.")


def run_configurations(ctx: Context) -> None:
    runs = ctx.state.runs
    st.subheader("Run configurations")
    st.caption("As loaded from each run's .config.json sidecar; secrets are redacted on load.")
    configs = ctx.ws.configs()
    for tab, run in zip(st.tabs(md_labels(runs)), runs, strict=True):
        with tab:
            if configs.get(run):
                st.json(configs[run], expanded=True)
            else:
                st.text("No config sidecar for this run.")
