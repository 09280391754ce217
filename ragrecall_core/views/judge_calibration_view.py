"""What the Agreement page can say about model judges (issue 32): each judge against each
human and the humans' resolved grades, as frames and lines a page lays out
(:func:`calibration_view`); the figures are :mod:`ragrecall_core.analysis.calibration`'s.

>>> JUDGE_COLUMNS["tau"]
"Kendall's tau (run ranking)"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ragrecall_core.analysis.calibration import SMALL_SAMPLE, calibration
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import plural

CAPTION = (
    "Each model judge against each annotator and against the humans' resolved grades, on the "
    "chunks both graded: kappa (1 = perfect, 0 = chance), precision and recall of relevant "
    "(grade ≥ 1), and Kendall's tau between the run ranking the judge's grades give and the "
    "humans' (1 = same order). A judge's grades count only when asked; measure it here first."
)
NO_JUDGE = (
    "No judge graded a chunk a human graded: run `ragrecall judge WORKSPACE --judge "
    "MODULE:NAME --include-judged` to measure one against the humans."
)
JUDGE_COLUMNS = {
    "judge": "judge",
    "reference": "against",
    "pairs": "shared chunks",
    "kappa": "Cohen's kappa",
    "kappa_linear": "linear-weighted kappa",
    "precision": "precision (relevant)",
    "precision_pairs": "chunks it calls relevant",
    "recall": "recall (relevant)",
    "recall_pairs": "chunks humans call relevant",
    "tau": "Kendall's tau (run ranking)",
    "runs": "runs ranked",
}


@dataclass(frozen=True)
class CalibrationView:
    """The table, the confusion tables (title, frame) and the warnings to show."""

    table: pd.DataFrame
    confusions: list[tuple[str, pd.DataFrame]]
    warnings: list[str]
    note: str  # NO_JUDGE when there is nothing to show, else ''


def calibration_view(
    workspace: Workspace, query_ids: Sequence[str] | None = None
) -> CalibrationView:
    """The Agreement page's judge section, under the sidebar's filters (``query_ids``)."""
    result = calibration(workspace, query_ids)
    if result.rows.empty:
        return CalibrationView(pd.DataFrame(columns=list(JUDGE_COLUMNS.values())), [], [], NO_JUDGE)
    table = result.rows[list(JUDGE_COLUMNS)].rename(columns=JUDGE_COLUMNS)
    confusions = []
    for (judge, reference), counts in result.confusion.items():
        shown = counts.copy()
        shown.index = [f"{reference}: {g}" for g in counts.index]
        shown.columns = [f"{judge}: {g}" for g in counts.columns]
        confusions.append((f"{judge} against {reference}", shown))
    warnings = [
        f"{row.judge} against {row.reference}: only {plural(row.pairs, 'shared chunk')} "
        f"(fewer than {SMALL_SAMPLE}), too few to trust these figures."
        for row in result.rows[result.rows.small_sample].itertuples(index=False)
    ]
    return CalibrationView(table, confusions, warnings, "")
