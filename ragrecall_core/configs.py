"""Run config sidecars (``<run>.config.json``), with secrets redacted on load.

A config records the fixed conditions of a run (seed 000, step 1). Anything that
looks like a credential is replaced by ``REDACTED`` before it reaches the
database, so no page, report, log or error can show it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import InputError, Problem

REDACTED = "[redacted]"

# A key is secret when one of its words (split on _ - . and camelCase) is one of these,
# or it contains one of the compounds: "max_tokens", "tokenizer" or "author" stay visible.
SECRET_WORDS = {
    "secret",
    "secrets",
    "token",
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "credential",
    "credentials",
    "auth",
    "authorization",
    "dsn",
    "cookie",
    "bearer",
    "apikey",
    "signature",
    "sas",
}
SECRET_COMPOUNDS = re.compile(
    r"(api_?key|access_?key|private_?key|secret_?key|session_?key|conn(ection)?_?str(ing)?|"
    r"client_?secret)",
    re.IGNORECASE,
)
SECRET_VALUE = [
    # credentials inside a URL: scheme://user:password@host
    (
        re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/\s:@]*:[^/\s@]+@", re.I),
        r"\g<scheme>" + REDACTED + "@",
    ),
    # key=value pairs of connection strings
    (
        re.compile(
            r"(?P<key>(password|pwd|secret|token|api[_-]?key|accountkey|sharedaccesskey)"
            r"\s*=\s*)[^;&\s]+",
            re.I,
        ),
        r"\g<key>" + REDACTED,
    ),
    # well-known token shapes: OpenAI/Anthropic-style, GitHub, AWS, Slack, JWT, Bearer
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}"), REDACTED),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}"), REDACTED),
    (re.compile(r"(?P<b>Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*", re.I), r"\g<b>" + REDACTED),
]

# Config keys that name a retrieval factor; a comparison that changes more than
# one of them cannot attribute its difference (seed 000).
FACTORS = {
    "index": ("corpus_version", "chunking", "chunk_size", "chunk_overlap", "index"),
    "embedding model": ("embedding_model", "model"),
    "retrieval method": ("retrieval", "fusion", "title_boost", "hybrid_weight"),
    "k": ("top_k", "k"),
    "reranker": ("reranker",),
    "filters": ("filters",),
}


def redact(value: Any, key: str = "") -> Any:
    """Return ``value`` with every secret-looking key or string replaced.

    >>> redact({"api_key": "abc", "url": "https://u:p@host/x", "top_k": 5})
    {'api_key': '[redacted]', 'url': 'https://[redacted]@host/x', 'top_k': 5}
    """
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if key and is_secret_key(key) and value not in (None, "", False):
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    return value


def is_secret_key(key: str) -> bool:
    """``api_key``, ``authToken``, ``DB_PASSWORD`` are secret; ``max_tokens`` is not."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()
    parts = set(re.split(r"[^a-z0-9]+", words))
    return bool(parts & SECRET_WORDS) or bool(SECRET_COMPOUNDS.search(words.replace("-", "_")))


def redact_text(text: str) -> str:
    for pattern, replacement in SECRET_VALUE:
        text = pattern.sub(replacement, text)
    return text


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
        ".tsv",
    ):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return run_path.stem


def load_config(run_path: Path) -> dict[str, Any]:
    """The redacted sidecar config of ``run_path``, or ``{}`` when it has none."""
    path = config_path_for(run_path)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as error:
        # the bad text itself is never shown: it may hold a secret the parser could not label
        raise InputError(
            [Problem(str(path), error.lineno, f"column {error.colno}", f"valid JSON ({error.msg})")]
        ) from None
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), 1, type(data).__name__, "a JSON object")])
    return redact(data)


def changed_factors(baseline: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The retrieval factors whose config values differ between two runs."""
    changed = []
    for factor, keys in FACTORS.items():
        if any(baseline.get(k) != candidate.get(k) for k in keys):
            changed.append(factor)
    return changed
