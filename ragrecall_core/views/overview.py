"""Numbers for the Overview page: headline table, query counts, no-answer summary."""

from __future__ import annotations

import pandas as pd

from ragrecall_core.analysis.query_table import headline

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
