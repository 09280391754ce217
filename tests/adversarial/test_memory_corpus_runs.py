"""Attack: no exception but ``InputError`` reaches the caller for any run handed over in
memory (issue 26 item 3); the corpus of hostile objects is :mod:`.test_memory_corpus`'s."""

from __future__ import annotations

import pytest

import ragrecall
from ragrecall_core import InputError
from tests.adversarial.test_memory_corpus import RaisingKey, hostile_values, outcome
from tests.adversarial.test_memory_hostile import GOLD, RUN, Run


def test_no_exception_but_input_error_reaches_the_caller_for_any_run():
    """Each value as one named run (all in one call: every run's problems are gathered), and
    each dict and each list holding a ranx-shaped Run also as ``runs=`` itself (a dict of
    runs, a list of ranx Runs; any other value there is one run, as in the dict)."""
    values = hostile_values()
    assert outcome(GOLD, {f"r{i}": value for i, value in enumerate(values)}) is None
    as_runs = [
        v
        for v in values
        if isinstance(v, dict) or isinstance(v, list) and any(isinstance(x, Run) for x in v)
    ]
    # dicts keyed by plain names are runs by name: all of them in one call (names made unique)
    plain = [
        v for v in as_runs if type(v) is dict and all(type(k) is str and k.isascii() for k in v)
    ]
    merged = {f"{i}:{name}": run for i, runs in enumerate(plain) for name, run in runs.items()}
    escaped = [found for found in [outcome(GOLD, merged)] if found]
    escaped += [
        found for v in as_runs if not any(v is p for p in plain) if (found := outcome(GOLD, v))
    ]
    assert escaped == []


def test_hostile_run_names_are_input_errors():
    for runs in ({None: RUN}, {"": RUN}, {("r",): RUN}, {"r\udfff": RUN}):
        with pytest.raises(InputError):
            ragrecall.evaluate(GOLD, ["Recall@2"], runs=runs)
    evaluation = ragrecall.evaluate(GOLD, ["Recall@2"], runs={RaisingKey("r"): RUN})
    assert evaluation.runs == ["r"]  # a str, whatever its methods do
