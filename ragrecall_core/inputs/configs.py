"""Run config sidecars (``<run>.config.json``), with secrets redacted on load.

A config records the fixed conditions of a run (corpus version, model, k, ...).
Redaction is one pass, here, before the config reaches the database: every page,
report, log and error reads the stored copy, so none can show a secret. What is
redacted, and how, is :mod:`ragrecall_core.inputs.secrets` (by key, by structure, by
named rule and by shape); this module reads the file and checks it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ragrecall_core.errors import InputError, Problem
from ragrecall_core.inputs.secrets import (
    REDACTED,
    is_secret_key,
    redact,
    redact_path,
    redact_text,
)

__all__ = ["REDACTED", "is_secret_key", "redact", "redact_text", "load_config", "read_config_file"]


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
    data = _parse(path, _decode(path))
    try:
        return redact(data)
    except RecursionError:
        raise InputError([_too_deep(path)]) from None


def _decode(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InputError([Problem(redact_path(path), None, reason, "a readable file")]) from None
    if len(raw) > MAX_CONFIG_BYTES:
        problem = Problem(redact_path(path), None, "more than 1 MiB", "a config of at most 1 MiB")
        raise InputError([problem])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        where = f"a byte that is not UTF-8 at column {error.start - line_start + 1}"
        line = raw.count(b"\n", 0, error.start) + 1
        # the bytes are never shown: they may be part of a secret the parser could not label
        expected = "UTF-8 text (the bytes are not shown: they may be part of a secret)"
        raise InputError([Problem(redact_path(path), line, where, expected)]) from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The JSON object in ``text``; duplicate keys and non-finite numbers are problems."""
    problems: list[Problem] = []

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                # redacted whole, then cut by Problem: a cut first could split a secret
                shown = redact_text(key)
                problems.append(
                    Problem(redact_path(path), None, f"key {shown!r} twice", "each key once")
                )
            seen.add(key)
        return dict(pairs)

    def finite(text: str) -> float | None:
        number = float(text)
        if math.isfinite(number):
            return number
        problems.append(Problem(redact_path(path), None, text, "a finite number (JSON has no NaN)"))
        return None

    try:
        data = json.loads(
            text, object_pairs_hook=unique_keys, parse_float=finite, parse_constant=finite
        )
    except json.JSONDecodeError as error:
        value = f"column {error.colno}"
        problems.append(
            Problem(redact_path(path), error.lineno, value, f"valid JSON ({error.msg})")
        )
    except ValueError:  # an integer longer than Python converts
        problems.append(Problem(redact_path(path), None, "an integer too long", "a JSON number"))
    except RecursionError:
        problems.append(_too_deep(path))
    else:
        if not isinstance(data, dict):
            problems.append(Problem(redact_path(path), 1, type(data).__name__, "a JSON object"))
        elif "name" in data and not (isinstance(data["name"], str) and data["name"].strip()):
            value = json.dumps(redact(data["name"]), ensure_ascii=False)
            problems.append(
                Problem(redact_path(path), None, f'"name": {value}', "a run name (text)")
            )
    if problems:
        raise InputError(problems)
    return data


def _too_deep(path: Path) -> Problem:
    return Problem(
        redact_path(path), None, "nesting too deep to read", "a JSON object of a few levels"
    )


def changed_factors(baseline: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The retrieval factors whose config values differ between two runs."""
    changed = []
    for factor, keys in FACTORS.items():
        if any(baseline.get(k) != candidate.get(k) for k in keys):
            changed.append(factor)
    return changed
