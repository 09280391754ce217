"""The pass/fail rule: which measure at k a query must bring to 1 to pass.

Every rule is "measure@k = 1 is a pass", so a query fails when the measure is < 1:

- ``capped`` (the default): ``RecallCap@k``, the top k holds min(k, relevant) relevant
  items, i.e. all it could. A query with more relevant items than k (TREC qrels judge
  dozens per topic) can pass; with at most k relevant items it is the same as ``recall``.
- ``recall``: ``Recall@k``, every relevant item is in the top k.
- ``hit``: ``Hit@k``, at least one relevant item is in the top k.

>>> pass_measure("capped", 5)
'RecallCap@5'
>>> rule_line("hit", 10)
'Pass rule: a query passes when Hit@10 = 1 (at least one relevant item in the top 10).'
"""

from __future__ import annotations

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.secrets import redact_text

DEFAULT_RULE = "capped"
# rule -> (measure name without the cutoff, what passing means)
RULES: dict[str, tuple[str, str]] = {
    "capped": ("RecallCap", "all it could in the top {k}: min({k}, relevant) relevant items"),
    "recall": ("Recall", "every relevant item in the top {k}"),
    "hit": ("Hit", "at least one relevant item in the top {k}"),
}
RULE_NAMES = tuple(RULES)


def require_rule(rule: str, source: str = "--pass-rule") -> str:
    """``rule`` if it is one of :data:`RULE_NAMES`, else an input error naming them."""
    if rule not in RULES:
        raise InputError(
            [Problem(source, None, redact_text(str(rule)), "one of " + ", ".join(RULES))]
        )
    return rule


def pass_measure(rule: str, k: int) -> str:
    """The measure whose value 1 is a pass under ``rule``, at cutoff ``k``."""
    return f"{RULES[require_rule(rule)][0]}@{k}"


def needed_sql(cutoff: str = "$k") -> str:
    """SQL for how many relevant items the top k must hold to pass, from the bound
    parameter ``$rule``, a ``relevant`` column and ``cutoff``: the bound ``$k`` or a column
    of cutoffs (a constant of the caller's SQL, never input). Used by the failure classes."""
    return (
        "CASE $rule WHEN 'recall' THEN relevant WHEN 'hit' THEN 1 "
        f"ELSE least(CAST({cutoff} AS BIGINT), relevant) END"
    )


def rule_line(rule: str, k: int) -> str:
    """One sentence stating the rule in force, for every page and report."""
    _measure, meaning = RULES[require_rule(rule)]
    return f"Pass rule: a query passes when {pass_measure(rule, k)} = 1 ({meaning.format(k=k)})."
