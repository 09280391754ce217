"""The query's words marked in untrusted chunk text, safely.

:func:`segments` splits a text into ``(piece, is_match)`` pairs; :func:`highlight_html`
escapes every piece with ``html.escape`` and wraps the matches in ``<mark>``, so no character
of the text can become markup (the only tags in the result are the ``<mark>`` added here).

A text word matches a query word when both read the same after case folding and Unicode
NFC normalisation (Cyrillic and Vietnamese letters included, composed or decomposed), or
when it extends a query word of at least :data:`MIN_PREFIX` letters ("window" marks
"windows", not "wind"). Stop-words and words of one or two letters are never marked.
"""

from __future__ import annotations

import html
import re
import unicodedata

# a word: a letter or digit, then letters, digits and combining marks (decomposed diacritics)
WORD = re.compile(r"[^\W_][\w\u0300-\u036f]*")
MIN_PREFIX = 4
SHORTEST_TERM = 3

STOP_WORDS = frozenset(
    # English
    "the and for are but not you all any can had her was one our out has have what when "
    "where which who whom why how this that these those with from into onto than then there "
    "their them they does did doing its about after before over under again also only "
    "should would could will shall may might must been being were each other some such "
    "very more most just your yours ours his hers itself".split()
    # Russian
    + "как что это для или при без над под про все его она они оно так там тут уже вот "
    "где когда если чем кто чей нет был была были быть есть можно нужно надо тоже также "
    "этот эта эти того этого тем после перед через между ли же бы".split()
    # Vietnamese
    + "của và các những được cho với trong không này khi thì là một có để người "
    "nào gì đâu bao nhiêu thế sao hay hoặc theo từ đến ra vào".split()
)


def _key(word: str) -> str:
    return unicodedata.normalize("NFC", word.casefold())


def query_terms(query: str | None) -> list[str]:
    """The words of ``query`` worth marking: folded, unique, longest first."""
    words = {_key(w) for w in WORD.findall(query or "")}
    kept = {w for w in words if len(w) >= SHORTEST_TERM and w not in STOP_WORDS}
    return sorted(kept, key=lambda w: (-len(w), w))


def _matches(word: str, terms: list[str]) -> bool:
    key = _key(word)
    return any(key == t or (len(t) >= MIN_PREFIX and key.startswith(t)) for t in terms)


def segments(text: str | None, terms: list[str]) -> list[tuple[str, bool]]:
    """``text`` cut into consecutive pieces, each flagged when it is a matching word; joining
    the pieces gives ``text`` back unchanged."""
    text = text or ""
    out: list[tuple[str, bool]] = []
    plain_from = 0
    for found in WORD.finditer(text):
        if terms and _matches(found.group(), terms):
            if found.start() > plain_from:
                out.append((text[plain_from : found.start()], False))
            out.append((found.group(), True))
            plain_from = found.end()
    if plain_from < len(text):
        out.append((text[plain_from:], False))
    return out


def highlight_html(text: str | None, terms: list[str]) -> str:
    """``text`` as HTML: every piece escaped, the matching words in ``<mark>``."""
    return "".join(
        f"<mark>{html.escape(piece)}</mark>" if hit else html.escape(piece)
        for piece, hit in segments(text, terms)
    )
