"""Which folders of a path are secrets, and the dashboard's uploads folder (stop 51).

``redact_path`` redacts a path part by part (stop 50), which missed and over-caught:

* an AWS secret access key (40 characters of base64, "/" among them) used as a folder is
  split by its own "/" into pieces no rule knows, and was shown whole;
* a folder named by a hex run (a git sha, a sha256, a UUID) was ``[redacted]``, hiding
  where a file is, though such a folder is a hash or an id. A hex secret in a folder name
  keeps going when something says it is one: its provider's prefix (``dapi…``) or a secret
  name (``key=…``, ``token:…``). A bare hex run in a *text* (a message, a config value) is
  still redacted: Datadog's and Algolia's keys are bare hex.

The dashboard built problems from its upload manifest's path and from the uploads folder
(``ragrecall_app/context.py``) without redaction.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragrecall_core import InputError
from ragrecall_core.inputs.secrets import REDACTED, redact_path, redact_text
from tests import fixtures_regressions as fx
from tests.helpers import run_cli, write_text

# AWS secret access keys' shape: 40 characters of base64 (their documentation's example,
# and keys with "/" and "+" in other places)
AWS_SECRETS = (
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Zq81mR4tPw/Hs9Pf3Gc6Yj0Ua5Eo2Ri7Lb8NcXvK",
    "kT3/vN8qLm2Xw+9RbY5zHc4Jp6Fs1Dg7Ae0UiO2h",
    "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b/C7",
)
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"
HEX_SECRET = "9f86d081884c7d659a2feaa0c55ad015"  # 32 hex digits, as a Datadog API key


def pieces(secret: str, size: int = 8) -> list[str]:
    return [p for p in (secret[i : i + size] for i in range(len(secret) - size + 1))]


def leaked(text: str, *secrets: str) -> list[str]:
    """Every 8-character piece of a secret (of its parts between "/") that ``text`` holds."""
    parts = [part for secret in secrets for part in secret.split("/") if len(part) >= 8]
    return [p for part in parts for p in pieces(part) if p in text]


# --- an AWS secret access key as a folder -------------------------------------------------


@pytest.mark.parametrize("secret", AWS_SECRETS)
@pytest.mark.parametrize("where", ["/data/{}/gold.jsonl", "{}/gold.jsonl", "/srv/{}"])
def test_an_aws_secret_key_split_into_folders_is_redacted(secret, where):
    shown = redact_path(where.format(secret))
    assert leaked(shown, secret) == [] and REDACTED in shown
    assert shown.endswith("gold.jsonl") == where.endswith("gold.jsonl")


def test_folders_around_an_aws_secret_key_are_kept():
    path = f"/home/anna/projects/{AWS_SECRETS[0]}/runs/bm25.jsonl"
    assert redact_path(path) == f"/home/anna/projects/{REDACTED}/runs/bm25.jsonl"
    assert redact_path(Path(path)) == redact_path(path)


@pytest.mark.parametrize(
    "path",
    [
        "/var/folders/7k/2n4lq1xx5abc0000gn/T/pytest-of-anna/pytest-3/test_x0/gold.jsonl",
        "/Users/Anna/Library/CloudStorage/OneDrive/Documents/Eval2024/runs/bm25.jsonl",
        "/home/ubuntu/work/ragrecall/data/Runs/HybridRRF/K10/run.jsonl",
        "/mnt/nfs2/Shared/QA/Gold/v2/Final/gold.jsonl",
        "C:\\Users\\Anna\\AppData\\Local\\Temp\\tmpab12cd\\gold.jsonl",
    ],
)
def test_ordinary_folders_are_not_taken_for_a_key(path):
    assert redact_path(path) == path


def test_a_run_in_an_aws_secret_folder_is_refused_without_it(capsys, tmp_path):
    good = fx.paths(fx.write_workspace(tmp_path / "good"))
    run = write_text(tmp_path / AWS_SECRETS[1] / "x.jsonl", '{"id": "t01"}\n')
    code, out, err = run_cli(capsys, ["evaluate", good["gold"], run])
    assert code == 2 and "x.jsonl" in err, err
    assert leaked(out + err, AWS_SECRETS[1]) == []


# --- hex folders: hashes and ids are shown, hex secrets are not ----------------------------


@pytest.mark.parametrize(
    "folder",
    [
        "3f9a0c1e" * 4,  # md5-sized
        "e83c5163316f89bfbde7d9ab23ca2e25604af290",  # a git commit
        "9b74c9897bac770ffc029102a200c5de" * 2,  # sha256-sized
        "0b8e9c5a-3d2f-4e71-9a6b-5c4d3e2f1a0b",  # a UUID
        "0123456789abcdef",  # an upload set's key
        "E83C5163316F89BFBDE7D9AB23CA2E25604AF290",
    ],
)
def test_a_folder_named_by_a_hash_or_an_id_is_shown(folder):
    for path in (f"/srv/uploads/{folder}/gold.jsonl", f"cache/{folder}.json"):
        assert redact_path(path) == path


@pytest.mark.parametrize(
    "folder",
    [
        f"key={HEX_SECRET}",
        f"token:{HEX_SECRET}",
        f"api_key-{HEX_SECRET}",
        f"dapi{HEX_SECRET}",
        f"key-{HEX_SECRET}",
        f"SK{HEX_SECRET}",
        GITHUB,
    ],
)
def test_a_folder_that_says_it_holds_a_hex_secret_is_redacted(folder):
    shown = redact_path(f"/srv/{folder}/gold.jsonl")
    assert leaked(shown, HEX_SECRET, GITHUB) == [], shown
    assert shown.startswith("/srv/") and shown.endswith("/gold.jsonl")


def test_a_bare_hex_run_in_a_text_is_still_redacted():
    """Not a path: a message or a value may be a bare hex key (Datadog, Algolia)."""
    assert HEX_SECRET not in redact_text(f"the server said: invalid {HEX_SECRET}")


def test_a_run_under_a_commit_folder_is_named_with_it(capsys, tmp_path):
    good = fx.paths(fx.write_workspace(tmp_path / "good"))
    commit = "e83c5163316f89bfbde7d9ab23ca2e25604af290"
    run = write_text(tmp_path / commit / "x.jsonl", '{"id": "t01"}\n')
    code, out, err = run_cli(capsys, ["evaluate", good["gold"], run])
    assert code == 2 and f"{commit}/x.jsonl" in err, err


# --- the dashboard's uploads --------------------------------------------------------------


@pytest.fixture
def secret_home(tmp_path, monkeypatch) -> Path:
    """$RAGRECALL_HOME in a folder named with a token."""
    home = tmp_path / GITHUB / "home"
    monkeypatch.setenv("RAGRECALL_HOME", str(home))
    return home


def broken_upload(home: Path, manifest: object, key: str = "0123456789abcdef") -> str:
    """An upload set's folder under ``home`` whose manifest holds ``manifest`` (JSON)."""
    (home / "uploads" / key).mkdir(parents=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    write_text(home / "uploads" / f"{key}.json", text)
    return key


def problem_texts(error: InputError) -> str:
    return "\n".join([str(error)] + [f"{p.file}\n{p.value}\n{p.expected}" for p in error.problems])


@pytest.mark.parametrize(
    "manifest",
    [
        "{not json",
        "[1]",
        {"gold": "missing.jsonl", "runs": "r.jsonl"},
        {"gold": f"{GITHUB}.jsonl", "runs": [], "store": "x", "gold_sha256": "x"},
    ],
)
def test_an_upload_set_in_a_secret_home_is_refused_without_it(secret_home, manifest):
    from ragrecall_app.context import open_upload

    key = broken_upload(secret_home, manifest)
    with pytest.raises(InputError) as raised:
        open_upload(key)
    assert leaked(problem_texts(raised.value), GITHUB) == []
    with pytest.raises(InputError) as raised:
        open_upload("fedcba9876543210")  # nothing saved: names the uploads folder
    assert leaked(problem_texts(raised.value), GITHUB) == []


def test_a_secret_given_as_a_data_key_is_not_echoed(secret_home):
    from ragrecall_app.context import open_upload

    with pytest.raises(InputError) as raised:
        open_upload(GITHUB)
    assert leaked(problem_texts(raised.value), GITHUB) == []


def test_uploads_into_an_unwritable_secret_home_are_refused_without_it(tmp_path, monkeypatch):
    from ragrecall_app.context import save_uploads

    home = write_text(tmp_path / GITHUB / "home", "a file, not a folder")
    monkeypatch.setenv("RAGRECALL_HOME", str(home))

    class Upload:
        def __init__(self, name: str, data: bytes):
            self.name, self._data = name, data

        def getvalue(self) -> bytes:
            return self._data

    with pytest.raises(InputError) as raised:
        save_uploads(Upload("gold.jsonl", b"{}\n"), [Upload("r.jsonl", b"{}\n")], [], None)
    assert leaked(problem_texts(raised.value), GITHUB) == []


def test_the_dashboard_refuses_a_broken_upload_link_without_the_secret_home(
    secret_home, monkeypatch
):
    from tests.dashboard_support import app

    key = broken_upload(secret_home, {"gold": "missing.jsonl", "runs": ["r.jsonl"]})
    at = app(monkeypatch=monkeypatch, params={"data": key})
    assert not at.exception
    shown = "\n".join(str(e.value) for kind in (at.error, at.code, at.markdown) for e in kind)
    assert "missing.jsonl" in shown, shown
    assert leaked(shown, GITHUB) == []
