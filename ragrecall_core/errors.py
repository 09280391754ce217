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
# ... and its middle becomes this mark: how many characters were cut, of how many.
CUT_MARK = "...[cut {cut} of {total} chars]..."
_CUT = re.compile(r"\.\.\.\[cut (\d+) of \d+ chars\]\.\.\.")


@dataclass(frozen=True)
class Problem:
    """One bad thing in one input: where it is, what was there, what was expected.

    ``value`` is kept as :func:`shortened` makes it, here and nowhere else, so every reader
    (the text line, ``InputError.problems``, a JSON dump, the dashboard) gets the same
    bounded value. A caller redacts secrets from the *whole* value before it builds the
    problem (``redact_text(key)``): a cut made first could leave a piece of a secret that
    redaction no longer recognises.

    >>> str(Problem("gold.jsonl", 3, '"rank": 0', "a positive integer rank"))
    'gold.jsonl:3: got \\'"rank": 0\\', expected a positive integer rank'
    """

    file: str
    line: int | None
    value: str
    expected: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", shortened(str(self.value)))

    def __str__(self) -> str:
        """One line, whatever the fields hold: each is file text (a file name, a value, a key
        quoted in ``expected``), so a line break or a terminal escape in one of them is shown
        escaped and cannot fake a second problem line."""
        file = one_line(self.file)
        where = file if self.line is None else f"{file}:{self.line}"
        return f"{where}: got {self.value!r}, expected {one_line(self.expected)}"


def shortened(value: str) -> str:
    """``value`` with at most :data:`MAX_VALUE_CHARS` of its characters: a longer one keeps
    its start (a line's first fields) and its end (a path's file name, what is wrong with a
    key), and its middle becomes a :data:`CUT_MARK` saying how much was cut of how much.

    A value cut before (a loader says a problem of its query: ``query 'q1': <value>``) is
    cut around its mark, whose count is added: the total stays that of the first value.

    >>> cut = shortened("/tmp/" + "d" * 100 + "/taken.jsonl")
    >>> cut[:8], cut[40:68], cut[-12:]
    ('/tmp/ddd', '...[cut 37 of 117 chars]...', '/taken.jsonl')
    """
    if len(value) <= MAX_VALUE_CHARS:
        return value
    marks = list(_CUT.finditer(value))
    total = len(value) + sum(int(mark[1]) - len(mark[0]) for mark in marks)
    start, end = MAX_VALUE_CHARS // 2, len(value) - (MAX_VALUE_CHARS - MAX_VALUE_CHARS // 2)
    cut = 0
    for mark in marks:  # a mark is cut whole or kept whole, never split
        if mark.start() < end and mark.end() > start:
            start, end = min(start, mark.start()), max(end, mark.end())
            cut += int(mark[1]) - len(mark[0])
    cut += end - start
    return value[:start] + CUT_MARK.format(cut=cut, total=total) + value[end:]


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
