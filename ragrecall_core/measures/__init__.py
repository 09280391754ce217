"""The measure registry. Importing this package registers every measure."""

from ragrecall_core.measures import (  # noqa: F401
    ap,
    bpref,
    f1,
    first_rank,
    harm,
    hit,
    hits,
    judged,
    ndcg,
    ndcg_burges,
    precision,
    precision_band,
    recall,
    recall_cap,
    rprec,
    rr,
)
from ragrecall_core.measures.base import (
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
