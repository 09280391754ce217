"""Measures are values: ``parse_measure("nDCG@10") == Measure("nDCG", cutoff=10)``.

Each measure family is *declared* once, in its own module, with its name,
aliases, whether it takes a cutoff, a one-line description and, beside them, its
SQL (``sql``, written with :mod:`ragrecall_core.measures.sql`). The per-query
frame that SQL plugs into is :mod:`ragrecall_core.scoring.families`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragrecall_core.errors import InputError, Problem, gather, raise_if_any
from ragrecall_core.inputs.secrets import redact_text

if TYPE_CHECKING:
    from ragrecall_core.measures.sql import Columns, FamilySQL

REQUIRED, OPTIONAL, NONE = "required", "optional", "none"


@dataclass(frozen=True)
class MeasureDef:
    name: str
    description: str
    cutoff: str = REQUIRED
    aliases: tuple[str, ...] = ()
    mean_name: str | None = None
    higher_is_better: bool = True
    # trec_eval's names for it; "name_k" is the measure at cutoff k (trec_eval's P_5)
    trec_eval: tuple[str, ...] = ()
    covers_no_answer: bool = False
    # the value of a gold query the run lacks (or lists nothing for); None: no value
    missing: float | None = 0.0
    # whether a relevance level (``(rel=N)``, ranx's ``-lN``) changes its value
    takes_rel: bool = True
    # the values it takes (and its mean), low and high: a gate's threshold outside them
    # could never fail, or never pass
    value_range: tuple[float, float] = (0.0, 1.0)
    # how it is computed: ``sql(Columns) -> FamilySQL`` (see ragrecall_core.measures.sql)
    sql: Callable[[Columns], FamilySQL] | None = field(default=None, compare=False, repr=False)


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
# trec_eval's names that take their cutoff after "_" or "." (P_5, ndcg_cut.10): lowercased
TREC_CUTS: dict[str, str] = {}


def register(definition: MeasureDef) -> MeasureDef:
    REGISTRY[definition.name] = definition
    names = (definition.name, *definition.aliases, definition.mean_name or definition.name)
    for name in names:
        ALIASES[name.lower()] = definition.name
    for name in definition.trec_eval:
        if name.endswith("_k"):
            TREC_CUTS[name[:-2].lower()] = definition.name
        else:
            ALIASES[name.lower()] = definition.name
    return definition


# other tools' names ragrecall does not compute yet, and the nearest it does
NOT_SUPPORTED = {
    "dcg": "nDCG@k (DCG normalised by the ideal DCG)",
    "dcg_burges": "nDCG_burges@k (its normalised form)",
    "rbp": "nDCG@k or AP (rank-biased precision is not supported yet)",
    "err": "nDCG@k (expected reciprocal rank is not supported yet)",
    "infap": "AP (inferred AP is not supported yet)",
}

PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_-]*?)\s*(\(\s*rel\s*=\s*(?P<rel>[^)]*)\))?"
    r"\s*(@\s*(?P<cutoff>.*?))?\s*$"
)
# ranx's relevance level, after the whole name: ndcg@10-l2, map-l2
RANX_LEVEL = re.compile(r"-l(?P<level>[^-@()]*)\s*$")
# trec_eval's cutoff after the name: P_5, ndcg_cut_10, P.5
TREC_CUT = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z_]*?)[_.](?P<cutoff>[0-9]+)\s*$")
LEADING_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
ALIAS_FAMILIES = (
    "or another tool's name for one (see docs/measures.md): ranx's hit_rate@k, "
    "hits@k, mrr@k, map@k, ndcg@k-l2 (-lN: relevance level); trec_eval's P_5, recall_100, "
    "ndcg_cut_10, map_cut_10, recip_rank; ir_measures' R@k, RR@k, Success@k, P(rel=2)@k"
)


def valid_names() -> str:
    names = []
    for d in REGISTRY.values():
        suffix = "@k" if d.cutoff == REQUIRED else "[@k]" if d.cutoff == OPTIONAL else ""
        names.append(d.name + suffix)
    return ", ".join(names)


def parse_measure(text: str, source: str = "measure") -> Measure:
    """Parse ``Recall@5``, ``MRR@10``, ``P(rel=2)@3`` ... into a :class:`Measure`; other
    tools' names too (ranx's ``ndcg@10-l2``, trec_eval's ``ndcg_cut_10``).

    >>> parse_measure("Success@5")
    Measure(name='Hit', cutoff=5, rel=None)
    >>> parse_measure("precision@5-l2")
    Measure(name='P', cutoff=5, rel=2)
    """
    body, level = _ranx_level(text, source)
    trec = TREC_CUT.match(body)
    if trec and trec.group("name").lower() in TREC_CUTS:
        name, cutoff_text, rel_text = TREC_CUTS[trec.group("name").lower()], trec["cutoff"], None
    else:
        match = PATTERN.match(body)
        name = ALIASES.get(match.group("name").lower()) if match else None
        if name is None:
            raise refused(source, text, _unknown(body))
        cutoff_text, rel_text = match.group("cutoff"), match.group("rel")
    if rel_text is not None and level is not None:
        raise refused(source, text, "one relevance level: (rel=N) or -lN")
    definition = REGISTRY[name]
    cutoff = _positive_int(cutoff_text, text, source, "a cutoff k")
    rel = _positive_int(rel_text if level is None else level, text, source, "a relevance level")
    form = f"{name}@k" if definition.cutoff == REQUIRED else name
    if cutoff is None and definition.cutoff == REQUIRED:
        raise refused(source, text, f"{name}@k with a positive integer k")
    if cutoff is not None and definition.cutoff == NONE:
        raise refused(source, text, f"{name} without a cutoff")
    if rel is not None and not definition.takes_rel:
        raise refused(source, text, f"{form} without a relevance level (none applies)")
    return Measure(name, cutoff, rel)


def refused(source: str, text: str, expected: str) -> InputError:
    """The error for a measure (or a cutoff, a level) given as ``text``: what the user
    typed is quoted redacted whole, before the problem cuts it (``-m $GITHUB_TOKEN``)."""
    return InputError([Problem(source, None, redact_text(text), expected)])


def _ranx_level(text: str, source: str) -> tuple[str, str | None]:
    """``text`` without ranx's ``-lN`` suffix, and N (``None`` without the suffix)."""
    match = RANX_LEVEL.search(text)
    if match is None:
        return text, None
    if not ASCII_DIGITS.fullmatch(match.group("level")):
        raise refused(source, text, "a relevance level -lN with N a positive integer")
    return text[: match.start()], match.group("level")


