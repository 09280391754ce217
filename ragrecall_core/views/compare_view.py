"""Shaping a :class:`~ragrecall_core.analysis.compare.Comparison` for the Compare page.

Frames with display columns, the per-query scatter, and the two ranked lists of one
query side by side. The numbers all come from :mod:`ragrecall_core.analysis.compare`; nothing
here recomputes a measure.

>>> c = compare(Workspace.open("data_samples"), "bm25", "dense-minilm", 5)  # doctest: +SKIP
>>> deltas_table(c.deltas).columns[:3].tolist()                              # doctest: +SKIP
['measure', 'better when', 'baseline']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ragrecall_core.analysis.selection import query_ids
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import parse_measure
from ragrecall_core.output.literal import plot_literal
from ragrecall_core.scoring.prepared import HARMFUL
from ragrecall_core.views.charts import FONT, _layout, display_rows
from ragrecall_core.views.marks import MARK_TEXT

ALPHA = 0.05
JITTER = 0.045
# points drawn per outcome: each is an SVG node in the browser (8,000 took ~2 s to draw; 1,600
# took 0.15 s more than 800 at 10k)
MAX_POINTS = 200
MAX_LISTED = 200  # rows of the improvements and still-failing lists on the page
# outcome -> (legend label, colour, marker symbol): shape and colour both tell them apart
OUTCOMES = {
    "regression": ("regression (passed, now fails)", "#D55E00", "x"),
    "improvement": ("improvement (failed, now passes)", "#009E73", "triangle-up"),
    "still failing": ("still failing", "#555555", "circle-open"),
    "still passing": ("still passing", "#9fb7c9", "circle"),
}
NOT_RETRIEVED = "not retrieved"


# what would give the deltas-by-group table more than one "(none)" group
GROUP_ENABLERS = {
    "query type": "No query type in this data: add `query_type` to the gold to compare by it.",
    "section": "No section in this data: add `section` to the gold or a corpus to compare by it.",
}


def second_run_message(runs: Sequence[str], from_folder: bool) -> str:
    """Why Compare cannot start, and how to add a run the way the data was given."""
    shown = ", ".join(runs) or "none"
    how = (
        "Add a second run file under the workspace's runs/ folder."
        if from_folder
        else "Give a second run: repeat --run FILE on the command line, or upload two runs."
    )
    return f"Comparing needs two runs; {len(runs)} loaded ({shown}). {how}"


def view_query_ids(
    workspace: Workspace, split: str = "", query_type: str = "", section: str = ""
) -> list[str] | None:
    """Query ids under the sidebar's split / type / section filters (``None``: no filter)."""
    return query_ids(
        workspace,
        split=split or None,
        query_types=[query_type] if query_type else None,
        sections=[section] if section else None,
    )


def _higher_is_better(measure: str) -> bool:
    return parse_measure(measure).definition.higher_is_better


def verdict(measure: str, delta: float, p_value: float) -> str:
    """A plain word for a delta, direction-aware (for Harm@k a decrease is better)."""
    if pd.isna(delta) or delta == 0:
        return "no change"
    better = (delta > 0) == _higher_is_better(measure)
    word = "better" if better else "worse"
    if pd.notna(p_value) and p_value < ALPHA:
        return f"▲ {word} (p < {ALPHA})" if better else f"▼ {word} (p < {ALPHA})"
    return f"{word}, not significant"


def deltas_table(deltas: pd.DataFrame) -> pd.DataFrame:
    """The deltas with the better direction, a 95% CI cell and a verdict per measure."""
    out = pd.DataFrame(
        {
            "measure": deltas["measure"],
            "better when": [
                "higher ↑" if _higher_is_better(m) else "lower ↓" for m in deltas["measure"]
            ],
            "baseline": deltas["baseline"],
            "candidate": deltas["candidate"],
            "delta": deltas["delta"],
            "95% CI of delta": [
                "—" if pd.isna(lo) else f"[{lo:+.3f}, {hi:+.3f}]"
                for lo, hi in zip(deltas["ci_low"], deltas["ci_high"], strict=True)
            ],
            "p-value": deltas["p_value"],
            "wins": deltas["wins"],
            "ties": deltas["ties"],
            "losses": deltas["losses"],
            "queries": deltas["queries"],
            "verdict": [
                verdict(m, d, p)
                for m, d, p in zip(
                    deltas["measure"], deltas["delta"], deltas["p_value"], strict=True
                )
            ],
        }
    )
    return out.reset_index(drop=True)


