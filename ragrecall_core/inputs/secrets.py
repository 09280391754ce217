"""Secrets: what is redacted from a run's config and from a retriever's error message.

Redaction is one pass over a value (:func:`redact`) or a text (:func:`redact_text`), done
where the value enters (a config on load, a capture's error), so that every page, report and
log reads the redacted copy. A text is cut to ``MAX_INSPECTED`` characters first, so a huge
value costs no more than a small one. What goes:

* **by key**: a value whose key names a credential, at any depth, with its parent's key
  (``{"api": {"key": …}}``); everything under it, numbers and booleans too. Keys are
  normalised first (Unicode NFKC, invisible marks dropped, look-alike letters of other
  scripts as Latin, casefold, split at ``_ - .``, spaces and camelCase).
* **by structure**: the value of a name/value pair whose name is a secret key (header lists
  ``[["Authorization", …]]``, ``{"name": "password", "value": …}``); a list of words is also
  read as a command line (``["mysql", "-pX"]``, ``["psql", "--password", "x"]``).
* **by a named rule** (``VALUE_RULES``): private key blocks, provider token families (also
  glued to word characters, and case-folded: :func:`_provider`),
  credentials in URLs, header lines, ``.netrc`` lines, command-line flags, ``key=value`` pairs.
* **by shape**, for the families that have no rule: a token that looks like a credential (long,
  high entropy, base64 / hex / token alphabet, mixed character classes and not made of words),
  unless its key (or the label before it in a text: ``sha256:``, ``commit``) says it is a
  known non-secret (``NOT_SECRET_KEY_WORDS``: a hash, commit, version, id, path). A token
  that is base64 of JSON or of text is decoded and inspected once.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, lru_cache, partial
from typing import Any

REDACTED = "[redacted]"
# Characters of one text that are inspected; the rest is cut and counted in a marker.
MAX_INSPECTED = 2048

# --- secret by key ------------------------------------------------------------------------

# Substrings of the glued key (NFKC, casefolded, letters and digits only) that always name a
# secret. Each one is needed: a key that holds it is caught by no other entry (the tests
# check this, entry by entry).
SECRET_FRAGMENTS = (
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "secret",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "sessionid",
    "authorization",
    "cookie",
    "connectionstring",
    "connstr",
    "webhook",
    "sharedaccess",
)
# Words that name a secret alone ("dsn", "db_pw"), and endings that name one alone or glued to
# a prefix ("DBPASS", "hfToken", "OAUTH").
SECRET_WORDS = {"pw", "dsn", "otp", "jwt", "bearer"}
SECRET_ENDINGS = ("pwd", "pass", "token", "auth", "key")
# Words beside a secret word that make the key an ordinary setting (``pad_token``,
# ``first_pass``, ``sort_key``, ``token_limit``, ``pass_rate``). ``key`` names a key only as
# the last word (``key_path`` is a path).
NOT_SECRET_BEFORE = {
    "token": {"eos", "bos", "pad", "sep", "unk", "cls", "mask", "stop", "start", "end"}
    | {"special", "max", "min", "num", "sentinel"},
    "pass": {"first", "second", "third", "final", "last", "single", "multi", "one", "two"}
    | {"by", "com", "sur", "over", "band", "retrieval", "rerank"},
    "key": {"sort", "partition", "primary", "foreign", "cache", "group", "join", "lookup"}
    | {"hash", "row", "doc", "chunk", "id", "unique", "shard", "field", "order", "routing"}
    | {"metadata", "dedup", "index", "section", "query", "split", "merge", "rank", "public"}
    | {"hot", "label", "text", "title", "content", "source", "target", "score", "filter"},
}
NOT_SECRET_AFTER = {
    "token": {"limit", "limits", "budget", "count", "length", "len", "size", "window"}
    | {"overlap", "type", "ids"},
    "pass": {"rate", "count", "at", "k", "threshold", "fail"},
}
LAST_WORD_ONLY = {"key"}


# Letters of other scripts that look like Latin ones ("раssword" with a Cyrillic "р"): read as
# the Latin letter in keys and texts. Each is needed by a secret word that holds its letter.
LOOKALIKES = {
    "а": "a",  # Cyrillic
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "к": "k",
    "һ": "h",
    "ԁ": "d",
    "ԝ": "w",
    "ο": "o",  # Greek
    "α": "a",
    "ρ": "p",
    "τ": "t",
    "ν": "v",
    "ι": "i",
    "κ": "k",
}


def key_words(key: str) -> list[str]:
    """``"openaiKey"`` -> ``["openai", "key"]``; ``"x-api-key"`` -> ``["x", "api", "key"]``;
    ``"ＰＡＳＳＷＯＲＤ"`` (fullwidth), ``"раssword"`` (a Cyrillic "р") -> ``["password"]``."""
    return list(_key_words(readable(key)))


def readable(text: str) -> str:
    """``text`` as it reads: Unicode NFKC, invisible characters (zero-width, soft hyphen)
    removed, look-alike letters of other scripts as Latin ones."""
    normal = unicodedata.normalize("NFKC", text)
    if not normal.isascii():
        normal = "".join(c for c in normal if unicodedata.category(c) != "Cf")
        upper = {c.upper(): latin.upper() for c, latin in LOOKALIKES.items()}
        normal = normal.translate(str.maketrans(LOOKALIKES | upper))
    return normal


@lru_cache(maxsize=4096)
def _key_words(key: str) -> tuple[str, ...]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return tuple(re.findall(r"[a-z0-9]+", spaced.casefold()))


def is_secret_key(key: str, parent: str = "") -> bool:
    """``api_key``, ``authToken``, ``PGPASSWORD``, ``DBPASS``, ``x-api-key`` and ``key`` under
    ``api`` are secret; ``max_tokens``, ``tokenizer``, ``author``, ``keyword`` are not."""
    return _names_a_secret(key_words(key)) or bool(
        parent and _names_a_secret(key_words(parent) + key_words(key))
    )


def _names_a_secret(words: list[str]) -> bool:
    words = [word.rstrip("0123456789") or word for word in words]  # "pwd2", "key1"
    while len(words) > 1 and words[-1].isdigit():  # "openai_key_2"
        words = words[:-1]
    if len(words) == 1 and words[0].endswith("s") and words[0][:-1].endswith(SECRET_ENDINGS):
        words = [words[0][:-1]]  # "tokens", "keys": a key of several secrets
    if any(fragment in "".join(words) for fragment in SECRET_FRAGMENTS):
        return True
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        after = words[i + 1] if i + 1 < len(words) else None
        for ending in SECRET_ENDINGS if word not in SECRET_WORDS else (word,):
            if word.endswith(ending) and _secret_here(ending, word, before, after):
                return True
    return False


def _secret_here(trigger: str, word: str, before: str, after: str | None) -> bool:
    """Whether ``word`` (``trigger`` or a glued ``prefix + trigger``) names a secret here."""
    prefix = word[: -len(trigger)]
    if trigger in LAST_WORD_ONLY and after is not None:
        return False
    benign_before = NOT_SECRET_BEFORE.get(trigger, set())
    if (prefix or before) in benign_before:
        return False
    return after not in NOT_SECRET_AFTER.get(trigger, set())


# Names that are secret in a ``name=value`` text only (``…&sig=…`` in a SAS URL), beside every
# secret key; matched as the end of the glued name.
TEXT_ONLY_NAMES = ("sig", "signature")


def is_secret_name(name: str) -> bool:
    """The name of a ``name=value`` pair (a text, a header list, a command-line flag)."""
    glued = "".join(key_words(name))
    return is_secret_key(name) or glued.endswith(TEXT_ONLY_NAMES)


# Words of a key (or of the label before a token in a text) that say its value is a known
# non-secret: the shape detector leaves it (named rules still apply). A word matches with a
# plural "s" too.
NOT_SECRET_KEY_WORDS = {
    "hash",
    "digest",
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "checksum",
    "commit",
    "revision",
    "version",
    "etag",
    "uuid",
    "guid",
    "id",
    "path",
}


def is_known_non_secret_key(key: str, parent: str = "") -> bool:
    """``corpus_sha256``, ``commit``, ``model_revision``, ``run_id``: a hash or an id."""
    return any(
        word in NOT_SECRET_KEY_WORDS or (word.endswith("s") and word[:-1] in NOT_SECRET_KEY_WORDS)
        for word in key_words(parent) + key_words(key)
    )


# --- secret by value: named rules --------------------------------------------------------

_URL_STOP = r"\s\"'<>"
# A scheme of a bounded length, and URL text that stops at the next "://": every pattern stays
# linear in the text's length (unbounded, "https://https://…" or "a.b-a.b-…" is quadratic).
_SCHEME = r"\b[a-z][a-z0-9+.-]{0,31}://"
_IN_URL = rf"(?:(?!://)[^{_URL_STOP}])"
# a value: quoted ("…", '…', \"…\" in escaped JSON, {…} in an ODBC string) or up to a separator
_VALUE = r"(?:\"[^\"]*\"|'[^']*'|\\\"[^\"]*\\\"|\{[^}]*\}|[^\s;&,\"'<>]+)"


def _basic_credentials(match: re.Match) -> str:
    """``Basic dXNlcjpwYXNz`` is redacted; ``Basic retrieval`` (a plain word) is not."""
    value = match["value"]
    looks_encoded = re.search(r"[0-9+/=]", value) or re.search(r"[A-Z]", value[1:])
    return match["lead"] + REDACTED if looks_encoded else match[0]


def _secret_flag(match: re.Match) -> str:
    """``--password x`` / ``-api-key x``: the argument after a flag that names a secret."""
    return match["k"] + REDACTED if is_secret_name(match["name"]) else match[0]


def _rule(
    pattern: str,
    replacement: str | Callable[[re.Match], str],
    flags: int = 0,
    *,
    needles: tuple[str, ...],
) -> tuple:
    """A rule: its pattern (compiled when a text first needs it), its replacement, and the
    lower-case texts one of which a text holds whenever the pattern can match it (a text
    holding none is not searched)."""
    return LazyPattern(pattern, flags), replacement, needles


class LazyPattern:
    """A pattern compiled the first time it is used, then read as its ``re.Pattern``.

    The rules take about 6 ms to compile, which every command paid at import; most
    commands' texts (``top_k``, ``bge``, a file name) hold no rule's needle, so they pay
    nothing, and a text that holds one compiles only the rules it needs."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.source = (pattern, flags)

    @cached_property
    def compiled(self) -> re.Pattern:
        return re.compile(*self.source)

    def __getattr__(self, name: str) -> Any:  # .sub, .search, .pattern, .flags
        return getattr(self.compiled, name)


