"""Agreement between annotators: identical-grade share and Cohen's kappa.

Kappa is computed on the items both annotators graded, unweighted and with
linear weights for the ordinal 0 / 1 / 2 scale (a 2-vs-0 disagreement costs
twice a 2-vs-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from ragrecall_core.errors import one_line, raise_if_any
from ragrecall_core.inputs.db import connect, lock_down
from ragrecall_core.inputs.grades import load_grade_files
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import plural, text_table

GRADES = (0, 1, 2)

PAIRS_SQL = """
SELECT a.annotator AS annotator_a, b.annotator AS annotator_b, a.query_id, a.chunk_id,
       a.grade AS grade_a, b.grade AS grade_b, a.harmful AS harmful_a, b.harmful AS harmful_b,
       a.reason AS reason_a, b.reason AS reason_b
FROM all_grades a JOIN all_grades b
  ON a.query_id = b.query_id AND a.chunk_id = b.chunk_id AND a.annotator < b.annotator
-- grades kept for a query an edited gold removed are no items of the gold set
WHERE (NOT $gold_only OR a.query_id IN (SELECT query_id FROM queries))
  -- the dashboard's split / type / section filters, as the query ids they leave
  AND (NOT $filtered OR list_contains(CAST($ids AS VARCHAR[]), a.query_id))
ORDER BY annotator_a, annotator_b, a.query_id, a.chunk_id
"""

# every annotator with a grade among the same items as PAIRS_SQL's (one alone has no pair)
ANNOTATORS_SQL = """
SELECT DISTINCT annotator FROM all_grades
WHERE (NOT $gold_only OR query_id IN (SELECT query_id FROM queries))
  AND (NOT $filtered OR list_contains(CAST($ids AS VARCHAR[]), query_id))
ORDER BY annotator
"""

# grades whose query the gold set lacks (a query an edited gold removed, "q1 " for "q1"):
# how many, and the first few such query ids
OUTSIDE_GOLD_SQL = """
SELECT count(*), list(DISTINCT query_id ORDER BY query_id)[1:5] FROM all_grades
WHERE query_id NOT IN (SELECT query_id FROM queries)
"""

RESOLVED_SQL = """
SELECT query_id, chunk_id, arg_max(grade, (created_at, id)) AS resolved_grade,
       arg_max(resolver, (created_at, id)) AS resolver
FROM all_resolutions GROUP BY query_id, chunk_id
"""


def cohen_kappa(a: np.ndarray, b: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of two graders on the 0/1/2 scale; ``weights`` None or ``"linear"``.

    >>> round(cohen_kappa(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 1])), 4)
    0.6364
    """
    k = len(GRADES)
    observed = np.zeros((k, k))
    np.add.at(observed, (np.asarray(a, int), np.asarray(b, int)), 1)
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((k, k))
    cost = (i != j).astype(float) if weights is None else np.abs(i - j) / (k - 1)
    denominator = (cost * expected).sum()
    return float("nan") if denominator == 0 else float(1 - (cost * observed).sum() / denominator)


SHOWN_NAMES = 10  # annotators a note names before "and N more"


