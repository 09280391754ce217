"""Shaping a :class:`~ragrecall_core.analysis.no_answer.NoAnswerReport` for the No-answer page.

Every figure is per run: scores of different models live on different scales, so
they are never pooled. The sweep curve shares its axes across runs
because both are shares of queries, not scores.

>>> r = no_answer_report(Workspace.open("data_samples"), 5)   # doctest: +SKIP
>>> picked_table(r, ["bm25"], 0.1).columns.tolist()           # doctest: +SKIP
['run', 'threshold', 'confident when', 'false confidence', 'answerable coverage', 'note']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ragrecall_core.analysis.gold_gaps import gold_gaps
from ragrecall_core.analysis.no_answer import NoAnswerReport, texts_of
from ragrecall_core.analysis.score_direction import HIGHER, LOWER, NOT_ORDERED, reading
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.literal import plot_literal
from ragrecall_core.views.charts import (
    FONT,
    MARGIN,
    _layout,
    curve_mode,
    display_rows,
    label_margin,
    run_line,
)

GOLD_ERROR_KIND = "relevant grade on a no-answer query"
# what a chart draws (an SVG element per point; 10k points per chart took seconds to draw):
# points per group of a score chart, vertices (and markers) of a sweep curve
MAX_POINTS = 200  # four runs x two groups: 1,600 points (3,200 took 0.15 s more to draw)
MAX_TOP_QUERIES = 250  # no-answer queries listed on the page (each with every run's top)
MAX_CURVE_POINTS = 300
KIND_ORDER = ("answerable", "no answer")
# per score direction: when a run answers confidently, and the failures list's words
CONFIDENT_WHEN = {LOWER: "top-1 score ≤ threshold (distances)"}
# the failures list's words for a top score on the confident side of the threshold and not
WORDS = {LOWER: ("⚠ closer than threshold", "farther than threshold")}
WORDS_HIGHER = ("⚠ above threshold", "below threshold")


def direction_note(direction: str) -> str:
    """The note a run not ordered with rank carries (else empty)."""
    return reading(direction) if direction == NOT_ORDERED else ""


def picked_table(report: NoAnswerReport, runs: Sequence[str], max_fc: float) -> pd.DataFrame:
    """Per run, the threshold the trade-off picks (or why there is none)."""
    picked = report.pick(max_fc).set_index("run")
    directions = report.directions
    rows = []
    for run in runs:
        direction = directions.get(run, HIGHER)
        when = CONFIDENT_WHEN.get(direction, "top-1 score ≥ threshold")
        if run in picked.index:
            p = picked.loc[run]
            rows.append(
                {
                    "run": run,
                    "threshold": float(p["threshold"]),
                    "confident when": when,
                    "false confidence": float(p["false_confidence"]),
                    "answerable coverage": float(p["answerable_coverage"]),
                    "note": direction_note(direction),
                }
            )
        else:
            has = not report.top_scores[
                (report.top_scores["run"] == run) & report.top_scores["top_score"].notna()
            ].empty
            why = f"no threshold keeps false confidence ≤ {max_fc:.0%}" if has else "no scores"
            rows.append(
                {
                    "run": run,
                    "threshold": None,
                    "confident when": when,
                    "false confidence": None,
                    "answerable coverage": None,
                    "note": "; ".join(filter(None, [why, direction_note(direction)])),
                }
            )
    return pd.DataFrame(rows)


def thresholds(report: NoAnswerReport, max_fc: float) -> dict[str, float]:
    """Run -> the picked threshold (runs without one are left out)."""
    picked = report.pick(max_fc)
    return dict(zip(picked["run"], picked["threshold"].astype(float), strict=True))


def _box_of_all(values: pd.Series, label: str, color: str) -> go.Box:
    """The box and whiskers of every value (quartiles by linear interpolation, whiskers at
    the minimum and maximum), precomputed so the browser receives five numbers, not 10k."""
    q1, median, q3 = np.percentile(values.to_numpy(dtype=float), [25, 50, 75])
    return go.Box(
        y=[label],
        q1=[q1],
        median=[median],
        q3=[q3],
        lowerfence=[float(values.min())],
        upperfence=[float(values.max())],
        orientation="h",
        line={"color": color},
        fillcolor="rgba(0,0,0,0)",
        boxpoints=False,
        hoverinfo="x",
        showlegend=False,
    )


def score_figure(
    report: NoAnswerReport,
    runs: Sequence[str],
    colors: dict[str, str],
    thresholds: dict[str, float],
) -> go.Figure:
    """Top-1 scores per run, answerable vs no-answer queries: one chart of a subplot per run
    (two per row), each on its own score scale, the run's picked threshold dashed. One point
    per query up to :data:`MAX_POINTS` per group; above that the box still summarises every
    query and :func:`display_rows` chooses the points drawn (the label says how many).

    One figure, not one per run: the browser draws each plotly figure apart, and four took
    0.4 s of a page switch at 10k."""
    cols = min(2, max(len(runs), 1))
    rows = max(1, -(-len(runs) // cols))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            _score_title(run, thresholds.get(run), report.directions.get(run, HIGHER))
            for run in runs
        ],
        horizontal_spacing=0.3,  # room for the right column's group labels
        vertical_spacing=0.5 / rows,
    )
    for i, run in enumerate(runs):
        at = {"row": i // cols + 1, "col": i % cols + 1}
        for trace in _score_traces(report.top_scores, run, colors.get(run)):
            fig.add_trace(trace, **at)
        if thresholds.get(run) is not None:  # its value is in the subplot's title
            fig.add_vline(x=thresholds[run], line_dash="dash", line_color="#222222", **at)
    fig.update_yaxes(type="category", categoryorder="array", automargin=True)
    fig.update_annotations(font_size=FONT)  # the subplot titles
    fig = _layout(fig, "", "top-1 score (this run's own scale)", "", height=60 + 300 * rows)
    groups = {trace.y[0] for trace in fig.data if trace.y}  # the category labels
    left = label_margin(sorted(groups))
    fig.update_layout(margin={"t": 60, "b": MARGIN["b"], "l": left}, boxmode="overlay")
    return fig


def _score_title(run: str, threshold: float | None, direction: str = HIGHER) -> str:
    picked = "no threshold" if threshold is None else f"threshold {threshold:.3f} (dashed)"
    sense = {LOWER: " · lower is better", NOT_ORDERED: " · not ordered with rank"}
    return f"{plot_literal(run)} · {picked}{sense.get(direction, '')}"


def _score_traces(top_scores: pd.DataFrame, run: str, color: str | None) -> list[go.Box]:
    """One run's boxes and points, answerable and no-answer."""
    rows = top_scores[top_scores["run"] == run]
    traces = []
    for kind in KIND_ORDER:
        part = rows[(rows["kind"] == kind) & rows["top_score"].notna()]
        drawn = display_rows(part, "top_score", MAX_POINTS)
        sampled = len(drawn) < len(part)
        label = f"{kind} ({len(part)}; {len(drawn)} drawn)" if sampled else f"{kind} ({len(part)})"
        line_color = color if kind == "answerable" else "#D55E00"
        if sampled:
            traces.append(_box_of_all(part["top_score"], label, line_color))
        traces.append(
            go.Box(
                x=drawn["top_score"],
                y=[label] * len(drawn),
                name=kind,
                orientation="h",
                boxpoints="all",
                jitter=0.6,
                pointpos=0,
                marker={
                    "color": line_color,
                    "size": 9 if kind == "no answer" else 6,
                    "symbol": "diamond" if kind == "no answer" else "circle",
                    "opacity": 0.8,
                },
                # with a sample, its own box would summarise the sample: only its points show
                line={"color": line_color, "width": 0 if sampled else 2},
                fillcolor="rgba(0,0,0,0)",
                hoveron="points" if sampled else "boxes+points",
                customdata=[[q, plot_literal(q)] for q in drawn["query_id"]],
                hovertemplate="%{customdata[1]}: top score %{x:.4f}<extra></extra>",
                showlegend=False,
            )
        )
    return traces


