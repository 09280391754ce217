"""Renderers of an :class:`~ragrecall_core.evaluate.Evaluation` for the command line."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd

from .evaluate import Evaluation

FORMATS = ("table", "tsv", "csv", "json")

LONG_COLUMNS = ["run", "query_id", "measure", "value"]


def render(evaluation: Evaluation, fmt: str, per_query: bool = False) -> str:
    if fmt == "json":
        return json_text(evaluation.to_dict(per_query=per_query))
    if fmt in ("tsv", "csv"):
        return long_text(evaluation, per_query, "\t" if fmt == "tsv" else ",")
    return table_text(evaluation, per_query)


def long_frame(evaluation: Evaluation, per_query: bool) -> pd.DataFrame:
    """Means as ``query_id = all`` rows, then (optionally) every query's values."""
    mean = evaluation.aggregate.assign(query_id="all")[LONG_COLUMNS]
    if not per_query:
        return mean
    return pd.concat([evaluation.per_query[LONG_COLUMNS], mean], ignore_index=True)


def long_text(evaluation: Evaluation, per_query: bool, sep: str) -> str:
    buffer = io.StringIO()
    long_frame(evaluation, per_query).to_csv(
        buffer, sep=sep, index=False, float_format="%.4f", lineterminator="\n"
    )
    return buffer.getvalue()


def table_text(evaluation: Evaluation, per_query: bool) -> str:
    """A terminal table: one row per run, one column per measure, then notes."""
    agg = evaluation.aggregate
    table = agg.pivot(index="run", columns="measure", values="value")
    table = table.reindex(index=evaluation.runs, columns=evaluation.labels)
    lines = [table.to_string(float_format=lambda v: f"{v:.4f}", na_rep="-")]
    counts = agg.groupby("measure", sort=False).queries.max()
    lines.append("")
    lines.append("queries per mean: " + ", ".join(f"{m} {int(n)}" for m, n in counts.items()))
    lines.append(f"policy: {evaluation.policy.describe()}")
    for run in evaluation.runs:
        na = evaluation.no_answer.get(run)
        if na and na["queries"]:
            lines.append(
                f"{run}: {na['queries']} no-answer queries outside the means, "
                f"{na['with_results']} still got results"
            )
        for warning in evaluation.warnings.get(run, []):
            lines.append(f"warning: {run}: {warning}")
    if per_query:
        wide = evaluation.wide()
        lines += ["", wide.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="-")]
    return "\n".join(lines) + "\n"


def json_text(data) -> str:
    """JSON of a command's result: numpy and pandas values become plain numbers, missing
    values null; any other value that is not JSON fails loudly instead of becoming a string."""
    return json.dumps(plain(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def plain(value):
    """``value`` with numpy scalars as Python numbers and NaN / NA as ``None``, at any depth."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or value is pd.NaT or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return value
