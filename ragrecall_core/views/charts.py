"""Plotly figure builders for the dashboard: one run colour map, readable on a shared screen.

Colours are the Okabe–Ito palette (safe for the common colour-vision
deficiencies), given to runs in the workspace's order, so a run has the same
colour on every page whatever subset is selected. Fonts are at least 14 px.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from ragrecall_core.output.literal import plot_literal

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
FONT = 16
TITLE_FONT = 20
PATTERNS = ("", "/", "x", ".", "\\", "+", "-", "|")
# points of a curve up to which each one is drawn as a marker on its line; a longer curve is
# a line alone (hover still names each point): its markers would merge into a thick line,
# and each is an SVG node the browser draws (issue 30: the No-answer sweep's 1,200 markers
# cost more than its other chart and tables together at 10,000 queries)
MARKED_POINTS = 50
# margins (px) wide enough for what plotly's automargin would add around a numeric axis (its
# tick labels and title at FONT: up to 91 px on the left, 72 below, 23 on the right, as
# drawn in chromium): wherever labels push a margin wider than given, plotly draws the whole
# figure a second time (issue 30: the No-answer score chart took 132 ms instead of 83)
MARGIN = {"l": 96, "r": 30, "t": 70, "b": 80}
LABEL_EM = 0.65  # a generous average character width (DejaVu Sans' is about 0.6 em)
AXIS_TITLE_ROOM = 30  # px beside category labels for the axis' own title
# the trace types the dashboard's charts draw (a test draws every chart and checks)
DRAWN_TRACES = ("bar", "scatter", "box")
# plotly_white's layout keys for what no chart here has: maps, 3D, polar and ternary axes,
# colour scales and colour axes
UNDRAWN_LAYOUT = ("coloraxis", "colorscale", "geo", "polar", "scene", "ternary")


def _template() -> go.layout.Template:
    """plotly_white less what no chart here draws (:data:`UNDRAWN_LAYOUT`, and the styles
    of trace types other than :data:`DRAWN_TRACES`): the same look, but 1 KB of each
    figure's JSON instead of 7 KB (issue 30), sent with every chart drawn. Taken from
    plotly's own template, not copied, so the look follows plotly's."""
    white = pio.templates["plotly_white"].to_plotly_json()
    layout = {k: v for k, v in white["layout"].items() if k not in UNDRAWN_LAYOUT}
    data = {k: v for k, v in white["data"].items() if k in DRAWN_TRACES}
    return go.layout.Template(layout=layout, data=data)


TEMPLATE = _template()


def label_margin(labels: Sequence[str], font: int = FONT - 1) -> int:
    """A left margin (px) that holds the longest of ``labels`` as category tick labels at
    ``font`` px, so the axis' automargin finds it wide enough and draws once.

    >>> label_margin(["answerable (7500; 200 drawn)"])
    289
    """
    longest = max((len(label) for label in labels), default=0)
    return max(MARGIN["l"], round(longest * font * LABEL_EM) + 16)


def display_rows(rows: pd.DataFrame, column: str, limit: int) -> pd.DataFrame:
    """At most ``limit`` of ``rows``, ordered by ``column``: all of them when they fit, else
    evenly spread order statistics (the lowest and the highest always among them), so a
    chart draws what a screen can show and keeps the distribution's shape."""
    ordered = rows.sort_values(column, kind="stable")
    if len(ordered) <= limit:
        return ordered
    picks = np.unique(np.linspace(0, len(ordered) - 1, limit).round().astype(int))
    return ordered.iloc[picks]


def curve_mode(points: int) -> str:
    """A curve's plotly ``mode``: a marker on each point while there are at most
    :data:`MARKED_POINTS`, else the line alone.

    >>> curve_mode(20), curve_mode(100)
    ('lines+markers', 'lines')
    """
    return "lines+markers" if points <= MARKED_POINTS else "lines"


