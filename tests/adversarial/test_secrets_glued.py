"""Attack family: a provider token glued to word characters (stop 48, item 1).

The provider rules of ``VALUE_RULES`` started at a word boundary (``\\b``), and some ended at
one: a token written straight after letters, digits or ``_`` (``"x" * 45 + "ghp_…"``, a
prefix from a concatenation) or straight before more word characters (``AKIA…`` then
``abc``) escaped its rule. The shape test caught some of them (a short glue) but not a long
one, whose letters make the whole run read as words. Each family is glued on either side
here, and redacted; ordinary text that holds a provider's prefix (``task-force``,
``bm25-sk-learn``, ``doc#sk-1``) stays as written.

Every output that redacts calls the same ``redact_text``: the config (``evaluate``) and a
capture's error are checked end to end, the judge's reason and the OpenAI-compatible
server's error text through their own functions.

The tokens are made up; each is assembled from pieces so that the source does not look like
a leaked credential.
"""

from __future__ import annotations

import pytest

from ragrecall_core.inputs.configs import REDACTED, redact, redact_text
from tests.helpers import compare_with_config, gold_row, write_jsonl, write_text

B62 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6"
HEX = "6777b3995cf8d8053e11e7833479d881"
TOKENS = {
    "GitHub ghp_": "ghp_" + B62[:36],
    "GitHub gho_": "gho_" + B62[4:40],
    "GitHub github_pat_": "github_pat_" + "11ABCDEFG0" + B62[:12] + "_" + B62 + "Zq9",
    "OpenAI sk-": "sk-" + B62[:48],
    "OpenAI sk-proj-": "sk-proj-" + B62 + "-" + B62[3:40] + "_" + B62[:20],
    "Anthropic sk-ant-": "sk-ant-api03-" + B62 + "-" + B62[:40] + "AA",
    "Stripe sk_live_": "sk_live_" + "51Hx" + B62[:30],
    "Stripe whsec_": "whsec_" + "CgQVitQK2F7SvTH9Iy1vN6eFwxVE8tZF",
    "Slack xoxb-": "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "AWS AKIA": "AKIA" + "Z3QX7RJ2MB5KD4NW",
    "GitLab glpat-": "glpat-" + "xY7zA2bC9dE4fG6hJ1kL",
    "Hugging Face hf_": "hf_" + B62[2:36],
    "Google AIza": "AIza" + "SyD4" + B62[:31],
    "Google ya29.": "ya29." + "a0Af" + B62 + B62[:10],
    "npm npm_": "npm_" + B62[10:46],
    "PyPI pypi-": "pypi-" + "AgEIcHlwaS5vcmc" + B62 + B62,
    "SendGrid SG.": "SG." + B62[:22] + "." + B62[5:48],
    "Groq gsk_": "gsk_" + "PESr9smeeq0Ivqx10zlp6pF0eU6OKPfN1BXAVdQCwa20PEqiN8vN",
    "LangSmith lsv2_": "lsv2_pt_" + "743c9125e48150e4bd29eeb0b585fb17" + "_56f2aa1ca3",
    "Replicate r8_": "r8_" + "tqYJSSftDDsGhLb6sn4XEJI59RhaLdxZmsSN2",
    "Vault hvs.": "hvs." + "me206axTbyDWyQXiSfxikLDr79nDVJd-uN7B3MAtQhDp8kF3",
    "Pinecone pcsk_": "pcsk_" + "2nNz5B" + "_" + B62[:60],
    "Mailgun key-": "key-" + HEX,
    "Databricks dapi": "dapi" + "51e327a430708fa0d20b93354509f1b3",
    "Twilio SK": "SK" + HEX[::-1],
    "age secret key": "AGE-SECRET-KEY-1" + "QYZ3" + "7RJ2MB5KD4NW" * 4 + "X8QPLC",
    "Telegram bot": "123456789" + ":AA" + "Hx7aB2cD9eF4gH6jK1mN3pQ5rS8tU0vWyZ",
    "JWT": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
        + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    ),
}
# what stands before and after a token: word characters of every kind, short and long
GLUES = [
    ("x" * 45, ""),
    ("x" * 45, "abc"),
    ("run", "XYZ"),
    ("2024", "_v2"),
    ("_", "9"),
    ("Tổng", ""),
    ("Поиск", "Ж"),
    ("", "abcdef"),
    ("", "XYZ"),
    ("", "_z"),
]


def pieces(token: str, size: int = 10) -> set[str]:
    """Every ``size`` characters of ``token``'s body (past its first 5: a prefix alone is
    no secret, and a glue may repeat its letters)."""
    return {token[i : i + size] for i in range(5, len(token) - size + 1)}