_KEEP = r"\g<k>" + REDACTED


def _provider(
    prefix: str,
    body: str,
    glued: str,
    flags: int = 0,
    *,
    needles: tuple[str, ...],
    window: int | None = None,
    folded: bool = True,
) -> tuple:
    """A provider token: ``prefix`` then ``body`` where a word starts (``ghp_…`` after a space
    or a quote), or ``prefix`` then ``glued`` anywhere: a token written straight after or
    before word characters (``"x" * 45 + "ghp_…"``, ``AKIA…abc``) is one too, but only with
    the provider's full length and the character classes of its random part, and not
    words (:func:`_provider_token`), so that text holding a prefix (``task-force``,
    ``doc#sk-1``, ``task-management-System-2024-guide``) is not. ``window`` is the length of
    the random part (what is read for words: not the glue after it). Unless ``folded`` is
    False, the glued form is read in any case: a token a tool upper- or lower-cased
    (``GHP_…``, ``akia…``) still holds the secret (a GitHub token's checksum finds its case
    back), and it has no case-free word boundary either."""
    free = rf"(?:{prefix})(?P<glued>{glued})"
    # ASCII: a text is NFKC first (no Kelvin sign), and a Unicode-folded class costs a
    # millisecond a rule to compile
    pattern = rf"\b(?:{prefix}){body}|" + (f"(?ai:{free})" if folded else free)
    return _rule(pattern, partial(_provider_token, window), flags, needles=needles)