def run_colors(runs: Sequence[str]) -> dict[str, str]:
    """Run name -> colour, by position in the workspace's run list (stable across pages)."""
    return {run: OKABE_ITO[i % len(OKABE_ITO)] for i, run in enumerate(runs)}


def run_pattern(color: str | None) -> str:
    """A bar fill pattern tied to the run's colour, so a run looks the same on every page."""
    return PATTERNS[OKABE_ITO.index(color) % len(PATTERNS)] if color in OKABE_ITO else ""


def count_axis(most: float, ticks: int = 8) -> dict:
    """Axis settings for a count up to ``most``: whole-number ticks only (plotly's own
    choice puts 0.5 steps on a small count), 1, 2 or 5 times a power of ten apart, at most
    about ``ticks`` of them."""
    step = 1
    while most / step > ticks:
        step = _nice_step_above(step + 1)
    return {"tick0": 0, "dtick": step, "tickformat": "d"}


def _nice_step_above(step: int) -> int:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``step``."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if factor * power >= step:
                return factor * power
        power *= 10


def _layout(fig: go.Figure, title: str, x: str, y: str, height: int = 460) -> go.Figure:
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title, "font": {"size": TITLE_FONT}},
        font={"size": FONT},
        height=height,
        margin=MARGIN,
        legend={
            "font": {"size": FONT},
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.02,
            "xanchor": "left",
            "x": 0,
        },
        hoverlabel={"font": {"size": FONT}},
    )
    fig.update_xaxes(title={"text": x, "font": {"size": FONT}}, tickfont={"size": FONT - 1})
    fig.update_yaxes(
        title={"text": y, "font": {"size": FONT}}, tickfont={"size": FONT - 1}, gridcolor="#dddddd"
    )
    if fig.layout.title.text:
        fig.update_layout(margin={"t": 100})
    return fig


def headline_bars(summary: pd.DataFrame, colors: dict[str, str], k: int) -> go.Figure:
    """Grouped bars of each headline measure per run, with 95% bootstrap CI whiskers."""
    fig = go.Figure()
    for run, rows in summary.groupby("run", sort=False):
        fig.add_bar(
            name=plot_literal(run),
            x=rows["measure"],
            y=rows["value"],
            marker_color=colors.get(run),
            error_y={
                "type": "data",
                "symmetric": False,
                "array": rows["high"] - rows["value"],
                "arrayminus": rows["value"] - rows["low"],
                "thickness": 2,
                "width": 6,
            },
            customdata=rows[["low", "high", "queries"]].to_numpy(),
            hovertemplate=(
                f"<b>{plot_literal(run)}</b><br>%{{x}} = %{{y:.3f}}<br>"
                "95% CI %{customdata[0]:.3f}–%{customdata[1]:.3f}<br>"
                "%{customdata[2]} queries<extra></extra>"
            ),
        )
    fig.update_layout(barmode="group", bargap=0.25)
    fig.update_yaxes(range=[0, 1.05])
    return _layout(
        fig,
        f"Headline measures at k = {k} (mean over queries, 95% bootstrap CI)",
        "measure",
        "mean over queries",
    )


