"""The dashboard's view state: one field table, and how it round-trips through the URL.

Everything a shared link must reproduce lives in one :class:`ViewState` value. Each of its
fields is declared once, with its URL parameter, its session key and the kind of value it
takes (:func:`view_field`); :data:`FIELDS` is that table, and reading the URL
(:func:`read_params`), writing it (:func:`to_params`), the session keys and the defaults
all come from it. Both directions are pure, so a copied URL gives back the same view on
any page. Values that do not fit the open workspace are dropped by :func:`ViewState.fit`
rather than raising, so an old link still opens.

>>> s = from_params({"k": ["10"], "run": ["bm25", "dense"], "failing": ["1"]})
>>> (s.k, s.runs, s.failing_only)
(10, ('bm25', 'dense'), True)
>>> to_params(s)
{'run': ['bm25', 'dense'], 'k': '10', 'failing': '1'}

The source of the data (a workspace folder, or loose files) is
:mod:`ragrecall_core.views.source`'s, named here too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

from ragrecall_core.analysis.pass_rule import RULE_NAMES
from ragrecall_core.analysis.pooling import DEFAULT_DEPTH
from ragrecall_core.inputs.secrets import redact_text
from ragrecall_core.scoring.policy import CHUNK, DOC, Policy

# the data source, in a module of its own that imports no pandas (the launcher reads it
# first thing); named here too, where the dashboard's modules have always found them
from ragrecall_core.views.source import STORE_SUFFIXES as STORE_SUFFIXES
from ragrecall_core.views.source import Source as Source
from ragrecall_core.views.source import content_hash as content_hash
from ragrecall_core.views.source import fingerprint as fingerprint
from ragrecall_core.views.source import parse_source as parse_source

DEFAULT_K = 5
K_CHOICES = (1, 2, 3, 5, 10, 20, 50, 100)
ANY = ""
# the policy choices the dashboard offers (the first of each is the default)
REL_LEVELS = (1, 2)
UNITS = (CHUNK, DOC)
PARTIAL = ("not_relevant", "relevant")
HARMFUL = ("not_relevant", "as_graded")
GROUP_BY = ("failure_class", "query_type", "section", "doc_length", "reason", "verdict")
# the Compare page's outcome lists, one shown at a time (named as `compare --format json`
# names them; the first is the default)
COMPARE_LISTS = ("regressions", "improvements", "still_failing")
# filters a group of the Failures page sets on the Queries page (table columns)
GROUP_FILTERS = ("failure_class", "doc_length", "reason", "verdict", "rank_bin")
# sidebar filters a Failures group can set too (query type, section): named by ``opened_from``
SIDEBAR_GROUPS = ("query_type", "section")
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
MAX_K = 10_000
FALSE_CONFIDENCE_STEP = 5  # percent: the No-answer page's slider moves in these steps
SHOWN_CHARS = 80
# a session key names the page whose state it is (``side`` is the sidebar, on every page)
PAGE_PREFIXES = ("side", "queries", "failures", "ranks", "compare", "noans", "judge", "agreement")
# page (its file in pages/) -> the fields its URL carries besides the shared view (the
# sidebar's ``side_*`` fields): a copied link holds nothing of another page. A Ranks bar's
# bin filters the Queries page, so it is Queries' state.
PAGE_FIELDS = {
    "overview": (),
    "queries": (
        "failure_class",
        "doc_length",
        "reason",
        "verdict",
        "opened_from",
        "query_id",
        "rank_bin",
    ),
    "failures": ("group_by",),
    "ranks": (),
    "judge": ("pool_runs", "pool_depth"),
    "agreement": ("disagreement",),
    "compare": ("baseline", "candidate", "compare_list", "compare_query", "compare_measure"),
    "no_answer": ("max_false_confidence",),
}


# ---------------------------------------------------------------- kinds of value
@dataclass(frozen=True)
class Text:
    """Free text: kept as given, fitted to what the workspace holds later."""

    def read(self, items: list[str]) -> tuple[object, str]:
        """``(value, "")`` or ``(None, what was expected)`` for a parameter's values."""
        return items[0], ""

    def write(self, value) -> str | list[str]:
        return str(value)

    def to_session(self, value):
        return value

    def from_session(self, value):
        return value


