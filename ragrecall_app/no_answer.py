"""The No-answer page's sections as widgets: the possible gold errors, the threshold a
trade-off picks with its sweep, the top-1 score distributions, the sweep as tables, and
what each run returned on top for a no-answer query. The tables and figures come from
:mod:`ragrecall_core.views.no_answer_view`, the words around them from
:mod:`ragrecall_core.views.no_answer_text`; ``pages/no_answer.py`` puts the sections in
order."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ragrecall_app import analyses
from ragrecall_app.chart import chart
from ragrecall_app.context import Context, files_key_of, state_key
from ragrecall_app.lazy import lazy_box
from ragrecall_core.analysis import no_answer as na
from ragrecall_core.analysis.no_answer import NoAnswerReport
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import as_words, md_labels
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.views import no_answer_text as nat
from ragrecall_core.views import no_answer_view as nav
from ragrecall_core.views.samples import NO_ANSWER_MINIMUM, small_sample_warning


def gold_errors(ctx: Context, ids: Sequence[str] | None) -> None:
    """Relevant grades on queries the gold calls no-answer (``ids``: the queries in view)."""
    st.subheader("Possible gold errors")
    st.caption(nat.GOLD_ERRORS_CAPTION)
    errors = ctx.memo(
        "no_answer_gold_errors",
        lambda: analyses.gold_errors(ctx.key, None if ids is None else tuple(ids), ctx.ws),
    )
    if errors.empty:
        st.text(nat.NO_GOLD_ERRORS)
    else:
        st.dataframe(errors, hide_index=True, key="noans_gold_errors", width="stretch")


def report(ctx: Context) -> NoAnswerReport:
    """Each run's top-1 score per query in view (cached)."""
    with st.spinner("Reading top-1 scores …"):
        return ctx.memo("no_answer_report", lambda: analyses.view_no_answer(ctx))


def direction_warnings(ctx: Context) -> dict[str, list[str]]:
    """Run -> the warnings that its scores' direction may be read wrong (a rankless run whose
    scores rise as given: :func:`~ragrecall_core.analysis.no_answer.direction_warnings`),
    for the runs in view. Facts of each run's rows: read once per run of the loaded files,
    never again for another k, filter, policy or stored grade."""
    files = files_key_of(ctx.key)
    said = {run: _run_warnings(files, run, ctx.policy, ctx.ws) for run in ctx.state.runs}
    return {run: texts for run, texts in said.items() if texts}


@st.cache_data(show_spinner=False, max_entries=64)
def _run_warnings(files_key: str, run: str, _policy: Policy, _ws: Workspace) -> list[str]:
    """Keyed by the loaded files' content and the run's name alone: ``_policy`` (the view's,
    whose prepared tables are built already) changes no warning, so it is no part of the
    key."""
    return na.direction_warnings(_ws, _policy, [run]).get(run, [])


def picks(ctx: Context, result: NoAnswerReport, max_fc: float) -> tuple:
    """The picked thresholds' table and the thresholds (run -> threshold) for an accepted
    false confidence ``max_fc`` (shared)."""
    runs = ctx.state.runs
    return ctx.memo(
        "no_answer_tradeoff",
        lambda: (
            as_words(nav.picked_table(result, runs, max_fc), nat.PICKED_FORMATS),
            nav.thresholds(result, max_fc),
        ),
        max_fc,
    )


def sweep_chart(ctx: Context, result: NoAnswerReport, max_fc: float):
    """The sweep curve with ``max_fc`` marked (shared; built once its box is opened)."""
    return ctx.memo(
        "no_answer_sweep",
        lambda: nav.sweep_figure(result, ctx.colors, ctx.state.runs, max_fc),
        max_fc,
    )


def score_chart(ctx: Context, result: NoAnswerReport, picked: dict[str, float]):
    """The top-1 scores' chart, one box per run and kind, the picked thresholds starred."""
    return ctx.memo(
        "no_answer_scores",
        lambda: nav.score_figure(result, tuple(ctx.state.runs), ctx.colors, picked),
        tuple(sorted(picked.items())),
    )


