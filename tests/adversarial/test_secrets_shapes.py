"""Attack family: secret shapes that leaked through redaction (issue 27).

Each shape below leaked into ``compare``, ``report`` and the dashboard before issue 27: header
pair lists, name/value lists, PuTTY and SSH2 private keys, ``.netrc`` text, Oracle JDBC
credentials, passwords on a command line, tokens of families without a named rule, base64
of a JSON object holding a password, keys that only Unicode normalisation reveals. They are
checked on the redacted config itself, through ``compare`` and ``report``, and in capture's
per-query ``error`` field (a retriever exception that quotes the token).

The tokens are made up (random bodies from a seeded generator); each is assembled from
pieces so that the source does not look like a leaked credential.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import pytest

from ragrecall_core.analysis.capture import capture
from ragrecall_core.inputs.configs import REDACTED, redact, redact_text
from ragrecall_core.inputs.secrets import VALUE_RULES
from tests import fixtures_regressions as fx
from tests.helpers import cli_texts, gold_row, write_jsonl

GROQ = "gsk_" + "PESr9smeeq0Ivqx10zlp6pF0eU6OKPfN1BXAVdQCwa20PEqiN8vN"
LANGSMITH = "lsv2_pt_" + "743c9125e48150e4bd29eeb0b585fb17" + "_56f2aa1ca3"
REPLICATE = "r8_" + "tqYJSSftDDsGhLb6sn4XEJI59RhaLdxZmsSN2"
VAULT = (
    "hvs."
    + "me206axTbyDWyQXiSfxikLDr79nDVJd-uN7B3MAtQhDp8kF3"
    + "ONfqnZlVAvcx4g4gCJzm4UQAYyubSEzPW8RiFj"
)
STRIPE_WEBHOOK = "whsec_" + "CgQVitQK2F7SvTH9Iy1vN6eFwxVE8tZF"
MAILGUN = "key-" + "6777b3995cf8d8053e11e7833479d881"
DATABRICKS = "dapi" + "51e327a430708fa0d20b93354509f1b3"
TWILIO = "SK" + "f4aea86a86de42ddccadd5234d649fca"
AGE = "AGE-SECRET-KEY-1" + "T349XYL26PQQTSLPN78L6EC550QSQUPM2CRW6Z3VGGLVQLULV9C2D730NA"
TELEGRAM = "123456789:" + "AAH1g-W4AmMJsgooU609ZC0sNi7H3_ee_a-"
SSH2_BODY = "kGxvJ/5/W2m6F8c1BfWPlHK+UF1mTABWui9gDhQ+hh4sp+2eoF2SX84aYpLXb7Kz"
PUTTY_PRIVATE = "DPo+nQjp176yvriCarCJtyRkmiGsjmxxAMgRjuncxDeKdogPLWXs9U1ZIZXE"
B64_JSON = base64.b64encode(b'{"user": "svc-reader", "password": "Orchid-B64-71"}').decode()

PUTTY_3 = (
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261203\n"
    "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOrchidPublicPart\nOrchidPublicTail\n"
    f"Private-Lines: 1\n{PUTTY_PRIVATE}\nPrivate-MAC: " + "9f2c" * 16
)
PUTTY_2 = (
    "PuTTY-User-Key-File-2: ssh-rsa\r\nEncryption: none\r\nComment: imported-openssh-key\r\n"
    "Public-Lines: 1\r\nAAAAB3NzaC1yc2EAAAADAQABAAAAgQ\r\n"
    "Private-Lines: 2\r\nOrchidPuttyTwoLine1Abc\r\nOrchidPuttyTwoLine2Def\r\n"
)
SSH2 = (
    '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-20261203"\n'
    f"{SSH2_BODY}\nOrchidSshTwoSecondLine\n---- END SSH2 ENCRYPTED PRIVATE KEY ----"
)


def shape(fragment, *leaks):
    return {"fragment": fragment, "leaks": leaks}


SHAPES = {
    "header pair list Authorization": shape(
        {"headers": [["Accept", "application/json"], ["Authorization", "Token Orchid-Hdr-4410"]]},
        "Orchid-Hdr-4410",
    ),
    "header pair list X-Api-Key": shape(
        {"headers": [["X-Api-Key", "Orchid-Xak-7731"]]}, "Orchid-Xak-7731"
    ),
    "name/value password": shape(
        {"params": [{"name": "password", "value": "Orchid-Nv-5521"}]}, "Orchid-Nv-5521"
    ),
    "name/value env list": shape(
        {"env": [{"name": "top_k", "value": 5}, {"name": "OPENAI_API_KEY", "value": "Orch-31"}]},
        "Orch-31",
    ),
    "PuTTY v3 private key": shape({"deploy": PUTTY_3}, PUTTY_PRIVATE[:20], "9f2c9f2c"),
    "PuTTY v2 private key": shape(
        {"deploy": PUTTY_2}, "OrchidPuttyTwoLine1Abc", "OrchidPuttyTwoLine2Def"
    ),
    "SSH2 encrypted private key": shape(
        {"deploy": SSH2}, SSH2_BODY[:20], SSH2_BODY[-20:], "OrchidSshTwoSecondLine"
    ),
    ".netrc text": shape(
        {"netrc": "machine api.example.com\n  login anna\n  password Orchid-Netrc-88"},
        "Orchid-Netrc-88",
    ),
    "jdbc oracle thin": shape(
        {"docstore": "jdbc:oracle:thin:scott/Orchid-Tiger-9@db.internal:1521/ORCL"},
        "Orchid-Tiger-9",
    ),
    "--password x": shape(
        {"dump": "mysqldump --user root --password Orchid-Cli-61 kb"}, "Orchid-Cli-61"
    ),
    "--password=x": shape({"dump": "psql --password=Orchid-Cli-62 -h db"}, "Orchid-Cli-62"),
    "mysql -pX": shape({"dump": "mysql -u root -pOrchidCli63 -h db kb"}, "OrchidCli63"),
    "Groq gsk_": shape({"llm": GROQ}, GROQ[4:30]),
    "LangSmith lsv2_pt_": shape({"tracing": LANGSMITH}, LANGSMITH[8:30]),
    "Replicate r8_": shape({"reranker_host": REPLICATE}, REPLICATE[3:30]),
    "Vault hvs.": shape({"vault": VAULT}, VAULT[4:30], VAULT[-20:]),
    "Stripe whsec_": shape({"billing_hook": STRIPE_WEBHOOK}, STRIPE_WEBHOOK[6:]),
    "Mailgun key-": shape({"mail": MAILGUN}, MAILGUN[4:]),
    "Databricks dapi": shape({"warehouse": DATABRICKS}, DATABRICKS[4:]),
    "Twilio SK": shape({"sms": TWILIO}, TWILIO[2:]),
    "age secret key": shape({"backup": AGE}, AGE[16:40]),
    "Telegram bot token in a URL path": shape(
        {"alerts": f"https://api.telegram.org/bot{TELEGRAM}/sendMessage?chat_id=42"},
        TELEGRAM.split(":")[1],
    ),
    "base64 of JSON with a password": shape({"blob": B64_JSON}, B64_JSON, "Orchid-B64-71"),
    "key passcode": shape({"passcode": "Orchid-Pc-4242"}, "Orchid-Pc-4242"),
    "fullwidth key PASSWORD": shape({"ＰＡＳＳＷＯＲＤ": "Orchid-Fw-77"}, "Orchid-Fw-77"),
    "passphrase= in a note": shape({"note": "passphrase=Orchid-Pp-12"}, "Orchid-Pp-12"),
    "key with a Cyrillic look-alike": shape({"раssword": "Orchid-Cy-501"}, "Orchid-Cy-501"),
    "key with a zero-width space": shape({"to\u200bken": "Orchid-Zw-502"}, "Orchid-Zw-502"),
    "key numbered after key": shape({"openai_key_2": "Orchid-Num-503"}, "Orchid-Num-503"),
    "key ending in a digit": shape({"PWD2": "Orchid-Num-504"}, "Orchid-Num-504"),
    "Bearer with a look-alike letter": shape(
        {"upstream": "Bеarer orchid.lantern-505"}, "orchid.lantern-505"
    ),
    "header_name / header_value": shape(
        {"extra_headers": [{"header_name": "X-Api-Key", "header_value": "Orchid-HV701"}]},
        "Orchid-HV701",
    ),
    ".pgpass text": shape(
        {"pgpass": "# replica\ndb-replica-2.internal:5432:ragkb:retriever_ro:Orchid-PG801\n"},
        "Orchid-PG801",
    ),
    "a dict of tokens": shape({"tokens": {"openai": "Orchid-T601"}}, "Orchid-T601"),
    "argv mysql -pX": shape({"cmd": ["mysql", "-u", "root", "-pOrchid-P602"]}, "Orchid-P602"),
    "argv --password x": shape({"cmd": ["psql", "--password", "Orchid-P603"]}, "Orchid-P603"),
    "ODBC braced Pwd": shape({"odbc": "Server=x;Uid=sa;Pwd={Orchid;P604};"}, "P604"),
    "curl -u user:password": shape({"note": "curl -u admin:Orchid-C605 https://x"}, "Orchid-C605"),
    "escaped JSON text": shape({"note": '{\\"password\\": \\"Orchid-J606\\"}'}, "Orchid-J606"),
    "lower-case bearer": shape(
        {"upstream": "bearer abc.DEF-ghi_12345678xyz"}, "abc.DEF-ghi_12345678xyz"
    ),
}

# the same shapes in their shortest form, with the exact text they must become
EXACT = [
    ("machine h login u password p", f"machine h login u password {REDACTED}"),
    ("run --password x now", f"run --password {REDACTED} now"),
    ("run --password=x now", f"run --password={REDACTED} now"),
    ("mysql -pX kb", f"mysql -p{REDACTED} kb"),
    ("passphrase=abc", f"passphrase={REDACTED}"),
    ("bearer abc.DEF-ghi_12345678xyz", f"bearer {REDACTED}"),
    ("jdbc:oracle:thin:user/pass@host", f"jdbc:oracle:thin:{REDACTED}@host"),
]


def _variants(leak: str) -> set[str]:
    """A leak as it may be written: raw, JSON-escaped, HTML-escaped."""
    return {leak, json.dumps(leak)[1:-1], html.escape(leak), html.escape(json.dumps(leak)[1:-1])}


def _assert_no_leak(name: str, texts: dict[str, str]) -> None:
    for leak in SHAPES[name]["leaks"]:
        for output, text in texts.items():
            for variant in _variants(leak):
                assert variant not in text, f"{name}: {leak!r} shown by {output}"


@pytest.mark.parametrize("name", list(SHAPES))
def test_shape_is_redacted_on_load(name):
    redacted = redact({"shape": SHAPES[name]["fragment"]})
    text = json.dumps(redacted, ensure_ascii=False)
    _assert_no_leak(name, {"redacted config": text})
    assert REDACTED in text


@pytest.mark.parametrize(("text", "expected"), EXACT)
def test_shortest_form_is_redacted_exactly(text, expected):
    assert redact_text(text) == expected
    assert redact({"note": text}) == {"note": expected}


@pytest.mark.parametrize("name", list(SHAPES))
def test_shape_never_reaches_compare_or_report(name, outputs):
    _assert_no_leak(name, outputs)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, str]:
    """compare (table, json) and report (.html, .md, .csv) on a workspace whose candidate
    config holds every shape, each under a neutral key."""
    folder = fx.write_workspace(tmp_path_factory.mktemp("shapes") / "ws")
    wrapped = {f"shape{n:02d}": s["fragment"] for n, s in enumerate(SHAPES.values(), start=1)}
    config = {**fx.BASE_CONFIG, "top_k": 10, "reranker": "bge", **wrapped}
    (folder / "runs" / "candidate.config.json").write_text(json.dumps(config), "utf-8")
    p = fx.paths(folder)
    out_dir = tmp_path_factory.mktemp("shape-reports")
    commands = {
        f"compare {fmt}": ["compare", p["gold"], p["baseline"], p["candidate"], "--format", fmt]
        for fmt in ("table", "json")
    }
    commands |= {
        f"report {suffix}": ["report", folder, "-o", out_dir / f"report.{suffix}"]
        for suffix in ("html", "md", "csv")
    }
    texts = cli_texts(commands)
    for suffix in ("html", "md", "csv"):
        texts[f"report {suffix}"] += (out_dir / f"report.{suffix}").read_text("utf-8")
    assert "shape01" in texts["compare json"], "the config diff was not found"
    return texts


TOKENS = {
    "Groq gsk_": GROQ,
    "LangSmith lsv2_pt_": LANGSMITH,
    "Replicate r8_": REPLICATE,
    "Vault hvs.": VAULT,
    "Stripe whsec_": STRIPE_WEBHOOK,
    "Mailgun key-": MAILGUN,
    "Databricks dapi": DATABRICKS,
    "Twilio SK": TWILIO,
    "age secret key": AGE,
    "Telegram bot token in a URL path": f"https://api.telegram.org/bot{TELEGRAM}/getMe",
    "base64 of JSON with a password": B64_JSON,
    "jdbc oracle thin": "jdbc:oracle:thin:scott/Orchid-Tiger-9@db.internal:1521/ORCL",
    "mysql -pX": "mysql -u root -pOrchidCli63 -h db kb",
    ".netrc text": "machine api.example.com login anna password Orchid-Netrc-88",
}


def test_capture_error_field_never_keeps_a_token(tmp_path: Path):
    """A retriever whose exception quotes a token: the run's ``error`` field is redacted."""
    names = list(TOKENS)
    gold = write_jsonl(
        tmp_path / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(len(names))]
    )

    def failing(query, query_id):
        raise ConnectionError(f"upstream refused {TOKENS[names[int(query_id[1:])]]} (retry)")

    output = tmp_path / "r.jsonl"
    result = capture(gold, failing, output, allow_errors=len(names))
    assert len(result.errors) == len(names)
    lines = output.read_text("utf-8")
    assert lines.count("ConnectionError: upstream refused") == len(names)
    for name in names:
        _assert_no_leak(name, {"capture error field": lines})