@dataclass(frozen=True)
class Names(Text):
    """A list of names: the parameter repeated, or its values separated by commas. Read as
    given; the commas are split when the workspace is known (:func:`_names`), since a run
    file ``a,b.jsonl`` is run ``a,b``."""

    def read(self, items: list[str]) -> tuple[object, str]:
        return tuple(dict.fromkeys(i for i in items if i)), ""

    def write(self, value) -> list[str]:
        return list(value)

    def to_session(self, value):
        return list(value)  # a multiselect holds a list

    def from_session(self, value):
        return tuple(value)


@dataclass(frozen=True)
class WholeNumber(Text):
    """A whole number from ``low`` to ``high``, in ASCII digits."""

    low: int
    high: int

    def read(self, items: list[str]) -> tuple[object, str]:
        text = items[0]
        # ASCII digits only: str.isdigit() accepts "²", which int() then refuses
        if not re.fullmatch(r"[0-9]{1,6}", text) or not self.low <= int(text) <= self.high:
            return None, f"a whole number from {self.low} to {self.high}"
        return int(text), ""


@dataclass(frozen=True)
class Flag(Text):
    """On or off: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``."""

    def read(self, items: list[str]) -> tuple[object, str]:
        text = items[0].lower()
        if text not in TRUE_WORDS + FALSE_WORDS:
            return None, "1 or 0"
        return text in TRUE_WORDS, ""

    def write(self, value) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class OneOf(Text):
    """One of a fixed set of values (the first is the default)."""

    values: tuple

    def read(self, items: list[str]) -> tuple[object, str]:
        by_text = {str(v): v for v in self.values}
        if items[0] not in by_text:
            return None, "one of " + ", ".join(by_text)
        return by_text[items[0]], ""


TEXT = Text()
_VIEW_FIELD = "ragrecall_view_field"


def view_field(default, param: str, key: str, kind: Text = TEXT):
    """A :class:`ViewState` field with its URL parameter, session key and kind of value."""
    return field(default=default, metadata={_VIEW_FIELD: (param, key, kind)})


