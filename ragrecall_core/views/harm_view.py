"""Harm@k beside the dashboard's per-query table and headline measures.

Harm@k (``measures/harm.py``) is 1 when a chunk a reviewer flagged harmful is in the
top k; its mean is the share of queries harmed, and lower is better. It covers
no-answer queries too, so it is computed by :func:`~ragrecall_core.scoring.evaluate.evaluate`
over every query rather than taken from the query table.

>>> harm = harm_per_query(Workspace.open("data_samples"), 5)  # doctest: +SKIP
>>> list(harm.columns)                                         # doctest: +SKIP
['run', 'query_id', 'Harm@5']
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures.base import parse_requests
from ragrecall_core.scoring.evaluate import evaluate
from ragrecall_core.scoring.families import measure_rows_sql
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import prepare, scope_params


def harm_label(k: int) -> str:
    return f"Harm@{k}"


def harm_per_query(
    workspace: Workspace, k: int, runs: Sequence[str] | None = None, policy: Policy | None = None
) -> pd.DataFrame:
    """``(run, query_id, Harm@k)`` for every (run, gold query)."""
    label = harm_label(k)
    per_query = evaluate(workspace, [label], policy or Policy(), runs=runs).per_query
    out = per_query[["run", "query_id", "value"]].rename(columns={"value": label})
    return out.reset_index(drop=True)


def harm_for_cutoffs(
    workspace: Workspace, ks: Sequence[int], policy: Policy | None = None
) -> pd.DataFrame:
    """``(run, query_id, Harm@k for each k in ks)``: every cutoff from one run of the
    measures' SQL (what :func:`evaluate` runs) fetched as a frame, so the dashboard slices
    another k instead of evaluating again."""
    labels = [harm_label(k) for k in dict.fromkeys(ks)]  # each measure once (parse_requests)
    prepared = prepare(workspace, policy)
    measures = [r.measure for r in parse_requests(labels)]
    sql, params = measure_rows_sql(measures, prepared.policy, prepared.table)
    long = prepared.query(sql, {**params, **scope_params(None, None)})
    wide = long.pivot(index=["run", "query_id"], columns="m", values="value")
    wide = wide.reindex(columns=range(len(labels))).set_axis(labels, axis=1)
    return wide.reset_index().rename_axis(columns=None)


def with_harm(rows: pd.DataFrame, harm: pd.DataFrame, k: int) -> pd.DataFrame:
    """``rows`` (query-table rows) with a ``Harm@k`` column, order and index kept."""
    label = harm_label(k)
    merged = rows[["run", "query_id"]].merge(harm, on=["run", "query_id"], how="left")
    return rows.assign(**{label: merged[label].to_numpy()})


def add_harm_cell(headline: pd.DataFrame, summary: pd.DataFrame, k: int) -> pd.DataFrame:
    """The Overview's headline table with ``Harm@k ↓`` as ``mean [low–high]`` before queries."""
    label = harm_label(k)
    rows = summary[summary["measure"] == label].set_index("run")
    cells = [
        f"{rows.at[run, 'value']:.3f}  [{rows.at[run, 'low']:.3f}–{rows.at[run, 'high']:.3f}]"
        if run in rows.index and pd.notna(rows.at[run, "value"])
        else "—"
        for run in headline["run"]
    ]
    out = headline.copy()
    position = list(out.columns).index("queries") if "queries" in out else len(out.columns)
    out.insert(position, f"{label} ↓", cells)
    return out


def add_harm_column(
    display: pd.DataFrame, rows: pd.DataFrame, harm: pd.DataFrame, k: int, after: str = "RR"
) -> pd.DataFrame:
    """The Queries page's display frame with ``Harm@k`` (row-aligned with ``rows``) added."""
    label = harm_label(k)
    values = with_harm(rows, harm, k)[label].to_numpy()
    out = display.copy()
    position = list(out.columns).index(after) + 1 if after in out else len(out.columns)
    out.insert(position, label, values[: len(out)] if len(values) else [])
    return out