def failure_bars(
    groups: pd.DataFrame,
    colors: dict[str, str],
    dimension_label: str,
    k: int,
    title: str | None = None,
) -> go.Figure:
    """Failing queries per group and run; the bar label gives count and rate. ``title``
    names the pass rule's measure (default: Recall@k)."""
    fig = go.Figure()
    for run, rows in groups.groupby("run", sort=False):
        labels = [
            f"{f} / {q} ({r:.0%})"
            for f, q, r in zip(rows["failing"], rows["queries"], rows["rate"], strict=True)
        ]
        fig.add_bar(
            name=plot_literal(run),
            y=rows["group"].map(plot_literal),
            x=rows["failing"],
            orientation="h",
            marker_color=colors.get(run),
            marker_pattern_shape=run_pattern(colors.get(run)),
            text=labels,
            textposition="outside",
            textfont={"size": FONT - 1},
            customdata=[[run, g] for g in rows["group"]],
            hovertemplate=(
                f"<b>{plot_literal(run)}</b><br>%{{y}}: %{{text}} failing<br>"
                "click to open these queries<extra></extra>"
            ),
        )
    n_groups = groups["group"].nunique()
    n_runs = groups["run"].nunique()
    height = max(360, 120 + n_groups * max(n_runs, 1) * 30)
    fig.update_layout(barmode="group", bargap=0.3, clickmode="event+select")
    fig.update_yaxes(autorange="reversed", automargin=True)
    max_x = groups["failing"].max() if len(groups) else 1
    fig.update_xaxes(range=[0, max_x * 1.35 + 1], **count_axis(max_x * 1.35 + 1))
    fig = _layout(
        fig,
        title or f"Failing queries (Recall@{k} < 1) by {dimension_label}",
        "failing queries (label: failing / queries in group, rate)",
        dimension_label,
        height=height,
    )
    shown = groups["group"].drop_duplicates().map(plot_literal)
    return fig.update_layout(margin={"l": label_margin(list(shown)) + AXIS_TITLE_ROOM})


def first_rank_histogram(hist: pd.DataFrame, colors: dict[str, str]) -> go.Figure:
    """Bars of queries per first-relevant-rank bin, runs side by side, 'not retrieved' last."""
    fig = go.Figure()
    for run, rows in hist.groupby("run", sort=False):
        fig.add_bar(
            name=plot_literal(run),
            x=rows["bin"],
            y=rows["queries"],
            marker_color=colors.get(run),
            marker_pattern_shape=run_pattern(colors.get(run)),
            text=[str(n) if n else "" for n in rows["queries"]],
            textposition="outside",
            textfont={"size": FONT - 2},
            cliponaxis=False,
            customdata=[[run, b, s] for b, s in zip(rows["bin"], rows["share"], strict=True)],
            hovertemplate=(
                f"<b>{plot_literal(run)}</b><br>first relevant rank %{{x}}: %{{y}} queries "
                "(%{customdata[2]:.0%})<br>click to list them<extra></extra>"
            ),
        )
    fig.update_layout(
        barmode="group",
        bargap=0.2,
        clickmode="event+select",
        uniformtext={"minsize": FONT - 2, "mode": "hide"},
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(**count_axis(hist["queries"].max() if len(hist) else 1))
    return _layout(
        fig,
        "Rank of the first relevant item (answerable queries; labels = queries)",
        "first relevant rank",
        "queries",
        height=520,
    )


DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def run_line(run: str, index: int, colors: dict[str, str]) -> dict:
    """A run's curve style: its colour, and a dash pattern so overlaid lines stay apart
    on a projector or for colour-blind viewers."""
    return {"color": colors.get(run), "width": 3, "dash": DASHES[index % len(DASHES)]}


def hit_curve(curve: pd.DataFrame, colors: dict[str, str], k: int) -> go.Figure:
    """Hit@k as k grows, one line per run, the chosen k marked."""
    fig = go.Figure()
    for i, (run, rows) in enumerate(curve.groupby("run", sort=False)):
        fig.add_scatter(
            name=plot_literal(run),
            x=rows["k"],
            y=rows["hit"],
            mode=curve_mode(len(rows)),
            line=run_line(run, i, colors),
            marker={"size": 6},
            hovertemplate=f"<b>{plot_literal(run)}</b><br>Hit@%{{x}} = %{{y:.3f}}<extra></extra>",
        )
    fig.add_vline(
        x=k,
        line_dash="dot",
        line_color="#555555",
        annotation_text=f"k = {k}",
        annotation_font_size=FONT,
        annotation_position="bottom right",
    )
    fig.update_yaxes(range=[0, 1.02])
    return _layout(
        fig,
        "Hit@k as k grows (share of answerable queries with a relevant item in the top k)",
        "k",
        "Hit@k",
    )