# Token families that no rule names (the shape rule catches them; written after it was tuned).
UNKNOWN_FAMILIES = {
    "Cohere-like 40 alnum": "J7qPz0Lw3XvB9mKc2RtY5nHs8DfGa1UeQo4iWb6E",
    "Mistral-like 32 alnum": "q8Zr2LxV7nMw4KpT1sBy9DcF3hGj6NaE",
    "Voyage pa-": "pa-" + "Xk3Lq9Zr2Vw7Nm4Bt8Yc1Dj6Fh5Gs0Pa3Ke7Rz2Uw",
    "Jina jina_": "jina_" + "8f3c1e9a7b5d4c2e0f6a8b9c1d3e5f7a" + "Qz4Lm7Np1Rt9Vw2Yb5Hj8Kd3Fg6Sa0Xc",
    "DigitalOcean dop_v1_": "dop_v1_"
    + "3b7e1c9f5a2d8e4b6c0f1a3d5e7b9c2f"
    + "4a6d8e0b1c3f5a7d9e2b4c6f8a0d1e3b",
    "Shopify shpat_": "shpat_" + "9c2e4a6b8d0f1e3c5a7b9d2f4e6a8c0b",
    "Doppler dp.st.": "dp.st.prd." + "Wm4Tq8Zr1Lx5Vn9Kp3Bs7Dc2Fh6Gj0Na4Ey8Uw2Qi",
    "Square EAAA": "EAAA" + "l9Zx3Qw7Er1Ty5Ui8Op2As6Df4Gh0Jk3Lz7Xc1Vb5Nm9Qw2Er6Ty0Ui4Op8As",
    "Supabase sbp_": "sbp_" + "0f8e2c4a6b1d3e5f7a9c8b6d4e2f0a1c3e5b7d9f",
    "Azure OpenAI 32 hex": "6f1d9a3c7e5b2f8a4d0c1e9b7a3f5d2c",
    "Notion secret_": "secret_" + "Tq5Lw9Zr3Xv7Nm1Bk4Yc8Dj2Fh6Gs0Pa5Ke9Rz3Uw",
    "Atlassian ATATT": "ATATT3xFfGF0"
    + "Jr8Lq2Zw6Xv0Nm4Bk8Yc2Dj6Fh0Gs4Pa8Ke2Rz6Uw0Qi4Lt8Mn=A1B2C3D4",
    "token in an exception": "upstream 401 for key Zq8Wm2Lx6Vn0Kp4Bs8Dc2Fh6Gj0Na4Ey (rotate)",
    "Heroku API key (a UUID)": "4b1f7e2a-9c3d-4e8f-b6a5-2d7c9e1f3a8b",
    "New Relic NRAK-": "NRAK-" + "Q7ZK3M9XW2LP5RT8VY4BN6CD1FH",
    "urlsafe base64 of text": "cGFzc3dvcmQ9T3JjaGlkLUhlbGQtOTEgdXNlcj1zdmM",
}


