"""Run config sidecars: secrets redacted on load, never shown (SPEC "Inputs", ``configs.py``).

The secrets below are made up; each is a shape the spec names (API keys,
tokens, passwords, connection strings, URLs with credentials).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import gold_row, run_cli, run_row, write_jsonl, write_text

from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs.configs import REDACTED, changed_factors, redact

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


# --- key rules, one by one ----------------------------------------------------------------

SECRET_KEYS = [
    "PGPASSWORD",
    "DBPASS",
    "MYSQL_PWD",
    "openaiKey",
    "OPENAIKEY",
    "hfToken",
    "HFTOKEN",
    "sessionid",
    "session_token",
    "x-api-key",
    "db.password",
    "client secret",
    "OAUTH",
    "basic_auth",
    "aws_secret_access_key",
    "key",
    "dsn",
    "Set-Cookie",
    "slack_webhook_url",
]
ORDINARY_KEYS = [
    "max_tokens",
    "max_new_tokens",
    "chunk_tokens",
    "tokenizer",
    "tokenization",
    "pad_token",
    "eos_token_id",
    "token_limit",
    "author",
    "author_email",
    "top_k",
    "chunk_size",
    "passage_count",
    "keyword",
    "keywords",
    "sort_key",
    "key_path",
    "first_pass",
    "bypass_cache",
    "pass_rate",
    "description",
]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_a_secret_key_in_any_style_is_redacted_with_any_value_type(key):
    for value in ("plain-value-1", 0, True, False, 4242, None, ["a", "b"]):
        assert json.dumps(redact({key: value})) in (
            json.dumps({key: REDACTED}),
            json.dumps({key: [REDACTED, REDACTED]}),
        ), (key, value)


@pytest.mark.parametrize("key", ORDINARY_KEYS)
def test_an_ordinary_key_stays_visible(key):
    assert redact({key: "value-1"}) == {key: "value-1"}


def test_a_key_is_read_with_its_parent():
    assert redact({"api": {"key": "k1", "url": "u"}}) == {"api": {"key": REDACTED, "url": "u"}}
    assert redact({"session": {"id": "s1"}}) == {"session": {"id": REDACTED}}


def test_everything_under_a_secret_key_is_redacted_and_its_shape_kept():
    config = {"auth": {"user": "u1", "pass": "p1", "retries": 3, "scopes": ["a"]}}
    assert redact(config) == {
        "auth": {"user": REDACTED, "pass": REDACTED, "retries": REDACTED, "scopes": [REDACTED]}
    }


def test_redaction_is_idempotent():
    once = redact(SECRET_CONFIG | {"endpoint": "https://u:p@ss@host/x", "k": {"api_key": 1}})
    assert redact(once) == once


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("https://u:p@ss@host/x", "https://[redacted]@host/x"),
        ("https://u:p/ss@host/x", "https://[redacted]@host/x"),
        ("https://tok@github.com/org/@anna", "https://[redacted]@github.com/org/@anna"),
        ("https://example.org/users/@anna", "https://example.org/users/@anna"),
        ("redis://:pw@cache:6379/0", "redis://[redacted]@cache:6379/0"),
        ("Basic retrieval baseline", "Basic retrieval baseline"),
        ("Bearer of bad news", "Bearer of bad news"),
        ("max_tokens=512; tokenizer: cl100k", "max_tokens=512; tokenizer: cl100k"),
        ("risk-aware, task-specific, sk-short", "risk-aware, task-specific, sk-short"),
        ("hf_sentencetransformers run", "hf_sentencetransformers run"),
    ],
)
def test_url_credentials_up_to_the_last_at_and_ordinary_text_kept(text, kept):
    assert redact({"note": text}) == {"note": kept}


# --- what a config file may not be ------------------------------------------------------


def _config_problems(tmp_path, raw: bytes):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"])])
    (tmp_path / "runs" / "dense.config.json").write_bytes(raw)
    with pytest.raises(InputError) as error:
        Workspace.from_files(gold, [run])
    return error.value.problems


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"top_k": 5, "top_k": 10, "api_key": "s1", "api_key": "s2"}', "each key once"),
        (b'{"hybrid_weight": NaN, "top_k": Infinity}', "a finite number"),
        (b'{"hybrid_weight": 1e999}', "a finite number"),
        (b'{"top_k": ' + b"9" * 5000 + b"}", "a JSON number"),
        (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "a JSON object of a few levels"),
        (b'{"name": ["ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3"]}', "a run name (text)"),
        (b'{"name": ""}', "a run name (text)"),
        (b'{"top_k": 5,}', "valid JSON"),
        (b'{"notes": "' + b"a.b-" * (1 << 18) + b'"}', "a config of at most 1 MiB"),
    ],
)
def test_a_config_that_would_be_coerced_is_refused(tmp_path, raw, expected):
    problems = _config_problems(tmp_path, raw)
    assert problems and all(expected in p.expected for p in problems), problems
    assert all(p.file.endswith("dense.config.json") and len(p.value) <= 80 for p in problems)
    shown = " ".join(str(p) for p in problems)
    assert "s1" not in shown and "s2" not in shown and "A1b2C3d4" not in shown


def test_redacting_hostile_text_is_linear_in_its_length():
    """Unbounded URL patterns were quadratic: 100 KB of "a.b-" took minutes."""
    started = time.perf_counter()
    for unit in ("a.b-", "https://", "https://a:", "https://x/webhoo", "a:b/", "password"):
        redact({"notes": unit * 25_000})
    assert time.perf_counter() - started < 10


def test_every_problem_of_a_config_is_reported_at_once(tmp_path):
    problems = _config_problems(tmp_path, b'{"a": 1, "a": 2, "b": NaN, "c": -Infinity}')
    assert [p.expected.split(" (")[0] for p in problems] == [
        "a finite number",
        "a finite number",
        "each key once",
    ]


def test_a_config_that_is_a_folder_is_an_input_error(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "runs" / "dense.jsonl", [run_row("q1", ["a"])])
    (tmp_path / "runs" / "dense.config.json").mkdir()
    code, _, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "dense.config.json" in err and "a readable file" in err
    assert "Traceback" not in err


def test_a_bad_config_and_a_bad_run_are_reported_together(tmp_path, capsys):
    """The config used to be read first and its problem raised alone, hiding the run's."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_text(
        tmp_path / "runs" / "dense.jsonl",
        '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 0}]}\n',
    )
    config = write_text(tmp_path / "runs" / "dense.config.json", '{"k": 5, "k": 6}')

    with pytest.raises(InputError) as error:
        Workspace.from_files(gold, [run])
    assert [(p.file, p.expected) for p in error.value.problems] == [
        (str(config), "each key once"),
        (str(run), "a rank that is a positive integer"),
    ]
    code, _, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and "Traceback" not in err
    assert all(str(p) in err for p in error.value.problems), err


# --- false positives: real retriever configs survive unchanged ----------------------------

REALISTIC = sorted((Path(__file__).parent / "data" / "configs_realistic").glob("*.json"))
SAMPLES = sorted((Path(__file__).parent.parent / "data_samples" / "runs").glob("*.config.json"))
# the two secrets planted in the samples (dense-minilm's api_key and index_url credentials)
PLANTED = {"api_key", "index_url"}


def test_there_are_a_dozen_realistic_configs_and_four_samples():
    assert len(REALISTIC) >= 12 and len(SAMPLES) == 4


@pytest.mark.parametrize("path", REALISTIC + SAMPLES, ids=lambda p: p.name)
def test_a_realistic_config_survives_redaction_unchanged(path):
    """Model names, index paths, hosts, UUIDs, corpus hashes and commits are not secrets
    (issue 27: the shape rule must leave them)."""
    config = json.loads(path.read_text("utf-8"))
    ordinary = {k: v for k, v in config.items() if k not in PLANTED}
    assert redact(ordinary) == ordinary
    assert {k: redact(config)[k] for k in ordinary} == ordinary
