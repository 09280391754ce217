"""The dashboard's view state, and how it round-trips through URL query parameters.

Everything a shared link must reproduce lives in one :class:`ViewState` value;
:func:`from_params` and :func:`to_params` are pure, so a copied URL gives back the
same view on any page. Values that do not fit the open workspace are dropped by
:func:`ViewState.fit` rather than raising, so an old link still opens.

>>> s = from_params({"k": ["10"], "run": ["bm25", "dense"], "failing": ["1"]})
>>> (s.k, s.runs, s.failing_only)
(10, ('bm25', 'dense'), True)
>>> to_params(s)
{'run': ['bm25', 'dense'], 'k': '10', 'failing': '1'}

The source of the data (a workspace folder, or loose files) comes from the
command line after ``--`` or the ``RAGRECALL_WORKSPACE`` environment variable::

    streamlit run app.py -- --workspace W
    streamlit run app.py -- --gold G --run R1 --run R2 --grades F --corpus C
"""

from __future__ import annotations

import argparse
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ragrecall_core.inputs.configs import config_path_for
from ragrecall_core.scoring.policy import CHUNK, DOC, Policy

DEFAULT_K = 5
K_CHOICES = (1, 2, 3, 5, 10, 20, 50, 100)
ANY = ""
# the judgment store and its write-ahead log live in a workspace folder but are no input
STORE_SUFFIXES = (".duckdb", ".duckdb.wal")

# URL key -> (ViewState field, kind)
PARAMS: dict[str, tuple[str, str]] = {
    "run": ("runs", "list"),
    "focus": ("focus", "str"),
    "k": ("k", "int"),
    "split": ("split", "str"),
    "type": ("query_type", "str"),
    "section": ("section", "str"),
    "failing": ("failing_only", "bool"),
    "fclass": ("failure_class", "str"),
    "doclen": ("doc_length", "str"),
    "reason": ("reason", "str"),
    "by": ("group_by", "str"),
    "q": ("query_id", "str"),
    "bin": ("rank_bin", "str"),
    "base": ("baseline", "str"),
    "cand": ("candidate", "str"),
    "cq": ("compare_query", "str"),
    "fc": ("max_false_confidence", "int"),
    "rel": ("rel_level", "int"),
    "unit": ("unit", "str"),
    "partial": ("partial", "str"),
    "harmful": ("harmful", "str"),
    "manual": ("manual_grades", "bool"),
}
# the policy choices the dashboard offers (the first of each is the default)
REL_LEVELS = (1, 2)
UNITS = (CHUNK, DOC)
PARTIAL = ("not_relevant", "relevant")
HARMFUL = ("not_relevant", "as_graded")
GROUP_BY = ("failure_class", "query_type", "section", "doc_length", "reason")
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
MAX_K = 10_000
# URL keys whose values must be one of a fixed set (the rest are free text, fitted later)
CHOICES: dict[str, tuple] = {
    "rel": REL_LEVELS,
    "unit": UNITS,
    "partial": PARTIAL,
    "harmful": HARMFUL,
    "by": GROUP_BY,
}
# URL keys of whole numbers -> (smallest, largest) accepted
INT_RANGES: dict[str, tuple[int, int]] = {"k": (1, MAX_K), "fc": (0, 100), "rel": (1, 2)}
SHOWN_CHARS = 80


