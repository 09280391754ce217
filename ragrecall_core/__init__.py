"""ragrecall: evaluate the retrieval layer of a RAG system, and find where it fails."""

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.workspace import Workspace, open_workspace
from ragrecall_core.measures import Measure, parse_measure
from ragrecall_core.scoring.evaluate import Evaluation, default_measures, evaluate
from ragrecall_core.scoring.policy import Policy

__version__ = "0.1.0"

__all__ = [
    "Evaluation",
    "InputError",
    "Measure",
    "Policy",
    "Problem",
    "Workspace",
    "default_measures",
    "evaluate",
    "open_workspace",
    "parse_measure",
    "__version__",
]
