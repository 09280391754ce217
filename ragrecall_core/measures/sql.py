"""The words a measure's SQL is written in: what a measure module declares beside its name.

A measure family's module defines ``sql(c: Columns) -> FamilySQL`` and passes it to its
:class:`~ragrecall_core.measures.base.MeasureDef`. :class:`Columns` names the parameters
and helper columns of the measure at position ``i`` of a request (its cutoff ``$k{i}`` and
relevance level ``$l{i}`` are bound, never pasted), and offers the conditions most measures
share. The per-query frame these fragments plug into is
:mod:`ragrecall_core.scoring.families`.

>>> from ragrecall_core.measures.base import Measure
>>> c = Columns(0, Measure("Recall", cutoff=5), default_level=1)
>>> c.count_relevant()
'count(*) FILTER (WHERE rank <= $k0 AND grade >= $l0)'
>>> c.params
{'k0': 5, 'l0': 1}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Measure(Protocol):
    """What the columns read of :class:`ragrecall_core.measures.base.Measure` (base.py
    names this module's types, so this one names no type of base.py)."""

    cutoff: int | None
    rel: int | None


class Columns:
    """Names of the parameters and helper columns of measure ``i``, and shared conditions.

    ``default_level``: the relevance level of a measure that names none (the policy's).
    """

    def __init__(self, i: int, measure: Measure, default_level: int):
        self.k = f"$k{i}"
        self.level = f"$l{i}"
        self.agg = f"a{i}"
        self.nrel = f"nrel{i}"
        self.nonrel = f"nnon{i}"
        self.idcg = f"idcg{i}"
        self.cum = f"cum{i}"
        self.positions = f"positions{i}"
        self.within = f"rank <= {self.k} AND " if measure.cutoff else ""
        self.relevant = f"grade >= {self.level}"
        # graded measures gain from every grade above 0 (trec_eval, whatever its -l); a
        # level asked for on the measure (ranx's -lN) drops the grades below it
        self.gains = self.relevant if measure.rel is not None else "grade > 0"
        # trec_eval: a judged non-relevant item has a grade from 0 up to the level
        self.not_relevant = f"grade >= 0 AND grade < {self.level}"
        self.params = {f"k{i}": measure.cutoff or 0, f"l{i}": measure.rel or default_level}

    def count_relevant(self) -> str:
        """The relevant items within the cutoff (the whole list without one)."""
        return f"count(*) FILTER (WHERE {self.within}{self.relevant})"

    def share_of_relevant(self) -> str:
        """The aggregate over the query's relevant items (0 when it has none)."""
        return f"coalesce(a.{self.agg} / nullif(s.{self.nrel}, 0), 0)"


@dataclass(frozen=True)
class FamilySQL:
    """How one measure family is computed: an aggregate over the judged rows of a
    (run, query) list, and the query's value from it (``a.`` the aggregates, ``s.`` the
    query's judgments, ``p.`` its counted top-k positions). ``cumulative``: a condition
    counted over the list's judged rows up to each row, in rank order (column ``cum``);
    ``gain``: a graded measure's gain of a grade (its ideal DCG is the query's ``idcg``)."""

    aggregate: str
    value: str
    needs_positions: bool = False
    cumulative: str | None = None
    gain: str = "grade"
