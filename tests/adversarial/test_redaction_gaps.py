"""Attack family: redaction gaps a helper's probes left at stop 51 (stop 52).

* **A token glued between word runs.** A glued token is read only when its random part does
  not read as words; its whole match was read, so the glue after it counted
  (``glpat-…`` then ``yyyy…``), and a random part in one case (``xoxb-…`` lowered) read as
  words by a test meant for mixed case.
* **A case-folded token.** The provider rules read a token in the case its provider writes
  it: ``ghp_`` then mixed case. A tool that upper-cases a file name or an id (Windows, a
  spreadsheet) or lower-cases one (a normalised id) still carries the secret (a GitHub
  token's checksum finds its case back quickly), but ``GLPAT-…`` and a lowered ``AKIA…``
  were shown, and ``GHP_…`` was caught only by its shape: glued to a long word it was shown.
* **A false positive.** A git pack file (``pack-<40 hex>.pack``, ``.idx``), a commit-graph
  file (``graph-<hex>.graph``) or a blob named by its digest (``sha256-<hex>``) was
  ``[redacted]`` in a path, though a folder named by bare hex was shown since stop 51. A
  name that says it holds a secret (``token-<hex>``, ``key=<hex>``) is still redacted, and a
  hex run in a text still is too.

Ordinary text holding a provider's prefix (``SK-LEARN``, ``HF_HUB_OFFLINE``,
``hf_sentencetransformers…``), upper- or lower-cased, is kept as written.

The tokens are made up; each is assembled from pieces so that the source does not look like
a leaked credential.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragrecall_core.inputs.secrets import REDACTED, redact, redact_path, redact_text
from tests.helpers import compare_with_config, gold_row, run_cli, write_jsonl, write_text

# random base62 (made with a seeded generator), cut into the families' random parts
R1 = "rd4UGE28xAc6ikZA1l9wCOac" + "IyCapekkEoOrFXFAh2c5N5y8fKzQ54xIijzH"
R2 = "QHTlrfulYSBZKQTBMbmanPUH" + "EDikUhWlfiOMntmJKBeJkVTXnjG912o0KCM8"
R3 = "jZ5pHR02RW75yH6QmeQQ0jcU" + "N5axqezciH7jgVVNyG2QajtDclJjYjjfSVpu"
HEX40 = "05c82f71a598bdf0f831" + "3fe62819850a763ae37b"

TOKENS = {
    "GitHub ghp_": "ghp_" + R1[:36],
    "GitHub gho_": "gho_" + R3[:36],
    "GitHub github_pat_": "github_pat_" + "11AB" + R2[:18] + "_" + R1 + R3[:-1],
    "OpenAI sk-proj-": "sk-proj-" + R3 + "-" + R1[:20],
    "Stripe sk_live_": "sk_live_" + "51Hx" + R1[:30],
    "Stripe whsec_": "whsec_" + R2[24:56],
    "Slack xoxb-": "xoxb-" + "123456789012-1234567890123-" + R3[:24],
    "AWS AKIA": "AKIA" + "NXQ3IFQDFMO6UXXS",
    "GitLab glpat-": "glpat-" + R3[:20],
    "Hugging Face hf_": "hf_" + R1[3:37],
    "Google AIza": "AIza" + "SyD4" + R3[:31],
    "npm npm_": "npm_" + R3[5:41],
    "Groq gsk_": "gsk_" + R2[:48] + "a3",
    "Replicate r8_": "r8_" + R1[:37],
    "Vault hvs.": "hvs." + R3[:40],
    "Pinecone pcsk_": "pcsk_" + "2nNz5B_" + R1,
}
# the brief's own example: an upper-cased GitHub token
BRIEF_GHP = "GHP_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "0123456789"

# what stands before and after a token: long runs of one case, words, a file name's dots
GLUES = [
    ("", ""),
    ("see ", " here"),
    ("abcdefghijklmnopqrst", "xyzxyzxyz"),
    ("ABCDEFGHIJKLMNOPQRST", "XYZXYZXYZ"),
    ("thequickbrownfox", "jumpsoverthelazydog"),
    ("x" * 45, ""),
    ("x" * 45, "y" * 30),
    ("FILE_", ".CSV"),
]


def pieces(token: str, size: int = 10) -> set[str]:
    """Every ``size`` characters of ``token``'s body (past its first 5: a prefix alone is
    no secret), in any case."""
    return {token[i : i + size].lower() for i in range(5, len(token) - size + 1)}


def leaked(token: str, shown: str) -> list[str]:
    return sorted(p for p in pieces(token) if p in shown.lower())


def cased(token: str) -> dict[str, str]:
    return {"as written": token, "upper-cased": token.upper(), "lower-cased": token.lower()}


# --- 1. a token glued between word runs -------------------------------------------------


@pytest.mark.parametrize("family", sorted(TOKENS))
def test_a_token_glued_inside_a_longer_identifier_is_redacted(family):
    token = TOKENS[family]
    for before, after in GLUES:
        for name in (f"{before}{token}{after}", f"my_{before}{token}{after}_v2"):
            shown = redact({"note": name})["note"]
            assert leaked(token, shown) == [], (before[:6], after[:6], shown)


# ordinary text that holds a provider's prefix, also upper- and lower-cased
INNOCENT = [
    "bm25-sk-learn",
    "SK-LEARN",
    "task-force-retrieval-v2",
    "task-management-system-Overview-2024-guidelines",
    "risk-adjusted-ranking-for-2024",
    "HF_HUB_ENABLE_HF_TRANSFER",
    "HF_HUB_OFFLINE=1",
    "chunk_hf_sentencetransformers",
    "GHOST_PROTOCOL_2024",
    "high_recall_ghp_baseline",
    "weighs_thirtysixcharactersofidentifier2",
    "NPM_CONFIG_USERCONFIG",
    "npm_install_guide_2024",
    "glossary-glpat-notes",
    "BREAKIAGAINSTTHEWALLNOW",
    "TAKIAMSANDWICH2024XYZAB",
    "Basic retrieval",
    "the Bearer of the message",
    "whsec_rotation_notes",
    "OPENAI_API_BASE",
]


# lower-case names (an upper-cased long name with digits is a credential's shape)
LOWER_CASE_INNOCENT = [
    "hf_sentencetransformers2024multilingualv2",
    "hf_intfloatmultilinguale5largeinstruct",
    "chunks_hf_baaibgem3multilingualdense2024",
    "thesighs_ofthethirtysixcharacterlongname1",
]


@pytest.mark.parametrize("text", INNOCENT + LOWER_CASE_INNOCENT)
def test_ordinary_text_holding_a_prefix_stays_in_any_case(text):
    variants = [text] if text in LOWER_CASE_INNOCENT else cased(text).values()
    for variant in variants:
        assert redact_text(variant) == variant
        assert redact({"run": variant, "notes": [f"chunk {variant}"]}) == {
            "run": variant,
            "notes": [f"chunk {variant}"],
        }


# --- 2. a case-folded token ---------------------------------------------------------------


def test_the_briefs_upper_cased_github_token_is_redacted_alone_and_glued():
    for before, after in GLUES:
        shown = redact_text(f"failed: {before}{BRIEF_GHP}{after} (retry)")
        glue = f"failed: {before} {after} (retry)".lower()  # its alphabet may be the glue's
        assert [p for p in leaked(BRIEF_GHP, shown) if p not in glue] == [], shown
        assert REDACTED in shown, shown


@pytest.mark.parametrize("family", sorted(TOKENS))
@pytest.mark.parametrize("case", ["upper-cased", "lower-cased"])
def test_a_case_folded_token_is_redacted(family, case):
    token = cased(TOKENS[family])[case]
    leaks = {}
    for before, after in GLUES:
        shown = redact_text(f"failed: {before}{token}{after} (retry)")
        if leaked(token, shown) or REDACTED not in shown:
            leaks[(before[:6], after[:6])] = shown
    assert not leaks, leaks


@pytest.mark.parametrize("family", sorted(TOKENS))
def test_a_case_folded_token_in_a_path_is_redacted(family):
    for case, token in cased(TOKENS[family]).items():
        for path in (f"/data/{token}/gold.jsonl", f"C:\\UPLOADS\\{token}.CSV"):
            shown = redact_path(path)
            assert leaked(token, shown) == [], (case, shown)


def test_an_upper_cased_token_in_a_config_never_leaves_compare(tmp_path, capsys):
    """End to end: a config note with upper- and lower-cased tokens, glued to words."""
    upper, lower = TOKENS["GitLab glpat-"].upper(), TOKENS["AWS AKIA"].lower()
    config = {"top_k": 5, "note": f"rotate SHEET_{upper}", "endpoint": f"id=abc{lower}xyz"}
    for fmt, (code, out, err) in compare_with_config(tmp_path, capsys, config).items():
        assert code in (0, 1), err
        assert "rotate" in out, out
        for token in (upper, lower):
            assert leaked(token, out + err) == [], (fmt, out)


# --- 3. a file named by a hash is shown, a hex secret is not ------------------------------

HASH_NAMES = [
    f"pack-{HEX40}.pack",
    f"pack-{HEX40}.idx",
    f"pack-{HEX40}.rev",
    f"pack-{HEX40.upper()}.PACK",
    f"multi-pack-index-{HEX40}.bitmap",
    f"graph-{HEX40}.graph",
    f"sha256-{HEX40}{HEX40[:24]}",
    f"commit_{HEX40}.json",
]


@pytest.mark.parametrize("name", HASH_NAMES)
def test_a_file_named_by_a_hash_is_shown(name):
    for path in (f"/repo/.git/objects/pack/{name}", f"{name}", f"C:\\repo\\{name}"):
        assert redact_path(path) == path


@pytest.mark.parametrize(
    "name",
    [
        f"token-{HEX40}",
        f"token_{HEX40}.txt",
        f"key-{HEX40[:32]}",
        f"api_key-{HEX40}",
        f"secret-pack-{HEX40}.pack",
        f"pack-token-{HEX40}.pack",
        f"token={HEX40}",
        f"password:{HEX40}",
        f"dapi{HEX40[:32]}",
        f"lsv2_pt_{HEX40[:32]}_{HEX40[:10]}",
        f"session-id-{HEX40}",
    ],
)
def test_a_file_named_as_a_hex_secret_is_still_redacted(name):
    shown = redact_path(f"/repo/{name}/gold.jsonl")
    assert HEX40[:16] not in shown and HEX40[16:32] not in shown, shown
    assert shown.startswith("/repo/") and shown.endswith("/gold.jsonl")


def test_a_hex_secret_in_a_text_or_a_url_is_still_redacted():
    for text in (
        f"token={HEX40}",
        f"https://user:{HEX40}@git.example.com/x.git",
        f"https://{HEX40}@git.example.com/x.git",
        f"invalid key {HEX40}",
    ):
        shown = redact_text(text)
        assert HEX40[:16] not in shown and HEX40[16:] not in shown, shown


def test_a_run_in_a_pack_named_file_is_named_with_it(capsys, tmp_path):
    """End to end: a problem names the file, its hash-named part shown."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_text(tmp_path / f"pack-{HEX40}.jsonl", '{"id": "t01"}\n')
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and f"pack-{HEX40}.jsonl" in err, err


# --- 4. the rules compile on first use, not at import ---------------------------------------

FIRST_USE = """
import runpy, sys
token = sys.argv[1]
sys.argv = ["ragrecall", "--help"]
try:
    runpy.run_module("ragrecall_core", run_name="__main__")
except SystemExit:
    pass
import ragrecall_core.inputs.secrets as secrets
def compiled():
    return sorted(name for name, rule in secrets.VALUE_RULES.items() if "compiled" in vars(rule[0]))
before = compiled()
plain = secrets.redact_text("top_k")
said = secrets.redact_text("token ghp_" + token)
sys.stderr.write(f"\\n{before} {plain} {said} {compiled()}\\n")
"""


def test_a_rule_compiles_when_a_text_first_needs_it_not_at_import():
    """``ragrecall --help`` and a text that holds no rule's needle compile no rule."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE, R1[:36]], capture_output=True, text=True, check=True
    )
    said = done.stderr.splitlines()[-1]
    assert said == f"[] top_k token {REDACTED} ['GitHub gh*_']", done.stderr
