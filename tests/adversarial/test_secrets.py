"""Attack family: secrets in a run's ``<run>.config.json`` never leave (issue 10, item 2).

Every secret shape below sits in the candidate run's config of one workspace (each under a
neutral key ``shapeNN``, so a shape is never hidden by a secret-looking parent). Every output
that shows a config or a run name is produced once: ``evaluate`` in each format, ``compare``
(table and json, with its config diff), ``no-answer``, ``check``, ``report`` to .html / .md /
.csv, and the dashboard's Overview config tabs and Compare config diff. Each shape is then
checked against every output.

The secrets are made up; the realistic-looking ones are assembled from pieces so that the
source itself does not look like a leaked credential.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from ragrecall_app.overview_sections import CONFIGS_OPEN, COUNTS_OPEN
from ragrecall_core import InputError, Workspace
from ragrecall_core.inputs.configs import REDACTED
from tests import fixtures_regressions as fx
from tests.dashboard_support import app, no_exception
from tests.helpers import cli_texts, run_cli

PEM_BODY = "MIIEowIBAAKCAQEAx8f3QpemBodyLine1Zq9"
PEM_LIST_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCpemList"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)


def shape(fragment, leaks=(), redacted=()):
    """A config fragment, the texts that must never be shown, and the key paths (under the
    fragment) whose stored value must be exactly the redaction marker."""
    return {"fragment": fragment, "leaks": tuple(leaks), "redacted": tuple(redacted)}


SHAPES = {
    # --- secret by key: case and style do not matter, nor depth, nor the value's type
    "PGPASSWORD": shape({"PGPASSWORD": "pg-Quartz-7731"}, ["pg-Quartz-7731"]),
    "DBPASS": shape({"DBPASS": "Dbp4ss-Marble"}, ["Dbp4ss-Marble"]),
    "MYSQL_PWD": shape({"MYSQL_PWD": "mysql-Pwd-1999"}, ["mysql-Pwd-1999"]),
    "openaiKey": shape({"openaiKey": "plain-openai-value-42"}, ["plain-openai-value-42"]),
    "authToken": shape({"authToken": "auth-Token-Camel-11"}, ["auth-Token-Camel-11"]),
    "HF_TOKEN": shape({"HF_TOKEN": "plain-hf-token-value"}, ["plain-hf-token-value"]),
    "sessionid": shape({"sessionid": "sess-9f8e7d6c"}, ["sess-9f8e7d6c"]),
    "session_token": shape({"session_token": "st-Lantern-5521"}, ["st-Lantern-5521"]),
    "x-api-key": shape({"x-api-key": "xak-Copper-8812"}, ["xak-Copper-8812"]),
    "db.password": shape({"db.password": "dotted-Pw-303"}, ["dotted-Pw-303"]),
    "api.key nested": shape({"api": {"key": "nested-Api-Key-314"}}, ["nested-Api-Key-314"]),
    "auth user and pass": shape(
        {"auth": {"user": "svc-reader-Oslo", "pass": "Auth-Pass-2718"}},
        ["svc-reader-Oslo", "Auth-Pass-2718"],
    ),
    "credentials dict": shape(
        {"credentials": {"region": "eu", "id": "cred-Id-Value-808"}}, ["cred-Id-Value-808"]
    ),
    "list of dicts": shape(
        {
            "rerankers": [
                {"name": "cohere", "api_key": "list-Dict-Secret-99"},
                {"name": "local", "token": "list-Token-Secret-77"},
            ]
        },
        ["list-Dict-Secret-99", "list-Token-Secret-77"],
    ),
    "list under secret key": shape(
        {"api_keys": ["multi-Key-One-1", "multi-Key-Two-2"]},
        ["multi-Key-One-1", "multi-Key-Two-2"],
    ),
    "oauth client_secret in a list": shape(
        {"stages": [{"oauth": {"client_id": "abc", "client_secret": "Oauth-Client-Sec-64"}}]},
        ["Oauth-Client-Sec-64"],
    ),
    "cookie": shape(
        {"cookie": "sessionid=Cookie-Sess-5150; csrftoken=Csrf-Tok-2024"},
        ["Cookie-Sess-5150", "Csrf-Tok-2024"],
    ),
    "password 0": shape({"password": 0}, redacted=["password"]),
    "password true": shape({"password": True}, redacted=["password"]),
    "api_key 12345": shape({"api_key": 12345}, redacted=["api_key"]),
    "db_password number": shape({"db_password": 86753091}, ["86753091"], ["db_password"]),
    # --- secret by value, under innocent keys
    "PEM under notes": shape(
        {
            "notes": "key:\n-----BEGIN RSA PRIVATE KEY-----\n"
            + PEM_BODY
            + "\n-----END RSA PRIVATE KEY-----"
        },
        [PEM_BODY],
    ),
    "PEM in a list": shape(
        {
            "extra": [
                "ok",
                f"-----BEGIN PRIVATE KEY-----\n{PEM_LIST_BODY}\n-----END PRIVATE KEY-----",
            ]
        },
        [PEM_LIST_BODY],
    ),
    "PEM without END": shape(
        {"memo": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAtruncated"},
        ["b3BlbnNzaC1rZXktdjEAAAAtruncated"],
    ),
    "sk_live_": shape(
        {"billing": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"}, ["4eC39HqLyjWDarjtT1zdp7dc"]
    ),
    "rk_live_": shape(
        {"refunds": "rk_live_" + "51HqLyjWDarjtT1zdp7dcRk"}, ["51HqLyjWDarjtT1zdp7dcRk"]
    ),
    "sk-proj-": shape(
        {"llm": "sk-proj-" + "Zx81Qa7Lm3Np5Rt9Vw2Yb4Hj"}, ["Zx81Qa7Lm3Np5Rt9Vw2Yb4Hj"]
    ),
    "sk-ant-": shape(
        {"judge_model": "use sk-ant-api03-" + "Xy12Ab34Cd56Ef78Gh90 here"}, ["Xy12Ab34Cd56Ef78Gh90"]
    ),
    "hf_": shape(
        {"model_source": "hf_" + "QwErTyUiOpAsDfGhJkLzXcVb"}, ["QwErTyUiOpAsDfGhJkLzXcVb"]
    ),
    "AIza": shape(
        {"maps": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStU"}, ["SyA1b2C3d4E5f6G7h8I9j0Kl"]
    ),
    "glpat-": shape({"gitlab": "glpat-" + "x9Y8z7W6v5U4t3S2r1Q0"}, ["x9Y8z7W6v5U4t3S2r1Q0"]),
    "pcsk_": shape(
        {"vector_index": "pcsk_" + "3Fh7Kq_9Lm2Np4Rs6Tv8Wx0Yz1Ab3Cd5Ef"},
        ["3Fh7Kq_9Lm2Np4Rs6Tv8Wx0"],
    ),
    "ghp_": shape(
        {"repo": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}, ["A1b2C3d4E5f6G7h8I9j0"]
    ),
    "github_pat_": shape(
        {"ci": "github_pat_" + "11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKL"},
        ["11ABCDEFG0abcdefghijkl"],
    ),
    "xoxb-": shape(
        {"alerts": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
        ["AbCdEfGhIjKlMnOpQrStUvWx"],
    ),
    "npm_": shape(
        {"registry": "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}, ["a1B2c3D4e5F6g7H8i9J0"]
    ),
    "AKIA": shape({"aws": "AKIA" + "IOSFODNN7EXAMPL3"}, ["IOSFODNN7EXAMPL3"]),
    "ASIA": shape({"aws_region_hint": "ASIA" + "Y34FZKBOKMUTVV7A"}, ["Y34FZKBOKMUTVV7A"]),
    "ya29.": shape(
        {"gcp": "ya29." + "a0AfH6SMBxYz12Ab34Cd56Ef78Gh90Ij"}, ["a0AfH6SMBxYz12Ab34Cd56"]
    ),
    "Slack webhook": shape(
        {
            "notify": "https://hooks.slack.com/services/"
            + "T0AB12CD3/B0EF45GH6/q7Rs8Tu9Vw0Xy1Za2Bc3De4F"
        },
        ["q7Rs8Tu9Vw0Xy1Za2Bc3De4F", "B0EF45GH6"],
    ),
    "Discord webhook": shape(
        {
            "notify_2": "https://discord.com/api/webhooks/"
            + "123456789012345678/AbCdEf-GhIjKl_Mn0123"
        },
        ["AbCdEf-GhIjKl_Mn0123"],
    ),
    "Basic": shape(
        {"proxy_header": "Basic " + "dXNlcjpwYXNzd29yZDEyMw=="}, ["dXNlcjpwYXNzd29yZDEyMw"]
    ),
    "Authorization Basic header line": shape(
        {"raw_headers": "Accept: */*\nAuthorization: Basic " + "c3ZjOmh1bnRlcjJodW50ZXIy"},
        ["c3ZjOmh1bnRlcjJodW50ZXIy"],
    ),
    "Bearer": shape(
        {"upstream": "Bearer " + "abc.DEF-ghi_12345678xyz"}, ["abc.DEF-ghi_12345678xyz"]
    ),
    "JWT": shape({"id_claims": JWT}, [JWT.split(".")[1], JWT.split(".")[2]]),
    "Azure connection string": shape(
        {
            "storage": "DefaultEndpointsProtocol=https;AccountName=ragstore;AccountKey="
            + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="
            + ";EndpointSuffix=core.windows.net"
        },
        ["Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"],
    ),
    "SAS sig in URL": shape(
        {
            "blob": "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig="
            + "SAS-Sig-Value%2Bab12"
        },
        ["SAS-Sig-Value"],
    ),
    "postgres @ in password": shape(
        {"vector_store": "postgres://reader:p@ss-Word91@db.internal:5432/kb"}, ["ss-Word91"]
    ),
    "https @ in password": shape(
        {"endpoint": "https://user:p@ssW0rd-Https@search.internal/v1"}, ["ssW0rd-Https"]
    ),
    "mongodb+srv": shape(
        {"docstore": "mongodb+srv://admin:Mongo-Secret-55@cluster0.abcde.mongodb.net/rag"},
        ["Mongo-Secret-55"],
    ),
    "redis": shape({"cache": "redis://:Redis-Pw-8080@cache.internal:6379/0"}, ["Redis-Pw-8080"]),
    "credentials without a scheme": shape(
        {"db_host": "admin:NoScheme-Pw-77@db.internal:5432"}, ["NoScheme-Pw-77"]
    ),
    "?token=": shape(
        {"search_url": "https://search.internal/v1?token=" + "qs-Token-Value-6620" + "&lang=en"},
        ["qs-Token-Value-6620"],
    ),
    "&api_key=": shape(
        {"geo_url": "https://geo.internal/lookup?lang=en&api_key=" + "qs-ApiKey-4471"},
        ["qs-ApiKey-4471"],
    ),
    "password= in a sentence": shape(
        {"comment": 'tried password="Quoted Pw 42" first'}, ["Quoted Pw 42"]
    ),
    "env lines in a list": shape(
        {"env": ["TOP_K=5", "DBPASS=Env-Db-Pass-5", "OPENAI_API_KEY=Env-Openai-6"]},
        ["Env-Db-Pass-5", "Env-Openai-6"],
    ),
    "JSON inside a string": shape(
        {"extra_json": '{"openaiKey": "Embedded-Json-Key-7", "top_k": 3}'},
        ["Embedded-Json-Key-7"],
    ),
    "token as a key name": shape(
        {"sk-proj-" + "KeyAsName1234567890ab": "x"}, ["KeyAsName1234567890ab"]
    ),
}

# keys and values that look a little like secrets but are ordinary settings
VISIBLE = {
    "max_tokens": 512,
    "max_new_tokens": 256,
    "tokenizer": "cl100k_base",
    "tokenization": "wordpiece",
    "author": "anna",
    "author_email": "anna@example.org",
    "chunk_size": 384,
    "passage_count": 7,
    "keyword": "refund",
    "keywords": ["refund", "invoice"],
    "description": "Basic retrieval baseline, risk-aware; task-specific",
    "index_url": "https://example.org/index/v2?x=1",
    "motto": "Bearer of bad news",
}

WRAPPED = {f"shape{n:02d}": s["fragment"] for n, s in enumerate(SHAPES.values(), start=1)}
CANDIDATE_CONFIG = {**fx.BASE_CONFIG, "top_k": 10, "reranker": "bge", **VISIBLE, **WRAPPED}


def test_at_least_forty_shapes():
    assert len(SHAPES) >= 40


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    folder = fx.write_workspace(tmp_path_factory.mktemp("secrets") / "ws")
    sidecar = folder / "runs" / "candidate.config.json"
    sidecar.write_text(json.dumps(CANDIDATE_CONFIG, indent=2), "utf-8")
    return folder


@pytest.fixture(scope="module")
def outputs(workspace, tmp_path_factory) -> dict[str, str]:
    """Every CLI and report output on the workspace, by name (stdout + stderr, or file text)."""
    p = fx.paths(workspace)
    out_dir = tmp_path_factory.mktemp("reports")
    commands = {
        f"evaluate {fmt}": ["evaluate", p["gold"], p["baseline"], p["candidate"], "--format", fmt]
        + ["--per-query"]
        for fmt in ("table", "tsv", "csv", "json")
    }
    commands |= {
        f"compare {fmt}": ["compare", p["gold"], p["baseline"], p["candidate"], "--format", fmt]
        for fmt in ("table", "json")
    }
    commands |= {
        f"no-answer {fmt}": ["no-answer", p["gold"], p["baseline"], p["candidate"], "--format", fmt]
        for fmt in ("table", "json")
    }
    commands["check"] = ["check", p["gold"], p["candidate"], "--baseline", p["baseline"]] + [
        "--require",
        "Recall@5>=0.1",
    ]
    commands |= {
        f"report {suffix}": ["report", workspace, "-o", out_dir / f"report.{suffix}"]
        for suffix in ("html", "md", "csv")
    }
    texts = cli_texts(commands)
    for suffix in ("html", "md", "csv"):
        texts[f"report {suffix}"] += (out_dir / f"report.{suffix}").read_text("utf-8")
    return texts


@pytest.fixture(scope="module")
def dashboard(workspace) -> dict[str, str]:
    """The Overview page's config tabs and the Compare page's config diff, as text."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        at = app(workspace, monkeypatch)
        open_overview_boxes(at)
        no_exception(at)
        overview = "\n".join(json.dumps(j.value) for j in at.json) + _page_text(at)
        at.switch_page("pages/compare.py").run()
        no_exception(at)
        compare = _page_text(at)
    assert "cl100k_base" in overview, "the candidate's config tab was not found"
    assert "max_tokens" in compare, "the compare page's config diff was not found"
    return {"dashboard overview": overview, "dashboard compare": compare}


