"""The docs' usage lines and the CLI's options stay in step (issue 11).

Every option a subcommand accepts appears in the usage of that command on the docs' command
line page, every option shown there exists, and every argument has a help text in
``--help``. Every example command line in the docs and the README parses.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from ragrecall_core.cli import build_parser

ROOT = Path(__file__).parent.parent
CLI_PAGE = ROOT / "docs" / "cli.md"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# an option in a usage line: "-k", "--max-regressions"; not the "-answer" of "no-answer"
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
HELP_OPTIONS = {"-h", "--help"}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def usage_entries(text: str) -> dict[str, str]:
    """``{command: its usage}`` from a page's code blocks: a usage starts with
    ``ragrecall COMMAND`` and goes on over indented lines; entries of one command join."""
    entries: dict[str, str] = {}
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        command = None
        for line in block.splitlines():
            start = re.match(r"ragrecall ([a-z-]+)\b(.*)", line)
            if start and not start.group(2).lstrip().startswith(("data_samples", "FOLDER")):
                command = start.group(1)
                entries[command] = entries.get(command, "") + " " + start.group(2)
            elif command and line.startswith(" "):
                entries[command] += " " + line
            else:
                command = None
    return entries


def documented_options(usage: str) -> set[str]:
    return set(OPTION.findall(usage))


def cli_options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """Each optional argument's spellings (``("-m", "--measure")``), help left out."""
    return [
        tuple(a.option_strings)
        for a in parser._actions
        if a.option_strings and not set(a.option_strings) & HELP_OPTIONS
    ]


USAGE = usage_entries(CLI_PAGE.read_text("utf-8"))


def test_every_subcommand_has_a_usage_line():
    assert set(subcommands()) <= set(USAGE), sorted(set(subcommands()) - set(USAGE))


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_the_docs_list_every_option_of_the_command(command):
    shown = documented_options(USAGE[command])
    missing = [s for s in cli_options(subcommands()[command]) if not set(s) & shown]
    assert missing == [], f"docs/cli.md usage of {command!r} lacks {missing}"


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_the_docs_show_no_option_the_command_lacks(command):
    known = {s for spellings in cli_options(subcommands()[command]) for s in spellings}
    assert documented_options(USAGE[command]) - known == set()


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_argument_has_a_help_text(command):
    parser = subcommands()[command]
    bare = [a.dest for a in parser._actions if not (a.help or "").strip()]
    assert bare == []
    text = parser.format_help()
    for action in parser._actions:
        assert " ".join(action.help.split()[:3]) in " ".join(text.split())


def test_ui_help_describes_its_port(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["ui", "--help"])
    assert stop.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--port N the local port to serve on (default 8501)" in out


def test_the_check_and_this_test_catch_a_missing_option():
    """The test itself can fail: a usage line without --corpus is caught."""
    usage = USAGE["compare"].replace("[--corpus FILE]", "")
    shown = documented_options(usage)
    missing = [s for s in cli_options(subcommands()["compare"]) if not set(s) & shown]
    assert missing == [("--corpus",)]


def example_commands(text: str) -> list[str]:
    """Every command line a page's shell or YAML blocks run: ``ragrecall ...`` at the start
    of a line or after ``run:``, with its continuation lines (a trailing backslash, or the
    lines of a folded ``run: >`` block); each command of an ``a && b`` line."""
    found = []
    for language, block in re.findall(r"```(bash|sh|yaml)\n(.*?)```", text, flags=re.S):
        lines = block.replace("\\\n", " ").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if language == "yaml" and re.match(r"\s*(?:-\s*)?run: >\s*$", line):
                indent = len(lines[i]) - len(lines[i].lstrip()) if i < len(lines) else 0
                folded = []
                while i < len(lines) and lines[i].startswith(" " * indent) and lines[i].strip():
                    folded.append(lines[i].strip())
                    i += 1
                line = " ".join(folded)
            for part in line.split("&&"):
                start = re.match(r"\s*(?:-\s*)?(?:run:\s*)?(ragrecall\s.*)", part)
                if start:
                    found.append(start.group(1).strip())
    return found


EXAMPLES = [
    (page.relative_to(ROOT).as_posix(), command)
    for page in PAGES
    for command in example_commands(page.read_text("utf-8"))
]


def test_the_docs_have_example_commands_of_the_main_commands():
    shown = {shlex.split(command)[1] for _page, command in EXAMPLES}
    assert {"ui", "evaluate", "capture", "compare", "check"} <= shown


@pytest.mark.parametrize(("page", "command"), EXAMPLES)
def test_every_example_command_line_parses(page, command):
    words = shlex.split(command)
    assert words[0] == "ragrecall"
    build_parser().parse_args(words[1:])  # argparse exits 2 on an unknown or bad option


def test_an_example_with_an_unknown_option_is_caught():
    """The check can fail: a misspelt option does not parse."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["check", "gold.jsonl", "run.jsonl", "--requires", "R@5>=1"])
    assert stop.value.code == 2
    folded = "```yaml\n- run: >\n    ragrecall check g r\n    --junit x.xml\n```\n"
    assert example_commands(folded) == ["ragrecall check g r --junit x.xml"]


def test_top_help_says_what_the_tool_does_and_its_exit_codes(capsys):
    """`ragrecall --help` is for users: what the tool measures and its exit codes, not the
    module docstring's first line (an RST ``ragrecall`` and "a thin layer" were shown)."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--help"])
    assert stop.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "``" not in out and "thin layer" not in out
    assert "Recall@k" in out and "release gate" in out
    assert "exit codes: 0 success, 1 a release gate failed, 2 invalid input" in out
