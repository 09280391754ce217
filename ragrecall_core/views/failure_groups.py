"""Failing queries (under the pass rule, :mod:`ragrecall_core.analysis.pass_rule`) grouped
along one dimension, counts beside rates.

A small group that fails every time is as visible as a large one that fails
half the time (a good mean can hide a rare but critical section), so
every group carries ``failing`` (how many fail), ``queries`` (how many there
are) and ``rate`` (their share).

>>> failure_groups(table, "section")                                    # doctest: +SKIP
   run   dimension  group   failing  queries  rate
"""

from __future__ import annotations

import pandas as pd

from ragrecall_core.analysis.query_table import MISSING, NO_ANSWER, NO_CORPUS, NO_REASON

# dimension key -> (column of the per-query table, label shown to people)
DIMENSIONS: dict[str, tuple[str, str]] = {
    "failure_class": ("failure_class", "failure class"),
    "query_type": ("query_type", "query type"),
    "section": ("section", "corpus section"),
    "doc_length": ("doc_length", "document length"),
    "reason": ("reason", "reviewer reason"),
}
# what the review meeting decided (ragrecall_core.analysis.verdicts), not a property of the
# data: never "missing", its groups are the reasons and "no verdict yet"
MEETING_DIMENSIONS: dict[str, tuple[str, str]] = {"verdict": ("verdict", "meeting reason")}
ALL_DIMENSIONS = {**DIMENSIONS, **MEETING_DIMENSIONS}
# the group of failing queries the meeting has not given a verdict yet
NO_VERDICT = "no verdict yet"
# dimensions whose groups are of failing queries only (``queries`` = all answerable ones)
OF_FAILING = ("failure_class", "reason", "verdict")
COLUMNS = ["run", "dimension", "group", "failing", "queries", "rate"]
# dimension -> (the value meaning "the data does not say", what would enable the grouping)
ENABLED_BY: dict[str, tuple[str | None, str]] = {
    "query_type": (None, "add `query_type` to the gold to group by query type"),
    "section": (None, "add `section` to the gold or a corpus to group by section"),
    "doc_length": (NO_CORPUS, "load a corpus (`chunk_id, doc_id, text`) to group by length"),
    "reason": (NO_REASON, "load reviewers' grades with a `reason` to group by reason"),
}


def missing_dimensions(table: pd.DataFrame) -> dict[str, str]:
    """Dimensions the answerable queries carry no value of, each with what would enable it:
    a grouping of them would be one "(not given)" bar, which says nothing."""
    rows = table[table["failure_class"] != NO_ANSWER]
    missing = {}
    for dimension, (absent, enabler) in ENABLED_BY.items():
        values = rows[DIMENSIONS[dimension][0]].astype("string").replace("", pd.NA)
        if absent is not None:
            values = values.mask(values == absent)
        if values.isna().all():
            missing[dimension] = enabler
    return missing


def failure_groups(table: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Per run and group of ``dimension``: failing queries, all queries, and the rate.

    Only answerable queries count (no-answer queries have no Recall). For
    ``failure_class`` the groups are the classes of failing queries and
    ``queries`` is every answerable query of the run; for ``reason`` the
    reason is the reviewers' most frequent one among the top-k chunks; for ``verdict`` (the
    meeting's reason, :mod:`ragrecall_core.analysis.verdicts`) the same, failing queries
    without one grouped as "no verdict yet".
    """
    if dimension not in ALL_DIMENSIONS:
        raise KeyError(f"unknown dimension {dimension!r}: one of {', '.join(ALL_DIMENSIONS)}")
    column = ALL_DIMENSIONS[dimension][0]
    rows = table[table["failure_class"] != NO_ANSWER].copy()
    if column not in rows.columns:  # verdicts not attached: none recorded as far as known
        rows[column] = ""
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    empty = NO_VERDICT if dimension == "verdict" else MISSING
    rows["group"] = rows[column].astype("string").fillna(empty).replace("", empty)
    if dimension in OF_FAILING:
        totals = rows.groupby("run").size().rename("queries")
        failing = rows[rows["failing"]].groupby(["run", "group"]).size().rename("failing")
        out = failing.reset_index().merge(totals.reset_index(), on="run")
    else:
        out = (
            rows.groupby(["run", "group"])
            .agg(failing=("failing", "sum"), queries=("failing", "size"))
            .reset_index()
        )
    out["failing"] = out["failing"].astype(int)
    out["queries"] = out["queries"].astype(int)
    out["rate"] = out["failing"] / out["queries"]
    out.insert(1, "dimension", dimension)
    order = out.groupby("group")["failing"].sum().sort_values(ascending=False)
    if dimension == "verdict":  # what the meeting decided first, what still waits last
        order = pd.concat([order.drop(NO_VERDICT, errors="ignore"), order.filter([NO_VERDICT])])
    runs = {run: i for i, run in enumerate(dict.fromkeys(table["run"]))}
    out["group_order"] = out["group"].map({g: i for i, g in enumerate(order.index)})
    out["run_order"] = out["run"].map(runs)
    out = out.sort_values(["group_order", "run_order"]).drop(columns=["group_order", "run_order"])
    return out[COLUMNS].reset_index(drop=True)