def _unknown(text: str) -> str:
    """What an unknown name should have been; the nearest measure for a known peer's name."""
    leading = LEADING_NAME.match(text)
    name = leading.group(0).lower() if leading else ""
    if name in NOT_SUPPORTED:
        return f"a supported measure: {name} is not supported yet; nearest: {NOT_SUPPORTED[name]}"
    return f"a measure name: one of {valid_names()}; {ALIAS_FAMILIES}"


def parse_cutoff(text: str | int, source: str = "-k", what: str = "a cutoff k") -> int:
    """A positive whole number in ASCII digits: a cutoff, or (``what``) a depth or a level."""
    return _positive_int(str(text), str(text), source, what)


# ASCII digits only: str.isdigit() also accepts "²" (int() then fails) and "١" (int() reads 1)
ASCII_DIGITS = re.compile(r"[0-9]+")
# DuckDB compares ranks as INTEGER: a larger cutoff is no cutoff a run could reach
MAX_CUTOFF = 2**31 - 1


def parse_level(text: str | int, source: str = "--rel-level") -> int:
    """A policy's relevance level: a whole number in ASCII digits from 0 (every judged item
    relevant, as trec_eval's ``-l0``) to :data:`MAX_CUTOFF`."""
    raw = str(text).strip()
    if not ASCII_DIGITS.fullmatch(raw) or int(raw) > MAX_CUTOFF:
        expected = f"a relevance level N that is an integer from 0 to {MAX_CUTOFF}"
        raise refused(source, str(text), expected)
    return int(raw)


def _positive_int(raw: str | None, text: str, source: str, what: str) -> int | None:
    if raw is None:
        return None
    raw = raw.strip()
    if not ASCII_DIGITS.fullmatch(raw) or not 1 <= int(raw) <= MAX_CUTOFF:
        raise refused(source, text, f"{what} that is a positive integer <= {MAX_CUTOFF}")
    return int(raw)


@dataclass(frozen=True)
class MeasureRequest:
    """A measure as the user asked for it: ``label`` is their spelling (``MRR@5``)."""

    measure: Measure
    label: str = field(default="")

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", str(self.measure))

    @property
    def query_label(self) -> str:
        """The name of one query's value: the user's spelling, but never a mean's name
        (SPEC: the value of one query is never called MRR). Asked as ``MRR@5``, ``mrr@5`` or
        ``MAP``, one query's value is ``RR@5`` or ``AP``; the mean keeps the user's name.

        >>> MeasureRequest(parse_measure("MRR@5"), "MRR@5").query_label
        'RR@5'
        >>> MeasureRequest(parse_measure("P_5"), "P_5").query_label
        'P_5'
        """
        mean = self.measure.definition.mean_name
        name = LEADING_NAME.match(self.label)
        if mean and name and name.group(0).lower() == mean.lower():
            return str(self.measure)
        return self.label