STAR_SIZE = 18
STAR_STEP = 9  # px: a star picked at the same point as another's is drawn this much larger


def star_sizes(picked: pd.DataFrame, runs: Sequence[str]) -> dict[str, int]:
    """Per run, the size of its picked-threshold star: runs picked at the same point get
    nested sizes (the first run's the largest, drawn first), so no star hides another."""
    shown = picked.reindex([r for r in runs if r in picked.index])
    spot = (
        shown["answerable_coverage"].round(3).astype(str)
        + " "
        + shown["false_confidence"].round(3).astype(str)
    )
    place = spot.groupby(spot).cumcount()
    count = spot.map(spot.value_counts())
    return {run: STAR_SIZE + STAR_STEP * int(count[run] - 1 - place[run]) for run in shown.index}


def _add_picked_stars(
    fig: go.Figure, picked: pd.DataFrame, colors: dict[str, str], runs: Sequence[str]
) -> None:
    """One star per run at its picked threshold, after every curve so no curve covers a
    star, the larger ones first so a smaller star stays on top."""
    sizes = star_sizes(picked, runs)
    for run in sorted(sizes, key=sizes.get, reverse=True):
        p = picked.loc[run]
        fig.add_scatter(
            x=[p["answerable_coverage"]],
            y=[p["false_confidence"]],
            mode="markers",
            marker={
                "color": colors.get(run),
                "size": sizes[run],
                "symbol": "star",
                "line": {"width": 1.5, "color": "#222222"},
            },
            name=f"{plot_literal(run)}: picked",
            showlegend=False,
            hovertemplate=(
                f"<b>{plot_literal(run)}</b>: picked threshold {p['threshold']:.4f}<extra></extra>"
            ),
        )


