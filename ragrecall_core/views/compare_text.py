"""What the Compare page says around its tables: the line naming the comparison, why no
config difference shows, one query's outcome line, the unjudged chunks in view, and which
outcome lists the page shows. The tables themselves come from
:mod:`ragrecall_core.views.compare_view`; ``pages/compare.py`` over
:mod:`ragrecall_app.compare` only lays them out.

>>> filters_text({"query_type": "paraphrase", "section": "hr"})
'query type = paraphrase, section = hr'
>>> filters_text({})
'all queries'
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd

from ragrecall_core.output.text import plural

# the sidebar filters Compare applies (the failures-only switch is not one of them)
FILTERS = ("split", "query_type", "section")
TEST_SPLIT_WARNING = (
    "You are comparing on the **test** split. Every look at the held-out split tunes the "
    "system to it, and repeated comparisons turn it into a training set: iterate on dev, "
    "and open test for the final decision only."
)
DELTAS_CAPTION = (
    "Mean over queries each run is scored on. p-value: paired randomization test (9,999 "
    "permutations); 95% CI: bootstrap of the mean delta. Wins / ties / losses count queries "
    "where the candidate is better / equal / worse; for Harm@k lower is better, so a "
    "decrease is a win."
)
NOT_COMPARED = "This query is not among the compared ones (no-answer, or outside the filters)."
# the expander that holds one measure's deltas by query type and by corpus section
BY_GROUP_TITLE = "Deltas by query type and by corpus section"
DOWNLOADS_TITLE = "Download the report or this comparison"
# (choice, table key, title, Comparison attribute) of the outcome lists, in page order; the
# choices are the view state's (dashboard_state.COMPARE_LISTS: a link names the list shown)
OUTCOME_LISTS = (
    (
        "regressions",
        "compare_regressions",
        "Regressions: passed in the baseline, fail in the candidate",
        "regressions",
    ),
    (
        "improvements",
        "compare_improvements",
        "Improvements: failed in the baseline, pass in the candidate",
        "improvements",
    ),
    ("still_failing", "compare_still_failing", "Still failing in both runs", "unchanged_failures"),
)
FULLY_LISTED = "compare_regressions"  # every regression is listed; the others are cut
LISTS_CAPTION = (
    "Select a row (or click a point of the chart above) to read the two ranked lists side by side."
)
# each outcome list's name on the control that picks the one shown
LIST_NAMES = {
    "regressions": "Regressions",
    "improvements": "Improvements",
    "still_failing": "Still failing",
}


def scatter_title(measure: str) -> str:
    """The title of the box holding each query's pass measure before and after.

    >>> scatter_title("RecallCap@5")
    'Per query: RecallCap@5 before and after (a chart; a point opens its query)'
    """
    return f"Per query: {measure} before and after (a chart; a point opens its query)"


def list_label(choice: str, count: int) -> str:
    """An outcome list's name with its count, on the control that picks the list shown.

    >>> list_label("still_failing", 5)
    'Still failing (5)'
    """
    return f"{LIST_NAMES[choice]} ({count})"


def applied_filters(filters: Mapping[str, str]) -> dict[str, str]:
    """The sidebar filters (column -> value) that Compare applies."""
    return {c: v for c, v in filters.items() if c in FILTERS}


def filters_text(filters: Mapping[str, str]) -> str:
    """The applied filters in words, ``all queries`` when there is none."""
    if not filters:
        return "all queries"
    return ", ".join(f"{c.replace('_', ' ')} = {v}" for c, v in filters.items())


def no_config_difference(configs: Mapping[str, object], runs: Collection[str]) -> str:
    """Why the config difference table is empty: a run without a config, or equal configs.

    >>> no_config_difference({"a": {"top_k": 5}}, ["a", "b"])
    'No config sidecar for b: what changed between the runs is not recorded.'
    """
    missing = [r for r in runs if not configs.get(r)]
    if missing:
        return (
            "No config sidecar for "
            + ", ".join(missing)
            + ": what changed between the runs is not recorded."
        )
    return "The two configs are identical (apart from the name)."


def compared_queries(deltas: pd.DataFrame) -> int:
    """How many queries the comparison's measures cover (the most any measure has)."""
    return int(deltas["queries"].max()) if len(deltas) else 0


def in_view(unjudged: pd.DataFrame, ids: Collection[str] | None) -> pd.DataFrame:
    """The unjudged chunks of the queries under the filters (``ids``; ``None``: every query)."""
    return unjudged if ids is None else unjudged[unjudged["query_id"].isin(ids)]


def outcome_line(outcomes: pd.DataFrame, query_id: str, measure: str) -> tuple[str | None, str]:
    """One query's text (``None`` when it has none or is not compared) and its outcome line:
    the pass measure before and after, the outcome, type and section."""
    row = outcomes[outcomes["query_id"] == query_id]
    if row.empty:
        return None, NOT_COMPARED
    r = row.iloc[0]
    text = r["query"] if isinstance(r["query"], str) else None
    return text, (
        f"{measure}: {r['baseline']:.2f} → {r['candidate']:.2f} · outcome: {r['outcome']} · "
        f"type: {r['query_type'] or '—'} · section: {r['section'] or '—'}"
    )


def unjudged_warning(new: int, k: int) -> str:
    """The warning over one query's lists when the candidate's top k holds unjudged chunks.

    >>> unjudged_warning(1, 5).split(" (")[0]
    "1 chunk in the candidate's top 5 is new and unjudged"
    """
    return (
        f"{plural(new, 'chunk')} in the candidate's top {k} "
        f"{'is' if new == 1 else 'are'} new and unjudged "
        "(⚑ below): judge them before reading this query's loss as a real one."
    )


def listed(key: str, table: pd.DataFrame, most: int) -> tuple[pd.DataFrame, bool]:
    """The rows of an outcome list the page shows, and whether some were left out: every
    regression, up to ``most`` of the other lists (what a meeting reads)."""
    if key == FULLY_LISTED or len(table) <= most:
        return table, False
    return table.head(most), True
