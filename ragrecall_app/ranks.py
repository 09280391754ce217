"""The Ranks page's charts of one view, built once (:func:`view`), and a bar click that
opens its bin's queries on Queries (:func:`follow_click`); ``pages/ranks.py`` lays them
out. The frames come from :mod:`ragrecall_core.views.ranks`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragrecall_app.context import Context, current
from ragrecall_app.group_click import clicked, open_queries
from ragrecall_core.views import charts, ranks

if TYPE_CHECKING:
    import plotly.graph_objects as pgo


@dataclass(frozen=True)
class RanksView:
    """The Ranks page of one view: shared by reruns and sessions (read-only)."""

    counts: str  # answerable queries per run, in words
    histogram: pgo.Figure  # where the first relevant item lands, per run
    trace_runs: tuple[str, ...]  # the histogram's runs, trace by trace
    curve: pgo.Figure  # Hit@k as k grows


def view(ctx: Context) -> RanksView:
    """The Ranks charts of the view on screen (built on the view's first rerun)."""
    return ctx.memo("ranks", lambda: _build(ctx))


def _build(ctx: Context) -> RanksView:
    s = ctx.state
    rows = ctx.rows(failing=False, group_filters=False)
    # the bins of the query table (its rank_bin column): up to the longest list of any run
    depth = max(ctx.depths.values() or [1])
    hist = ranks.first_rank_counts(rows, depth)
    curve = ranks.hit_rate_by_depth(rows, {r: ctx.depths.get(r, 1) for r in s.runs})
    return RanksView(
        counts=ranks.answerable_counts(rows),
        histogram=charts.first_rank_histogram(hist, ctx.colors),
        trace_runs=tuple(dict.fromkeys(hist["run"])),
        curve=charts.hit_curve(curve, ctx.colors, s.k),
    )


def follow_click(ctx: Context, shown: RanksView) -> None:
    """A bar picked on the last run opens its bin's queries on Queries (one behaviour for
    every bar, the filter named in a banner there): before this page draws anything."""
    bar = clicked("ranks_hist", shown.trace_runs, "x")
    if bar:
        run, label = bar
        open_queries(ctx, run, "rank_bin", label)  # the sidebar's "failing only" kept


def on_click() -> None:
    """The histogram's callback: a bar picked switches to Queries before this page's script
    runs again (streamlit runs callbacks first, and a switch there skips the run), with the
    view the click was made on (:func:`follow_click` again: the page's own call then finds
    the selection seen and does nothing)."""
    ctx = current()
    follow_click(ctx, view(ctx))
