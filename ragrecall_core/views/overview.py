"""Numbers for the Overview page: headline table, query counts, no-answer summary, and
whether reviewers' grades moved the headline numbers since the session first saw them."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ragrecall_core.analysis.query_table import headline
from ragrecall_core.inputs.store import STORE, is_open
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import plural

MISSING_LABEL = "(not given)"


def summary_measures(k: int) -> list[str]:
    """Per-query columns averaged on the Overview (RR's mean is MRR), Judged@k and the
    precision band's upper end (Pmax@k) beside P@k."""
    recall, hit, rr, precision, ndcg, judged, pmax = headline(k)
    return [recall, hit, rr, precision, pmax, judged, ndcg]


def band_label(k: int) -> str:
    """Short, so the headline table fits at 1600 px; :func:`band_help` explains it."""
    return f"P@{k} band"


def band_help(k: int) -> str:
    return f"P@{k} with unjudged chunks counted as not relevant … as relevant."


def mean_label(measure: str) -> str:
    """``RR@5`` -> ``MRR@5``: the mean of RR is MRR; other names stay."""
    return "M" + measure if measure.startswith("RR@") else measure


def headline_table(summary: pd.DataFrame, k: int) -> pd.DataFrame:
    """One row per run: each measure as ``mean [low–high]`` (the interval's bounds to two
    decimals), Judged@k beside P@k."""
    order = [f"Recall@{k}", f"Hit@{k}", f"RR@{k}", f"P@{k}", f"Judged@{k}", f"nDCG@{k}"]
    rows = []
    for run, group in summary.groupby("run", sort=False):
        by = group.set_index("measure")
        row = {"run": run}
        for m in order:
            if m in by.index and pd.notna(by.at[m, "value"]):
                # bounds to 2 decimals: ten columns must fit at 1600 px
                row[mean_label(m)] = (
                    f"{by.at[m, 'value']:.3f} [{by.at[m, 'low']:.2f}–{by.at[m, 'high']:.2f}]"
                )
            else:
                row[mean_label(m)] = "—"
        low, high = f"P@{k}", f"Pmax@{k}"
        if {low, high} <= set(by.index) and pd.notna(by.at[high, "value"]):
            row[band_label(k)] = f"{by.at[low, 'value']:.3f} – {by.at[high, 'value']:.3f}"
        row["queries"] = int(by["queries"].max()) if len(by) else 0
        rows.append(row)
    return pd.DataFrame(rows)


def chart_frame(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary with MRR naming, for the headline chart (the band's upper end stays in
    the table)."""
    out = summary[~summary["measure"].str.startswith("Pmax@")].copy()
    out["measure"] = out["measure"].map(mean_label)
    return out


def query_counts(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """``(value, queries)``: distinct queries per value of a query attribute."""
    queries = rows.drop_duplicates("query_id")
    values = queries[column].astype("string").fillna(MISSING_LABEL).replace("", MISSING_LABEL)
    counts = values.value_counts().rename_axis("value").reset_index(name="queries")
    return counts


def no_answer_table(top_scores: pd.DataFrame, runs) -> pd.DataFrame:
    """Per run, over the no-answer queries in view (``top_scores`` of
    :func:`ragrecall_core.analysis.no_answer.no_answer_report` under the sidebar's
    filters): how many there are, how many still got results, their mean top score.
    Every count of a row covers the same queries."""
    no_answer = top_scores[top_scores["kind"] == "no answer"]
    per_run = no_answer.groupby("run").agg(
        queries=("query_id", "nunique"),
        with_results=("top_score", "count"),
        mean_top_score=("top_score", "mean"),
    )
    table = per_run.reindex(list(runs)).rename_axis("run").reset_index()
    table[["queries", "with_results"]] = table[["queries", "with_results"]].fillna(0).astype(int)
    return table.rename(
        columns={
            "queries": "no-answer queries",
            "with_results": "still returned results",
            "mean_top_score": "mean top score",
        }
    )


# ---------------------------------------------------------------- grades since the session opened
SHOWN_PLACES = 3  # the headline table's decimals: a move is named when it shows there


@dataclass(frozen=True)
class Numbers:
    """A snapshot of what the Overview showed: how many grades and resolutions the judgment
    store held then (every stored row: a new grade, a changed one, an undo, a resolution)
    and each run's headline means, as ``(run, measure, mean)``."""

    stored: int
    means: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class GradeChange:
    """What reviewers' grades changed between two snapshots of the same view."""

    stored: int  # rows stored since (grades, their changes and undos, resolutions)
    moved: tuple[tuple[str, str, float, float], ...]  # (run, measure, before, after)

    def runs(self) -> list[str]:
        return list(dict.fromkeys(run for run, *_ in self.moved))

    def line(self) -> str:
        """One line for the Overview: how many grades, which runs' numbers moved (old → new)."""
        said = (
            f"Reviewers' grades changed since this session opened: "
            f"{plural(self.stored, 'grade')} stored"
        )
        if not self.moved:
            return said + "; no headline number moved (at 3 decimals)."
        per_run = [
            f"{run} "
            + ", ".join(
                f"{mean_label(m)} {old:.{SHOWN_PLACES}f} → {new:.{SHOWN_PLACES}f}"
                for r, m, old, new in self.moved
                if r == run
            )
            for run in self.runs()
        ]
        return said + "; " + "; ".join(per_run) + "."


def stored_rows(workspace: Workspace) -> int:
    """Rows of the judgment store's grades and resolutions (0 without a store): every new
    grade, change, undo or resolution adds one."""
    if not is_open(workspace):
        return 0
    sql = (
        f"SELECT (SELECT count(*) FROM {STORE}.judgments) "  # noqa: S608 - a constant name
        f"+ (SELECT count(*) FROM {STORE}.resolutions)"
    )
    return workspace.cursor().execute(sql).fetchone()[0]


def notice_measures(k: int) -> list[str]:
    """The headline means whose moves the notice names (Recall, MRR, P, nDCG at k)."""
    return [f"Recall@{k}", f"RR@{k}", f"P@{k}", f"nDCG@{k}"]


def numbers(workspace: Workspace, summary: pd.DataFrame, measures: list[str]) -> Numbers:
    """The snapshot of the ``measures`` of the headline ``summary`` (``run, measure,
    value``) and of the store."""
    means = tuple(
        (str(r.run), str(r.measure), float(r.value))
        for r in summary.itertuples(index=False)
        if r.measure in measures and pd.notna(r.value)
    )
    return Numbers(stored_rows(workspace), means)


def grade_change(before: Numbers, after: Numbers) -> GradeChange | None:
    """``None`` when nothing was stored between the two snapshots (of one view: same k,
    policy, rule, filters); else how many rows and which means moved as the table shows
    them (rounded to its decimals), in the run and measure order of ``after``."""
    if after.stored == before.stored:
        return None
    old = {(run, m): v for run, m, v in before.means}
    moved = tuple(
        (run, m, old[run, m], v)
        for run, m, v in after.means
        if (run, m) in old and round(old[run, m], SHOWN_PLACES) != round(v, SHOWN_PLACES)
    )
    return GradeChange(after.stored - before.stored, moved)