def sweep_figure(
    report: NoAnswerReport, colors: dict[str, str], runs: Sequence[str], max_fc: float
) -> go.Figure:
    """False confidence against answerable coverage as the threshold moves, per run."""
    fig = go.Figure()
    picked = report.pick(max_fc).set_index("run")
    for i, run in enumerate(runs):
        every = report.sweep[report.sweep["run"] == run]
        if every.empty:
            continue
        rows = display_rows(every, "threshold", MAX_CURVE_POINTS)
        fig.add_scatter(
            name=plot_literal(run),
            x=rows["answerable_coverage"],
            y=rows["false_confidence"],
            mode=curve_mode(len(rows)),
            line=run_line(run, i, colors),
            marker={"size": 6},
            customdata=rows[["threshold"]].to_numpy(),
            hovertemplate=(
                f"<b>{plot_literal(run)}</b><br>threshold %{{customdata[0]:.4f}}<br>"
                "answerable coverage %{x:.1%}<br>false confidence %{y:.1%}<extra></extra>"
            ),
        )
    _add_picked_stars(fig, picked, colors, runs)
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
        "Threshold sweep: refuse when less confident than the threshold (★ = the picked one)",
        "answerable coverage (answered, with a relevant chunk in the top k)",
        "false confidence (no-answer queries answered)",
        height=520,
    )


def sweep_table(report: NoAnswerReport, run: str) -> pd.DataFrame:
    """One run's sweep from its least confident threshold (its lowest score, or its
    highest distance) to its most confident."""
    rows = report.sweep[report.sweep["run"] == run]
    rows = rows.iloc[np.argsort(report.confidence(rows).to_numpy(), kind="stable")]
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
    workspace: Workspace,
    report: NoAnswerReport,
    thresholds_by_run: dict[str, float],
    limit: int | None = None,
) -> pd.DataFrame:
    """Each no-answer query with what each run returned on top (chunk, score, text): the
    queries some run answers above its threshold first, each query's runs together. With
    ``limit``, the first ``limit`` queries only (all runs of each), and only their texts are
    read: a page sends what a meeting reads, not every query of a 10,000-query set."""
    tops = report.top_scores[report.top_scores["kind"] == "no answer"]
    if tops.empty:
        return pd.DataFrame(
            columns=["query_id", "query", "run", "top chunk", "top score", "confident", "text"]
        )
    out = _failures_first(tops, thresholds_by_run, report.directions)
    if limit is not None:
        out = out[out["query_id"].isin(out["query_id"].drop_duplicates().head(limit))]
    queries, chunks = texts_of(workspace, out["query_id"], out["top_chunk"].dropna())
    out = out.merge(queries, on="query_id", how="left").merge(
        chunks, left_on="top_chunk", right_on="chunk_id", how="left"
    )
    return pd.DataFrame(
        {
            "query_id": out["query_id"],
            "query": out["query"].fillna("—"),
            "run": out["run"],
            "top chunk": out["top_chunk"].fillna("(nothing returned)"),
            "top score": out["top_score"],
            "confident": out["_confident"],
            "text": out["text"].fillna(""),
        }
    ).reset_index(drop=True)


def _failures_first(
    tops: pd.DataFrame, thresholds_by_run: dict[str, float], directions: dict[str, str]
) -> pd.DataFrame:
    """``tops`` with each row's ``_confident`` label, each query's runs next to each other
    (so a meeting reads one query at a time) and the queries some run answers confidently
    (above its threshold; for distances, closer than it) first: those are the failures."""
    order = {run: i for i, run in enumerate(dict.fromkeys(tops["run"]))}
    threshold = tops["run"].map(thresholds_by_run)  # NaN: the run has no threshold
    lower = tops["run"].isin([run for run, d in directions.items() if d == LOWER])
    sign = np.where(lower, -1.0, 1.0)  # to confidence: a distance's threshold is an upper bound
    above = tops["top_score"] * sign >= threshold * sign  # NaN on either side: not above
    yes = np.where(lower, WORDS[LOWER][0], WORDS_HIGHER[0])
    no = np.where(lower, WORDS[LOWER][1], WORDS_HIGHER[1])
    return tops.assign(
        _confident=np.select(
            [tops["top_score"].isna(), threshold.isna(), above, ~above],
            ["returned nothing", "no threshold", yes, no],
            default="",  # never: above or not
        ),
        _order=tops["run"].map(order),
        _flagged=~above.groupby(tops["query_id"]).transform("any"),
    ).sort_values(["_flagged", "query_id", "_order"])


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
