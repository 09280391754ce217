"""Redaction tables, tested entry by entry (issue 27).

Every entry of the tables in :mod:`ragrecall_core.inputs.secrets` yields examples: each key
fragment, word and ending as a key in five styles (snake, kebab, camel, upper, fullwidth);
each name of a ``name=value`` pair in a text in three forms; each value rule's example bare,
in prose, in a list and in JSON held in a string, and in lower and upper case where the rule
ignores case; each non-secret key word, veto word, pair field and look-alike letter. Then:

* every example is redacted (or, for the vetoes and non-secret keys, kept) by ``redact``;
* removing any one entry from its table flips at least one of that entry's examples
  (``test_each_entry_is_needed``), so a table entry no test needs cannot creep in;
* one example per entry goes through every output: ``compare`` (table, json), ``report``
  (.html, .md, .csv), ``check --summary --junit``, capture's config and ``error`` fields, the
  dashboard's Overview and Compare pages.

The examples are built once per module. Their secret parts are low-entropy words and digits,
so that only the entry under test catches them (the shape rule, which catches random-looking
tokens, is tested in test_secrets_shapes.py).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragrecall_core.analysis.capture import capture
from ragrecall_core.inputs import secrets
from ragrecall_core.inputs.secrets import redact
from tests import fixtures_regressions as fx
from tests.helpers import cli_texts, gold_row, write_jsonl


@dataclass(frozen=True)
class Example:
    table: str  # the table's name in secrets.py
    entry: object  # the entry (a word, a (trigger, word) pair, a rule's name)
    style: str
    config: dict  # what is redacted: {key: value}
    leak: str  # the text that must not be left ("" for an example that must be kept)

    @property
    def kept(self) -> bool:
        return not self.leak


def fullwidth(text: str) -> str:
    """``db_password`` in fullwidth forms (NFKC maps them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def styles(words: list[str]) -> dict[str, str]:
    """A key of ``words`` in five styles."""
    snake = "_".join(words)
    return {
        "snake": snake,
        "kebab": "-".join(words),
        "camel": words[0] + "".join(w.capitalize() for w in words[1:]),
        "upper": snake.upper(),
        "fullwidth": fullwidth(snake.upper()),
    }


COUNTER = iter(range(1, 100_000))


def secret_value() -> str:
    """A value no value rule or shape catches: only its key can get it redacted."""
    return f"kv{next(COUNTER):04d}-Orchid"


def key_examples(table: str, entry: str, words: list[str]) -> list[Example]:
    return [
        Example(table, entry, style, {key: (value := secret_value())}, value)
        for style, key in styles(words).items()
    ]


def kept_key_examples(table: str, entry: object, words: list[str]) -> list[Example]:
    chosen = {k: v for k, v in styles(words).items() if k in ("snake", "camel", "upper")}
    return [Example(table, entry, style, {key: "value-kept"}, "") for style, key in chosen.items()]


def pair_text_examples(table: str, entry: str, name: str) -> list[Example]:
    """``name=value`` in a text, in three forms (and the name in fullwidth)."""
    forms = {
        "name=value": "{n}={v}",
        "name: value": "retry with {n}: {v} later",
        "JSON text": '{{"{n}": "{v}"}} (pasted)',
        "fullwidth name": fullwidth(name) + "={v}",
    }
    out = []
    for style, form in forms.items():
        value = secret_value()
        out.append(Example(table, entry, style, {"note": form.format(n=name, v=value)}, value))
    return out


# each value rule's example: (text with {n} for a unique number, the secret part)
RULE_EXAMPLES = {
    "PEM block": (
        "-----BEGIN PRIVATE KEY-----\norchid body {n}\n-----END PRIVATE KEY-----",
        "orchid body {n}",
    ),
    "SSH2 key block": (
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\norchid ssh {n}\n"
        "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
        "orchid ssh {n}",
    ),
    "PuTTY key file": (
        "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\norchid putty {n}\nPrivate-MAC: ab",
        "orchid putty {n}",
    ),
    "header line": ("Authorization: Token orchid-hdr{n}", "orchid-hdr{n}"),
    "URL user:password@": ("https://user:orchid/pw{n}@host.internal/x", "orchid/pw{n}"),
    "URL userinfo@": ("https://orchidtok{n}@github.com/org/repo", "orchidtok{n}"),
    "user:password@host": ("admin:orchid-pw{n}@db.internal:5432", "orchid-pw{n}"),
    "oracle user/password@": ("jdbc:oracle:thin:scott/orchid{n}@db:1521/ORCL", "orchid{n}"),
    "Slack webhook URL": (
        "https://hooks.slack.com/services/T000/B000/orchidhook{n}",
        "orchidhook{n}",
    ),
    "webhook URL": ("https://discord.com/api/webhooks/42/orchidhook{n}", "orchidhook{n}"),
    "netrc password": ("machine h login u password orchid-netrc{n}", "orchid-netrc{n}"),
    "pgpass line": ("db.internal:5432:kb:reader:orchid-pgpass{n}", "orchid-pgpass{n}"),
    "secret flag": ("run --password orchid-flag{n} now", "orchid-flag{n}"),
    "mysql -p": ("mysql -u root -porchid{n} kb", "orchid{n}"),
    "curl -u user:password": ("curl -s -u admin:orchid-curl{n} https://x", "orchid-curl{n}"),
    "query code=": ("https://app.internal/callback?code=orchid-code{n}", "orchid-code{n}"),
    "Stripe sk_live_": ("sk_live_orchidlantern{n}", "orchidlantern{n}"),
    "Stripe whsec_": ("whsec_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "OpenAI/Anthropic sk-": ("sk-orchidlantern{n}", "orchidlantern{n}"),
    "Hugging Face hf_": ("hf_orchidLanternMarble{n}", "orchidLanternMarble{n}"),
    "Google AIza": ("AIzaorchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "GitLab gl*-": ("glpat-orchidlantern{n}", "orchidlantern{n}"),
    "Pinecone pcsk_": ("pcsk_orchidlantern{n}", "orchidlantern{n}"),
    "GitHub gh*_": ("ghp_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "GitHub github_pat_": ("github_pat_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "Slack xox*-": ("xoxb-orchid-lantern{n}", "orchid-lantern{n}"),
    "AWS access key id": ("AKIAORCHIDLANTER{n}", "ORCHIDLANTER{n}"),
    "npm npm_": ("npm_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "PyPI pypi-": ("pypi-orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "Google ya29.": ("ya29.orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "SendGrid SG.": ("SG.orchidlanternmarble.quartzlantern{n}", "quartzlantern{n}"),
    "Groq gsk_": ("gsk_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "LangSmith lsv2_": ("lsv2_pt_abcabcabcabcabcabcab{n}", "abcabcabcabcabcabcab{n}"),
    "Replicate r8_": ("r8_orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "Vault hv*.": ("hvs.orchidlanternmarble{n}", "orchidlanternmarble{n}"),
    "Mailgun key-": ("key-a1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}", "a1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}"),
    "Databricks dapi": ("dapia1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}", "a1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}"),
    "Twilio SK": ("SKa1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}", "a1a1a1a1a1a1a1a1a1a1a1a1a1a1{n}"),
    "age secret key": ("AGE-SECRET-KEY-1AAAABBBBCCCCDDDD{n}", "AAAABBBBCCCCDDDD{n}"),
    "Telegram bot token": (
        "https://api.telegram.org/bot12345{n}:AAorchidlanternmarblequartzpearl/getMe",
        "orchidlanternmarblequartzpearl",
    ),
    "JWT": ("eyJorchidlan.orchidlantern{n}", "orchidlantern{n}"),
    "Basic credentials": ("Basic b3JjaGlkOmxhb{n}=", "b3JjaGlkOmxhb{n}"),
    "Bearer token": ("Bearer orchid.lantern-marble{n}", "orchid.lantern-marble{n}"),
}


def rule_examples(name: str) -> list[Example]:
    text, leak = RULE_EXAMPLES[name]
    pattern = secrets.VALUE_RULES[name][0]
    contexts = {
        "bare": "{t}",
        "in prose": "see {t} (rotated)",
        "in a list": ["ok", "{t}"],
        "JSON in a string": "json",
    }
    if pattern.flags & re.I:
        contexts |= {"lower case": "lower", "upper case": "upper"}
    out = []
    for style, context in contexts.items():
        n = f"{next(COUNTER):04d}"
        t, secret = text.format(n=n), leak.format(n=n)
        if context == "json":
            value = json.dumps({"note": t})
        elif context == "lower":
            t, secret = t.lower(), secret.lower()
            value = t
        elif context == "upper":
            t, secret = t.upper(), secret.upper()
            value = t
        elif isinstance(context, list):
            value = [c.format(t=t) for c in context]
        else:
            value = context.format(t=t)
        out.append(Example("VALUE_RULES", name, style, {"note": value}, secret))
    return out


# secret words to spell with a look-alike letter (the first that holds the Latin letter)
LOOKALIKE_HOSTS = ("jwt", "secret", "credential", "password", "apikey", "privatekey", "webhook")


def generate() -> list[Example]:
    out: list[Example] = []
    for fragment in secrets.SECRET_FRAGMENTS:
        out += key_examples("SECRET_FRAGMENTS", fragment, ["db", fragment, "value"])
    for word in sorted(secrets.SECRET_WORDS):
        out += key_examples("SECRET_WORDS", word, ["svc", word])
    for ending in secrets.SECRET_ENDINGS:
        out += key_examples("SECRET_ENDINGS", ending, ["svc" + ending])
    for trigger, words in secrets.NOT_SECRET_BEFORE.items():
        for word in sorted(words):
            out += kept_key_examples("NOT_SECRET_BEFORE", (trigger, word), [word, trigger])
    for trigger, words in secrets.NOT_SECRET_AFTER.items():
        for word in sorted(words):
            out += kept_key_examples("NOT_SECRET_AFTER", (trigger, word), [trigger, word])
    for name in secrets.TEXT_ONLY_NAMES:
        out += pair_text_examples("TEXT_ONLY_NAMES", name, f"x-amz-{name}")
    for word in sorted(secrets.NOT_SECRET_KEY_WORDS):
        token = "9f3c1e7a5b2d8c4e6f0a1b3d5e7c9f2a4b6d8e0c"
        for style, key in styles(["corpus", word]).items():
            if style in ("snake", "upper"):
                out.append(Example("NOT_SECRET_KEY_WORDS", word, style, {key: token}, ""))
    for field in secrets.PAIR_NAME_FIELDS:
        for style, name in (("lower", field), ("capitalised", field.capitalize())):
            value = secret_value()
            pair = {name: "db_password", "value": value}
            out.append(Example("PAIR_NAME_FIELDS", field, style, {"params": [pair]}, value))
    for field in secrets.PAIR_VALUE_FIELDS:
        for style, name in (("lower", field), ("upper", field.upper())):
            value = secret_value()
            pair = {"name": "X-Api-Key", name: value}
            out.append(Example("PAIR_VALUE_FIELDS", field, style, {"headers": [pair]}, value))
    for char, latin in secrets.LOOKALIKES.items():
        word = next(w for w in LOOKALIKE_HOSTS if latin in w)
        spelt = word.replace(latin, char, 1)
        out += key_examples("LOOKALIKES", char, ["db", spelt, "value"])
    for name in secrets.VALUE_RULES:
        out += rule_examples(name)
    # key=value names: every secret key word and fragment as a name in a text
    for fragment in secrets.SECRET_FRAGMENTS[:4]:
        out += pair_text_examples("SECRET_FRAGMENTS", fragment, f"db_{fragment}")
    return out


EXAMPLES = generate()


def _variants(leak: str) -> set[str]:
    return {leak, json.dumps(leak)[1:-1], html.escape(leak), html.escape(json.dumps(leak)[1:-1])}


def leaks(example: Example, text: str) -> bool:
    return any(v in text for v in _variants(example.leak))


def outcome(example: Example) -> bool:
    """True when ``redact`` does what the example asks (redacts its leak, or keeps it)."""
    redacted = redact(example.config)
    if example.kept:
        return redacted == example.config
    return not leaks(example, json.dumps(redacted, ensure_ascii=False))


def test_a_few_hundred_examples_cover_every_entry_of_every_table():
    assert 300 <= len(EXAMPLES) <= 900
    assert {e.entry for e in EXAMPLES if e.table == "VALUE_RULES"} == set(secrets.VALUE_RULES)
    assert set(RULE_EXAMPLES) == set(secrets.VALUE_RULES)


@pytest.mark.parametrize("table", sorted({e.table for e in EXAMPLES}))
def test_every_example_is_redacted_or_kept(table):
    wrong = [(e.entry, e.style, e.config) for e in EXAMPLES if e.table == table and not outcome(e)]
    assert wrong == []


# --- removing any one entry makes an example fail -----------------------------------------


def without(table: str, entry: object):
    """The table ``table`` without ``entry``."""
    current = getattr(secrets, table)
    if table in ("NOT_SECRET_BEFORE", "NOT_SECRET_AFTER"):
        trigger, word = entry
        return {**current, trigger: current[trigger] - {word}}
    if isinstance(current, dict):
        return {k: v for k, v in current.items() if k != entry}
    if isinstance(current, set):
        return current - {entry}
    return tuple(e for e in current if e != entry)


ENTRIES = sorted({(e.table, e.entry) for e in EXAMPLES}, key=str)


def test_each_entry_is_needed(monkeypatch):
    """For each table entry, one of its examples is redacted (or kept) only because of it."""
    unneeded = []
    for table, entry in ENTRIES:
        own = [e for e in EXAMPLES if (e.table, e.entry) == (table, entry)]
        with monkeypatch.context() as patch:
            patch.setattr(secrets, table, without(table, entry))
            if all(outcome(e) for e in own):
                unneeded.append((table, entry))
    assert unneeded == []


def test_case_insensitive_rules_fail_without_ignore_case(monkeypatch):
    """Making a rule that ignores case case-sensitive (``Bearer`` only) leaks an example."""
    survived = []
    for name, (pattern, replacement, needles) in secrets.VALUE_RULES.items():
        if not pattern.flags & re.I:
            continue
        strict = re.compile(pattern.pattern, pattern.flags & ~re.I)
        own = [e for e in EXAMPLES if e.entry == name]
        with monkeypatch.context() as patch:
            patch.setitem(secrets.VALUE_RULES, name, (strict, replacement, needles))
            if all(outcome(e) for e in own):
                survived.append(name)
    assert survived == []


# --- one example per entry through every output -------------------------------------------


def _first_secret(entry_key) -> Example | None:
    return next((e for e in EXAMPLES if (e.table, e.entry) == entry_key and not e.kept), None)


def message(example: Example) -> str | None:
    """The example as a retriever's error would quote it: a text, or ``key=value``."""
    ((key, value),) = example.config.items()
    if not isinstance(value, str):
        return None
    return value if key == "note" else f"{key}={value}"


SHOWN = [e for e in map(_first_secret, ENTRIES) if e is not None]
ERROR_TEXTS = [e for e in SHOWN if message(e) is not None]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    folder = fx.write_workspace(tmp_path_factory.mktemp("tables") / "ws")
    wrapped = {f"entry{i:03d}": e.config for i, e in enumerate(SHOWN)}
    config = {**fx.BASE_CONFIG, "top_k": 10, "reranker": "bge", **wrapped}
    (folder / "runs" / "candidate.config.json").write_text(json.dumps(config), "utf-8")
    return folder


@pytest.fixture(scope="module")
def outputs(workspace, tmp_path_factory) -> dict[str, str]:
    p = fx.paths(workspace)
    out_dir = tmp_path_factory.mktemp("table-outputs")
    commands = {
        f"compare {fmt}": ["compare", p["gold"], p["baseline"], p["candidate"], "--format", fmt]
        for fmt in ("table", "json")
    }
    commands |= {
        f"report {suffix}": ["report", workspace, "-o", out_dir / f"report.{suffix}"]
        for suffix in ("html", "md", "csv")
    }
    commands["check"] = ["check", p["gold"], p["candidate"], "--baseline", p["baseline"]] + [
        "--require",
        "Recall@5>=0.1",
        "--summary",
        out_dir / "summary.md",
        "--junit",
        out_dir / "junit.xml",
    ]
    texts = cli_texts(commands)
    for suffix in ("html", "md", "csv"):
        texts[f"report {suffix}"] += (out_dir / f"report.{suffix}").read_text("utf-8")
    texts["check --summary"] = (out_dir / "summary.md").read_text("utf-8")
    texts["check --junit"] = (out_dir / "junit.xml").read_text("utf-8")
    assert "entry000" in texts["compare json"], "the config diff was not found"
    return texts


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> dict[str, str]:
    """capture's config (every shown example in ``--config``) and its per-query error
    fields (a retriever whose exception quotes one text example per query)."""
    folder = tmp_path_factory.mktemp("capture")
    gold = write_jsonl(
        folder / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(len(ERROR_TEXTS))]
    )

    def failing(query, query_id):
        example = ERROR_TEXTS[int(query_id[1:])]
        raise RuntimeError(f"upstream said: {message(example)}")

    settings = {f"entry{i:03d}": e.config for i, e in enumerate(SHOWN)}
    result = capture(
        gold, failing, folder / "r.jsonl", config=settings, allow_errors=len(ERROR_TEXTS)
    )
    assert len(result.errors) == len(ERROR_TEXTS)
    return {
        "capture config": result.config.read_text("utf-8"),
        "capture error": (folder / "r.jsonl").read_text("utf-8"),
    }


@pytest.fixture(scope="module")
def dashboard(workspace) -> dict[str, str]:
    from tests.adversarial.test_secrets import _page_text, open_overview_boxes
    from tests.dashboard_support import app, no_exception

    with pytest.MonkeyPatch.context() as monkeypatch:
        at = app(workspace, monkeypatch)
        open_overview_boxes(at)
        no_exception(at)
        overview = "\n".join(json.dumps(j.value) for j in at.json) + _page_text(at)
        at.switch_page("pages/compare.py").run()
        no_exception(at)
        compare = _page_text(at)
    assert "entry000" in overview and "entry000" in compare, "the config was not shown"
    return {"dashboard overview": overview, "dashboard compare": compare}


def _leaked(examples: list[Example], texts: dict[str, str]) -> list[tuple]:
    return [
        (e.table, e.entry, e.style, output)
        for e in examples
        for output, text in texts.items()
        if leaks(e, text)
    ]


def test_no_example_reaches_compare_report_or_check(outputs):
    assert _leaked(SHOWN, outputs) == []


def test_no_example_reaches_capture_config_or_error_field(captured):
    assert _leaked(SHOWN, {"capture config": captured["capture config"]}) == []
    assert _leaked(ERROR_TEXTS, {"capture error": captured["capture error"]}) == []
    assert captured["capture error"].count("RuntimeError: upstream said") == len(ERROR_TEXTS)


def test_no_example_reaches_the_dashboard(dashboard):
    assert _leaked(SHOWN, dashboard) == []


def test_redacting_again_changes_nothing():
    """A config redacted once (a capture's config, a cached load) reads the same when it is
    redacted again: no rule eats the text around an earlier marker."""
    from tests.adversarial.test_secrets import SHAPES as ISSUE_10
    from tests.adversarial.test_secrets_shapes import SHAPES as ISSUE_27

    configs = [e.config for e in EXAMPLES]
    configs += [s["fragment"] for s in (*ISSUE_10.values(), *ISSUE_27.values())]
    changed = [once for once in map(redact, configs) if redact(once) != once]
    assert changed == []
