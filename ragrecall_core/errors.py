"""Input problems, collected rather than raised one at a time.

Every loader gathers all the problems of a file into one :class:`InputError`,
so a user fixes a file in one pass instead of one error per run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# The one rule of how much of a value a problem carries (its text line, the API and any JSON
# alike): at most this many of its characters, enough to find it, never a whole line or a
# 10 MB exception text. A longer value keeps its first and last half of them...
MAX_VALUE_CHARS = 80
# ... and its middle becomes this mark: how many characters were cut, of how many. Its
# brackets are the mark's own: a value's copies of them are shown escaped (MARK_ESCAPES),
# so no text of a file can pass for a cut.
CUT_MARK = "...\u27e6cut {cut} of {total} chars\u27e7..."
_CUT = re.compile(r"\.\.\.\u27e6cut (\d+) of \d+ chars\u27e7\.\.\.")
MARK_ESCAPES = str.maketrans({"\u27e6": "\\u27e6", "\u27e7": "\\u27e7"})
# A problem's file and what it expected are cut by the same rule, to more characters: a
# path is routinely longer than 80 and its every folder may matter, and ``expected`` may
# list the valid names (every measure: some 400); 10,000 of either is never shown.
MAX_FIELD_CHARS = 500


@dataclass(frozen=True)
class Problem:
    """One bad thing in one input: where it is, what was there, what was expected.

    ``value``, ``file`` and ``expected`` are kept as :func:`shortened` makes them, here and
    nowhere else, so every reader (the text line, ``InputError.problems``, a JSON dump, the
    dashboard) gets the same bounded fields: a file name can be as hostile as a value (an
    upload's name, a folder 10,000 characters deep), and ``expected`` can quote input. A
    caller redacts secrets from the *whole* text of a field before it builds the problem
    (``redact_text(key)``; a path, in any field, ``redact_path(path)``): a cut made first
    could leave a piece of a secret that redaction no longer recognises (this module is
    above ``inputs/secrets.py`` and cannot call it). Ids (a query's, a run's, an
    annotator's) are shown as their file writes them.

    >>> str(Problem("gold.jsonl", 3, '"rank": 0', "a positive integer rank"))
    'gold.jsonl:3: got \\'"rank": 0\\', expected a positive integer rank'
    """

    file: str
    line: int | None
    value: str
    expected: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", shortened(self.value))
        for field in ("file", "expected"):
            object.__setattr__(self, field, shortened(getattr(self, field), MAX_FIELD_CHARS))

    def __str__(self) -> str:
        """One line, whatever the fields hold: each is file text (a file name, a value, a key
        quoted in ``expected``), so a line break or a terminal escape in one of them is shown
        escaped and cannot fake a second problem line."""
        file = one_line(self.file)
        where = file if self.line is None else f"{file}:{self.line}"
        return f"{where}: got {self.value!r}, expected {one_line(self.expected)}"


class Shown(str):
    """A field as :func:`shortened` made it: bounded, its own mark brackets escaped, so every
    mark in it is a cut. Shortening it again changes nothing."""

    __slots__ = ()


def shortened(value, limit: int = MAX_VALUE_CHARS) -> Shown:
    """``value`` (as text) with at most ``limit`` (:data:`MAX_VALUE_CHARS`) of its
    characters (:data:`MAX_FIELD_CHARS` for a problem's file and expected): a longer
    one keeps its start (a line's first fields) and its end (a path's file name, what is
    wrong with a key), and its middle becomes a :data:`CUT_MARK` saying how much was cut of
    how much.

    The value's own copies of the mark's brackets (``⟦``, ``⟧``) are written as their
    escapes first (``\\u27e6``, as :func:`one_line` writes a control character), whatever
    its length: text shaped like the mark shows escaped, and every mark left is one a cut
    made. Counts are of the value as shown (its escapes included). A value already shown
    (:class:`Shown`) is not escaped again, and cutting it again changes nothing; to say it
    of something, use :func:`said_of`.

    >>> cut = shortened("/tmp/" + "d" * 100 + "/taken.jsonl")
    >>> cut[:8], cut[40:67], cut[-12:]
    ('/tmp/ddd', '...⟦cut 37 of 117 chars⟧...', '/taken.jsonl')
    >>> shortened("id ⟦cut 5 of 9 chars⟧")
    'id \\\\u27e6cut 5 of 9 chars\\\\u27e7'
    """
    if isinstance(value, Shown):
        return _cut(value, limit)
    text = value if isinstance(value, str) else str(value)
    return _cut(text.translate(MARK_ESCAPES), limit)


def said_of(prefix: str, value) -> Shown:
    """``prefix`` (escaped) then ``value`` as :func:`shortened` shows it, cut again around
    the value's mark, whose count is added: a loader saying a problem of its query
    (``query 'q1': <value>``) keeps the total of the first value.

    >>> said_of("query 'q1': ", "v" * 100)[:30]
    "query 'q1': vvvvvvvvvvvvvvvvvv"
    """
    return _cut(prefix.translate(MARK_ESCAPES) + shortened(value))


def _cut(value: str, limit: int = MAX_VALUE_CHARS) -> Shown:
    """``value`` (whose marks are all cuts) cut to its head and end around one mark."""
    if len(value) <= limit:
        return value if isinstance(value, Shown) else Shown(value)
    marks = list(_CUT.finditer(value))
    total = len(value) + sum(int(mark[1]) - len(mark[0]) for mark in marks)
    start, end = limit // 2, len(value) - (limit - limit // 2)
    cut = 0
    for mark in marks:  # a mark is cut whole or kept whole, never split
        if mark.start() < end and mark.end() > start:
            start, end = min(start, mark.start()), max(end, mark.end())
            cut += int(mark[1]) - len(mark[0])
    cut += end - start
    return Shown(value[:start] + CUT_MARK.format(cut=cut, total=total) + value[end:])


def one_line(text, keep: str = "") -> str:
    """``text`` (any value, as ``str``) as a terminal shows it safely: every character that is
    not printable written as its Python escape, except those in ``keep``.

    The one escaping rule of every text output (tables, TSV / CSV, Markdown, error
    messages; JSON keeps exact values): not printable are the C0 and C1 controls and DEL
    (``\\x1b``, ``\\r``, ``\\n``, ``\\t``, ``\\x85``), the line and paragraph separators
    (``\\u2028``, ``\\u2029``), the bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E,
    U+200F, U+061C) and every other format, private-use, unassigned or space character but
    the space. So a file's id or name cannot forge a line, erase one, or reorder what is
    shown. ``keep="\\n\\t"`` escapes a whole rendered text but its own line breaks and tabs.

    >>> one_line("run.jsonl\\nfake.jsonl:1: got 'x'")
    "run.jsonl\\\\nfake.jsonl:1: got 'x'"
    >>> one_line("q\\x1b[2K\\u2028\\u202e")
    'q\\\\x1b[2K\\\\u2028\\\\u202e'
    >>> one_line("a\\tb\\nc\\r\\n", keep="\\n\\t")
    'a\\tb\\nc\\\\r\\n'
    """
    text = str(text)
    if text.isprintable():
        return text
    kept_out = text
    for character in keep:
        kept_out = kept_out.replace(character, "")
    if kept_out.isprintable():  # a whole rendered text: one pass in C, no loop in Python
        return text
    return "".join(
        c if c.isprintable() or c in keep else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


class InputError(ValueError):
    """One or more problems in the user's input; ``str()`` lists them all."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__(self._message())

    def _message(self) -> str:
        shown = [str(p) for p in self.problems[:50]]
        if len(self.problems) > 50:
            shown.append(f"... and {len(self.problems) - 50} more problems")
        return "\n".join(shown)


def gather(items: Iterable[T], parse: Callable[[T], R]) -> tuple[list[R], list[Problem]]:
    """Apply ``parse`` to every item: the results of those that pass, and the problems of
    all those that fail, so one error can report every bad input at once.

    >>> from ragrecall_core.measures import parse_cutoff
    >>> cutoffs, problems = gather(["5", "0"], parse_cutoff)
    >>> cutoffs, [p.value for p in problems]
    ([5], ['0'])
    """
    results: list[R] = []
    problems: list[Problem] = []
    for item in items:
        try:
            results.append(parse(item))
        except InputError as error:
            problems += error.problems
    return results, problems


def raise_if_any(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)
