"""Run config sidecars (``<run>.config.json``), with secrets redacted on load.

A config records the fixed conditions of a run (corpus version, model, k, ...).
Redaction is one pass, here, before the config reaches the database: every page,
report, log and error reads the stored copy, so none can show a secret. A value is
replaced by ``[redacted]`` when

* its key names a credential: the key is split into words (at ``_ - .``, spaces and
  camelCase; ALLCAPS glued words such as ``PGPASSWORD`` are matched by fragment and
  ending), at any depth, together with its parent's key (``{"api": {"key": ...}}``);
  everything under such a key goes, numbers and booleans too;
* or its text has the shape of one: PEM blocks, JWTs, provider tokens, webhook URLs,
  ``Basic`` / ``Bearer`` / ``Authorization`` headers, ``key=value`` secrets in connection
  and query strings, and credentials in any URL (up to the last ``@`` before the host,
  since passwords hold ``@`` too). Dict keys are checked for those shapes as well.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ragrecall_core.errors import InputError, Problem

REDACTED = "[redacted]"

# --- secret by key ---------------------------------------------------------------------

# Substrings of the glued key (lower case, letters and digits only) that always name a secret.
SECRET_FRAGMENTS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "sessionkey",
    "sessionid",
    "sessiontoken",
    "authtoken",
    "accesstoken",
    "refreshtoken",
    "apitoken",
    "idtoken",
    "bearertoken",
    "authorization",
    "cookie",
    "connectionstring",
    "connstr",
    "webhook",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "accountkey",
    "sharedaccess",
)
# Words that are a secret alone ("dsn") or glued to a prefix ("DBPASS", "hfToken", "OAUTH").
SECRET_WORDS = {"pw", "pwd", "dsn", "otp", "jwt", "bearer", "pass", "token", "auth", "key"}
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


def key_words(key: str) -> list[str]:
    """``"openaiKey"`` -> ``["openai", "key"]``; ``"x-api-key"`` -> ``["x", "api", "key"]``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return re.findall(r"[a-z0-9]+", spaced.lower())


def is_secret_key(key: str, parent: str = "") -> bool:
    """``api_key``, ``authToken``, ``PGPASSWORD``, ``DBPASS``, ``x-api-key`` and ``key`` under
    ``api`` are secret; ``max_tokens``, ``tokenizer``, ``author``, ``keyword`` are not."""
    return _names_a_secret(key_words(key)) or bool(
        parent and _names_a_secret(key_words(parent) + key_words(key))
    )


def _names_a_secret(words: list[str]) -> bool:
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


# --- secret by value -----------------------------------------------------------------

_URL_STOP = r"\s\"'<>"
# A scheme of a bounded length, and URL text that stops at the next "://": every pattern stays
# linear in the text's length (unbounded, "https://https://…" or "a.b-a.b-…" is quadratic).
_SCHEME = r"\b[a-z][a-z0-9+.-]{0,31}://"
_IN_URL = rf"(?:(?!://)[^{_URL_STOP}])"
_KV_NAMES = (
    r"password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|accountkey|"
    r"sharedaccesskey|sharedaccesssignature|signature|sig|credential|sessionid|auth|pass|dsn"
)


def _basic_credentials(match: re.Match) -> str:
    """``Basic dXNlcjpwYXNz`` is redacted; ``Basic retrieval`` (a plain word) is not."""
    value = match["value"]
    looks_encoded = re.search(r"[0-9+/=]", value) or re.search(r"[A-Z]", value[1:])
    return match["lead"] + REDACTED if looks_encoded else match[0]