def _random(charset: str, length: int, *, upper: bool = False, fixed: bool = False) -> str:
    """The random part of a token: ``length`` (or more, unless ``fixed``) characters of
    ``charset`` holding a digit and a letter, and an upper- and a lower-case one if ``upper``
    (a random base62 part of 20 or more has all three)."""
    run = f"[{charset}]{{0,{length - 1}}}" if fixed else f"[{charset}]*"
    classes = [r"[0-9]", r"[A-Za-z]"] + ([r"[A-Z]", r"[a-z]"] if upper else [])
    needs = "".join(f"(?={run}{c})" for c in classes)
    return f"{needs}[{charset}]{{{length}{'' if fixed else ','}}}"


def _provider_token(window: int | None, match: re.Match) -> str:
    """Redact a provider rule's match; a glued one unless its random part (not the glue
    after it) reads as words: by the share of words in it when it has both cases, by
    :func:`_reads_as_words` when it is in one case (``xoxb-…``'s digits, a token whose case
    a tool folded, ``GHP_…``)."""
    glued = match["glued"]
    if glued is None:
        return REDACTED
    part = glued[:window]
    if re.search(r"[A-Z]", part) and re.search(r"[a-z]", part):
        return REDACTED if _word_share(part) <= MAX_WORD_SHARE else match[0]
    return match[0] if _reads_as_words(part) else REDACTED


# A random part in one case reads as words when it is short pieces between separators, or
# when its letters hold a word's share of vowels and its digits stand in a year's or a
# version's one or two places (``sentencetransformers2024multilingualv2``). A case-folded
# random part of base62 has about a fifth of vowels and digits all through it.
MIN_VOWEL_SHARE = 0.3
MAX_DIGIT_RUNS = 2


def _reads_as_words(part: str) -> bool:
    """Whether a random part in one case is words (a name), not a token: see above."""
    if max(len(s) for s in re.split(r"[-_./+=]", part)) < MIN_SEGMENT:
        return True
    letters = re.sub(r"[^a-z]", "", part.lower())
    vowels = sum(letters.count(v) for v in "aeiou")
    digit_runs = len(re.findall(r"[0-9]+", part))
    return (
        bool(letters) and vowels > MIN_VOWEL_SHARE * len(letters) and digit_runs <= MAX_DIGIT_RUNS
    )


