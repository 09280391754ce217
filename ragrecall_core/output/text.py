"""Renderers of an :class:`~ragrecall_core.scoring.evaluate.Evaluation` for the command line.

Ids and names are file text: every text, table, TSV and CSV renderer shows them through
:func:`~ragrecall_core.errors.one_line` (a control, bidi or line-separator character as its
escape), so none can forge, erase or reorder a line; JSON keeps the exact values.

numpy and pandas are imported inside the functions that need them: the command line
imports this module to build its parser, and ``ragrecall --help`` should not wait for them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ragrecall_core.errors import one_line

if TYPE_CHECKING:
    import pandas as pd


class Described(Protocol):
    def describe(self) -> str: ...


class Evaluation(Protocol):
    """What the renderers read of :class:`ragrecall_core.scoring.evaluate.Evaluation`,
    named here so that this module, which every layer uses, imports no layer above it."""

    rows: Sequence[tuple]
    means: Sequence[tuple]
    policy: Described
    runs: Sequence[str]
    warnings: Mapping[str, Sequence[str]]
    no_answer: Mapping[str, Mapping]

    @property
    def labels(self) -> Sequence[str]: ...

    def mean(self, run: str, measure: str) -> tuple[float | None, int] | None: ...

    def wide(self) -> pd.DataFrame: ...

    def to_dict(self, per_query: bool = False) -> dict: ...


FORMATS = ("table", "tsv", "csv", "json")
# the formats that show an evaluation's notes: its warnings and no-answer counts
NOTES_SHOWN = ("table", "json")
MISSING = "—"  # what a person sees for a missing value, instead of None / nan / <NA>

# what a spreadsheet reads as the start of a formula in a CSV cell
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value):
    """Prefix a cell a spreadsheet would run as a formula with ``'``; so that the prefix
    can be taken off again exactly (a verdicts import does), a cell that starts like one
    after its leading quotes gets one more.

    >>> neutralise("=HYPERLINK(1)"), neutralise("'=1"), neutralise(-0.5), neutralise("'ok")
    ("'=HYPERLINK(1)", "''=1", -0.5, "'ok")
    """
    if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_START):
        return "'" + value
    return value


# scope: "query" for a query's value, "mean" for a run's mean (whose query_id is empty),
# so no query id (not even "all") can be read as a mean
LONG_COLUMNS = ["run", "query_id", "measure", "value", "scope"]


def render(evaluation: Evaluation, fmt: str, per_query: bool = False) -> str:
    if fmt == "json":
        return json_text(evaluation.to_dict(per_query=per_query))
    if fmt in ("tsv", "csv"):
        return long_text(evaluation, per_query, "\t" if fmt == "tsv" else ",")
    return table_text(evaluation, per_query)


def long_text(evaluation: Evaluation, per_query: bool, sep: str) -> str:
    """``run, query_id, measure, value, scope`` lines: (optionally) every query's values
    (``scope = query``), then the means (``scope = mean``, no query id); a missing value is
    an empty field."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sep, lineterminator="\n")
    writer.writerow(LONG_COLUMNS)
    if per_query:
        writer.writerows(
            (_cell(r), _cell(q), one_line(m), _fixed(v), "query") for r, q, m, v in evaluation.rows
        )
    writer.writerows(
        (_cell(r), "", one_line(m), _fixed(v), "mean") for r, m, v, _ in evaluation.means
    )
    return buffer.getvalue()


def _cell(text: str) -> str:
    """A run name or query id as a cell: on one line, and never run as a formula by a
    spreadsheet that opens the file (:func:`neutralise`)."""
    return neutralise(one_line(text))


def _fixed(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else f"{value:.4f}"


def table_text(evaluation: Evaluation, per_query: bool) -> str:
    """A terminal table: one row per run, one column per measure, then notes."""
    labels = evaluation.labels
    cells = [
        [one_line(run)] + [_fixed(_mean_of(evaluation, run, m)) or "-" for m in labels]
        for run in evaluation.runs
    ]
    lines = [aligned(["run", *map(one_line, labels)], cells)]
    counts = {m: 0 for m in labels}
    for _, m, _, n in evaluation.means:
        counts[m] = max(counts[m], n)
    lines.append("")
    counted = ", ".join(f"{m} {n}" for m, n in counts.items())
    lines.append(one_line(f"queries per mean: {counted}"))
    lines.append(f"policy: {evaluation.policy_line}")
    for run in evaluation.runs:
        na = evaluation.no_answer.get(run)
        if na and na["queries"]:
            lines.append(one_line(f"{run}: {no_answer_text(na)}"))
        lines += warning_lines(run, evaluation.warnings.get(run, []))
    if per_query:
        wide = evaluation.wide()
        wide[["run", "query_id"]] = wide[["run", "query_id"]].map(one_line)
        wide.columns = [one_line(c) for c in wide.columns]
        lines += ["", wide.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="-")]
    return "\n".join(lines) + "\n"