def open_overview_boxes(at) -> None:
    """Open the Overview's boxes (query counts, run configurations: sent only while open)
    and run the page again."""
    at.session_state[COUNTS_OPEN] = True
    at.session_state[CONFIGS_OPEN] = True
    at.run()


def _page_text(at) -> str:
    """Every table, text, heading, caption, label and message of the page, as text."""
    parts = [frame.value.to_csv() for frame in at.dataframe]
    elements = (*at.markdown, *at.text, *at.caption, *at.header, *at.subheader, *at.title)
    parts += [str(e.value) for e in (*elements, *at.warning, *at.info, *at.error, *at.code)]
    parts += [str(tab.label) for tab in at.tabs]
    return "\n".join(parts)


def _variants(leak: str) -> set[str]:
    """A leak as it may be written: raw, JSON-escaped, HTML-escaped."""
    return {leak, json.dumps(leak)[1:-1], html.escape(leak), html.escape(json.dumps(leak)[1:-1])}


def _assert_no_leak(name: str, texts: dict[str, str]) -> None:
    for leak in SHAPES[name]["leaks"]:
        for output, text in texts.items():
            for variant in _variants(leak):
                assert variant not in text, f"{name}: {leak!r} shown by {output}"


@pytest.mark.parametrize("name", list(SHAPES))
def test_secret_is_never_in_a_cli_or_report_output(name, outputs):
    _assert_no_leak(name, outputs)