def parse_requests(texts: object, source: str = "-m") -> list[MeasureRequest]:
    """Parse every measure (a name, a :class:`Measure` or an ir_measures measure object; one
    alone or a list of them: :func:`measure_items`), each once (:func:`distinct_requests`),
    reporting all bad ones at once."""
    requests, problems = gather(measure_items(texts, source), lambda item: request_of(item, source))
    distinct, repeated = distinct_requests(requests, source)
    raise_if_any(problems + repeated)
    return distinct


def distinct_requests(
    requests: list[MeasureRequest], source: str = "-m"
) -> tuple[list[MeasureRequest], list[Problem]]:
    """Each measure of ``requests`` once, in the order first asked, and the problems of the
    others. What a name means (its :class:`Measure`) decides, not how it is spelled: the
    same measure under the same label again adds nothing; under another label (``P@5`` and
    ``P@05``, ``P_5``, ``p@5``) it is refused, naming both, as is one label for two
    measures: which label to report, or which measure, would be a guess."""
    label_of: dict[Measure, str] = {}
    measure_of: dict[str, Measure] = {}
    distinct, problems = [], []
    for request in requests:
        measure, label = request.measure, request.label
        if label_of.get(measure, label) != label:
            expected = (
                f"each measure once: {label_of[measure]} and {label} are both {measure} "
                "(keep one spelling)"
            )
            problems.append(Problem(source, None, label, expected))
        elif measure_of.get(label, measure) != measure:
            expected = f"one measure per name: {label} names {measure_of[label]} and {measure}"
            problems.append(Problem(source, None, label, expected))
        elif measure not in label_of:
            label_of[measure], measure_of[label] = label, measure
            distinct.append(request)
    return distinct, problems


MEASURES = "a measure name, a measure object such as ir_measures' nDCG@10, or a list of them"


def measure_items(measures: object, source: str = "-m") -> list:
    """``measures`` as a list: one name, :class:`Measure`, request or measure object alone is
    one measure (a name is never split into its letters, as ``list()`` would split it); a
    list, tuple or other iterable gives its items. A number, bytes or a dict is refused."""
    if isinstance(measures, str | Measure | MeasureRequest) or hasattr(measures, "NAME"):
        return [measures]
    if isinstance(measures, bytes | bytearray | Mapping) or not hasattr(type(measures), "__iter__"):
        raise refused(source, _name_of(measures, source), MEASURES)
    return list(measures)


def request_of(item: object, source: str = "-m") -> MeasureRequest:
    """A measure as given: a name (``"nDCG@10"``), a :class:`Measure`, or an object shaped
    like an ir_measures measure (``NAME`` and ``params``, else whose ``str()`` is its name),
    recognised by its shape, never by importing ir_measures."""
    if isinstance(item, str):
        return MeasureRequest(parse_measure(item, source), item.strip())
    if isinstance(item, Measure):
        return MeasureRequest(item)
    label = _name_of(item, source)
    name, params = getattr(item, "NAME", None), getattr(item, "params", None)
    if isinstance(name, str) and isinstance(params, Mapping):
        try:
            return MeasureRequest(_from_params(name, params, label, source), label)
        except InputError:
            raise
        except Exception:  # noqa: BLE001 - a foreign mapping or value that fails is bad input
            expected = f"ir_measures parameters among {IR_MEASURES_PARAMS}"
            raise refused(source, label, expected) from None
    return MeasureRequest(parse_measure(label, source), label)


# ir_measures' parameters and the values ragrecall honours (any other is refused)
IR_MEASURES_PARAMS = "cutoff, rel, judged_only=False, dcg='log2' or 'exp-log2' (nDCG)"


def _from_params(name: str, params: Mapping, label: str, source: str) -> Measure:
    """An ir_measures measure (``NAME``, ``params``) as the ragrecall measure it equals."""
    params = dict(params)
    dcg, judged_only = params.pop("dcg", "log2"), params.pop("judged_only", False)
    honoured = (
        set(params) <= {"cutoff", "rel"}
        and judged_only is False
        and (dcg == "log2" or (dcg == "exp-log2" and name == "nDCG"))
    )
    if not honoured:
        raise refused(source, label, f"ir_measures parameters among {IR_MEASURES_PARAMS}")
    if dcg == "exp-log2":
        name = "nDCG_burges"
    rel = f"(rel={params['rel']})" if "rel" in params else ""
    cutoff = f"@{params['cutoff']}" if "cutoff" in params else ""
    return parse_measure(f"{name}{rel}{cutoff}", source)


def _name_of(item: object, source: str) -> str:
    """``str(item)``; whatever that raises is the caller's bad input, not a traceback."""
    try:
        text = str(item)
    except Exception:  # noqa: BLE001 - any error of a foreign __str__ is bad input
        text = None
    if not isinstance(text, str):
        expected = "a measure name, or a measure object such as ir_measures' nDCG@10"
        raise InputError([Problem(source, None, type(item).__name__, expected)])
    return text