@pytest.mark.parametrize("name", list(UNKNOWN_FAMILIES))
def test_a_token_of_an_unknown_family_is_caught_by_its_shape(name):
    token = UNKNOWN_FAMILIES[name]
    assert not any(rule[0].search(token) for rule in VALUE_RULES.values()), "a named rule matches"
    redacted = redact({"note": token})["note"]
    assert REDACTED in redacted
    secret = max(re.findall(r"[A-Za-z0-9+/=_-]{20,}", token), key=len)
    assert secret[:20] not in redacted


def test_a_token_under_a_key_that_names_a_hash_or_an_id_is_kept():
    token = UNKNOWN_FAMILIES["Azure OpenAI 32 hex"]
    for key in ("corpus_sha256", "commit", "model_revision", "run_id", "index_path"):
        assert redact({key: token}) == {key: token}
    assert redact({"note": f"image@sha256:{token}"}) == {"note": f"image@sha256:{token}"}
    uuid = UNKNOWN_FAMILIES["Heroku API key (a UUID)"]
    assert redact({"run_id": uuid, "note": f"run_id={uuid}"}) == {
        "run_id": uuid,
        "note": f"run_id={uuid}",
    }
    assert redact({"note": token}) == {"note": REDACTED}


def test_a_huge_value_is_cut_before_it_is_inspected():
    """A 10 MB value keeps at most 2 KB (and a marker); a secret past the cut is gone."""
    huge = f"retry with {VAULT} " + "lorem ipsum " * 1000 + GROQ + " " + "x" * 10_000_000
    redacted = redact({"notes": huge})["notes"]
    assert len(redacted) < 2200
    assert redacted.startswith("retry with") and "lorem ipsum" in redacted
    assert VAULT[4:30] not in redacted
    assert "not shown" in redacted
    assert GROQ[4:30] not in redacted
    assert len(redact_text(huge)) < 2200


def test_base64_of_deeply_nested_json_in_an_error_message_is_redacted_not_raised():
    """A retriever's message is redacted by capture: decoding it must not overflow the stack."""
    nested = base64.b64encode(b"[" * 600 + b"]" * 600).decode()
    assert len(nested) < 2048
    assert redact_text(f"upstream sent {nested}") == f"upstream sent {REDACTED}"
