"""Measures are values: ``parse_measure("nDCG@10") == Measure("nDCG", cutoff=10)``.

Each measure family is *declared* once, in its own module, with its name,
aliases, whether it takes a cutoff, and a one-line description. How a measure
is computed lives in :mod:`ragrecall_core.scoring.families`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragrecall_core.errors import InputError, Problem, gather, raise_if_any

REQUIRED, OPTIONAL, NONE = "required", "optional", "none"


@dataclass(frozen=True)
class MeasureDef:
    name: str
    description: str
    cutoff: str = REQUIRED
    aliases: tuple[str, ...] = ()
    mean_name: str | None = None
    higher_is_better: bool = True
    trec_eval: str | None = None
    covers_no_answer: bool = False
    # the value of a gold query the run lacks (or lists nothing for); None: no value
    missing: float | None = 0.0


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters; ``str()`` is the canonical name.

    >>> str(Measure("P", cutoff=3, rel=2))
    'P(rel=2)@3'
    """

    name: str
    cutoff: int | None = None
    rel: int | None = None

    def __str__(self) -> str:
        params = f"(rel={self.rel})" if self.rel is not None else ""
        at = f"@{self.cutoff}" if self.cutoff is not None else ""
        return f"{self.name}{params}{at}"

    @property
    def definition(self) -> MeasureDef:
        return REGISTRY[self.name]


REGISTRY: dict[str, MeasureDef] = {}
ALIASES: dict[str, str] = {}


def register(definition: MeasureDef) -> MeasureDef:
    REGISTRY[definition.name] = definition
    for name in (definition.name, *definition.aliases):
        ALIASES[name.lower()] = definition.name
    if definition.mean_name:
        ALIASES[definition.mean_name.lower()] = definition.name
    return definition


PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z_-]*?)\s*(\(\s*rel\s*=\s*(?P<rel>[^)]*)\))?"
    r"\s*(@\s*(?P<cutoff>.*?))?\s*$"
)


def valid_names() -> str:
    names = []
    for d in REGISTRY.values():
        suffix = "@k" if d.cutoff == REQUIRED else "[@k]" if d.cutoff == OPTIONAL else ""
        names.append(d.name + suffix)
    return ", ".join(names)


def parse_measure(text: str, source: str = "measure") -> Measure:
    """Parse ``Recall@5``, ``MRR@10``, ``P(rel=2)@3`` ... into a :class:`Measure`.

    >>> parse_measure("Success@5")
    Measure(name='Hit', cutoff=5, rel=None)
    """
    match = PATTERN.match(text)
    name = ALIASES.get(match.group("name").lower()) if match else None
    if name is None:
        raise InputError([Problem(source, None, text, f"a measure name: one of {valid_names()}")])
    definition = REGISTRY[name]
    cutoff = _positive_int(match.group("cutoff"), text, source, "a cutoff k")
    rel = _positive_int(match.group("rel"), text, source, "a relevance level")
    if cutoff is None and definition.cutoff == REQUIRED:
        raise InputError([Problem(source, None, text, f"{name}@k with a positive integer k")])
    if cutoff is not None and definition.cutoff == NONE:
        raise InputError([Problem(source, None, text, f"{name} without a cutoff")])
    return Measure(name, cutoff, rel)


def parse_cutoff(text: str | int, source: str = "-k", what: str = "a cutoff k") -> int:
    """A positive whole number in ASCII digits: a cutoff, or (``what``) a depth or a level."""
    return _positive_int(str(text), str(text), source, what)


# ASCII digits only: str.isdigit() also accepts "²" (int() then fails) and "١" (int() reads 1)
ASCII_DIGITS = re.compile(r"[0-9]+")
# DuckDB compares ranks as INTEGER: a larger cutoff is no cutoff a run could reach
MAX_CUTOFF = 2**31 - 1


def _positive_int(raw: str | None, text: str, source: str, what: str) -> int | None:
    if raw is None:
        return None
    raw = raw.strip()
    if not ASCII_DIGITS.fullmatch(raw) or not 1 <= int(raw) <= MAX_CUTOFF:
        raise InputError(
            [Problem(source, None, text, f"{what} that is a positive integer <= {MAX_CUTOFF}")]
        )
    return int(raw)


@dataclass(frozen=True)
class MeasureRequest:
    """A measure as the user asked for it: ``label`` is their spelling (``MRR@5``)."""

    measure: Measure
    label: str = field(default="")

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", str(self.measure))


def parse_requests(texts: list[str], source: str = "-m") -> list[MeasureRequest]:
    """Parse every measure name, reporting all unknown names at once."""
    requests, problems = gather(
        texts, lambda text: MeasureRequest(parse_measure(text, source), text.strip())
    )
    raise_if_any(problems)
    return requests