def tradeoff(ctx: Context, result: NoAnswerReport, no_answer: int) -> dict[str, float]:
    """The false confidence slider, the threshold each run picks under it and the sweep
    curve (in an expander, sent only while open: drawing it is ~0.1 s of the browser's time
    on every No-answer run); the picked thresholds (run -> threshold)."""
    s = ctx.state
    st.subheader("The threshold a trade-off picks")
    small = small_sample_warning(
        no_answer, NO_ANSWER_MINIMUM, "no-answer queries", "the picked threshold"
    )
    if small:
        st.warning(small, icon="⚠️")
    accepted_percent = st.slider(
        nat.SLIDER_LABEL,
        min_value=0,
        max_value=100,
        step=5,
        format="%d%%",
        key=state_key("max_false_confidence"),  # the view state keeps it on the slider's steps
    )
    max_fc = accepted_percent / 100
    st.caption(nat.tradeoff_caption(max_fc, s.k))
    table, picked = picks(ctx, result, max_fc)
    st.dataframe(table, hide_index=True, key="noans_picked", width="stretch")
    with lazy_box(nat.SWEEP_CHART_TITLE, "noans_sweep_chart_open") as is_open:
        if is_open:
            chart(sweep_chart(ctx, result, max_fc), key="noans_sweep")
    return picked


def distributions(ctx: Context, result: NoAnswerReport, picked: dict[str, float]) -> None:
    """Top-1 scores of answerable and no-answer queries, one chart per run, in an expander.
    Lazy: the chart is sent only while the box is open (drawing it is ~0.2 s of the
    browser's time on every No-answer run: a page switch, a slider move)."""
    with lazy_box(nat.SCORES_TITLE, "noans_scores_open") as is_open:
        if is_open:
            _distributions(ctx, result, picked)


def _distributions(ctx: Context, result: NoAnswerReport, picked: dict[str, float]) -> None:
    st.caption(nat.scores_caption(nav.MAX_POINTS))
    chart(score_chart(ctx, result, picked), key="noans_scores")


def _sweep_tables(ctx: Context, result: NoAnswerReport) -> None:
    runs = ctx.state.runs
    tabs = st.tabs(md_labels(runs))
    for i, (tab, run) in enumerate(zip(tabs, runs, strict=True)):
        with tab:
            st.dataframe(
                nav.sweep_table(result, run),
                hide_index=True,
                key=f"noans_sweep_table_{i}",
                width="stretch",
                height=320,
                column_config={
                    "threshold": st.column_config.NumberColumn(format="%.4f"),
                    "false confidence": st.column_config.NumberColumn(format="percent"),
                    "answerable coverage": st.column_config.NumberColumn(format="percent"),
                },
            )


def sweep_tables(ctx: Context, result: NoAnswerReport) -> None:
    """The threshold sweep per run as a table, in an expander. Lazy: its tables (one row per
    distinct score: ~6,000 per run at 10k) are built only while it is open."""
    with lazy_box("The threshold sweep as a table", "noans_sweep_open") as is_open:
        if is_open:
            _sweep_tables(ctx, result)


def tops(ctx: Context, result: NoAnswerReport, picked: dict[str, float], no_answer: int) -> None:
    """What each run returned on top for each no-answer query (the first ones), in an
    expander. Lazy: the table (a row per query and run, with chunk text: ~400 KB at 10,000
    queries) is built and sent only while the box is open."""
    with lazy_box(nat.TOPS_TITLE, "noans_tops_open") as is_open:
        if is_open:
            _tops(ctx, result, picked, no_answer)


def _tops(ctx: Context, result: NoAnswerReport, picked: dict[str, float], no_answer: int) -> None:
    if not ctx.facts.corpus_chunks:
        st.caption(nat.NO_CORPUS)
    shown = ctx.memo(
        "no_answer_tops",
        lambda: as_words(
            nav.no_answer_tops(ctx.ws, result, picked, limit=nav.MAX_TOP_QUERIES),
            nat.TOPS_FORMATS,
        ),
        tuple(sorted(picked.items())),
        nav.MAX_TOP_QUERIES,
    )
    if no_answer > nav.MAX_TOP_QUERIES:
        st.caption(nat.first_listed(nav.MAX_TOP_QUERIES, no_answer))
    st.dataframe(
        shown,
        hide_index=True,
        key="noans_tops",
        width="stretch",
        column_config={
            "query": st.column_config.TextColumn(width="large"),
            "confident": st.column_config.TextColumn(width="medium"),
            "text": st.column_config.TextColumn(width="large"),
        },
    )