def outcome_table(outcomes: pd.DataFrame, pass_measure: str) -> pd.DataFrame:
    """A regressions / improvements / still-failing list as shown (row order = selection)."""
    return pd.DataFrame(
        {
            "query_id": outcomes["query_id"],
            "query": outcomes["query"].fillna("—"),
            "type": outcomes["query_type"].fillna("—"),
            "section": outcomes["section"].fillna("—"),
            f"baseline {pass_measure}": outcomes["baseline"],
            f"candidate {pass_measure}": outcomes["candidate"],
        }
    ).reset_index(drop=True)


def group_table(by_group: pd.DataFrame, by: str, measure: str) -> pd.DataFrame:
    """Deltas of one measure within each query type (``by="query type"``) or section."""
    rows = by_group[(by_group["by"] == by) & (by_group["measure"] == measure)]
    rows = rows.drop(columns=["by", "measure"]).sort_values("delta", kind="stable")
    return rows.reset_index(drop=True)


def _jitter(query_ids: pd.Series, salt: str) -> np.ndarray:
    """A stable offset in [-JITTER, JITTER] per query (same on every rerun), vectorised."""
    hashed = pd.util.hash_pandas_object(salt + query_ids.astype(str), index=False)
    share = (hashed.to_numpy() % 2**32) / (2**32 - 1)
    return (share * 2 - 1) * JITTER


def scatter_points(outcomes: pd.DataFrame) -> pd.DataFrame:
    """One point per query: its values, jittered positions, and how many share its cell."""
    pts = outcomes[["query_id", "query", "baseline", "candidate", "outcome"]].copy()
    pts["x"] = pts["baseline"] + _jitter(pts["query_id"], "x:")
    pts["y"] = pts["candidate"] + _jitter(pts["query_id"], "y:")
    pts["same_cell"] = pts.groupby(["baseline", "candidate"])["query_id"].transform("size")
    return pts.reset_index(drop=True)


def scatter_figure(points: pd.DataFrame, baseline: str, candidate: str, measure: str) -> go.Figure:
    """Baseline vs candidate per query; jittered, with the count of each cell written on it."""
    fig = go.Figure()
    for outcome, (label, color, symbol) in OUTCOMES.items():
        every = points[points["outcome"] == outcome]
        if every.empty:
            continue
        # every query counts in the legend and the cell numbers; a stable sample is drawn
        rows = display_rows(every, "x", MAX_POINTS)
        shown = "" if len(rows) == len(every) else f" ({len(rows)} drawn)"
        fig.add_scatter(
            name=f"{label}: {len(every):,}{shown}",
            x=rows["x"],
            y=rows["y"],
            mode="markers",
            marker={
                "color": color,
                "symbol": symbol,
                "size": 13 if outcome != "still passing" else 10,
                "opacity": 0.85,
                "line": {"width": 2 if symbol == "x" else 1, "color": color},
            },
            customdata=np.stack(
                [
                    rows["query_id"],
                    rows["baseline"],
                    rows["candidate"],
                    rows["query_id"].map(plot_literal),
                ],
                axis=-1,
            ).tolist(),
            hovertemplate=(
                "<b>%{customdata[3]}</b><br>"
                f"{measure} {plot_literal(baseline)}: %{{customdata[1]:.2f}}<br>"
                f"{measure} {plot_literal(candidate)}: %{{customdata[2]:.2f}}<br>"
                "click to compare its ranked lists<extra></extra>"
            ),
        )
    cells = points.drop_duplicates(["baseline", "candidate"])
    for _, cell in cells.iterrows():
        fig.add_annotation(
            x=cell["baseline"] + 2 * JITTER,
            y=cell["candidate"] + 2 * JITTER,
            text=f"{int(cell['same_cell']):,}",
            showarrow=False,
            font={"size": FONT, "color": "#222222"},
            bgcolor="rgba(255,255,255,0.8)",
            xanchor="left",
            yanchor="bottom",
        )
    fig.add_scatter(
        x=[-0.1, 1.1],
        y=[-0.1, 1.1],
        mode="lines",
        line={"color": "#999999", "dash": "dot", "width": 1},
        hoverinfo="skip",
        showlegend=False,
    )
    fig.update_layout(clickmode="event+select")
    ticks = {"tickvals": [0, 0.25, 0.5, 0.75, 1], "zeroline": False}
    fig.update_xaxes(range=[-0.12, 1.2], **ticks)
    fig.update_yaxes(range=[-0.12, 1.2], **ticks)
    fig = _layout(
        fig,
        f"{measure} per query (numbers: queries at that point)",
        f"{measure} of {plot_literal(baseline)} (baseline)",
        f"{measure} of {plot_literal(candidate)} (candidate)",
        height=560,
    )
    fig.update_layout(legend={"orientation": "v", "y": 1.0, "x": 1.02, "yanchor": "top"})
    fig.update_layout(margin={"r": 20})
    return fig