# ---------------------------------------------------------------- the view state
@dataclass(frozen=True)
class ViewState:
    """What the user is looking at. Empty strings mean "no filter" (or "not chosen")."""

    runs: tuple[str, ...] = view_field((), "run", "side_runs", Names())
    focus: str = view_field(ANY, "focus", "side_focus")
    k: int = view_field(DEFAULT_K, "k", "side_k", WholeNumber(1, MAX_K))
    split: str = view_field(ANY, "split", "side_split")
    query_type: str = view_field(ANY, "type", "side_type")
    section: str = view_field(ANY, "section", "side_section")
    failing_only: bool = view_field(False, "failing", "side_failing", Flag())
    # when a query fails (ragrecall_core.analysis.pass_rule; the first is the default)
    pass_rule: str = view_field(RULE_NAMES[0], "rule", "side_rule", OneOf(RULE_NAMES))
    failure_class: str = view_field(ANY, "fclass", "queries_fclass")
    doc_length: str = view_field(ANY, "doclen", "queries_doclen")
    reason: str = view_field(ANY, "reason", "queries_reason")
    # the meeting's verdict (reason) of the focused run's queries
    verdict: str = view_field(ANY, "verdict", "queries_verdict")
    # the filter a Failures bar or group set (a field name), so Queries names it with a way back
    opened_from: str = view_field(ANY, "from", "queries_from")
    group_by: str = view_field(GROUP_BY[0], "by", "failures_by", OneOf(GROUP_BY))
    query_id: str = view_field(ANY, "q", "queries_q")
    rank_bin: str = view_field(ANY, "bin", "ranks_bin")
    baseline: str = view_field(ANY, "base", "compare_base")
    candidate: str = view_field(ANY, "cand", "compare_cand")
    # the Compare page's outcome list shown (:data:`COMPARE_LISTS`)
    compare_list: str = view_field(COMPARE_LISTS[0], "list", "compare_list", OneOf(COMPARE_LISTS))
    compare_query: str = view_field(ANY, "cq", "compare_q")
    # the measure of the Compare page's deltas by group (empty: the first one)
    compare_measure: str = view_field(ANY, "gm", "compare_group_measure")
    # percent: the No-answer page's most accepted false confidence
    max_false_confidence: int = view_field(10, "fc", "noans_fc", WholeNumber(0, 100))
    rel_level: int = view_field(REL_LEVELS[0], "rel", "side_rel", OneOf(REL_LEVELS))
    unit: str = view_field(UNITS[0], "unit", "side_unit", OneOf(UNITS))
    partial: str = view_field(PARTIAL[0], "partial", "side_partial", OneOf(PARTIAL))
    harmful: str = view_field(HARMFUL[0], "harmful", "side_harmful", OneOf(HARMFUL))
    manual_grades: bool = view_field(True, "manual", "side_manual", Flag())
    # the model judge (annotator ``judge:NAME``) whose grades count; empty: shown, not counted
    judge_grades: str = view_field(ANY, "judge", "side_judge")
    # the Judge page's pool: its runs (empty: every run) and depth (never below k)
    pool_runs: tuple[str, ...] = view_field((), "jrun", "judge_runs", Names())
    pool_depth: int = view_field(DEFAULT_DEPTH, "depth", "judge_depth", WholeNumber(1, MAX_K))
    # the Agreement page's disagreement under review, as "query id · chunk id"
    disagreement: str = view_field(ANY, "pick", "agreement_pick")
    # larger text and less chrome, for a shared screen (ragrecall_app.render)
    presentation: bool = view_field(False, "present", "side_present", Flag())
    # the key of uploaded data (ragrecall_app.context.open_upload checks it), so a link
    # opens the same uploaded files for anyone on the same server
    data: str = view_field(ANY, "data", "side_data")

    def fit(self, options: ViewOptions) -> ViewState:
        """This state with values the workspace does not have dropped or replaced."""
        runs = _loaded(self.runs, options.runs)
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
            **self._fit_choices(),
            max_false_confidence=_round_to(self.max_false_confidence, FALSE_CONFIDENCE_STEP),
            pool_runs=_loaded(self.pool_runs, options.runs),
            judge_grades=_keep(self.judge_grades, options.judges),
            pool_depth=max(self.pool_depth, k),
        )

    def _fit_choices(self) -> dict:
        """Values outside a field's fixed choices fall back to the field's default."""
        return {
            f.name: getattr(self, f.name) if getattr(self, f.name) in f.kind.values else f.default
            for f in FIELDS
            if isinstance(f.kind, OneOf)
        }

    def policy(self) -> Policy:
        """The evaluation policy this view's numbers are computed under."""
        return Policy(
            rel_level=self.rel_level,
            unit=self.unit,
            partial=self.partial,
            harmful=self.harmful,
            manual_grades=self.manual_grades,
            judge=self.judge_grades or None,
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
            "verdict": self.verdict,
            "rank_bin": self.rank_bin,
        }
        return {c: v for c, v in pairs.items() if v}

    def group_filters(self) -> dict[str, str]:
        """The filters a Failures group set, by table column: the group filters, and the
        sidebar filter (query type, section) it set when it set one. The Queries page names
        them in its "Opened from Failures" banner."""
        chosen = {c: v for c, v in self.filters().items() if c in GROUP_FILTERS}
        if self.opened_from in SIDEBAR_GROUPS and getattr(self, self.opened_from):
            chosen[self.opened_from] = getattr(self, self.opened_from)
        return chosen

    def without_group_filters(self) -> dict[str, str]:
        """The changes that undo :meth:`group_filters` (for :func:`put_state`): the way back."""
        return {name: ANY for name in (*self.group_filters(), "opened_from")}


