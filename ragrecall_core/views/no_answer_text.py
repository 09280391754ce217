"""What the No-answer page says around its tables and figures: the lines naming the view,
how many queries of each kind it holds, the trade-off's slider and caption, and the cells'
formats. The tables and figures come from :mod:`ragrecall_core.views.no_answer_view`;
``pages/no_answer.py`` over :mod:`ragrecall_app.no_answer` only lays them out.

>>> kinds_caption(1, 2)
'1 no-answer query (no relevant chunk listed or judged) and 2 answerable queries in view'
>>> first_listed(250, 300).split(":")[0]
'The first 250 of 300 no-answer queries'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from ragrecall_core.analysis.score_direction import LOWER, NOT_ORDERED
from ragrecall_core.output.text import plural
from ragrecall_core.views.formats import SHARE

GOLD_ERRORS_CAPTION = (
    "A reviewer graded a chunk relevant (2) for a query the gold set calls no-answer: "
    "either the gold is wrong or the grade is (a relevant grade also makes the query "
    "answerable in every measure). Decide before trusting the numbers on this page."
)
NO_GOLD_ERRORS = "No reviewer graded a chunk relevant for a no-answer query."
NONE_IN_VIEW = (
    "No no-answer query in this view: the gold set (under these filters) has no query "
    'with "relevant_ids": [] (or, in qrels, judged only non-relevant). Add some to '
    "measure false confidence."
)
NO_SCORES = "The runs carry no scores, so no threshold can be set."
SLIDER_LABEL = "Most false confidence you accept (share of no-answer queries still answered)"
NO_CORPUS = "No corpus is loaded: chunk text is empty."
# the boxes holding the sweep curve, the score charts and the tops table (sent only while open)
SWEEP_CHART_TITLE = "The threshold sweep as a chart (★ = the picked threshold)"
SCORES_TITLE = "Top-1 score: answerable vs no-answer queries (a chart per run)"
TOPS_TITLE = "What each run returned on top for a no-answer query"
# as_words formats (column -> (format, word for a missing value)) of the page's tables
PICKED_FORMATS = {
    "threshold": ("{:.4f}", "none"),
    "false confidence": SHARE,
    "answerable coverage": SHARE,
}
TOPS_FORMATS = {"top score": ("{:.4f}", "no score")}


def runs_caption(k: int, runs: Sequence[str], literal: Callable[[str], str] = str) -> str:
    """The line naming k and the runs (their names through ``literal``), every figure per run.

    >>> runs_caption(5, ["a", "b"]).split(" · ")[:2]
    ['k = 5', 'runs: a, b']
    """
    return (
        f"k = {k} · runs: {literal(', '.join(runs))} · every figure is per run: "
        "scores of different models are on different scales and are never pooled"
    )


def kinds(top_scores: pd.DataFrame) -> tuple[list[str], int]:
    """The no-answer query ids in view (sorted) and how many answerable queries there are.

    >>> kinds(pd.DataFrame({"kind": ["no answer", "answerable", "answerable"],
    ...                     "query_id": ["q2", "q1", "q1"]}))
    (['q2'], 1)
    """
    no_answer = sorted(set(top_scores.loc[top_scores["kind"] == "no answer", "query_id"]))
    answerable = top_scores.loc[top_scores["kind"] == "answerable", "query_id"].nunique()
    return no_answer, int(answerable)


def kinds_caption(no_answer: int, answerable: int) -> str:
    """How many queries of each kind are in view."""
    return (
        f"{plural(no_answer, 'no-answer query', 'no-answer queries')} (no relevant chunk "
        f"listed or judged) and {plural(answerable, 'answerable query', 'answerable queries')} "
        "in view"
    )


def tradeoff_caption(max_fc: float, k: int) -> str:
    """How the picked threshold is chosen, and what answerable coverage counts."""
    return (
        "Refuse when the top-1 score is below the threshold (above it, for a run whose scores "
        "are distances). The picked threshold is the least confident one whose false "
        f"confidence is at most {max_fc:.0%}; answerable coverage is the share "
        f"of answerable queries that are still answered and have a relevant chunk in the top {k}."
    )


def scores_caption(most: int) -> str:
    """What the score charts draw: every query as a point, up to ``most`` per group."""
    return (
        "One chart per run, each on its own score scale; every query is a point (no-answer "
        f"queries as orange diamonds), up to {most} per group: above that, the box and "
        f"whiskers summarise every query and {most} evenly spread ones are drawn (the "
        "label says so). The dashed line is the picked threshold."
    )


def read_backwards_note(
    warnings: dict[str, list[str]], literal: Callable[[str], str] = str
) -> str | None:
    """The page's one warning of the runs whose direction may be read wrong
    (``NoAnswerReport.warnings``: a rankless run whose scores rise as given), each line
    the run's name then evaluate's warning; None when there is none.

    >>> read_backwards_note({}) is None
    True
    >>> read_backwards_note({"faiss": ["faiss.csv: scores rise"]})
    'faiss: faiss.csv: scores rise'
    """
    lines = [f"{run}: {text}" for run, texts in warnings.items() for text in texts]
    return "  \n".join(map(literal, lines)) or None


def direction_notes(directions: dict[str, str], literal: Callable[[str], str] = str) -> dict:
    """What the page says about runs not read as "higher score = more confident": ``info``
    naming runs whose scores are distances (read as such), ``warning`` naming runs whose
    scores are not ordered with rank (read as today); a kind no run has is left out.

    >>> direction_notes({"a": "higher_is_better"})
    {}
    >>> direction_notes({"faiss": "lower_is_better"})["info"].split(":")[0]
    'Scores rise with rank in faiss'
    """
    lower = [r for r, d in directions.items() if d == LOWER]
    mixed = [r for r, d in directions.items() if d == NOT_ORDERED]
    notes = {}
    if lower:
        notes["info"] = (
            f"Scores rise with rank in {literal(', '.join(lower))}: read as distances (lower is "
            "better). A query counts as answered when its top-1 score is at most the "
            "threshold; thresholds are in the run's own units."
        )
    if mixed:
        notes["warning"] = (
            f"Scores are not ordered with rank in {literal(', '.join(mixed))} (they rise down "
            "some lists and fall down others, e.g. a reranker's order with the first stage's "
            "scores): read as higher is better, but the threshold may mean nothing."
        )
    return notes


def first_listed(most: int, no_answer: int) -> str:
    """The caption over the tops table when it lists only the first ``most`` of the
    ``no_answer`` queries."""
    return (
        f"The first {most} of {no_answer} no-answer queries: those "
        "some run answers above its threshold come first. `ragrecall no-answer` lists every one."
    )
