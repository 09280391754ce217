"""Shaping a :class:`~ragrecall_core.analysis.no_answer.NoAnswerReport` for the No-answer page.

Every figure is per run: scores of different models live on different scales, so
they are never pooled. The sweep curve shares its axes across runs
because both are shares of queries, not scores.

>>> r = no_answer_report(Workspace.open("data_samples"), 5)   # doctest: +SKIP
>>> picked_table(r, ["bm25"], 0.1).columns.tolist()           # doctest: +SKIP
['run', 'threshold', 'false confidence', 'answerable coverage', 'note']
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from ragrecall_core.analysis.gold_gaps import gold_gaps
from ragrecall_core.analysis.no_answer import NoAnswerReport, texts_of
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import plot_literal
from ragrecall_core.views.charts import FONT, _layout, run_line

GOLD_ERROR_KIND = "relevant grade on a no-answer query"
KIND_ORDER = ("answerable", "no answer")


def picked_table(report: NoAnswerReport, runs: Sequence[str], max_fc: float) -> pd.DataFrame:
    """Per run, the threshold the trade-off picks (or why there is none)."""
    picked = report.pick(max_fc).set_index("run")
    rows = []
    for run in runs:
        if run in picked.index:
            p = picked.loc[run]
            rows.append(
                {
                    "run": run,
                    "threshold (top-1 score ≥)": float(p["threshold"]),
                    "false confidence": float(p["false_confidence"]),
                    "answerable coverage": float(p["answerable_coverage"]),
                    "note": "",
                }
            )
        else:
            has = not report.top_scores[
                (report.top_scores["run"] == run) & report.top_scores["top_score"].notna()
            ].empty
            rows.append(
                {
                    "run": run,
                    "threshold (top-1 score ≥)": None,
                    "false confidence": None,
                    "answerable coverage": None,
                    "note": f"no threshold keeps false confidence ≤ {max_fc:.0%}"
                    if has
                    else "no scores",
                }
            )
    return pd.DataFrame(rows)


def thresholds(report: NoAnswerReport, max_fc: float) -> dict[str, float]:
    """Run -> the picked threshold (runs without one are left out)."""
    picked = report.pick(max_fc)
    return dict(zip(picked["run"], picked["threshold"].astype(float), strict=True))


def score_figure(
    report: NoAnswerReport, run: str, color: str | None, threshold: float | None
) -> go.Figure:
    """Top-1 scores of one run: answerable vs no-answer queries, every query a point."""
    rows = report.top_scores[report.top_scores["run"] == run]
    fig = go.Figure()
    for kind in KIND_ORDER:
        part = rows[(rows["kind"] == kind) & rows["top_score"].notna()]
        fig.add_box(
            x=part["top_score"],
            y=[f"{kind} ({len(part)})"] * len(part),
            name=kind,
            orientation="h",
            boxpoints="all",
            jitter=0.6,
            pointpos=0,
            marker={
                "color": color if kind == "answerable" else "#D55E00",
                "size": 9 if kind == "no answer" else 6,
                "symbol": "diamond" if kind == "no answer" else "circle",
                "opacity": 0.8,
            },
            line={"color": color if kind == "answerable" else "#D55E00"},
            fillcolor="rgba(0,0,0,0)",
            customdata=[[q, plot_literal(q)] for q in part["query_id"]],
            hovertemplate="%{customdata[1]}: top score %{x:.4f}<extra></extra>",
            showlegend=False,
        )
    if threshold is not None:
        fig.add_vline(
            x=threshold,
            line_dash="dash",
            line_color="#222222",
            annotation_text=f"threshold {threshold:.3f}",
            annotation_font_size=FONT - 1,
            annotation_position="top",
        )
    fig.update_yaxes(type="category", categoryorder="array", automargin=True)
    fig = _layout(
        fig,
        f"{plot_literal(run)}: top-1 score per query",
        "top-1 score (this run's own scale)",
        "",
        height=330,
    )
    fig.update_layout(margin={"t": 80, "b": 60})
    return fig


def sweep_figure(
    report: NoAnswerReport, colors: dict[str, str], runs: Sequence[str], max_fc: float
) -> go.Figure:
    """False confidence against answerable coverage as the threshold moves, per run."""
    fig = go.Figure()
    picked = report.pick(max_fc).set_index("run")
    for i, run in enumerate(runs):
        rows = report.sweep[report.sweep["run"] == run].sort_values("threshold")
        if rows.empty:
            continue
        fig.add_scatter(
            name=plot_literal(run),
            x=rows["answerable_coverage"],
            y=rows["false_confidence"],
            mode="lines+markers",
            line=run_line(run, i, colors),
            marker={"size": 6},
            customdata=rows[["threshold"]].to_numpy(),
            hovertemplate=(
                f"<b>{plot_literal(run)}</b><br>threshold %{{customdata[0]:.4f}}<br>"
                "answerable coverage %{x:.1%}<br>false confidence %{y:.1%}<extra></extra>"
            ),
        )
        if run in picked.index:
            p = picked.loc[run]
            fig.add_scatter(
                x=[p["answerable_coverage"]],
                y=[p["false_confidence"]],
                mode="markers",
                marker={
                    "color": colors.get(run),
                    "size": 18,
                    "symbol": "star",
                    "line": {"width": 1.5, "color": "#222222"},
                },
                name=f"{plot_literal(run)}: picked",
                showlegend=False,
                hovertemplate=(
                    f"<b>{plot_literal(run)}</b>: picked threshold {p['threshold']:.4f}"
                    "<extra></extra>"
                ),
            )
    fig.add_hline(
        y=max_fc,
        line_dash="dot",
        line_color="#555555",
        annotation_text=f"accepted false confidence {max_fc:.0%}",
        annotation_font_size=FONT - 1,
        annotation_position="top left",
    )
    fig.update_xaxes(range=[-0.02, 1.02], tickformat=".0%")
    fig.update_yaxes(range=[-0.02, 1.05], tickformat=".0%")
    return _layout(
        fig,
        "Threshold sweep: refuse below the threshold (★ = the picked threshold)",
        "answerable coverage (answered, with a relevant chunk in the top k)",
        "false confidence (no-answer queries answered)",
        height=520,
    )


def sweep_table(report: NoAnswerReport, run: str) -> pd.DataFrame:
    rows = report.sweep[report.sweep["run"] == run].sort_values("threshold")
    return (
        rows.drop(columns="run")
        .rename(
            columns={
                "false_confidence": "false confidence",
                "answerable_coverage": "answerable coverage",
            }
        )[["threshold", "false confidence", "answerable coverage"]]
        .reset_index(drop=True)
    )


def no_answer_tops(
    workspace: Workspace, report: NoAnswerReport, thresholds_by_run: dict[str, float]
) -> pd.DataFrame:
    """Each no-answer query with what each run returned on top (chunk, score, text)."""
    tops = report.top_scores[report.top_scores["kind"] == "no answer"]
    if tops.empty:
        return pd.DataFrame(
            columns=["query_id", "query", "run", "top chunk", "top score", "confident", "text"]
        )
    queries, chunks = texts_of(workspace, tops["query_id"], tops["top_chunk"].dropna())
    order = {run: i for i, run in enumerate(dict.fromkeys(tops["run"]))}
    out = tops.merge(queries, on="query_id", how="left").merge(
        chunks, left_on="top_chunk", right_on="chunk_id", how="left"
    )
    # each query's runs next to each other, so a meeting reads one query at a time
    out = out.assign(_order=out["run"].map(order)).sort_values(["query_id", "_order"])

    def confident(run: str, score) -> str:
        if pd.isna(score):
            return "returned nothing"
        t = thresholds_by_run.get(run)
        if t is None:
            return "no threshold"
        return "⚠ above threshold" if score >= t else "below threshold"

    return pd.DataFrame(
        {
            "query_id": out["query_id"],
            "query": out["query"].fillna("—"),
            "run": out["run"],
            "top chunk": out["top_chunk"].fillna("(nothing returned)"),
            "top score": out["top_score"],
            "confident": [
                confident(r, s) for r, s in zip(out["run"], out["top_score"], strict=True)
            ],
            "text": out["text"].fillna(""),
        }
    ).reset_index(drop=True)


def gold_errors(workspace: Workspace, ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Relevant grades on no-answer queries: the gold's "no answer" may be wrong."""
    gaps = gold_gaps(workspace)
    gaps = gaps[gaps["kind"] == GOLD_ERROR_KIND]
    if ids is not None:
        gaps = gaps[gaps["query_id"].isin(list(ids))]
    return pd.DataFrame(
        {
            "query_id": gaps["query_id"],
            "query": gaps["query"].fillna("—"),
            "chunk graded relevant": gaps["chunk_id"],
            "annotators": [", ".join(map(str, a)) for a in gaps["annotators"]],
            "reasons": gaps["reasons"],
        }
    ).reset_index(drop=True)