@dataclass(frozen=True)
class StateField:
    """One row of the field table: a :class:`ViewState` field and how it is kept."""

    name: str
    param: str
    key: str
    kind: Text
    default: object


def _field_table(state_class: type) -> tuple[StateField, ...]:
    """The table read off ``state_class``'s fields; a field declared without
    :func:`view_field`, or two fields sharing a URL parameter or session key, fail here,
    at import."""
    table = []
    for f in fields(state_class):
        if _VIEW_FIELD not in f.metadata:
            raise TypeError(f"{state_class.__name__}.{f.name} is declared without view_field()")
        param, key, kind = f.metadata[_VIEW_FIELD]
        table.append(StateField(f.name, param, key, kind, f.default))
    for column in ("param", "key"):
        values = [getattr(row, column) for row in table]
        if len(set(values)) != len(values):
            raise TypeError(f"two ViewState fields share a {column}: {values}")
    return tuple(table)


FIELDS = _field_table(ViewState)
FIELD = {f.name: f for f in FIELDS}


def session_key(name: str) -> str:
    """The session (and widget) key that holds the ``name`` field."""
    return FIELD[name].key


@dataclass(frozen=True)
class ViewOptions:
    """What the open workspace offers to choose from."""

    runs: Sequence[str] = ()
    k_choices: Sequence[int] = K_CHOICES
    splits: Sequence[str] = ()
    query_types: Sequence[str] = ()
    sections: Sequence[str] = ()
    judges: Sequence[str] = ()  # the model judges whose grades the workspace holds


def _keep(value, allowed: Sequence):
    return value if value in allowed else ANY


def _loaded(runs: Sequence[str], loaded: Sequence[str]) -> tuple[str, ...]:
    """The chosen runs that are loaded; every loaded run when none of them is."""
    chosen = (name for given in runs for name in _names(given, loaded))
    return tuple(dict.fromkeys(n for n in chosen if n in loaded)) or tuple(loaded)


def _names(given: str, loaded: Sequence[str]) -> tuple[str, ...]:
    """The names one list item stands for: itself when it is a loaded name (a run named
    with a comma), else its comma-separated parts (``?run=bm25,dense``)."""
    return (given,) if given in loaded else tuple(p for p in given.split(",") if p)


def _round_to(value: int, step: int) -> int:
    return int(round(value / step) * step)


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
    for f in FIELDS:
        raw = params.get(f.param)
        items = [] if raw is None else [raw] if isinstance(raw, str) else list(raw)
        items = [str(i) for i in items if str(i) != ""]
        if not items:
            continue
        value, expected = f.kind.read(items)
        if len(items) > 1 and not isinstance(f.kind, Names):
            given = _listed([repr(_shown(i)) for i in items], 3)
            refused.append(
                f"URL parameter {f.param}: given {len(items)} times ({given}), expected one "
                f"value; using the default ({f.default})"
            )
        elif expected:
            refused.append(_refusal(f.param, items[0], expected, f.default))
        else:
            values[f.name] = value
    return ViewState(**values), refused


def _refusal(param: str, text: str, expected: str, default) -> str:
    shown = _shown(text)
    return f"URL parameter {param}: {shown!r}, expected {expected}; using the default ({default})"


def _shown(text: str) -> str:
    """A link's value as a line quotes it: redacted whole (a token pasted as a section or a
    run), then cut, so no piece of a secret is left that redaction no longer knows."""
    text = redact_text(text)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _listed(items: Sequence[str], most: int) -> str:
    """The first ``most`` of ``items``, comma-separated, and "…" when there are more."""
    return ", ".join(items[:most]) + (", …" if len(items) > most else "")


