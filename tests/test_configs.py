"""Run config sidecars: secrets redacted on load, never shown (SPEC "Inputs", ``configs.py``).

The secrets below are made up; each is a shape the spec names (API keys,
tokens, passwords, connection strings, URLs with credentials).
"""

from __future__ import annotations

import json

import pytest
from helpers import gold_row, run_cli, run_row, write_jsonl, write_text

from ragrecall_core import InputError, Workspace
from ragrecall_core.configs import REDACTED, changed_factors, redact

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
OPENAI = "sk-proj-Zx81Qa7Lm3Np5Rt9Vw2Yb4"
AWS = "AKIA" + "IOSFODNN7EXAMPL3"
BEARER = "Bearer abc.DEF-ghi_12345678"

# (key, value, the secret part that must disappear)
SECRETS = [
    ("api_key", "abc123plain", "abc123plain"),
    ("OPENAI_API_KEY", "whatever-1", "whatever-1"),
    ("apiKey", "k-998877", "k-998877"),
    ("token", "t0k3n-value", "t0k3n-value"),
    ("hf_token", "hf_abcdefghijklmnop", "hf_abcdefghijklmnop"),
    ("password", "hunter2", "hunter2"),
    ("db_password", 12345678, 12345678),
    ("client_secret", "s3cr3t", "s3cr3t"),
    ("connection_string", "Server=x;Database=kb;", "Server=x"),
    ("database", "Server=x;Password=hunter2;", "hunter2"),
    ("database", "Server=x;User Id=sa;Pwd=hunter2", "hunter2"),
    ("vector_store", "postgres://user:pw@host/db", "user:pw"),
    ("endpoint", "https://u:p@host", "u:p@"),
    ("endpoint", "redis://:sekret@cache:6379/0", "sekret"),
    ("note", f"the key was {OPENAI} yesterday", OPENAI),
    ("embedding_provider_key_hint", OPENAI, OPENAI),
    ("repo", f"clone with {GITHUB}", GITHUB),
    ("aws", AWS, AWS),
    ("headers", {"X-Trace": "1", "Authorization": BEARER}, "abc.DEF-ghi_12345678"),
    ("note", BEARER, "abc.DEF-ghi_12345678"),
    ("storage", "DefaultEndpointsProtocol=https;AccountKey=Zm9vYmFy==;", "Zm9vYmFy"),
]


@pytest.mark.parametrize(("key", "value", "secret"), SECRETS)
def test_redact_removes_each_kind_of_secret(key, value, secret):
    config = {"top_k": 5, key: value}
    cleaned = redact(config)
    assert str(secret) not in json.dumps(cleaned)
    assert REDACTED in json.dumps(cleaned)
    assert cleaned["top_k"] == 5


def test_redact_in_nested_lists_and_dicts():
    config = {"stages": [{"name": "rerank", "params": {"api_key": "nested-1"}}, OPENAI]}
    cleaned = json.dumps(redact(config))
    assert "nested-1" not in cleaned and OPENAI not in cleaned
    assert "rerank" in cleaned


ORDINARY = {
    "name": "hybrid-rrf",
    "corpus_version": "2024-05-01",
    "embedding_model": "sentence-transformers/all-MiniLM-L6-v2",
    "retrieval": "hybrid (bm25 + dense, RRF k=60)",
    "chunk_size": 512,
    "chunk_overlap": 64,
    "top_k": 10,
    "filters": {"section": ["billing", "auth-free section"], "status": "current"},
    "reranker": None,
    "index_url": "https://example.org/index/v2?x=1",
    "notes": "risk-aware ranking; desk-check done; sk-short",
    "use_cache": False,
}


def test_redact_keeps_ordinary_values():
    assert redact(ORDINARY) == ORDINARY


