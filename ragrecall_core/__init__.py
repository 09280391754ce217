"""ragrecall: evaluate the retrieval layer of a RAG system, and find where it fails."""

from .errors import InputError, Problem
from .evaluate import Evaluation, default_measures, evaluate
from .measures import Measure, parse_measure
from .policy import Policy
from .workspace import Workspace, open_workspace

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