# name -> (pattern, replacement), applied in this order to every text
VALUE_RULES: dict[str, tuple[LazyPattern, Any, tuple[str, ...]]] = {
    # private key blocks, to their END line or the end of the text
    "PEM block": _rule(
        r"-----BEGIN [A-Z0-9 ]*-----.*?(?:-----END [A-Z0-9 ]*-----|\Z)",
        REDACTED,
        re.S,
        needles=("-----begin",),
    ),
    "SSH2 key block": _rule(
        r"---- BEGIN SSH2 [A-Z0-9 ]*----.*?(?:---- END SSH2 [A-Z0-9 ]*----|\Z)",
        REDACTED,
        re.S,
        needles=("---- begin ssh2",),
    ),
    "PuTTY key file": _rule(
        r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:[^\r\n]*|\Z)",
        REDACTED,
        re.S | re.I,
        needles=("putty-user-key-file-",),
    ),
    # header lines: everything after "Authorization:" / "Cookie:" to the end of the line
    "header line": _rule(
        r"(?P<k>\b(?:proxy-)?(?:authorization|set-cookie|cookie)[\"']?\s*[:=]\s*)[^\r\n]+",
        _KEEP,
        re.I,
        needles=("authorization", "cookie"),
    ),
    # URL credentials whose password holds a "/" or "@": user:… up to the last "@"
    "URL user:password@": _rule(
        rf"(?P<s>{_SCHEME})[^{_URL_STOP}/@]*:{_IN_URL}*@",
        r"\g<s>" + REDACTED + "@",
        re.I,
        needles=("@",),
    ),
    # URL credentials: everything before the last "@" of the authority
    "URL userinfo@": _rule(
        rf"(?P<s>{_SCHEME})[^{_URL_STOP}/?#]*@", r"\g<s>" + REDACTED + "@", re.I, needles=("@",)
    ),
    # credentials without a scheme: user:password@host
    "user:password@host": _rule(
        rf"(?<![\w/:.@-])[\w.+%-]+:[^{_URL_STOP}/]*(?<!\[redacted\])@(?=[A-Za-z0-9])",
        REDACTED + "@",
        needles=("@",),
    ),
    # Oracle's user/password@host (JDBC thin URLs, sqlplus)
    "oracle user/password@": _rule(
        r"(?P<k>\b(?:jdbc:oracle:\w+:@?|sqlplus\s+))[^\s@/]+/[^\s@]*@",
        r"\g<k>" + REDACTED + "@",
        needles=("jdbc:oracle:", "sqlplus"),
    ),
    # webhook URLs: the path is the secret
    "Slack webhook URL": _rule(
        rf"(?P<k>\bhttps?://hooks\.slack\.com/)[^{_URL_STOP}]+",
        _KEEP,
        re.I,
        needles=("hooks.slack.com",),
    ),
    "webhook URL": _rule(
        rf"(?P<k>\bhttps?://[^{_URL_STOP}/]+/{_IN_URL}*?webhook[\w-]*/)[^{_URL_STOP}]+",
        _KEEP,
        re.I,
        needles=("webhook",),
    ),
    # .netrc: "machine h login u password p"
    "netrc password": _rule(
        r"(?P<k>\b(?:machine|login)\s+\S+\s+password\s+)\S+", _KEEP, needles=("password",)
    ),
    # .pgpass: "host:port:database:user:password" (not a longer run of ":" fields: IPv6)
    "pgpass line": _rule(
        r"(?P<k>(?<![\w.:/@-])[\w.-]+:(?:[0-9]{1,5}|\*):[\w.*-]+:[\w.*-]+:)[^\s:]+(?![^\s])",
        _KEEP,
        needles=(":",),
    ),
    # command lines: "--password x" (a flag whose name is a secret key), "mysql -pX"
    "secret flag": _rule(
        r"(?P<k>(?<![\w-])--?(?P<name>[A-Za-z][\w-]*)\s+)(?=[^\s-])" + _VALUE,
        _secret_flag,
        needles=("-",),
    ),
    "mysql -p": _rule(
        r"(?P<k>\b(?:mysql\w*|mariadb[\w-]*)\b[^\r\n]*?\s-p)(?=[^\s-])[^\s;&|]+",
        _KEEP,
        needles=("mysql", "mariadb"),
    ),
    "curl -u user:password": _rule(
        r"(?P<k>\bcurl\b[^\r\n]*?\s(?:-u|--user)[\s=]+)[^\s:]*:\S+", _KEEP, needles=("curl",)
    ),
    "query code=": _rule(r"(?P<k>[?&;]code=)[^&#\s\"'<>]+", _KEEP, re.I, needles=("code=",)),
    # provider token shapes: at a word boundary, or glued to word characters on either side
    # with the provider's full length and character classes (see _provider)
    "Stripe sk_live_": _provider(
        r"[spr]k_(?:live|test)_",
        r"[A-Za-z0-9]{8,}",
        _random(r"A-Za-z0-9", 24, upper=True),
        needles=("k_live_", "k_test_"),
        window=24,
    ),
    "Stripe whsec_": _provider(
        r"whsec_",
        r"[A-Za-z0-9+/=]{16,}",
        _random(r"A-Za-z0-9+/=", 32),
        needles=("whsec_",),
        window=32,
    ),
    "OpenAI/Anthropic sk-": _provider(
        r"(?:sk|pk|rk)-",
        r"[A-Za-z0-9_-]{8,}",
        _random(r"A-Za-z0-9_-", 32, upper=True),
        needles=("sk-", "pk-", "rk-"),
        window=32,
    ),
    # Hugging Face tokens are mixed case: "hf_sentencetransformers" is a name
    "Hugging Face hf_": _provider(
        r"hf_",
        r"(?=[a-z0-9]*[A-Z])[A-Za-z0-9]{20,}",
        _random(r"A-Za-z0-9", 34, upper=True),
        needles=("hf_",),
        window=34,
    ),
    "Google AIza": _provider(
        r"AIza", r"[0-9A-Za-z_-]{20,}", _random(r"0-9A-Za-z_-", 35), needles=("aiza",), window=35
    ),
    "GitLab gl*-": _provider(
        r"gl(?:pat|dt|rt|ptt|soat|cbt|imt|ft|agent)-",
        r"[0-9A-Za-z_-]{10,}",
        _random(r"0-9A-Za-z_-", 20),
        needles=("gl",),
        window=20,
    ),
    "Pinecone pcsk_": _provider(
        r"pcsk_", r"[0-9A-Za-z_]{10,}", _random(r"0-9A-Za-z_", 40), needles=("pcsk_",), window=40
    ),
    "GitHub gh*_": _provider(
        r"gh[pousr]_",
        r"[A-Za-z0-9]{16,}",
        _random(r"A-Za-z0-9", 36, upper=True),
        needles=("gh",),
        window=36,
    ),
    "GitHub github_pat_": _provider(
        r"github_pat_",
        r"[A-Za-z0-9_]{20,}",
        _random(r"A-Za-z0-9_", 80, upper=True),
        needles=("github_pat_",),
        window=80,
    ),
    "Slack xox*-": _provider(
        r"xox[abposre]-|xapp-",
        r"[A-Za-z0-9-]{10,}",
        _random(r"A-Za-z0-9-", 30),
        needles=("xox", "xapp-"),
        window=30,
    ),
    "AWS access key id": _provider(
        r"AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA",
        r"[0-9A-Z]{16}\b",
        _random(r"A-Z2-7", 16, fixed=True),  # glued: its base32 alphabet, as AWS writes it
        needles=(
            "akia",
            "asia",
            "abia",
            "acca",
            "agpa",
            "aida",
            "aipa",
            "anpa",
            "anva",
            "aroa",
            "apka",
        ),
        window=16,
    ),
    "npm npm_": _provider(
        r"npm_",
        r"[A-Za-z0-9]{20,}",
        _random(r"A-Za-z0-9", 36, upper=True),
        needles=("npm_",),
        window=36,
    ),
    "PyPI pypi-": _provider(
        r"pypi-", r"[A-Za-z0-9_-]{16,}", _random(r"A-Za-z0-9_-", 50), needles=("pypi-",), window=50
    ),
    "Google ya29.": _provider(
        r"ya29\.", r"[0-9A-Za-z_-]{20,}", _random(r"0-9A-Za-z_-", 50), needles=("ya29.",), window=50
    ),
    "SendGrid SG.": _provider(
        r"SG\.",
        r"[\w-]{16,}\.[\w-]{16,}",
        r"(?=[\w.-]*[0-9])(?=[\w.-]*[A-Za-z])[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43,}",
        needles=("sg.",),
    ),
    "Groq gsk_": _provider(
        r"gsk_",
        r"[A-Za-z0-9]{20,}",
        _random(r"A-Za-z0-9", 48, upper=True),
        needles=("gsk_",),
        window=48,
    ),
    "LangSmith lsv2_": _provider(
        r"lsv2_(?:pt|sk)_",
        r"[0-9a-f]{16,}(?:_[0-9a-f]+)?",
        _random(r"0-9a-f", 32) + r"(?:_[0-9a-f]+)?",
        needles=("lsv2_",),
        window=32,
    ),
    "Replicate r8_": _provider(
        r"r8_",
        r"[A-Za-z0-9]{20,}",
        _random(r"A-Za-z0-9", 37, upper=True),
        needles=("r8_",),
        window=37,
    ),
    "Vault hv*.": _provider(
        r"hv[sbr]\.",
        r"[A-Za-z0-9_-]{20,}",
        _random(r"A-Za-z0-9_-", 24, upper=True),
        needles=("hvs.", "hvb.", "hvr."),
        window=24,
    ),
    "Mailgun key-": _provider(
        r"key-", r"[0-9a-f]{32}\b", _random(r"0-9a-f", 32, fixed=True), needles=("key-",), window=32
    ),
    "Databricks dapi": _provider(
        r"dapi",
        r"[0-9a-f]{32}(?:-\d+)?\b",
        _random(r"0-9a-f", 32, fixed=True) + r"(?:-\d+)?",
        needles=("dapi",),
        window=32,
    ),
    "Twilio SK": _provider(
        r"SK",
        r"[0-9a-f]{32}\b",
        _random(r"0-9a-f", 32, fixed=True),
        needles=("sk",),
        window=32,
        folded=False,  # two letters in any case: "task", "disk" before a hex hash
    ),
    "age secret key": _provider(
        r"AGE-SECRET-KEY-1",
        r"[0-9A-Z]{20,}",
        _random(r"0-9A-Z", 58),
        needles=("age-secret-key-1",),
        window=58,
    ),
    # a bot's id (digits) glued to more digits: the last 6 to 12 of them before ":AA"
    "Telegram bot token": _rule(r"[0-9]{6,12}:AA[A-Za-z0-9_-]{30,}", REDACTED, needles=(":aa",)),
    # glued, both parts of a JWT are JSON objects: each starts "eyJ" ('{"' in base64)
    "JWT": _provider(
        r"eyJ",
        r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?",
        r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?",
        needles=("eyj",),
    ),
    # HTTP credentials outside an Authorization line
    "Basic credentials": _rule(
        r"(?P<lead>\bBasic\s+)(?P<value>[A-Za-z0-9+/]{8,}={0,2})",
        _basic_credentials,
        needles=("basic",),
    ),
    "Bearer token": _rule(
        r"(?P<k>\bBearer\s+)[A-Za-z0-9._~+/-]{8,}=*", _KEEP, re.I, needles=("bearer",)
    ),
}

