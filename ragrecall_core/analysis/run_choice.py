"""What the gate, a comparison and the no-answer report are asked to look at, checked.

From Python these take run names, a cutoff and query ids as plain values, so a mistyped
name, a string where an int belongs or a filter that keeps nothing reaches them unchecked by
any parser: each is refused here as an :class:`InputError`, with the option the command line
uses for it, never answered with a KeyError or with a verdict on a run that is not loaded
(a gate on ``"CAND"`` for ``"cand"`` scored NaN and said "0 gold queries missing").
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping, Sequence

from ragrecall_core.errors import InputError, Problem, raise_if_any
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import parse_cutoff
from ragrecall_core.scoring.evaluate import list_depths
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import prepare


def run_problems(workspace: Workspace, named: Iterable[tuple[str, object]]) -> list[Problem]:
    """``named``: ``(option, run name)`` pairs; each must be a run of ``workspace``, exactly as
    loaded (no case folding, no Unicode normalisation: an id is the text the file holds)."""
    known = ", ".join(map(repr, workspace.run_names)) or "none loaded"
    return [
        Problem(option, None, shown(name), f"a run of the workspace ({known})")
        for option, name in named
        if not isinstance(name, str) or name not in workspace.runs
    ]


def pair_problems(workspace: Workspace, named: Mapping[str, object]) -> list[Problem]:
    """Two runs to set against each other (``{option: name}``, the baseline's last): both
    loaded, and not one run twice, by name or by file (a CI variable left empty makes both
    paths one file, which the loader names apart as ``cand`` and ``cand.jsonl``): every query
    would tie, and a gate would pass having compared nothing."""
    problems = run_problems(workspace, named.items())
    if not problems and len(named) == 2:
        (first, one), (option, other) = named.items()
        if one == other or same_file(workspace, one, other):
            expected = f"a run other than {first} {one!r}: a run compared with itself ties"
            problems.append(Problem(option, None, shown(other), expected))
    return problems


def same_file(workspace: Workspace, one: str, other: str) -> bool:
    """Whether two loaded runs were read from one file (runs given in memory never are)."""
    paths = [workspace.runs[one], workspace.runs[other]]
    if any(path in workspace.memory_inputs for path in paths):
        return False
    try:
        return os.path.samefile(*paths)
    except OSError:  # moved since it was read: compare the names it was read by
        return paths[0].resolve() == paths[1].resolve()


def require_cutoff(k: object) -> int:
    """``k`` from Python: an integer (not a bool, a float or a string of digits) from 1."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        expected = f"a cutoff k that is a positive integer (an int, not a {type(k).__name__})"
        raise InputError([Problem("-k", None, shown(k), expected)])
    return parse_cutoff(int(k))


def cutoff_problems(k: object) -> list[Problem]:
    """:func:`require_cutoff`'s problems, to report with others at once."""
    try:
        require_cutoff(k)
    except InputError as error:
        return error.problems
    return []


def policy_problems(policy: object) -> list[Problem]:
    """``policy``: ``None`` (the default policy) or a :class:`Policy`; anything else failed
    deep in the evaluation with an AttributeError."""
    if policy is None or isinstance(policy, Policy):
        return []
    return [Problem("policy", None, shown(policy), "a ragrecall Policy (or None: the default)")]


def run_depths(
    workspace: Workspace,
    runs: Sequence[str],
    ids: Sequence[str] | None,
    policy: Policy | None = None,
) -> dict[str, int]:
    """Each run's longest list among the gold queries ``ids`` (``None``: every one), in the
    unit ``policy`` measures (:func:`~ragrecall_core.scoring.evaluate.list_depths`: 10
    chunks of 2 documents are a list of 2 under ``--unit doc``); 0 for a run that lists
    none of them. A cutoff past it counts only what the run lists."""
    found = list_depths(prepare(workspace, policy), list(runs), ids)
    return {name: found.get(name, 0) for name in runs}


def shown(value: object) -> str:
    """A value as a problem quotes it: text as it is, anything else as its ``repr``; either
    redacted whole (a token given as a run name), before the problem cuts it."""
    return redact_text(value if isinstance(value, str) else repr(value))


def require_query_ids(workspace: Workspace, ids: object) -> None:
    """A filter of query ids (``None``: every gold query) must keep at least one gold query:
    a comparison of no query has no delta, and a bare string would be read letter by letter."""
    if ids is None:
        return
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        raise InputError([Problem("query_ids", None, shown(ids), "a list of query ids")])
    not_text = [
        Problem("query_ids", None, repr(i), "a query id as text")
        for i in ids
        if not isinstance(i, str)
    ]
    raise_if_any(not_text)
    (kept,) = (
        workspace.cursor()
        .execute(
            # a hash join: list_contains per query was a scan of the list for each (10k x 10k)
            "SELECT count(*) FROM queries WHERE query_id IN (SELECT unnest($ids))",
            {"ids": [i for i in ids if isinstance(i, str)]},
        )
        .fetchone()
    )
    if not kept:
        listed = repr(list(ids[:5])) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        raise InputError([Problem("query_ids", None, listed, "at least one gold query id")])
