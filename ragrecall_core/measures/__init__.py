"""The measure registry. Importing this package registers every measure."""

from . import ap, first_rank, harm, hit, judged, ndcg, precision, recall, rprec, rr  # noqa: F401
from .base import (
    ALIASES,
    REGISTRY,
    Measure,
    MeasureDef,
    MeasureRequest,
    parse_cutoff,
    parse_measure,
    parse_requests,
    valid_names,
)

__all__ = [
    "ALIASES",
    "REGISTRY",
    "Measure",
    "MeasureDef",
    "MeasureRequest",
    "parse_cutoff",
    "parse_measure",
    "parse_requests",
    "valid_names",
]
