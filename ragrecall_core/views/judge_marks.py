"""What the dashboard says about model judges' grades (issue 32), besides calibration.

- :func:`judge_names`: the judges (annotators ``judge:NAME``) whose grades the workspace
  holds, for the sidebar's "Judge grades: show / count" control (:func:`policy_label`);
- :func:`with_judge_marks`: a query's detail with each chunk's judge grades as one mark
  (``judge:NAME 2``), kept apart from the humans' ``reviews`` and from the mark the measures
  use: shown, not counted, unless the policy counts that judge;
- :func:`ppi_table`: the prediction-powered interval of each headline mean when a judge is
  counted (:func:`ragrecall_core.analysis.judge_counting.count_judge`), in the Overview's
  cell format.

>>> policy_label(""), policy_label("judge:overlap")
('show (not counted)', 'count judge:overlap')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from ragrecall_core.analysis.query_detail import QueryDetail
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import plural
from ragrecall_core.views.overview import mean_label

NAMES_SQL = "SELECT DISTINCT annotator FROM judge_grades ORDER BY annotator"
MARKS_SQL = """
SELECT chunk_id, string_agg(annotator || ' ' || grade, ' · ' ORDER BY annotator)
       AS judge_marks
FROM judge_grades WHERE query_id = $q GROUP BY chunk_id
"""
POLICY_HELP = (
    "A model judge's grades (`ragrecall judge`) are shown beside the humans' and never count, "
    "unless counted here: then they judge the chunks neither the gold set nor a reviewer "
    "judged, every page says so, and the Overview gives each mean its prediction-powered "
    "95% interval. Measure the judge on the Agreement page first."
)
# short: they end a list's heading in the reading view (ragrecall_app.reading.judge_legend)
SHOWN_NOTE = "⚖ a model judge's grade: shown, not counted"
COUNTED_NOTE = "⚖ a model judge's grade: {judge} counted"


def judge_names(workspace: Workspace) -> tuple[str, ...]:
    """The model judges whose grades the workspace holds (files, and the store if attached)."""
    return tuple(row[0] for row in workspace.cursor().execute(NAMES_SQL).fetchall())


def policy_label(judge: str) -> str:
    """The sidebar's words for a choice: '' shows the judges' grades, a name counts it."""
    return f"count {judge}" if judge else "show (not counted)"


def with_judge_marks(
    workspace: Workspace, detail: QueryDetail, counted: str | None = None
) -> QueryDetail:
    """``detail`` with a ``judge_marks`` column on its gold and retrieved chunks: each
    judge's grade of the chunk for this query (``judge:a 2 · judge:b 0``), else missing;
    and ``judge_counted``: the judge the policy counts (``counted``), else missing."""
    if not detail.found:
        return detail
    marks = workspace.cursor().execute(MARKS_SQL, {"q": detail.query["query_id"]}).df()

    def marked(frame: pd.DataFrame) -> pd.DataFrame:
        if "chunk_id" not in frame.columns:
            return frame
        joined = frame.merge(marks, on="chunk_id", how="left").set_axis(frame.index)
        return joined.assign(judge_counted=counted)

    return replace(detail, gold=marked(detail.gold), retrieved=marked(detail.retrieved))


def marks_note(detail: QueryDetail) -> str:
    """One line saying what the judge marks on screen are ('' when there is none)."""
    frames = [f for f in (detail.gold, detail.retrieved) if "judge_marks" in f.columns]
    if not any(f["judge_marks"].notna().any() for f in frames):
        return ""
    counted = next((j for f in frames for j in f["judge_counted"].dropna()), None)
    return COUNTED_NOTE.format(judge=counted) if counted else SHOWN_NOTE


def ppi_measures(k: int) -> list[str]:
    """The headline means that get an interval (Judged@k is a count of judgments, not a
    measure a judge estimates)."""
    return [f"Recall@{k}", f"Hit@{k}", f"RR@{k}", f"P@{k}", f"nDCG@{k}"]


def ppi_table(
    intervals: pd.DataFrame, measures: list[str], runs: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per run (the ``runs`` shown, in their order, when given): each of
    ``measures`` as ``estimate [low–high]`` (the prediction-powered mean and its 95%
    interval, like the headline cells), '—' without an interval, and how many queries
    humans judged to the depth the correction rests on."""
    if runs is not None:
        order = {run: i for i, run in enumerate(runs)}
        intervals = intervals[intervals.run.isin(order)].sort_values(
            "run", key=lambda r: r.map(order)
        )
    rows = []
    for run, group in intervals.groupby("run", sort=False):
        by = group.set_index("measure")
        row: dict = {"run": run}
        for m in measures:
            if m in by.index and pd.notna(by.at[m, "ppi_low"]):
                estimate, low, high = by.loc[m, ["ppi_mean", "ppi_low", "ppi_high"]]
                row[mean_label(m)] = f"{estimate:.3f} [{low:.2f}–{high:.2f}]"
            else:
                row[mean_label(m)] = "—"
        judged = int(by["human_judged_queries"].min()) if len(by) else 0
        row["human-judged queries"] = plural(judged, "query", "queries")
        rows.append(row)
    return pd.DataFrame(rows)
