"""The named choices that change numbers, printed beside every result."""

from __future__ import annotations

from dataclasses import asdict, dataclass

CHUNK, DOC = "chunk", "doc"
# What reviewers put into the numbers when no grade of theirs is loaded but a resolution is
# (its grades undone since: the resolution still judges the chunk). ``reviewed`` of the
# policy line is this, True (a grade is loaded) or False (neither is).
RESOLUTIONS_ONLY = "resolutions only"


@dataclass(frozen=True)
class Policy:
    """How judgments become relevance, and which queries a mean covers.

    - ``rel_level``: a grade at or above it is relevant (default 1).
    - ``unit``: ``chunk``, or ``doc`` (chunks map to their document, which counts
      once, at the rank of its first chunk).
    - ``compat``: ``None`` for ragrecall's policy (every gold query with a relevant
      item is in the mean; a query missing from a run scores 0; no-answer queries
      are outside the mean), or ``"trec_eval"`` (only queries in both the run and
      the judgments, a query without relevant items scoring 0), with
      ``complete=True`` like trec_eval's ``-c`` (every judged query, missing = 0).
    - ``partial``: how a reviewer's grade 1 counts: ``"not_relevant"`` (default,
      so it never enlarges the Recall denominator) or ``"relevant"``.
    - ``harmful``: ``"not_relevant"`` (default: a chunk a reviewer graded and flagged
      harmful never counts as relevant) or ``"as_graded"``. The gold set stays the
      authority for its own labels: a gold chunk flagged harmful is listed as a gold gap
      candidate (:mod:`ragrecall_core.analysis.gold_gaps`), not silently dropped.
    - ``manual_grades``: whether reviewers' grades judge chunks the gold set lacks.
    - ``judge``: ``None`` (default: a model judge's grades are shown, never counted), or
      the annotator ``judge:NAME`` whose grades judge the chunks neither the gold set nor
      (with ``manual_grades``) a reviewer judged, counted as a reviewer's grade is.
    """

    rel_level: int = 1
    unit: str = CHUNK
    compat: str | None = None
    complete: bool = False
    partial: str = "not_relevant"
    harmful: str = "not_relevant"
    manual_grades: bool = True
    judge: str | None = None

    def describe(self, reviewed: bool | str = True) -> str:
        """The policy in one sentence. ``reviewed``: whether any reviewer's grade was loaded,
        or :data:`RESOLUTIONS_ONLY`; a bare "used" beside a count of 0 grades would read as
        if grades went in.

        >>> Policy().describe(RESOLUTIONS_ONLY).rsplit("; ", 1)[-1]
        "reviewers' grades = used (resolutions only)"
        """
        if self.compat == "trec_eval":
            queries = (
                "trec_eval -c averaging: every judged query, a query missing from the run = 0"
                if self.complete
                else "trec_eval averaging: queries in both the run and the judgments"
            )
        else:
            queries = (
                "ragrecall averaging: every gold query with a relevant item; missing from "
                "the run or an empty list = 0; no-answer queries reported apart"
            )
        return (
            f"{queries}; relevant = grade >= {self.rel_level}; unit = {self.unit}; "
            f"reviewer partial (1) = {self.partial.replace('_', ' ')}; "
            f"harmful = {self.harmful.replace('_', ' ')}; "
            f"reviewers' grades = {self._grades_word(reviewed)}"
        ) + (
            f"; judge grades = counted ({self.judge} fills what no one else judged)"
            if self.judge
            else ""
        )

    def summary(self, reviewed: bool | str = True) -> str:
        """The policy in one short line (the dashboard's note, :meth:`describe` on hover),
        the reviewers' grades in :meth:`describe`'s words: "on" read as if grades went in
        when none was loaded.

        >>> Policy().summary(reviewed=False)
        "grade >= 1 · chunk · reviewers' grades used (none loaded)"
        """
        parts = [f"grade >= {self.rel_level}", self.unit]
        parts.append(f"reviewers' grades {self._grades_word(reviewed)}")
        if self.judge:
            parts.append(f"judge grades counted ({self.judge})")
        if self.compat:
            parts.append(self.compat + (" -c" if self.complete else ""))
        return " · ".join(parts)

    def _grades_word(self, reviewed: bool | str) -> str:
        if not self.manual_grades:
            return "ignored (gold only)"
        if reviewed == RESOLUTIONS_ONLY:
            return f"used ({RESOLUTIONS_ONLY})"
        return "used" if reviewed else "used (none loaded)"

    def to_dict(self) -> dict:
        """Its fields (``judge`` only when one is counted)."""
        fields = asdict(self)
        if self.judge is None:
            del fields["judge"]
        return fields


def listed_items(policy: Policy | None) -> str:
    """What a list holds under ``policy`` (``None``: the default), as a note on its depth
    counts it: its results (chunks), or its documents under ``--unit doc``."""
    return "documents" if policy is not None and policy.unit == DOC else "results"
