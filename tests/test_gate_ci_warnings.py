"""``check --summary`` and ``check --junit`` carry evaluate's warnings (stop 52).

check says evaluate's warnings of the runs it read (ties across a cutoff, a run read
backwards, queries the gold set lacks ...) on stderr or under JSON's ``warnings`` key, but
the files a CI shows (the job summary, the JUnit report) did not: a gate passed in CI on a
run whose @k depended on tie order without a word where the team looks. Now the summary
ends with a short "Warnings" list and the JUnit suite holds them in its ``<system-err>``
(what GitHub's publish-unit-test-result-action reports as suite logs; a warning is no test
case, so the counts stay). A warning quotes query ids from files: it is escaped as every
value from a file is (Markdown: shown as text; XML: parsed back as written, controls as
their escapes), and redacted where evaluate makes it (since stop 53: every output of a
warning says the same redacted text), so a secret-shaped id never reaches a CI page: the
command's tests below show both.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from ragrecall_core.analysis.gate import GateResult
from ragrecall_core.analysis.gate_outputs import gate_junit, gate_markdown
from ragrecall_core.output.literal import NO_LINK
from ragrecall_core.scoring.evaluate import ignored_queries_text
from tests.helpers import run_cli, write_jsonl, write_text

MARKUP_TOKENS = {"html_inline", "html_block", "link_open", "image", "code_inline", "em_open"}
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"  # a GitHub token's shape
AWS_ID = "AKIA" + "QX7RZ2M4VB6NLKEY"  # an AWS access key id's shape
SECRETS = (GITHUB, AWS_ID)
HOSTILE_IDS = (
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "**bold** `code` _em_ q|pipe|",
    "]]><!-- &amp;",
)
LISTED = HOSTILE_IDS[:3]  # with the two secrets: the five ids evaluate's warning lists
TIES = "tied scores at ranks 1 and 2: @1 depends on tie order"


def leaked(text: str) -> list[str]:
    """Every 8-character piece of a secret that ``text`` holds."""
    return [s[i : i + 8] for s in SECRETS for i in range(len(s) - 7) if s[i : i + 8] in text]


def ignored(*ids: str) -> str:
    """Evaluate's warning of a run's queries the gold set lacks, quoting their ids."""
    return ignored_queries_text(len(ids), ids)


def list_items(markdown: str) -> list[str]:
    """The text of each list item, as a reader sees it."""
    return [
        "".join(c.content for c in t.children if c.type == "text").replace(NO_LINK, "")
        for t in MarkdownIt("commonmark").parse(markdown)
        if t.type == "inline" and t.map and t.level == 3
    ]


def tokens(markdown: str) -> set[str]:
    flat = set()
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        flat |= {token.type, *(c.type for c in token.children or [])}
    return flat


def suite_of(xml: str):
    return ET.fromstring(xml.encode("utf-8")).find("testsuite")


def result() -> GateResult:
    passed = GateResult(run="<script>alert(1)</script>", scope="all queries")
    passed.checks.append(
        {"requirement": "Recall@5>=0.5", "measure": "Recall@5", "value": 0.75, "ok": True}
    )
    return passed


WARNINGS = {
    "<script>alert(1)</script>": [
        ignored(*HOSTILE_IDS, "ctrl\x01\x1b[31m"),
        "2 queries have tied scores at ranks 5 and 6: @5 depends on tie order",
    ],
    "base": [ignored(GITHUB, AWS_ID)],
    "quiet": [],
}


# --- the summary ---------------------------------------------------------------------------


def test_the_summary_lists_each_warning_as_text():
    markdown = gate_markdown(result(), WARNINGS)
    assert "Warnings" in markdown.split("\n| requirement")[-1]
    kinds = tokens(markdown)
    assert not kinds & MARKUP_TOKENS, kinds & MARKUP_TOKENS
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script" not in rendered and "<img" not in rendered and 'href="' not in rendered
    items = list_items(markdown)
    assert items[:2] == [
        # control characters shown as escapes, as in every text output
        "<script>alert(1)</script>: " + ignored(*HOSTILE_IDS, "ctrl\\x01\\x1b[31m"),
        "<script>alert(1)</script>: " + WARNINGS["<script>alert(1)</script>"][1],
    ]
    assert len(items) == 3 and items[2].startswith("base: 2 run queries")


def test_a_run_named_like_a_secret_key_keeps_its_warning_whole():
    """Run and text are redacted apart: "token: 2 queries ..." read whole is a header line
    whose value ("2") would go."""
    tie = "2 queries have tied scores at ranks 5 and 6: @5 depends on tie order"
    assert list_items(gate_markdown(result(), {"token": [tie]})) == [f"token: {tie}"]


def test_a_gate_without_warnings_has_no_warnings_section():
    assert gate_markdown(result(), {"run": []}) == gate_markdown(result())
    assert "Warnings" not in gate_markdown(result(), {})


# --- the JUnit report ----------------------------------------------------------------------


def test_junit_holds_each_warning_in_the_suites_system_err():
    suite = suite_of(gate_junit(result(), WARNINGS))
    (err,) = suite.findall("system-err")
    lines = err.text.splitlines()
    assert lines[:2] == [
        "warning: <script>alert(1)</script>: " + ignored(*HOSTILE_IDS, "ctrl\\x01\\x1b[31m"),
        "warning: <script>alert(1)</script>: " + WARNINGS["<script>alert(1)</script>"][1],
    ]
    assert len(lines) == 3 and lines[2].startswith("warning: base: 2 run queries")
    # a warning is no test case: the counts are the gate's own
    bare = suite_of(gate_junit(result()))
    assert [c.get("name") for c in suite.findall("testcase")] == ["Recall@5>=0.5"]
    assert (suite.get("tests"), suite.get("failures")) == (bare.get("tests"), "0")


def test_junit_without_warnings_has_no_system_err():
    assert gate_junit(result(), {"run": []}) == gate_junit(result())
    assert suite_of(gate_junit(result())).find("system-err") is None


# --- through the command -------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    """q1's list ties at ranks 1 and 2; the run also lists queries the gold set lacks, their
    ids hostile and secret-shaped (evaluate's "ignored" warning quotes them)."""
    rows = ["q1,a,1,0.9", "q1,b,2,0.9", "q2,c,1,0.8"]
    rows += [f"{q},a,1,0.5" for q in (*LISTED, *SECRETS)]
    return {
        "gold": write_jsonl(
            tmp_path / "gold.jsonl",
            [{"id": "q1", "query": "one", "relevant_ids": ["a"]}]
            + [{"id": "q2", "query": "two", "relevant_ids": ["c"]}],
        ),
        "run": write_text(
            tmp_path / "run.csv", "query_id,chunk_id,rank,score\n" + "\n".join(rows) + "\n"
        ),
    }


def check(capsys, files, *extra) -> tuple[int, str, str]:
    argv = ["check", files["gold"], files["run"], "--require", "Recall@1>=0.5", *extra]
    return run_cli(capsys, argv)


def test_check_writes_evaluates_warnings_into_both_files(capsys, files, tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code, out, _ = check(capsys, files, "--format", "json")
    assert code == 0
    (tie, dropped) = sorted(json.loads(out)["warnings"]["run"], key=lambda w: TIES not in w)
    assert TIES in tie and "not in the gold set were ignored" in dropped
    summary, junit = tmp_path / "s.md", tmp_path / "j.xml"
    code, out, err = check(capsys, files, "--summary", summary, "--junit", junit)
    assert code == 0 and f"warning: run: {tie}" in err.splitlines()
    assert "Warnings" not in out  # stdout keeps the verdict; the files carry the warnings

    markdown = summary.read_text("utf-8")
    assert not tokens(markdown) & MARKUP_TOKENS
    items = list_items(markdown)
    assert f"run: {tie}" in items
    (said,) = [i for i in items if "were ignored" in i]
    assert all(hostile in said for hostile in LISTED), said
    assert said.count("[redacted]") == 2
    xml = junit.read_text("utf-8")
    lines = suite_of(xml).find("system-err").text.splitlines()
    assert f"warning: run: {tie}" in lines
    (said,) = [line for line in lines if "were ignored" in line]
    assert all(hostile in said for hostile in LISTED), said
    assert said.count("[redacted]") == 2
    assert leaked(markdown) == [] and leaked(xml) == []


def test_the_step_summary_carries_them_too(capsys, files, tmp_path, monkeypatch):
    step = write_text(tmp_path / "step.md", "## earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    code, _, _ = check(capsys, files)
    assert code == 0
    text = step.read_text("utf-8")
    assert text.startswith("## earlier step\n## Release gate: PASSED")
    assert any(TIES in item for item in list_items(text))
