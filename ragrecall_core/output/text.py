"""Renderers of an :class:`~ragrecall_core.scoring.evaluate.Evaluation` for the command line.

numpy and pandas are imported inside the functions that need them: the command line
imports this module to build its parser, and ``ragrecall --help`` should not wait for them.
"""

from __future__ import annotations

import io
import json
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from ragrecall_core.scoring.evaluate import Evaluation

FORMATS = ("table", "tsv", "csv", "json")
MISSING = "—"  # what a person sees for a missing value, instead of None / nan / <NA>

LONG_COLUMNS = ["run", "query_id", "measure", "value"]


def render(evaluation: Evaluation, fmt: str, per_query: bool = False) -> str:
    if fmt == "json":
        return json_text(evaluation.to_dict(per_query=per_query))
    if fmt in ("tsv", "csv"):
        return long_text(evaluation, per_query, "\t" if fmt == "tsv" else ",")
    return table_text(evaluation, per_query)


def long_frame(evaluation: Evaluation, per_query: bool) -> pd.DataFrame:
    """Means as ``query_id = all`` rows, then (optionally) every query's values."""
    import pandas as pd

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
                f"{run}: {plural(na['queries'], 'no-answer query', 'no-answer queries')} "
                f"outside the means, {na['with_results']} still got results"
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
    import numpy as np
    import pandas as pd

    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or value is pd.NaT or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return value


def cell_text(value, digits: int = 4) -> str:
    """One table cell as a person reads it: words for booleans, a dash for a missing value,
    never Python's ``None`` / ``nan`` / ``True``.

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
    return str(value)


def text_table(frame: pd.DataFrame, empty: str, digits: int = 4) -> str:
    """A terminal table of ``frame`` with every cell as :func:`cell_text` shows it, or the
    sentence ``empty`` when it has no row (never pandas' ``Empty DataFrame``)."""
    if frame.empty:
        return empty
    shown = frame.astype(object).map(lambda value: cell_text(value, digits))
    return shown.to_string(index=False)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 query``, ``2 queries``: a count with its noun in the right number."""
    return f"{count} {singular if count == 1 else plural_form or singular + 's'}"
