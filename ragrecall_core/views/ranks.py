"""Where the first relevant item lands: counts per rank bin and run, and Hit@k as k grows.

The data behind the Ranks page's charts (the figures are in :mod:`.charts`).

Both come from the ``FirstRank`` column of the per-query table (no cutoff; none
when no relevant item was retrieved), over answerable queries only. Hit@k is
the share of queries whose first relevant rank is at most k, so the curve at k
equals the ``Hit@k`` measure.
"""

from __future__ import annotations

import pandas as pd

NOT_RETRIEVED = "not retrieved"


def rank_bins(depth: int) -> list[tuple[str, int, int]]:
    """Bins ``(label, low, high)``: single ranks up to 10, then wider ranges up to ``depth``."""
    bins = [(str(r), r, r) for r in range(1, min(depth, 10) + 1)]
    edges = [11, 21, 51, 101, 201, 501, 1001]
    low = 11
    for edge in edges[1:]:
        if low > depth:
            break
        high = min(edge - 1, depth)
        bins.append((f"{low}–{high}" if high > low else str(low), low, high))
        low = edge
    if low <= depth:
        bins.append((f"{low}–{depth}", low, depth))
    return bins


def bin_labels(first_rank: pd.Series, depth: int) -> pd.Series:
    """The bin label of every first relevant rank (``not retrieved`` when there is none);
    a rank past ``depth`` falls in the last bin."""
    bins = rank_bins(depth)
    if not bins:
        return pd.Series(NOT_RETRIEVED, index=first_rank.index, dtype=object)
    edges = [bins[0][1] - 0.5, *(high + 0.5 for _, _, high in bins[:-1]), float("inf")]
    labels = pd.cut(first_rank, edges, labels=[label for label, _, _ in bins], ordered=False)
    return labels.astype(object).where(first_rank.notna(), NOT_RETRIEVED)


def answerable(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["relevant"] > 0]


def answerable_counts(table: pd.DataFrame) -> str:
    """``"n = 30 (bm25) · n = 29 (dense)"``: how many queries each run's shares are of."""
    counts = answerable(table).groupby("run", sort=False).size()
    return " · ".join(f"n = {n} ({run})" for run, n in counts.items())


def given_columns(table: pd.DataFrame, columns: list[str]) -> list[str]:
    """``columns`` without the text columns no row of ``table`` fills, in order."""
    optional = ("query", "query_type", "section")
    return [
        c
        for c in columns
        if c not in optional or table[c].astype("string").replace("", pd.NA).notna().any()
    ]


def with_bins(table: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Answerable rows with a ``bin`` column (the first relevant rank's bin)."""
    rows = answerable(table).copy()
    rows["bin"] = bin_labels(rows["FirstRank"], depth)
    return rows


def first_rank_counts(table: pd.DataFrame, depth: int) -> pd.DataFrame:
    """``(run, bin, queries, share)`` for every bin (zeros kept), ``not retrieved`` last."""
    rows = with_bins(table, depth)
    labels = [b[0] for b in rank_bins(depth)] + [NOT_RETRIEVED]
    runs = list(dict.fromkeys(table["run"]))
    counts = rows.groupby(["run", "bin"]).size()
    totals = rows.groupby("run").size()
    records = []
    for run in runs:
        for label in labels:
            n = int(counts.get((run, label), 0))
            total = int(totals.get(run, 0))
            records.append(
                {"run": run, "bin": label, "queries": n, "share": n / total if total else 0.0}
            )
    return pd.DataFrame(records, columns=["run", "bin", "queries", "share"])


def hit_rate_by_depth(table: pd.DataFrame, depths: dict[str, int]) -> pd.DataFrame:
    """``(run, k, hit)`` for k = 1 .. the run's depth: Hit@k over answerable queries."""
    rows = answerable(table)
    records = []
    for run, group in rows.groupby("run", sort=False):
        ranks = group["FirstRank"].to_numpy(dtype=float)
        n = len(ranks)
        for k in range(1, int(depths.get(run, 1)) + 1):
            hit = float((ranks <= k).sum()) / n if n else float("nan")
            records.append({"run": run, "k": k, "hit": hit})
    return pd.DataFrame(records, columns=["run", "k", "hit"])