def _names(names: Sequence[str]) -> str:
    """``ann``, ``ann and bob``, ``ann, bob and cat``: names as one line each, a long list
    cut at :data:`SHOWN_NAMES`."""
    shown = [one_line(name) for name in names[:SHOWN_NAMES]]
    if len(names) > SHOWN_NAMES:
        shown.append(f"{len(names) - SHOWN_NAMES} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


@dataclass
class Agreement:
    pairs: pd.DataFrame
    disagreements: pd.DataFrame
    # every annotator among the items, paired or not: why there is no pair is said by name
    annotators: list[str] = field(default_factory=list)
    # grades left out because the gold set lacks their query: how many, a few query ids
    outside_gold: tuple[int, list[str]] = (0, [])

    def notes(self) -> list[str]:
        """:meth:`pair_notes`, and the grades left out for naming no query of the gold set
        (their ids quoted: a trailing space is the usual cause)."""
        count, sample = self.outside_gold
        if not count:
            return self.pair_notes()
        shown = ", ".join(repr(one_line(query_id)) for query_id in sample)
        verb = "names" if count == 1 else "name"
        return [
            *self.pair_notes(),
            f"{plural(count, 'grade')} {verb} a query the gold set lacks and "
            f"{'is' if count == 1 else 'are'} left out (e.g. {shown})",
        ]

    def pair_notes(self) -> list[str]:
        """What the pairs table cannot show: why it has no row (no annotator, one, or no
        item two of them share), and each pair whose kappa is undefined (both gave every
        shared item one and the same grade: chance agreement is 1, kappa is 0 / 0), never
        a kappa of 0 or NaN unexplained."""
        if self.pairs.empty:
            if not self.annotators:
                return [
                    "no annotator pair: no grades; agreement needs grades from at least two "
                    "annotators"
                ]
            if len(self.annotators) == 1:
                return [
                    f"no annotator pair: only one annotator ({_names(self.annotators)}); "
                    "agreement needs grades from at least two annotators"
                ]
            return [
                f"no annotator pair: {_names(self.annotators)} graded no (query, chunk) in "
                "common; agreement needs items that two annotators both graded"
            ]
        undefined = self.pairs[self.pairs.kappa.isna()]
        return [
            f"kappa undefined for {_names([row.annotator_a, row.annotator_b])}: on their "
            f"{plural(row.items, 'shared item')} both gave one and the same grade every time "
            "(chance agreement is 1)"
            for row in undefined.itertuples(index=False)
        ]

    def to_frame(self) -> pd.DataFrame:
        """One row per annotator pair: identical share and kappa (unweighted and linear)."""
        return self.pairs.copy()

    def to_text(self) -> str:
        notes = self.notes()
        lines = [] if self.pairs.empty else [text_table(self.pairs, "", digits=3)]
        lines += [*notes, ""]
        shown = self.disagreements.drop(columns=["reason_a", "reason_b"], errors="ignore")
        count = plural(len(shown), "disagreement")
        lines.append(f"{count}:" if len(shown) else "no disagreements")
        if len(shown):
            lines.append(text_table(shown, ""))
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        return {
            "pairs": self.pairs.to_dict("records"),
            "disagreements": self.disagreements.to_dict("records"),
            "annotators": list(self.annotators),
            "notes": self.notes(),
        }


def agreement_of_files(paths: Sequence[Path]) -> Agreement:
    """Agreement over grades files alone (no gold or runs needed), read by a connection
    confined to those files."""
    con = connect()
    lock_down(con, [Path(path) for path in paths])
    raise_if_any(load_grade_files(con, paths))
    return agreement_on(con, gold_only=False)


def agreement(workspace: Workspace, query_ids: Sequence[str] | None = None) -> Agreement:
    """Per annotator pair: shared items, identical share, kappa; and every disagreement.

    Only the gold set's queries count: grades kept for a query an edited gold removed stay
    stored, but are not items of this gold set. ``query_ids`` narrows them further (the
    dashboard's filters; ``None``: every query)."""
    return agreement_on(workspace.cursor(), gold_only=True, query_ids=query_ids)


def agreement_on(
    con: duckdb.DuckDBPyConnection, gold_only: bool, query_ids: Sequence[str] | None = None
) -> Agreement:
    params = {
        "gold_only": gold_only,
        "filtered": query_ids is not None,
        "ids": list(query_ids or []),
    }
    items = con.execute(PAIRS_SQL, params).df()
    rows = []
    for (a, b), group in items.groupby(["annotator_a", "annotator_b"], sort=True):
        rows.append(
            {
                "annotator_a": a,
                "annotator_b": b,
                "items": len(group),
                "identical": float((group.grade_a == group.grade_b).mean()),
                "kappa": cohen_kappa(group.grade_a.to_numpy(), group.grade_b.to_numpy()),
                "kappa_linear": cohen_kappa(
                    group.grade_a.to_numpy(), group.grade_b.to_numpy(), "linear"
                ),
            }
        )
    pairs = pd.DataFrame(
        rows, columns=["annotator_a", "annotator_b", "items", "identical", "kappa", "kappa_linear"]
    )
    differ = items[(items.grade_a != items.grade_b) | (items.harmful_a != items.harmful_b)]
    resolved = con.execute(RESOLVED_SQL).df()
    disagreements = differ.merge(resolved, on=["query_id", "chunk_id"], how="left")
    # a grade stays a whole number where a disagreement has no resolution yet
    disagreements["resolved_grade"] = disagreements.resolved_grade.astype("Int64")
    annotators = [row[0] for row in con.execute(ANNOTATORS_SQL, params).fetchall()]
    outside = tuple(con.execute(OUTSIDE_GOLD_SQL).fetchone()) if gold_only else (0, [])
    return Agreement(pairs, disagreements.reset_index(drop=True), annotators, outside)