# "name=value" / "name: value" pairs in a text; the value goes when the name is secret
_PAIR = re.compile(r"(?<![\w.-])(?P<name>[\w.-]{1,64})\\?[\"']?\s*[=:]\s*(?=[^\s=:])")
_PAIR_VALUE = re.compile(_VALUE)


def _redact_pairs(text: str) -> str:
    parts, done = [], 0
    for match in _PAIR.finditer(text):
        if match.start() < done or not is_secret_name(match["name"]):
            continue
        value = _PAIR_VALUE.match(text, match.end())
        if value is None or value[0].strip("\"'\\").startswith(REDACTED):
            continue
        parts += [text[done : match.end()], REDACTED]
        done = value.end()
    return "".join(parts) + text[done:] if parts else text


# --- secret by shape -----------------------------------------------------------------------

# A token: a run of the base64 / base64url alphabet ("=" only as padding). ".", ":" and "="
# end it, so "hvs.…", "sha256:…" and "run_id=…" are a label and a token.
_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
# a UUID: a Heroku or Pinecone (legacy) API key has this shape, so a UUID is kept only under a
# key or label that says it is an id
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
# the label just before a token in a text ("sha256:", "commit ", "run_id=")
_LABEL = re.compile(r"([A-Za-z][\w-]{0,30})[\"']?\s*[:=@ ]\s*[\"']?$")
MIN_TOKEN = 20  # characters of a token (mixed case) that may be a credential
MIN_LOWER_CASE = 32  # characters of a lower-case token that may be one (host names are lower case)
MIN_UPPER_CASE = 24  # characters of an upper-case token that may be one (NRAK-…)
MIN_BITS = 3.5  # Shannon entropy per character of a mixed-case token (hex: 3.0)
MAX_WORD_SHARE = 0.5  # share of a token's characters in words ("MiniLM", "instruct")
MIN_SEGMENT = 12  # a credential has a segment this long between "-_./+=" separators


