"""ragrecall: evaluate the retrieval layer of a RAG system, and find where it fails.

The public names are loaded on first use: ``import ragrecall_core`` (and so every
``ragrecall`` command, ``--help`` included) does not pay for pandas and DuckDB until a
name that needs them is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.version import __version__

if TYPE_CHECKING:
    from ragrecall_core.analysis.capture import CaptureFailed, capture
    from ragrecall_core.analysis.compare import compare
    from ragrecall_core.analysis.gate import check_gate
    from ragrecall_core.inputs.workspace import Workspace, open_workspace
    from ragrecall_core.measures import Measure, parse_measure
    from ragrecall_core.scoring.evaluate import Evaluation, default_measures, evaluate
    from ragrecall_core.scoring.policy import Policy


LAZY = {
    "CaptureFailed": "ragrecall_core.analysis.capture",
    "capture": "ragrecall_core.analysis.capture",
    "check_gate": "ragrecall_core.analysis.gate",
    "compare": "ragrecall_core.analysis.compare",
    "Evaluation": "ragrecall_core.scoring.evaluate",
    "default_measures": "ragrecall_core.scoring.evaluate",
    "evaluate": "ragrecall_core.scoring.evaluate",
    "Measure": "ragrecall_core.measures",
    "parse_measure": "ragrecall_core.measures",
    "Policy": "ragrecall_core.scoring.policy",
    "Workspace": "ragrecall_core.inputs.workspace",
    "open_workspace": "ragrecall_core.inputs.workspace",
}

__all__ = [
    "CaptureFailed",
    "Evaluation",
    "InputError",
    "Measure",
    "Policy",
    "Problem",
    "Workspace",
    "capture",
    "check_gate",
    "compare",
    "default_measures",
    "evaluate",
    "open_workspace",
    "parse_measure",
    "__version__",
]


def __getattr__(name: str):
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(LAZY[name]), name)
    globals()[name] = value  # the next lookup is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(LAZY))