@pytest.mark.parametrize("name", list(SHAPES))
def test_secret_is_never_on_the_dashboard(name, dashboard):
    _assert_no_leak(name, dashboard)


@pytest.mark.parametrize("name", list(SHAPES))
def test_only_the_redacted_config_is_stored(name, workspace):
    """Every output reads the config from the database: only the redacted copy is there."""
    ws = Workspace.open(workspace)
    stored = ws.cursor().execute("SELECT config::VARCHAR FROM run_files").fetchall()
    _assert_no_leak(name, {"stored config": str(stored)})
    wrapper = f"shape{list(SHAPES).index(name) + 1:02d}"
    fragment = ws.configs()["candidate"][wrapper]
    for key in SHAPES[name]["redacted"]:
        assert fragment[key] == REDACTED, (name, fragment)
    assert REDACTED in json.dumps(fragment), (name, fragment)


def test_ordinary_settings_stay_visible_everywhere(workspace, outputs, dashboard):
    ws = Workspace.open(workspace)
    config = ws.configs()["candidate"]
    assert {key: config[key] for key in VISIBLE} == VISIBLE
    diff = json.loads(outputs["compare json"])["config_diff"]
    shown = {row["key"]: row["candidate"] for row in diff}
    for key, value in VISIBLE.items():
        expected = value if isinstance(value, str) else json.dumps(value)
        assert shown[key] == expected, key
        assert key in outputs["report md"] and key in dashboard["dashboard overview"]


@pytest.mark.parametrize(
    ("label", "raw"),
    [
        ("latin-1", '{"api_key": "caf\xe9-Latin-Secret-51", "top_k": 5}'.encode("latin-1")),
        ("invalid UTF-8", b'{"top_k": 5,\n "password": "Bad\xff\xfeUtf8-Secret-52"}'),
    ],
)
def test_a_config_that_is_not_utf8_is_refused_without_echoing_it(tmp_path, capsys, label, raw):
    folder = fx.write_workspace(tmp_path / "ws")
    sidecar = folder / "runs" / "candidate.config.json"
    sidecar.write_bytes(raw)
    p = fx.paths(folder)
    with pytest.raises(InputError) as error:
        Workspace.open(folder)
    (problem,) = error.value.problems
    assert problem.file == str(sidecar) and "UTF-8" in problem.expected
    for argv in (
        ["evaluate", p["gold"], p["candidate"]],
        ["report", folder, "-o", tmp_path / "r.md"],
    ):
        code, out, err = run_cli(capsys, argv)
        assert code == 2, label
        assert "Traceback" not in err
        assert len([line for line in err.splitlines() if "candidate.config.json" in line]) == 1
        assert "Secret" not in out + err, err
