"""What the Failures page says around its chart and table, and where a group leads: the
line of failing / answerable counts per run, the grouping picker's labels, and the Queries
page filter a group opens. The groups themselves come from
:mod:`ragrecall_core.views.failure_groups`; ``pages/failures.py`` over
:mod:`ragrecall_app.failures` only lays them out.

>>> group_filter("verdict", "no verdict yet")
('verdict', '(not given)')
>>> option_label("corpus section", missing=True)
'corpus section (not in this data)'
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import pandas as pd

from ragrecall_core.analysis.query_table import MISSING
from ragrecall_core.views.failure_groups import ALL_DIMENSIONS, NO_VERDICT

# dimension -> ViewState field its group filters on the Queries page
TARGET = {
    "failure_class": "failure_class",
    "query_type": "query_type",
    "section": "section",
    "doc_length": "doc_length",
    "reason": "reason",
    "verdict": "verdict",
}
GROUPS_CAPTION = "Select a row to open its failing queries on the Queries page."


def answerable(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of queries with a relevant chunk (the only ones that can fail)."""
    return rows[rows["relevant"] > 0]


def counts_caption(
    rows: pd.DataFrame, k: int, measure: str, literal: Callable[[str], str] = str
) -> str:
    """The line of failing / answerable queries per run (run names through ``literal``).

    >>> rows = pd.DataFrame({"run": ["a", "a", "a"], "relevant": [1, 1, 0],
    ...                      "failing": [True, False, False]})
    >>> counts_caption(rows, 5, "Recall@5").split(" · ")[:2]
    ['k = 5', 'queries with Recall@5 < 1, per run (failing / answerable): a 1 / 2']
    """
    per_run = answerable(rows).groupby("run", sort=False)
    return (
        f"k = {k} · queries with {measure} < 1, per run (failing / answerable): "
        + " · ".join(f"{literal(run)} {int(g['failing'].sum())} / {len(g)}" for run, g in per_run)
        + " · labels give failing / queries in the group (rate), so a small group that "
        "always fails stands out"
    )


def grouping_labels(columns: Collection[str]) -> dict[str, str]:
    """Dimension -> label of the groupings the rows' ``columns`` carry (the meeting's reason
    only when the rows carry the verdicts)."""
    return {key: label for key, (column, label) in ALL_DIMENSIONS.items() if column in columns}


def option_label(label: str, missing: bool) -> str:
    """A grouping's label in the picker, saying when the data lacks it."""
    return label + (" (not in this data)" if missing else "")


def group_filter(dimension: str, group: str) -> tuple[str, str]:
    """The Queries filter, ``(field, value)``, that opens a group's failing queries
    (:func:`ragrecall_app.group_click.open_queries` sets it, replacing an earlier one)."""
    value = MISSING if dimension == "verdict" and group == NO_VERDICT else group
    return TARGET[dimension], value


def chart_title(measure: str, label: str) -> str:
    return f"Failing queries ({measure} < 1) by {label}"


def missing_text(label: str, enabler: str) -> str:
    return f"No {label} in this data: {enabler}."


def none_failing(k: int) -> str:
    return f"No failing queries at k = {k} in this view."
