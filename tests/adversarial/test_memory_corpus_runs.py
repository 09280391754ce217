"""Attack: no exception but ``InputError`` reaches the caller for any run handed over in
memory (issue 26 item 3); the corpus of hostile objects is :mod:`.test_memory_corpus`'s."""

from __future__ import annotations

import pytest

import ragrecall
from ragrecall_core import InputError
from tests.adversarial.test_memory_corpus import RaisingKey, hostile_values, outcome
from tests.adversarial.test_memory_hostile import GOLD, RUN


def test_no_exception_but_input_error_reaches_the_caller_for_any_run():
    """Each value as one named run (all in one call: every run's problems are gathered), and
    each dict or list also as ``runs=`` itself (a dict of runs, a list of ranx Runs)."""
    values = hostile_values()
    assert outcome(GOLD, {f"r{i}": value for i, value in enumerate(values)}) is None
    as_runs = [v for v in values if isinstance(v, dict | list | tuple)]
    escaped = [found for value in as_runs if (found := outcome(GOLD, value))]
    assert escaped == []


def test_hostile_run_names_are_input_errors():
    for runs in ({None: RUN}, {"": RUN}, {("r",): RUN}, {"r\udfff": RUN}):
        with pytest.raises(InputError):
            ragrecall.evaluate(GOLD, ["Recall@2"], runs=runs)
    evaluation = ragrecall.evaluate(GOLD, ["Recall@2"], runs={RaisingKey("r"): RUN})
    assert evaluation.runs == ["r"]  # a str, whatever its methods do