# (pattern, replacement), applied in this order to every string
SECRET_VALUE: list[tuple[re.Pattern, Any]] = [
    # PEM blocks (private keys, certificates), to their END line or the end of the text
    (re.compile(r"-----BEGIN [A-Z0-9 ]*-----.*?(?:-----END [A-Z0-9 ]*-----|\Z)", re.S), REDACTED),
    # header lines: everything after "Authorization:" / "Cookie:" to the end of the line
    (
        re.compile(
            r"(?P<k>\b(?:proxy-)?(?:authorization|set-cookie|cookie)[\"']?\s*[:=]\s*)[^\r\n]+", re.I
        ),
        r"\g<k>" + REDACTED,
    ),
    # URL credentials whose password holds a "/" or "@": user:… up to the last "@"
    (
        re.compile(rf"(?P<s>{_SCHEME})[^{_URL_STOP}/@]*:{_IN_URL}*@", re.I),
        r"\g<s>" + REDACTED + "@",
    ),
    # URL credentials: everything before the last "@" of the authority
    (
        re.compile(rf"(?P<s>{_SCHEME})[^{_URL_STOP}/?#]*@", re.I),
        r"\g<s>" + REDACTED + "@",
    ),
    # credentials without a scheme: user:password@host
    (re.compile(rf"(?<![\w/:.@-])[\w.+%-]+:[^{_URL_STOP}/]*@(?=[A-Za-z0-9])"), REDACTED + "@"),
    # webhook URLs: the path is the secret
    (
        re.compile(rf"(?P<k>\bhttps?://hooks\.slack\.com/)[^{_URL_STOP}]+", re.I),
        r"\g<k>" + REDACTED,
    ),
    (
        re.compile(
            rf"(?P<k>\bhttps?://[^{_URL_STOP}/]+/{_IN_URL}*?webhook[\w-]*/)[^{_URL_STOP}]+",
            re.I,
        ),
        r"\g<k>" + REDACTED,
    ),
    # key=value secrets in connection strings, query strings and prose
    (
        re.compile(
            rf"(?P<k>(?<![\w.-])[\w.-]*?(?:{_KV_NAMES})[\"']?\s*[=:]\s*)"
            r"(?:\"[^\"]*\"|'[^']*'|[^\s;&,\"'<>]+)",
            re.I,
        ),
        r"\g<k>" + REDACTED,
    ),
    (re.compile(r"(?P<k>[?&;](?:key|code)=)[^&#\s\"'<>]+", re.I), r"\g<k>" + REDACTED),
    # provider token shapes
    (re.compile(r"\b[spr]k_(?:live|test)_[A-Za-z0-9]{8,}"), REDACTED),
    (re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}"), REDACTED),
    # Hugging Face tokens are mixed case: "hf_sentencetransformers" is a name
    (re.compile(r"\bhf_(?=[a-z0-9]*[A-Z])[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{20,}"), REDACTED),
    (re.compile(r"\bgl(?:pat|dt|rt|ptt|soat|cbt|imt|ft|agent)-[0-9A-Za-z_-]{10,}"), REDACTED),
    (re.compile(r"\bpcsk_[0-9A-Za-z_]{10,}"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}"), REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), REDACTED),
    (re.compile(r"\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}"), REDACTED),
    (
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[0-9A-Z]{16}\b"),
        REDACTED,
    ),
    (re.compile(r"\bnpm_[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\bpypi-[A-Za-z0-9_-]{16,}"), REDACTED),
    (re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"), REDACTED),
    (re.compile(r"\bSG\.[\w-]{16,}\.[\w-]{16,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?"), REDACTED),
    # HTTP credentials outside an Authorization line
    (re.compile(r"(?P<lead>\bBasic\s+)(?P<value>[A-Za-z0-9+/]{8,}={0,2})"), _basic_credentials),
    (re.compile(r"(?P<b>\bBearer\s+)[A-Za-z0-9._~+/-]{8,}=*", re.I), r"\g<b>" + REDACTED),
]


def redact(value: Any, key: str = "", parent: str = "", under_secret: bool = False) -> Any:
    """Return ``value`` with every secret-looking key or string replaced.

    >>> redact({"api_key": "abc", "url": "https://u:p@host/x", "top_k": 5})
    {'api_key': '[redacted]', 'url': 'https://[redacted]@host/x', 'top_k': 5}
    """
    secret = under_secret or bool(key and is_secret_key(key, parent))
    if isinstance(value, dict):
        return {redact_text(str(k)): redact(v, str(k), key, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key, parent, secret) for v in value]
    if secret:
        return REDACTED
    if isinstance(value, str):
        return _redact_string(value)
    return value


def _redact_string(text: str) -> str:
    """``text`` redacted; JSON held in a string (a config inside a config) is redacted by key
    as well, and written back only when something was redacted."""
    if text.lstrip()[:1] in ("{", "["):
        try:
            inner = json.loads(text)
        except (ValueError, RecursionError):
            inner = None
        if isinstance(inner, (dict, list)):
            redacted = redact(inner)
            if redacted != inner:
                return json.dumps(redacted, ensure_ascii=False)
    return redact_text(text)


def redact_text(text: str) -> str:
    for pattern, replacement in SECRET_VALUE:
        text = pattern.sub(replacement, text)
    return text


# --- loading -----------------------------------------------------------------------------

# Config keys that name a retrieval factor; a comparison that changes more than
# one of them cannot attribute its difference.
FACTORS = {
    "index": ("corpus_version", "chunking", "chunk_size", "chunk_overlap", "index"),
    "embedding model": ("embedding_model", "model"),
    "retrieval method": ("retrieval", "fusion", "title_boost", "hybrid_weight"),
    "k": ("top_k", "k"),
    "reranker": ("reranker",),
    "filters": ("filters",),
}
# A run's config is a few KB; redacting 1 MiB of hostile text takes seconds at most.
MAX_CONFIG_BYTES = 1 << 20


def config_path_for(run_path: Path) -> Path:
    """``runs/bm25.jsonl`` -> ``runs/bm25.config.json``."""
    return run_path.with_name(run_stem(run_path) + ".config.json")


def run_stem(run_path: Path) -> str:
    name = run_path.name
    for suffix in (
        ".jsonl",
        ".ndjson",
        ".json",
        ".csv",
        ".tsv",
        ".parquet",
        ".trec",
        ".run",
        ".txt",
    ):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return run_path.stem


def load_config(run_path: Path) -> dict[str, Any]:
    """The redacted sidecar config of ``run_path``, or ``{}`` when it has none."""
    path = config_path_for(run_path)
    if not path.exists():
        return {}
    data = _parse(path, _decode(path))
    try:
        return redact(data)
    except RecursionError:
        raise InputError([_too_deep(path)]) from None


def read_config_file(path: Path) -> dict[str, Any]:
    """The redacted JSON object in ``path`` (checked like a run's sidecar config)."""
    return redact(_parse(path, _decode(path)))


def _decode(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InputError([Problem(str(path), None, reason, "a readable file")]) from None
    if len(raw) > MAX_CONFIG_BYTES:
        problem = Problem(str(path), None, "more than 1 MiB", "a config of at most 1 MiB")
        raise InputError([problem])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        where = f"a byte that is not UTF-8 at column {error.start - line_start + 1}"
        line = raw.count(b"\n", 0, error.start) + 1
        # the bytes are never shown: they may be part of a secret the parser could not label
        expected = "UTF-8 text (the bytes are not shown: they may be part of a secret)"
        raise InputError([Problem(str(path), line, where, expected)]) from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The JSON object in ``text``; duplicate keys and non-finite numbers are problems."""
    problems: list[Problem] = []

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = redact_text(key)[:80]
                problems.append(Problem(str(path), None, f"key {shown!r} twice", "each key once"))
            seen.add(key)
        return dict(pairs)

    def finite(text: str) -> float | None:
        number = float(text)
        if math.isfinite(number):
            return number
        problems.append(Problem(str(path), None, text[:80], "a finite number (JSON has no NaN)"))
        return None

    try:
        data = json.loads(
            text, object_pairs_hook=unique_keys, parse_float=finite, parse_constant=finite
        )
    except json.JSONDecodeError as error:
        value = f"column {error.colno}"
        problems.append(Problem(str(path), error.lineno, value, f"valid JSON ({error.msg})"))
    except ValueError:  # an integer longer than Python converts
        problems.append(Problem(str(path), None, "an integer too long", "a JSON number"))
    except RecursionError:
        problems.append(_too_deep(path))
    else:
        if not isinstance(data, dict):
            problems.append(Problem(str(path), 1, type(data).__name__, "a JSON object"))
        elif "name" in data and not (isinstance(data["name"], str) and data["name"].strip()):
            value = json.dumps(redact(data["name"]), ensure_ascii=False)[:80]
            problems.append(Problem(str(path), None, f'"name": {value}', "a run name (text)"))
    if problems:
        raise InputError(problems)
    return data


def _too_deep(path: Path) -> Problem:
    return Problem(str(path), None, "nesting too deep to read", "a JSON object of a few levels")


def changed_factors(baseline: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The retrieval factors whose config values differ between two runs."""
    changed = []
    for factor, keys in FACTORS.items():
        if any(baseline.get(k) != candidate.get(k) for k in keys):
            changed.append(factor)
    return changed