def shannon_bits(text: str) -> float:
    """Entropy in bits per character of ``text``'s character frequencies."""
    counts, n = Counter(text), len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0


def _word_share(token: str) -> float:
    """The share of ``token`` in runs of three or more lower-case letters (a word, or the
    tail of a capitalised one)."""
    return sum(len(w) for w in re.findall(r"[a-z]{3,}", token)) / len(token)


def looks_like_credential(token: str) -> bool:
    """A token of an unknown family: long, high entropy, mixed classes, not words.

    ``zNUTd1aCqpM22ilKhFSQUlVVe8wWRv6aYC9r0eHC`` is one; ``all-MiniLM-L6-v2``,
    ``gte-Qwen2-7B-instruct``, a UUID and ``kb_chunks_minilm_l6_v2`` are not."""
    hexes = _HEX.findall(token) + [u.replace("-", "") for u in _UUID.findall(token)]
    if any(_is_random_hex(h) for h in hexes):
        return True
    core = token.strip("=-_/+")
    if len(core) < MIN_TOKEN or _word_share(core) > MAX_WORD_SHARE:
        return False
    if max(len(s) for s in re.split(r"[-_./+=]", core)) < MIN_SEGMENT:
        return False
    upper, lower = bool(re.search(r"[A-Z]", core)), bool(re.search(r"[a-z]", core))
    digit = bool(re.search(r"[0-9]", core))
    if upper and lower:
        return (digit or len(core) >= 30) and shannon_bits(core) >= MIN_BITS
    longest = max(len(s) for s in re.findall(r"[A-Za-z0-9]+", core))
    enough = MIN_UPPER_CASE if upper else MIN_LOWER_CASE
    return digit and longest >= enough and shannon_bits(core) >= MIN_BITS + 0.5


def _is_random_hex(text: str) -> bool:
    return (
        bool(re.search(r"[0-9]", text))
        and re.search(r"[a-fA-F]", text) is not None
        and (shannon_bits(text.lower()) >= 3.0)
    )


def _labelled_non_secret(text: str, start: int) -> bool:
    """Whether the label just before ``start`` says a hash or an id follows (``sha256:``)."""
    label = _LABEL.search(text[max(0, start - 40) : start])
    return bool(label) and is_known_non_secret_key(label[1])


def _decoded_text(token: str) -> str | None:
    """``token`` as base64 (standard or URL-safe) of UTF-8 text, or None."""
    body = token.rstrip("=")
    if len(body) < 16 or len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return text if all(c.isprintable() or c in "\t\r\n" for c in text) else None


def _holds_a_secret(decoded: str) -> bool:
    """Whether decoded base64 (inspected once: no further decoding) holds a secret."""
    if decoded.lstrip()[:1] in ("{", "["):
        try:
            inner = json.loads(decoded)
            if isinstance(inner, (dict, list)):
                return _redact(inner, "", "", False, decode=False) != inner
        except ValueError:
            pass
        except RecursionError:  # nested too deep to read: not shown
            return True
    return _redact_text(decoded, shapes=True, decode=False) != decoded


def _redact_shapes(text: str, decode: bool) -> str:
    def replace(match: re.Match) -> str:
        token = match[0]
        if _labelled_non_secret(text, match.start()):
            return token
        decoded = _decoded_text(token) if decode else None
        if decoded is not None and _holds_a_secret(decoded):
            return REDACTED
        return REDACTED if looks_like_credential(token) else token

    return _TOKEN.sub(replace, text)


# --- values and texts -------------------------------------------------------------------------

# the two fields of a name/value pair object: {"name": "password", "value": …}
PAIR_NAME_FIELDS = ("name", "key", "header", "param")
PAIR_VALUE_FIELDS = ("value", "val")
MAX_PAIR_FIELDS = 4  # a pair object is small: {"name", "value", "type", "secure"}


def redact(value: Any, key: str = "", parent: str = "", under_secret: bool = False) -> Any:
    """Return ``value`` with every secret-looking key or string replaced.

    >>> redact({"api_key": "abc", "url": "https://u:p@host/x", "top_k": 5})
    {'api_key': '[redacted]', 'url': 'https://[redacted]@host/x', 'top_k': 5}
    """
    return _redact(value, key, parent, under_secret, decode=True)