def leaked(token: str, shown: str) -> list[str]:
    return sorted(p for p in pieces(token) if p in shown)


@pytest.mark.parametrize("family", sorted(TOKENS))
def test_a_token_glued_on_either_side_is_redacted(family):
    token = TOKENS[family]
    leaks = {}
    for before, after in GLUES:
        text = f"failed: {before}{token}{after} (retry)"
        shown = redact_text(text)
        if leaked(token, shown) or REDACTED not in shown:
            leaks[(before[:8], after)] = shown
    assert not leaks, leaks


@pytest.mark.parametrize("family", sorted(TOKENS))
def test_a_token_at_a_word_boundary_is_still_redacted(family):
    token = TOKENS[family]
    for text in (token, f"key {token} end", f'"{token}"', f"-{token}-"):
        assert not leaked(token, redact_text(text)), text


INNOCENT = [
    "bm25-sk-learn",
    "task-force",
    "task-force-retrieval-v2",
    "task-management-system-Overview-2024-guidelines",
    "doc#sk-1",
    "doc#sk-12",
    "risk-adjusted-ranking",
    "whiskey-sour-2024",
    "monkey-business",
    "desk-lamp-catalogue",
    "ask-ai-v2-retriever",
    "kask_live_demo",
    "dense_ghost_retriever",
    "high_recall_ghp_baseline",
    "chunk_hf_sentencetransformers",
    "BREAKIAGAINSTTHEWALLNOW",
    "TAKIAMSANDWICH2024XYZAB",
    "policy-desk-2024-v3#p12",
    "Đánh giá hệ thống truy xuất tài liệu tiếng Việt",
    "Оценка качества поиска по документам, запрос 17",
    "Tìm kiếm: sk-learn và task-force",
    "npm_install_guide",
    "glossary-glpat-notes",
]


@pytest.mark.parametrize("text", INNOCENT)
def test_ordinary_text_holding_a_provider_prefix_stays(text):
    assert redact_text(text) == text
    assert redact({"run": text, "notes": [text, f"chunk {text}"]}) == {
        "run": text,
        "notes": [text, f"chunk {text}"],
    }


# --- every output that redacts: one function -----------------------------------------------

GLUED = "x" * 45 + TOKENS["GitHub ghp_"]
GLUED_AFTER = TOKENS["AWS AKIA"] + "abc"


def test_a_glued_token_in_a_config_never_leaves_compare(tmp_path, capsys):
    config = {"top_k": 5, "note": f"rotate {GLUED}", "endpoint": f"id={GLUED_AFTER}"}
    for fmt, (code, out, err) in compare_with_config(tmp_path, capsys, config).items():
        assert code in (0, 1), err
        assert "note" in out and "rotate" in out, out
        for token in (TOKENS["GitHub ghp_"], TOKENS["AWS AKIA"]):
            assert not leaked(token, out + err), (fmt, out)


def test_a_glued_token_in_a_capture_error_never_leaves_capture(tmp_path):
    from tests.test_capture import run_cli_in

    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(f"q{i}", [f"c{i}"]) for i in range(2)])
    write_text(
        tmp_path / "glued_mod.py",
        "def failing(q):\n"
        f"    raise RuntimeError('denied for ' + {GLUED!r} + ' ' + {GLUED_AFTER!r})\n",
    )
    code, out, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "glued_mod:failing", "-o", "r.jsonl"]
    )
    assert code == 1 and "2 of 2 queries failed" in err and "Traceback" not in err
    assert "RuntimeError: denied for" in err
    saved = "".join(p.read_text("utf-8") for p in tmp_path.glob("r.jsonl*"))
    for token in (TOKENS["GitHub ghp_"], TOKENS["AWS AKIA"]):
        assert not leaked(token, out + err + saved), err


def test_a_judge_reason_and_a_server_error_redact_a_glued_token():
    from ragrecall_core.analysis.judging_assist import reason_kept
    from ragrecall_core.judges.openai_chat import OpenAIChatJudge

    line = reason_kept(f"relevant; header said {GLUED}")
    assert line.startswith("relevant; header said") and not leaked(TOKENS["GitHub ghp_"], line)
    judge = OpenAIChatJudge("http://127.0.0.1:9/v1", "m", api_key_env="")
    said = judge.hidden(f"HTTP 401: bad credentials {GLUED_AFTER} for {GLUED}", 500)
    assert said.startswith("HTTP 401: bad credentials")
    for token in (TOKENS["GitHub ghp_"], TOKENS["AWS AKIA"]):
        assert not leaked(token, said), said