def point_query(point: dict) -> str:
    """The query id of a clicked scatter point (its customdata's first value)."""
    custom = point.get("customdata")
    if isinstance(custom, list | tuple) and custom:
        return str(custom[0])
    return ""


def _rank_text(rank, k: int) -> str:
    if pd.isna(rank):
        return NOT_RETRIEVED
    rank = int(rank)
    return str(rank) if rank <= k else f"{rank} (below k)"


def judgment_text(rows: pd.DataFrame) -> list[str]:
    """Each chunk's judgment as a reader sees it: mark, who judged it, the harmful flag."""
    return [
        (f"{MARK_TEXT[HARMFUL]} · " if harmful else "")
        + MARK_TEXT[judgment]
        + (f" ({by})" if isinstance(by, str) else "")
        for judgment, harmful, by in zip(
            rows["judgment"], rows["harmful"], rows["judged_by"], strict=True
        )
    ]


def relevant_moves(sbs: pd.DataFrame, k: int) -> pd.DataFrame:
    """Where each chunk relevant under the policy sits in each run."""
    rows = sbs[sbs["judgment"] == "relevant"]
    return pd.DataFrame(
        {
            "chunk_id": rows["chunk_id"],
            "baseline rank": [_rank_text(r, k) for r in rows["baseline_rank"]],
            "candidate rank": [_rank_text(r, k) for r in rows["candidate_rank"]],
            "movement": rows["movement"],
        }
    ).reset_index(drop=True)


def entered_left(sbs: pd.DataFrame, k: int) -> pd.DataFrame:
    """Chunks that entered or left the top k between the runs."""
    rows = sbs[sbs["movement"].isin(["entered top k", "left top k"])]
    return pd.DataFrame(
        {
            "movement": rows["movement"],
            "chunk_id": rows["chunk_id"],
            "judgment": judgment_text(rows),
            "baseline rank": [_rank_text(r, k) for r in rows["baseline_rank"]],
            "candidate rank": [_rank_text(r, k) for r in rows["candidate_rank"]],
        }
    ).reset_index(drop=True)


def unjudged_summary(unjudged: pd.DataFrame, queries: int) -> str:
    """One sentence on new unjudged chunks across the compared queries."""
    if unjudged.empty:
        return "No chunk in the candidate's top k is both new and unjudged."
    return (
        f"{len(unjudged)} chunks in the candidate's top k are new (not in the baseline's "
        f"top k) and unjudged, in {unjudged['query_id'].nunique()} of {queries} queries: "
        "the candidate may look worse only because nobody judged them. Pool and judge them "
        "before trusting a loss."
    )
