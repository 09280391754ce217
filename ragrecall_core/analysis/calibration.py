"""Calibration before trust: each model judge against each human annotator and against
the humans' resolved grades, on the (query, chunk) pairs both graded.

Per judge and reference: the pairs behind it; Cohen's kappa unweighted and linear
(:func:`.agreement.cohen_kappa`, the judge's grades first); the 3×3 confusion table (rows:
the reference's grade, columns: the judge's); precision and recall of "relevant" (grade
>= ``rel_level``, default 1) with the pairs behind each (the judge's relevant pairs for
precision, the reference's for recall); and Kendall's tau (tau-b, scipy) between the run
ranking the judge's grades give and the one the reference's give. A run's score for that
ranking is the share of relevant pairs among the both-graded pairs in its top ``depth``
(a condensed list: unjudged chunks left out), so both rankings rest on the same pairs.
Fewer than :data:`SMALL_SAMPLE` pairs are flagged: the figures are then too noisy to trust.

The humans' resolved grade of a pair is its latest resolution, else the grade its human
annotators agree on (one annotator's grade counts); a disagreement not yet resolved has
none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from ragrecall_core.analysis.agreement import GRADES, RESOLVED_SQL, cohen_kappa
from ragrecall_core.analysis.pooling import DEFAULT_DEPTH
from ragrecall_core.inputs import store
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import one_line, plural, text_table

SMALL_SAMPLE = 50
RESOLVED = "humans (resolved)"
KEYS = ["query_id", "chunk_id"]
COLUMNS = [
    "judge",
    "reference",
    "pairs",
    "kappa",
    "kappa_linear",
    "precision",
    "precision_pairs",
    "recall",
    "recall_pairs",
    "tau",
    "runs",
    "small_sample",
]

HUMAN_SQL = """
SELECT query_id, chunk_id, grade, annotator FROM all_grades
WHERE query_id IN (SELECT query_id FROM queries)
  AND (NOT $filtered OR list_contains(CAST($ids AS VARCHAR[]), query_id))
"""
TOP_SQL = """
SELECT run, query_id, chunk_id FROM runs WHERE rank <= $depth
"""


@dataclass
class Calibration:
    """One row per (judge, reference) and its confusion table."""

    rows: pd.DataFrame
    confusion: dict[tuple[str, str], pd.DataFrame]
    rel_level: int = 1

    def to_frame(self) -> pd.DataFrame:
        return self.rows.copy()

    def to_dict(self) -> dict:
        return {
            "rel_level": self.rel_level,
            "small_sample": SMALL_SAMPLE,
            "judges": [
                {
                    **row,
                    "confusion": confusion_records(
                        self.confusion[(row["judge"], row["reference"])]
                    ),
                }
                for row in self.rows.to_dict("records")
            ],
        }

    def to_text(self) -> str:
        if self.rows.empty:
            return (
                "no judge graded a pair a human graded: run `ragrecall judge WORKSPACE "
                "--include-judged` to measure a judge against the humans\n"
            )
        lines = [
            "judges against the humans, on the pairs both graded (relevant: grade >= "
            f"{self.rel_level}; tau: the run ranking by the judge's grades vs the reference's):",
            text_table(self.rows.drop(columns=["small_sample"]), "", digits=3),
        ]
        small = self.rows[self.rows.small_sample]
        for row in small.itertuples(index=False):
            lines.append(
                f"warning: {one_line(row.judge)} vs {one_line(row.reference)} rests on "
                f"{plural(row.pairs, 'pair')} (< {SMALL_SAMPLE}): too few to trust"
            )
        for (judge, reference), table in self.confusion.items():
            lines += [
                "",
                f"{one_line(judge)} vs {one_line(reference)} (rows: the reference's "
                "grade, columns: the judge's):",
                confusion_text(table),
            ]
        return "\n".join(lines) + "\n"


def confusion_records(table: pd.DataFrame) -> list[dict]:
    return [
        {"reference_grade": int(g), **{f"judge_{j}": int(n) for j, n in row.items()}}
        for g, row in table.iterrows()
    ]


def confusion_text(table: pd.DataFrame) -> str:
    shown = table.copy()
    shown.columns = [f"judge {g}" for g in shown.columns]
    shown.insert(0, "reference", [f"grade {g}" for g in table.index])
    return text_table(shown, "")


def confusion_table(reference: np.ndarray, judge: np.ndarray) -> pd.DataFrame:
    """Counts of (reference grade, judge grade) over 0/1/2."""
    counts = np.zeros((len(GRADES), len(GRADES)), dtype=int)
    np.add.at(counts, (np.asarray(reference, int), np.asarray(judge, int)), 1)
    return pd.DataFrame(counts, index=list(GRADES), columns=list(GRADES))


def resolved_grades(workspace: Workspace, humans: pd.DataFrame) -> pd.DataFrame:
    """``query_id, chunk_id, grade``: the latest resolution, else the humans' one grade."""
    agreed = humans.groupby(KEYS).grade.agg(["min", "max"]).reset_index()
    agreed = agreed[agreed["min"] == agreed["max"]].rename(columns={"min": "grade"})
    resolutions = workspace.cursor().execute(RESOLVED_SQL).df()
    resolutions = resolutions.rename(columns={"resolved_grade": "grade"})[[*KEYS, "grade"]]
    merged = pd.concat([resolutions, agreed[[*KEYS, "grade"]]]).drop_duplicates(KEYS)
    return merged[merged.set_index(KEYS).index.isin(humans.set_index(KEYS).index)]