def _redact(value: Any, key: str, parent: str, under_secret: bool, decode: bool) -> Any:
    secret = under_secret or bool(key and is_secret_key(key, parent))
    if isinstance(value, dict):
        named = _pair_name(value)
        return {
            redact_text(str(k)): _redact(
                v, str(k), key, secret or (named and _is_field(k, PAIR_VALUE_FIELDS)), decode
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return _redact_list(value, key, parent, secret, decode)
    if secret:
        return REDACTED
    if isinstance(value, str):
        return _redact_string(value, key, parent, decode)
    return value


def _is_field(key: Any, fields: tuple[str, ...]) -> bool:
    """Whether ``key`` is one of ``fields``, alone or as its last word (``Header-Value``)."""
    words = key_words(str(key))
    return bool(words) and words[-1] in fields


def _pair_name(value: dict) -> bool:
    """Whether ``value`` is a name/value pair whose name is a secret (``{"name": "password",
    "value": …}``, ``{"Key": "X-Api-Key", "Value": …}``, ``{"header_name": …,
    "header_value": …}``)."""
    if len(value) > MAX_PAIR_FIELDS or not any(_is_field(k, PAIR_VALUE_FIELDS) for k in value):
        return False
    names = [v for k, v in value.items() if isinstance(v, str) and _is_field(k, PAIR_NAME_FIELDS)]
    return any(is_secret_name(name) for name in names)


def _redact_list(items: list, key: str, parent: str, secret: bool, decode: bool) -> list:
    """A list; a ``[name, value]`` pair whose name is secret loses its value, and a list of
    words is read as a command line too (``["mysql", "-pX"]``, ``["curl", "-u", "a:b"]``)."""
    if secret:
        return [_redact(item, key, parent, True, decode) for item in items]
    if len(items) == 2 and isinstance(items[0], str) and _is_name(items[0]):
        if is_secret_name(items[0]):
            return [_redact(items[0], key, parent, False, decode), REDACTED]
    out = [_redact(item, key, parent, False, decode) for item in items]
    words = _command_line(items, not is_known_non_secret_key(key, parent), decode)
    if words is None:
        return out
    return [
        word if word != item else kept for item, kept, word in zip(items, out, words, strict=True)
    ]


def _command_line(items: list, shapes: bool, decode: bool) -> list[str] | None:
    """The items of an argv-like list (two or more words without spaces) redacted as one
    command line, word by word; None for any other list."""
    if len(items) < 2 or not all(isinstance(i, str) and re.fullmatch(r"\S+", i) for i in items):
        return None
    line = " ".join(items)
    if len(line) > MAX_INSPECTED:
        return None
    words = _redact_text(line, shapes, decode).split(" ")
    return words if len(words) == len(items) else None


def _is_name(text: str) -> bool:
    return re.fullmatch(r"[\w .-]{1,64}", unicodedata.normalize("NFKC", text)) is not None


def _redact_string(text: str, key: str, parent: str, decode: bool) -> str:
    """``text`` redacted; JSON held in a string (a config inside a config) is redacted by key
    as well, and written back only when something was redacted."""
    if len(text) <= MAX_INSPECTED and text.lstrip()[:1] in ("{", "["):
        try:
            inner = json.loads(text)
        except (ValueError, RecursionError):
            inner = None
        if isinstance(inner, (dict, list)):
            redacted = _redact(inner, "", "", False, decode)
            return json.dumps(redacted, ensure_ascii=False) if redacted != inner else text
    shapes = not (key and is_known_non_secret_key(key, parent))
    return _redact_text(text, shapes, decode)


def redact_text(text: str) -> str:
    """``text`` (a message, a key) with every secret in it replaced; cut to 2 KB first."""
    return _redact_text(text, shapes=True, decode=True)


def redact_warnings(warnings: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Evaluate's ``warnings`` (run -> texts) as every output says them: each text redacted
    (:func:`redact_warning`), each run name kept (it keys the warnings, and a run's name is
    shown as its file writes it, as in every table).

    >>> redact_warnings({"bm25": ["2 run queries were ignored (AKIAQX7RZ2M4VB6NLKEY, q9)"]})
    {'bm25': ['2 run queries were ignored ([redacted], q9)']}
    """
    return {run: [redact_warning(text) for text in texts] for run, texts in warnings.items()}


def redact_warning(warning: str) -> str:
    """A warning, prose for people that quotes ids from files (a query's, a chunk's), with
    every secret in it replaced: one rule for every output that says it (a terminal, JSON,
    the report, the gate's CI files), where a reader may not be the file's owner. A warning
    of a ``str`` subclass keeps its class and attributes (the cutoff it concerns, read by a
    view at another k). Once, where warnings are gathered by run (evaluate's
    ``said_by_run``, for its own and for no-answer's): the 2 KB cut of a second pass would
    cut the first one's marker."""
    said = redact_text(warning)
    if said == warning:
        return warning
    if type(warning) is str:
        return said
    kept = type(warning)(said)
    vars(kept).update(vars(warning))
    return kept


def redact_path(path: Any) -> str:
    """``path`` (a ``Path`` or its text) as shown, each of its folders and its file name
    redacted whole (:func:`redact_text`): a folder or a file named with a secret (an
    upload's name, ``admin:password@host``) loses it before anything cuts the path (a
    problem's ``file``: a cut first leaves a piece no rule knows). Part by part, because
    ``/`` is in a token's alphabet: the whole text would be one token, and a folder that
    only looks random would take every folder around it. Two things read more than one
    part: an AWS secret key, whose own "/" split it into folders (:func:`_split_keys`),
    goes whole; a folder or a file named by a hash or an id (a git sha, a UUID, git's
    ``pack-<sha>.pack``: :data:`_HEX_NAME`) is shown, since it says where a file is and its
    shape alone is no secret's.

    >>> redact_path("/data/ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8/gold.jsonl")
    '/data/[redacted]/gold.jsonl'
    >>> redact_path("/srv/wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY/e83c5163316f89bf/x")
    '/srv/[redacted]/e83c5163316f89bf/x'
    """
    return _redact_path(str(path))


@lru_cache(maxsize=1024)
def _redact_path(text: str) -> str:  # one path is said of each of its problems
    parts = re.split(r"([/\\])", text)  # names at even places, separators between them
    names, shown = parts[0::2], []
    keys = _split_keys(names)
    i = 0
    while i < len(names):
        end = keys.get(i)
        shown.append(REDACTED if end else _redact_name(names[i]))
        i = end or i + 1
        if i < len(names):
            shown.append(parts[2 * i - 1])
    return "".join(shown)


# A folder or file named by a hash or an id: hex digits (a git sha, a sha256, an md5, an
# upload set's key) or a UUID, with its extensions, after labels that say a hash follows
# (git's ``pack-<sha>.pack``, ``multi-pack-index-<sha>.bitmap``, ``graph-<sha>.graph``; a
# blob's ``sha256-<hex>``). Random to the shape rule, but a name: a path shows it. A hex
# secret in a name is still found by what says it is one (a provider's prefix, ``dapi…``; a
# secret name, ``key=…``, ``token-…``: no label of :data:`HASH_LABELS`), never by its shape
# alone. In a text (a message, a value) a bare hex run is still a secret's shape: Datadog's
# and Algolia's keys are one.
_HEX_NAME = re.compile(
    r"(?P<labels>(?:[A-Za-z][A-Za-z0-9]{0,15}[-_]){0,4})"
    r"(?:[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})"
    r"(?:\.[A-Za-z0-9]{1,16})*"
)
# Words of the labels before a hash in a file name: a hash's own (``sha256``, ``commit``)
# and git's pack and commit-graph files'.
HASH_LABELS = NOT_SECRET_KEY_WORDS | {"pack", "multi", "index", "graph"}


def _redact_name(name: str) -> str:
    """One folder or file name of a path, redacted (:func:`redact_text`), unless it is
    named by a hash or an id (:data:`_HEX_NAME`)."""
    hashed = _HEX_NAME.fullmatch(name)
    if name == "" or (hashed and set(key_words(hashed["labels"])) <= HASH_LABELS):
        return name
    return redact_text(name)


# An AWS secret access key: 40 characters of base64, "/" among them; as folders, its "/"
# splits it into names none of which is long enough to be a credential's shape. Names
# joined again are read as one key: 40 characters, or 39 when a "/" at its start or end
# was folded into the path's own.
SPLIT_KEY_LENGTHS = (39, 40)
_SPLIT_KEY = re.compile(r"[A-Za-z0-9+/]+")
MIXED_NAME = 8  # a key's piece this long has upper- and lower-case letters (a folder's may not)
# a folder beside a key is not taken into it: a word or a number (``data``, ``Runs``, ``2024``)
_WORD_NAME = re.compile(r"[A-Za-z][a-z]{3,}|[a-z]{4,}|[0-9]{4,}")


def _split_keys(names: list[str]) -> dict[int, int]:
    """Runs of two or more consecutive ``names`` that are one secret key split at its "/":
    the index of a run's first name -> the index after its last."""
    runs: dict[int, int] = {}
    i = 0
    while i < len(names):
        end = next((j for j in range(i + 2, len(names) + 1) if _is_split_key(names[i:j])), None)
        if end is None:
            i += 1
        else:
            runs[i], i = end, end
    return runs


def _is_split_key(names: list[str]) -> bool:
    joined = "/".join(names)
    if len(joined) not in SPLIT_KEY_LENGTHS or not _SPLIT_KEY.fullmatch(joined):
        return False
    if "" in names or any(_WORD_NAME.fullmatch(name) for name in (names[0], names[-1])):
        return False
    mixed = all(
        len(name) < MIXED_NAME or (re.search(r"[A-Z]", name) and re.search(r"[a-z]", name))
        for name in names
    )
    return mixed and looks_like_credential(joined)


def _redact_text(text: str, shapes: bool, decode: bool) -> str:
    text, cut = cut_text(text)
    normal = readable(text)
    redacted = _apply_rules(normal, shapes, decode)
    if normal != text and redacted == normal:
        redacted = text  # nothing secret: the text as written, not its normal form
    return redacted + cut


def _apply_rules(text: str, shapes: bool, decode: bool) -> str:
    lower = text.lower()
    for pattern, replacement, needles in VALUE_RULES.values():
        for needle in needles:
            if needle in lower:
                text = pattern.sub(replacement, text)
                break
    if "=" in text or ":" in text:
        text = _redact_pairs(text)
    return _redact_shapes(text, decode) if shapes else text


def cut_text(text: str) -> tuple[str, str]:
    """``text``'s first ``MAX_INSPECTED`` characters (less a token cut in two) and the marker
    that replaces the rest (``""`` when nothing was cut)."""
    if len(text) <= MAX_INSPECTED:
        return text, ""
    kept = text[:MAX_INSPECTED]
    if re.match(r"[A-Za-z0-9+/=_.-]", text[MAX_INSPECTED]):
        kept = re.sub(r"[A-Za-z0-9+/=_.-]+\Z", "", kept)
    return kept, f" [cut: {len(text) - len(kept)} more characters not shown]"
