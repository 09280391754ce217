"""``ragrecall check --summary FILE / --junit FILE`` and ``$GITHUB_STEP_SUMMARY`` (issue 16).

The regressions fixture: on the test split the candidate has Recall@5 = 0.625 and regresses
on t01, t02, t03 against the baseline. Names from files are hostile in the unit tests below:
the Markdown must show them as text, the XML must parse and give them back.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from ragrecall_core.analysis.gate import GateResult
from ragrecall_core.analysis.gate_outputs import gate_junit, gate_markdown
from ragrecall_core.output.literal import NO_LINK
from tests.fixtures_regressions import REGRESSIONS, paths, write_workspace
from tests.helpers import run_cli

MARKUP_TOKENS = {"html_inline", "html_block", "link_open", "image", "code_inline", "em_open"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return paths(write_workspace(tmp_path_factory.mktemp("gate_ci")))


def check(files, *extra) -> list:
    return [
        "check",
        files["gold"],
        files["candidate"],
        "--baseline",
        files["baseline"],
        *extra,
    ]


def tokens(markdown: str) -> list:
    flat = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        flat += [token, *(token.children or [])]
    return flat


def table_cells(markdown: str) -> list[list[str]]:
    rows, row, inside = [], [], False
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type == "tr_open":
            row = []
        elif token.type in ("td_open", "th_open"):
            inside = True
        elif token.type == "inline" and inside:
            row.append("".join(c.content for c in token.children if c.type == "text"))
            inside = False
        elif token.type == "tr_close":
            rows.append(row)
    return rows


def test_a_failed_gate_writes_summary_and_junit_and_still_exits_1(files, tmp_path, capsys):
    summary, junit = tmp_path / "summary.md", tmp_path / "gate.xml"
    code, out, err = run_cli(
        capsys,
        check(
            files,
            "--require",
            "Recall@5>=0.7",
            "--require",
            "Hit@5>=0.5",
            "--summary",
            summary,
            "--junit",
            junit,
        ),
    )
    assert code == 1 and err == ""
    markdown = summary.read_text("utf-8")
    assert markdown.startswith("## Release gate: FAILED")
    cells = table_cells(markdown)
    assert cells[0] == ["requirement", "value", "result"]
    assert cells[1][0] == "Recall@5>=0.7" and cells[1][2] == "FAIL"
    assert float(cells[1][1]) == pytest.approx(0.625, abs=1e-4)
    assert cells[2][0] == "Hit@5>=0.5" and cells[2][2] == "pass"
    for qid in REGRESSIONS:
        assert f"- {qid}" in markdown

    suite = ET.parse(junit).getroot().find("testsuite")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    assert cases[("ragrecall.requirement", "Recall@5>=0.7")].find("failure") is not None
    assert cases[("ragrecall.requirement", "Hit@5>=0.5")].find("failure") is None
    assert cases[("ragrecall.regressions", "regression budget")].find("failure") is not None
    regressed = [name for cls, name in cases if cls == "ragrecall.regressed"]
    assert regressed == list(REGRESSIONS)
    assert all(cases[("ragrecall.regressed", q)].find("failure") is not None for q in regressed)
    assert suite.get("tests") == str(len(cases)) == "6"
    assert suite.get("failures") == "5"


def test_regressions_within_the_budget_are_listed_but_not_failures(files, tmp_path, capsys):
    junit = tmp_path / "gate.xml"
    code, _, _ = run_cli(capsys, check(files, "--max-regressions", "3", "--junit", junit))
    assert code == 0
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("failures") == "0"
    assert [c.get("name") for c in suite.findall("testcase")] == ["regression budget", *REGRESSIONS]


def test_the_step_summary_of_github_actions_is_appended_to(files, tmp_path, capsys, monkeypatch):
    step = tmp_path / "step_summary.md"
    step.write_text("## earlier step\n", "utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    code, _, _ = run_cli(capsys, check(files, "--max-regressions", "3"))
    assert code == 0
    text = step.read_text("utf-8")
    assert text.startswith("## earlier step\n## Release gate: PASSED")

    own = tmp_path / "own.md"
    run_cli(capsys, check(files, "--summary", own))
    assert step.read_text("utf-8") == text, "--summary replaces the step summary, not adds to it"
    assert own.read_text("utf-8").startswith("## Release gate: FAILED")


def test_unwritable_summary_or_junit_paths_are_exit_2_before_the_gate_runs(
    files, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code, out, err = run_cli(
        capsys,
        check(files, "--summary", tmp_path / "no" / "s.md", "--junit", tmp_path),
    )
    assert code == 2 and out == ""
    assert "--summary: got" in err and "--junit: got" in err


HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "[click](https://evil.example)",
    "**bold** `code` _em_",
    "q|pipe|",
    "ctrl\x01\x1b[31m",
    "]]><!--",
]


def hostile_result() -> GateResult:
    result = GateResult(
        run="<script>alert(1)</script>",
        scope="split `test`",
        baseline="[base](javascript:alert(1))",
        max_regressions=0,
        regressions=list(HOSTILE),
    )
    result.checks.append(
        {"requirement": "Recall@5>=0.8", "measure": "Recall@5", "value": 0.5, "ok": False}
    )
    return result


def test_markdown_shows_file_text_as_text_never_as_markup():
    markdown = gate_markdown(hostile_result())
    kinds = {t.type for t in tokens(markdown)}
    assert not kinds & MARKUP_TOKENS, kinds & MARKUP_TOKENS
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script" not in rendered and "<img" not in rendered and 'href="' not in rendered
    listed = [
        "".join(c.content for c in t.children if c.type == "text").replace(NO_LINK, "")
        for t in MarkdownIt("commonmark").parse(markdown)
        if t.type == "inline" and t.map and t.level == 3
    ]
    # control characters are shown as escapes, as in every text output (issue 26 item 7)
    assert listed == [*HOSTILE[:4], "ctrl\\x01\\x1b[31m", HOSTILE[5]]


def test_junit_xml_parses_and_gives_every_name_back():
    root = ET.fromstring(gate_junit(hostile_result()).encode("utf-8"))
    suite = root.find("testsuite")
    names = [c.get("name") for c in suite.findall("testcase")]
    # control characters cannot be in XML 1.0: they come back written as escapes
    assert names == [
        "Recall@5>=0.8",
        "regression budget",
        *HOSTILE[:4],
        "ctrl\\x01\\x1b[31m",
        HOSTILE[5],
    ]
    assert suite.get("name") == "ragrecall check: <script>alert(1)</script>"


def test_the_summary_states_the_pass_rule_that_defined_the_regressions(files, capsys, tmp_path):
    summary = tmp_path / "s.md"
    run_cli(capsys, check(files, "--pass-rule", "hit", "--summary", summary))
    assert "Hit@5 = 1" in summary.read_text("utf-8").replace("\\", "")
