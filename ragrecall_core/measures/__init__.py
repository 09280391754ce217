"""The measure registry. Importing this package registers every measure.

Each module here declares one measure family (``base``, ``sql`` and ``docs`` declare
none); all are imported, in the order of their file names, so a new family is one new
file. That order is the registry's: the table in docs/measures.md and the list of valid names.
"""

import importlib
import pkgutil

from ragrecall_core.measures.base import (
    ALIASES,
    REGISTRY,
    Measure,
    MeasureDef,
    MeasureRequest,
    distinct_requests,
    measure_items,
    parse_cutoff,
    parse_level,
    parse_measure,
    parse_requests,
    valid_names,
)

for _module in sorted(module.name for module in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
del _module

__all__ = [
    "ALIASES",
    "REGISTRY",
    "Measure",
    "MeasureDef",
    "MeasureRequest",
    "distinct_requests",
    "measure_items",
    "parse_cutoff",
    "parse_level",
    "parse_measure",
    "parse_requests",
    "valid_names",
]