@dataclass(frozen=True)
class ViewState:
    """What the user is looking at. Empty strings mean "no filter"."""

    runs: tuple[str, ...] = ()
    focus: str = ANY
    k: int = DEFAULT_K
    split: str = ANY
    query_type: str = ANY
    section: str = ANY
    failing_only: bool = False
    failure_class: str = ANY
    doc_length: str = ANY
    reason: str = ANY
    group_by: str = "failure_class"
    query_id: str = ANY
    rank_bin: str = ANY
    baseline: str = ANY
    candidate: str = ANY
    compare_query: str = ANY
    max_false_confidence: int = 10  # percent, the No-answer page's trade-off
    rel_level: int = REL_LEVELS[0]
    unit: str = UNITS[0]
    partial: str = PARTIAL[0]
    harmful: str = HARMFUL[0]
    manual_grades: bool = True

    def fit(self, options: ViewOptions) -> ViewState:
        """This state with values the workspace does not have dropped or replaced."""
        runs = tuple(r for r in self.runs if r in options.runs) or tuple(options.runs)
        focus = self.focus if self.focus in runs else (runs[0] if runs else ANY)
        k = self.k if self.k in options.k_choices else _nearest(self.k, options.k_choices)
        return replace(
            self,
            runs=runs,
            focus=focus,
            k=k,
            split=_keep(self.split, options.splits),
            query_type=_keep(self.query_type, options.query_types),
            section=_keep(self.section, options.sections),
            **_compare_pair(self.baseline, self.candidate, options.runs),
            **self._fit_policy(),
        )

    def _fit_policy(self) -> dict:
        """Policy values the dashboard does not offer fall back to the defaults."""
        choices = {
            "rel_level": REL_LEVELS,
            "unit": UNITS,
            "partial": PARTIAL,
            "harmful": HARMFUL,
        }
        return {
            name: _keep(getattr(self, name), allowed) or allowed[0]
            for name, allowed in choices.items()
        }

    def policy(self) -> Policy:
        """The evaluation policy this view's numbers are computed under."""
        return Policy(
            rel_level=self.rel_level,
            unit=self.unit,
            partial=self.partial,
            harmful=self.harmful,
            manual_grades=self.manual_grades,
        )

    def filters(self) -> dict[str, str]:
        """The active query filters, by table column."""
        pairs = {
            "split": self.split,
            "query_type": self.query_type,
            "section": self.section,
            "failure_class": self.failure_class,
            "doc_length": self.doc_length,
            "reason": self.reason,
        }
        return {c: v for c, v in pairs.items() if v}


@dataclass(frozen=True)
class ViewOptions:
    """What the open workspace offers to choose from."""

    runs: Sequence[str] = ()
    k_choices: Sequence[int] = K_CHOICES
    splits: Sequence[str] = ()
    query_types: Sequence[str] = ()
    sections: Sequence[str] = ()


def _keep(value, allowed: Sequence):
    return value if value in allowed else ANY


def _nearest(k: int, choices: Sequence[int]) -> int:
    if not choices:
        return k
    if DEFAULT_K in choices and k == DEFAULT_K:
        return k
    return min(choices, key=lambda c: (abs(c - k), c))


def _compare_pair(baseline: str, candidate: str, runs: Sequence[str]) -> dict[str, str]:
    """Baseline and candidate for the Compare page: kept if loaded, else the first two runs."""
    runs = list(runs)
    base = baseline if baseline in runs else (runs[0] if runs else ANY)
    others = [r for r in runs if r != base]
    cand = candidate if candidate in others else (others[0] if others else ANY)
    return {"baseline": base, "candidate": cand}


def k_choices(depth: int | None) -> tuple[int, ...]:
    """Cutoffs offered for runs of the given maximum depth (always at least 1)."""
    if not depth:
        return K_CHOICES
    choices = tuple(c for c in K_CHOICES if c <= depth)
    return choices if depth in choices else (*choices, depth)


def from_params(params: Mapping[str, Sequence[str] | str]) -> ViewState:
    """Read a state from query parameters (each value a string or a list of strings)."""
    return read_params(params)[0]


def read_params(params: Mapping[str, Sequence[str] | str]) -> tuple[ViewState, list[str]]:
    """The state the parameters ask for, and one line per parameter refused.

    A refused value (``k=²``, ``fc=-5``, ``unit=page``) leaves its field at the
    default, so a crafted or mistyped link still opens; the lines say which.
    """
    values: dict = {}
    refused: list[str] = []
    for key, (name, kind) in PARAMS.items():
        raw = params.get(key)
        items = [] if raw is None else [raw] if isinstance(raw, str) else list(raw)
        items = [str(i) for i in items if str(i) != ""]
        if not items:
            continue
        if kind == "list":
            values[name] = tuple(dict.fromkeys(x for i in items for x in i.split(",") if x))
            continue
        value, expected = _read_value(key, kind, items[0])
        if expected:
            refused.append(_refusal(key, items[0], expected, getattr(ViewState(), name)))
        else:
            values[name] = value
    return ViewState(**values), refused


