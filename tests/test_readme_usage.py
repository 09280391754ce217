"""The README's usage lines and the CLI's options stay in step (issue 11).

Every option a subcommand accepts appears in the README's usage of that command, every
option the README shows exists, and every argument has a help text in ``--help``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from ragrecall_core.cli import build_parser

README = Path(__file__).parent.parent / "README.md"
# an option in a usage line: "-k", "--max-regressions"; not the "-answer" of "no-answer"
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
HELP_OPTIONS = {"-h", "--help"}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def usage_entries(text: str) -> dict[str, str]:
    """``{command: its usage}`` from the README's code blocks: a usage starts with
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


USAGE = usage_entries(README.read_text("utf-8"))


def test_every_subcommand_has_a_usage_line():
    assert set(subcommands()) <= set(USAGE), sorted(set(subcommands()) - set(USAGE))


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_the_readme_lists_every_option_of_the_command(command):
    shown = documented_options(USAGE[command])
    missing = [s for s in cli_options(subcommands()[command]) if not set(s) & shown]
    assert missing == [], f"README usage of {command!r} lacks {missing}"


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_the_readme_shows_no_option_the_command_lacks(command):
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