def test_redact_keeps_token_counts_and_tokenizer_settings():
    # Numbers of tokens and the tokenizer's name are ordinary retrieval settings,
    # not credentials (SPEC: only values that *look like* secrets are redacted).
    config = {"tokenizer": "cl100k_base", "max_tokens": 512, "chunk_tokens": 256, "author": "anna"}
    assert redact(config) == config


# --- through a workspace and the command line ----------------------------------------

SECRET_CONFIG = {
    "corpus_version": "v3",
    "embedding_model": "e5-small",
    "top_k": 5,
    "api_key": "plain-secret-123",
    "vector_db": "postgres://admin:pgpass99@db.internal/kb",
    "auth_header": BEARER,
    "note": f"rotate {GITHUB}",
}
LEAKS = ("plain-secret-123", "pgpass99", "abc.DEF-ghi_12345678", GITHUB)


@pytest.fixture
def secret_workspace(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["b"])])
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"]), run_row("q2", [])])
    write_text(tmp_path / "runs" / "dense.config.json", json.dumps(SECRET_CONFIG, indent=2))
    return gold, run


def test_workspace_configs_never_expose_the_secret(secret_workspace):
    gold, run = secret_workspace
    ws = Workspace.from_files(gold, [run])
    configs = ws.configs()
    assert configs["dense"]["embedding_model"] == "e5-small"
    assert configs["dense"]["api_key"] == REDACTED
    text = json.dumps(configs)
    for leak in LEAKS:
        assert leak not in text
    stored = ws.cursor().execute("SELECT config::VARCHAR FROM run_files").fetchall()
    for leak in LEAKS:
        assert leak not in str(stored)


@pytest.mark.parametrize("fmt", ["json", "table", "csv"])
def test_cli_output_never_exposes_the_secret(secret_workspace, capsys, fmt):
    gold, run = secret_workspace
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "--format", fmt, "--per-query"])
    assert code == 0, err
    for leak in LEAKS:
        assert leak not in out and leak not in err


def test_a_malformed_config_error_never_shows_the_secret(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"])])
    # a missing comma after the key's value: the bad line holds the secret
    write_text(
        tmp_path / "runs" / "dense.config.json", '{"api_key": "plain-secret-123" "top_k": 5}'
    )
    with pytest.raises(InputError) as error:
        Workspace.from_files(gold, [run])
    (p,) = error.value.problems
    assert p.file.endswith("dense.config.json") and p.line == 1
    assert "plain-secret-123" not in str(error.value)
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2
    assert "plain-secret-123" not in err + out


def test_a_config_that_is_not_an_object_is_an_input_error(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"])])
    write_text(tmp_path / "runs" / "dense.config.json", "[1, 2]")
    code, _, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "dense.config.json" in err and "Traceback" not in err


def test_config_name_names_the_run(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "runs" / "r1.jsonl", [run_row("q1", ["a"])])
    write_text(tmp_path / "runs" / "r1.config.json", json.dumps({"name": "bm25-v2", "top_k": 3}))
    ws = Workspace.from_files(gold, [run])
    assert ws.run_names == ["bm25-v2"]
    assert ws.configs()["bm25-v2"]["top_k"] == 3


# --- changed factors -----------------------------------------------------------------

BASE = {
    "corpus_version": "v3",
    "embedding_model": "e5-small",
    "retrieval": "dense",
    "top_k": 5,
    "reranker": None,
    "filters": {"section": "billing"},
}


def test_changed_factors_names_both_when_two_changed():
    candidate = BASE | {"embedding_model": "bge-m3", "reranker": "cross-encoder"}
    assert changed_factors(BASE, candidate) == ["embedding model", "reranker"]


def test_changed_factors_one_and_none():
    assert changed_factors(BASE, dict(BASE)) == []
    assert changed_factors(BASE, BASE | {"top_k": 10}) == ["k"]
    assert changed_factors(BASE, BASE | {"chunk_size": 256}) == ["index"]


def test_changed_factors_ignores_notes_and_names():
    assert changed_factors(BASE, BASE | {"name": "other", "notes": "rerun"}) == []