def run_tau(both: pd.DataFrame, top: pd.DataFrame, rel_level: int) -> tuple[float, int]:
    """Kendall's tau-b between the run rankings of the judge's and the reference's grades
    (each run: share of relevant among its both-graded top pairs), and how many runs."""
    listed = top.merge(both, on=KEYS)
    if listed.empty:
        return float("nan"), 0
    listed["by_judge"] = listed.grade_judge >= rel_level
    listed["by_reference"] = listed.grade_reference >= rel_level
    scores = listed.groupby("run")[["by_judge", "by_reference"]].mean()
    if len(scores) < 2:
        return float("nan"), len(scores)
    tau = kendalltau(scores.by_judge, scores.by_reference)[0]
    return float(tau), len(scores)


def compare(
    judge: pd.DataFrame, reference: pd.DataFrame, top: pd.DataFrame, rel_level: int
) -> tuple[dict, pd.DataFrame]:
    """The figures of one judge against one reference on the pairs both graded."""
    both = judge.merge(reference, on=KEYS, suffixes=("_judge", "_reference"))
    j, r = both.grade_judge.to_numpy(int), both.grade_reference.to_numpy(int)
    judged_relevant, truly_relevant = j >= rel_level, r >= rel_level
    hits = int((judged_relevant & truly_relevant).sum())
    tau, runs = run_tau(both, top, rel_level)
    row = {
        "pairs": len(both),
        "kappa": cohen_kappa(j, r) if len(both) else float("nan"),
        "kappa_linear": cohen_kappa(j, r, "linear") if len(both) else float("nan"),
        "precision": hits / judged_relevant.sum() if judged_relevant.any() else float("nan"),
        "precision_pairs": int(judged_relevant.sum()),
        "recall": hits / truly_relevant.sum() if truly_relevant.any() else float("nan"),
        "recall_pairs": int(truly_relevant.sum()),
        "tau": tau,
        "runs": runs,
        "small_sample": len(both) < SMALL_SAMPLE,
    }
    return row, confusion_table(r, j)


def calibration(
    workspace: Workspace,
    query_ids: Sequence[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    rel_level: int = 1,
) -> Calibration:
    """Each judge against each human annotator and the humans' resolved grades."""
    params = {"filtered": query_ids is not None, "ids": list(query_ids or [])}
    humans = workspace.cursor().execute(HUMAN_SQL, params).df()
    judges = store.judge_grades(workspace)
    if query_ids is not None:
        judges = judges[judges.query_id.isin(list(query_ids))]
    top = workspace.cursor().execute(TOP_SQL, {"depth": depth}).df()
    references = {
        name: group[[*KEYS, "grade"]] for name, group in humans.groupby("annotator", sort=True)
    }
    references[RESOLVED] = resolved_grades(workspace, humans)
    rows, tables = [], {}
    for judge_name, graded in judges.groupby("annotator", sort=True):
        for reference_name, reference in references.items():
            row, table = compare(graded[[*KEYS, "grade"]], reference, top, rel_level)
            if row["pairs"] == 0:
                continue
            rows.append({"judge": judge_name, "reference": reference_name, **row})
            tables[(judge_name, reference_name)] = table
    return Calibration(pd.DataFrame(rows, columns=COLUMNS), tables, rel_level)
