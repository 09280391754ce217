"""The examples in the core's docstrings run, and hold: a docstring example is documentation a
reader trusts, so a wrong one fails the suite like a wrong test."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ragrecall_core

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(ragrecall_core.__path__, "ragrecall_core.")
    if not info.name.endswith("__main__")
)


def examples(name: str) -> list[doctest.DocTest]:
    return [t for t in doctest.DocTestFinder().find(importlib.import_module(name)) if t.examples]


WITH_EXAMPLES = [name for name in MODULES if examples(name)]


def test_the_view_modules_examples_are_found():
    """The modules that hold examples are collected (a finder that found none would let every
    example go unrun)."""
    views = [name for name in WITH_EXAMPLES if name.startswith("ragrecall_core.views.")]
    assert len(views) >= 10, views


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in examples(name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail"