def _read_value(key: str, kind: str, text: str):
    """``(value, "")`` or ``(None, what was expected)`` for one parameter's text."""
    if kind == "int":
        low, high = INT_RANGES[key]
        # ASCII digits only: str.isdigit() accepts "²", which int() then refuses
        if not re.fullmatch(r"[0-9]{1,6}", text) or not low <= int(text) <= high:
            return None, f"a whole number from {low} to {high}"
        return int(text), ""
    if kind == "bool":
        if text.lower() not in TRUE_WORDS + FALSE_WORDS:
            return None, "1 or 0"
        return text.lower() in TRUE_WORDS, ""
    if key in CHOICES and text not in map(str, CHOICES[key]):
        return None, "one of " + ", ".join(map(str, CHOICES[key]))
    return text, ""


def _refusal(key: str, text: str, expected: str, default) -> str:
    shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return f"URL parameter {key}: {shown!r}, expected {expected}; using the default ({default})"


def to_params(state: ViewState, default: ViewState | None = None) -> dict[str, str | list[str]]:
    """Query parameters for ``state``, leaving out values equal to ``default``'s."""
    default = default or ViewState()
    out: dict[str, str | list[str]] = {}
    for key, (name, kind) in PARAMS.items():
        value = getattr(state, name)
        if value == getattr(default, name):
            continue
        if kind == "list":
            out[key] = list(value)
        elif kind == "bool":
            out[key] = "1" if value else "0"
        else:
            out[key] = str(value)
    return out


@dataclass(frozen=True)
class Source:
    """Where the data comes from: a workspace folder, or loose files."""

    workspace: Path | None = None
    gold: Path | None = None
    runs: tuple[Path, ...] = ()
    grades: tuple[Path, ...] = ()
    corpus: Path | None = None
    files: tuple[Path, ...] = field(default=(), compare=False)

    @property
    def is_folder(self) -> bool:
        return self.gold is None

    def describe(self) -> str:
        if self.is_folder:
            return str(self.workspace)
        return f"{self.gold} + {len(self.runs)} run file(s)"

    def input_files(self) -> list[Path]:
        """Every file the source reads (for a folder: the files of its layout)."""
        if not self.is_folder:
            files = [self.gold, *self.runs, *self.grades]
            files += [config_path_for(p) for p in self.runs]
            if self.corpus:
                files.append(self.corpus)
            return [p for p in files if p is not None and p.is_file()]
        root = self.workspace
        if root is None or not root.is_dir():
            return []
        found = [p for p in root.iterdir() if p.is_file()]
        for sub in ("runs", "grades"):
            if (root / sub).is_dir():
                found += [p for p in (root / sub).iterdir() if p.is_file()]
        found = [p for p in found if not p.name.endswith(STORE_SUFFIXES)]  # judgments: not inputs
        return sorted(p for p in found if not p.name.startswith("."))


def parse_source(argv: Sequence[str], env: Mapping[str, str], default_workspace: Path) -> Source:
    """The data source from ``-- --workspace W`` / ``--gold G --run R ...`` or the env."""
    parser = argparse.ArgumentParser(prog="app.py", add_help=False)
    parser.add_argument("--workspace", type=Path)
    parser.add_argument("--gold", type=Path)
    parser.add_argument("--run", type=Path, action="append", default=[])
    parser.add_argument("--grades", type=Path, action="append", default=[])
    parser.add_argument("--corpus", type=Path)
    args, _unknown = parser.parse_known_args(list(argv))
    if args.gold is not None:
        return Source(
            gold=args.gold, runs=tuple(args.run), grades=tuple(args.grades), corpus=args.corpus
        )
    if args.workspace is not None:
        return Source(workspace=args.workspace)
    if env.get("RAGRECALL_WORKSPACE"):
        return Source(workspace=Path(env["RAGRECALL_WORKSPACE"]))
    return Source(workspace=default_workspace)


def fingerprint(paths: Sequence[Path]) -> tuple[tuple[str, int, int], ...]:
    """Cheap identity of files (path, size, mtime): the key under which content hashes cache."""
    out = []
    for p in paths:
        st = p.stat()
        out.append((str(p.resolve()), st.st_size, st.st_mtime_ns))
    return tuple(out)


def content_hash(paths: Sequence[Path]) -> str:
    """One sha256 over the names and contents of ``paths``."""
    digest = hashlib.sha256()
    for p in paths:
        digest.update(p.name.encode())
        with p.open("rb") as handle:
            for block in iter(lambda h=handle: h.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