def not_offered(what: str, value: str, among: str, instead: str) -> str:
    """The line a page shows when its own pick (a link's, or one its filters no longer
    list) is not among what it offers, rather than showing another one without a word."""
    return f"{what} {_shown(value)!r} is not among {among}; {instead}"


# what a link's value of each field must be in the open workspace (:meth:`ViewState.fit`
# keeps it only then): the :class:`ViewOptions` attribute it is one of, and its name
IN_WORKSPACE = {
    "runs": ("runs", "a run of this workspace"),
    "focus": ("runs", "a run of this workspace"),
    "k": ("k_choices", "a cutoff this workspace offers"),
    "split": ("splits", "a split of this workspace"),
    "query_type": ("query_types", "a query type of this workspace"),
    "section": ("sections", "a corpus section of this workspace"),
    "baseline": ("runs", "a run of this workspace"),
    "candidate": ("runs", "a run of this workspace"),
    "pool_runs": ("runs", "a run of this workspace"),
    "judge_grades": ("judges", "a model judge of this workspace"),
}
SHOWN_CHOICES = 8


def unfitted(asked: ViewState, options: ViewOptions) -> list[str]:
    """One line per value of ``asked`` (a link's view, :func:`read_params`) that
    :meth:`ViewState.fit` does not keep in the workspace of ``options``: the value, what
    was expected, and what is shown instead. A link into another workspace, or a run named
    in another case, is said so rather than shown as another view without a word."""
    fitted = asked.fit(options)
    lines = []
    for f in FIELDS:
        value, kept = getattr(asked, f.name), getattr(fitted, f.name)
        if value == f.default or value == kept:
            continue
        if f.name in IN_WORKSPACE:
            attribute, what = IN_WORKSPACE[f.name]
            listed = _listed([str(c) for c in getattr(options, attribute)], SHOWN_CHOICES)
            expected = f"{what} ({listed or 'none'})"
            if f.name == "candidate" and value in options.runs:
                expected = "a run other than the baseline"
            elif f.name == "focus" and value in options.runs:
                expected = "one of the runs shown (" + ", ".join(fitted.runs) + ")"
        elif f.name == "max_false_confidence":
            expected = f"a multiple of {FALSE_CONFIDENCE_STEP}"
        elif f.name == "pool_depth":
            expected = f"a depth of at least k ({fitted.k})"
        else:
            expected = "a value this workspace has"
        if isinstance(f.kind, Names):  # one line for the parameter, however many names
            given = (n for item in value for n in _names(item, options.runs))
            out = list(dict.fromkeys(n for n in given if n not in kept))
            names = ", ".join(repr(_shown(n)) for n in out[:SHOWN_CHOICES])
            more = f", … ({len(out):,} names)" if len(out) > SHOWN_CHOICES else ""
            lines.append(f"URL parameter {f.param}: {names}{more}, expected {expected}; left out")
            continue
        using = "all" if kept == ANY else repr(kept) if isinstance(kept, str) else str(kept)
        lines.append(
            f"URL parameter {f.param}: {_shown(str(value))!r}, expected {expected}; using {using}"
        )
    return lines


def to_params(
    state: ViewState, default: ViewState | None = None, page: str | None = None
) -> dict[str, str | list[str]]:
    """Query parameters for ``state``, leaving out values equal to ``default``'s; with
    ``page`` (a key of :data:`PAGE_FIELDS`), only the shared view and that page's fields."""
    default = default or ViewState()
    return {
        f.param: f.kind.write(getattr(state, f.name))
        for f in FIELDS
        if getattr(state, f.name) != getattr(default, f.name) and _on_page(f, page)
    }


def _on_page(f: StateField, page: str | None) -> bool:
    """Whether the URL of ``page`` (every page's when None) carries field ``f``."""
    return page is None or f.key.startswith("side_") or f.name in PAGE_FIELDS[page]