def no_answer_text(summary: Mapping) -> str:
    """A run's no-answer summary (``queries``, ``with_results``, and when results came
    their ``mean_top_score`` beside the answerable queries') as evaluate says it, and the
    report beside it.

    >>> no_answer_text({"queries": 2, "with_results": 0})
    '2 no-answer queries outside the means, 0 still got results'
    >>> no_answer_text({"queries": 2, "with_results": 1, "mean_top_score": 0.8125,
    ...                 "answerable_mean_top_score": 0.9})[-62:]
    'got results (mean top score 0.8125; answerable queries 0.9000)'
    """
    count = plural(summary["queries"], "no-answer query", "no-answer queries")
    said = f"{count} outside the means, {summary['with_results']} still got results"
    top, answerable = summary.get("mean_top_score"), summary.get("answerable_mean_top_score")
    if top is None:
        return said
    beside = "" if answerable is None else f"; answerable queries {answerable:.4f}"
    return f"{said} (mean top score {top:.4f}{beside})"


def warning_lines(run: str, warnings: Sequence[str]) -> list[str]:
    """Evaluate's warnings of ``run`` as it prints them, one line each: its table, and the
    stderr of every other command that says them (check, compare).

    >>> warning_lines("bm25", ["2 queries have tied scores at ranks 5 and 6"])
    ['warning: bm25: 2 queries have tied scores at ranks 5 and 6']
    """
    return [one_line(f"warning: {run}: {warning}") for warning in warnings]


def _mean_of(evaluation: Evaluation, run: str, measure: str) -> float | None:
    mean = evaluation.mean(run, measure)
    return None if mean is None else mean[0]


def aligned(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell: the first left-aligned, the others right."""
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    return "\n".join(line(cells) for cells in [header, *rows])


def json_text(data) -> str:
    """JSON of a command's result: numpy and pandas values become plain numbers, missing
    values null; any other value that is not JSON fails loudly instead of becoming a string."""
    return json.dumps(plain(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def plain(value):
    """``value`` with numpy scalars as Python numbers and NaN / NA as ``None``, at any depth.

    numpy and pandas are consulted only when already imported: a value of theirs cannot
    exist before, and a command that never needed them should not pay for their import."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    numpy, pandas = sys.modules.get("numpy"), sys.modules.get("pandas")
    if numpy is not None and isinstance(value, numpy.generic):
        value = value.item()
    if pandas is not None and (value is pandas.NA or value is pandas.NaT):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cell_text(value, digits: int = 4) -> str:
    """One table cell as a person reads it: words for booleans, a dash for a missing value,
    never Python's ``None`` / ``nan`` / ``True``; text through :func:`.one_line`.

    >>> import numpy as np, pandas as pd
    >>> [cell_text(v) for v in (None, float("nan"), pd.NA, True, np.False_, 0.5, np.int64(3))]
    ['—', '—', '—', 'yes', 'no', '0.5000', '3']
    """
    import numpy as np
    import pandas as pd

    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, (float, np.floating)):
        return MISSING if math.isnan(value) else f"{value:.{digits}f}"
    return one_line(value)


def text_table(frame: pd.DataFrame, empty: str, digits: int = 4) -> str:
    """A terminal table of ``frame`` with every cell as :func:`cell_text` shows it, or the
    sentence ``empty`` when it has no row (never pandas' ``Empty DataFrame``)."""
    if frame.empty:
        return empty
    shown = frame.astype(object).map(lambda value: cell_text(value, digits))
    shown.columns = [one_line(column) for column in shown.columns]
    return shown.to_string(index=False)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 query``, ``2 queries``: a count with its noun in the right number."""
    return f"{count} {singular if count == 1 else plural_form or singular + 's'}"
