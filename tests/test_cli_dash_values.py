"""A value starting with ``-`` (a negative number, ``-1GB``) after an option that takes
one is that option's value, as getopt reads it: argparse alone reads it as another option
(``--memory-limit -1GB``: "expected one argument", its usage text), so such a value never
reached the one-line problem every other bad value gets (file or option, value, expected;
exit 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ragrecall_core import cli
from tests.test_cli_parser_table import commands

DASHED = "-1x"


def one_value_options() -> list[tuple[str, argparse.Action]]:
    """Every (command, option) that takes one free value (no fixed choices)."""
    return [
        (name, action)
        for name, parser in commands().items()
        for action in parser._actions
        if action.option_strings and action.nargs is None and not action.choices
    ]


def required_words(parser: argparse.ArgumentParser, skip: argparse.Action) -> list[str]:
    """Words that satisfy ``parser``'s required options and positionals."""
    words = []
    for action in parser._actions:
        if action is skip:
            continue
        if not action.option_strings:
            words += [] if action.nargs == "?" else ["x"]
        elif action.required:
            words += [action.option_strings[0], "x"]
    return words


@pytest.mark.parametrize(
    ("command", "action"),
    one_value_options(),
    ids=lambda v: v if isinstance(v, str) else v.option_strings[-1],
)
def test_every_option_taking_a_value_takes_one_starting_with_a_dash(command, action):
    parser = commands()[command]
    for flag in action.option_strings:
        args = cli.build_parser().parse_args(
            [command, *required_words(parser, action), flag, DASHED]
        )
        value = action.type(DASHED) if action.type else DASHED
        appended = isinstance(action, argparse._AppendAction)
        assert getattr(args, action.dest) == ([value] if appended else value)


def test_the_value_after_an_option_is_taken_whole_and_the_words_after_it_stay():
    args = cli.build_parser().parse_args(
        ["evaluate", "g", "r", "-k", "-3", "--memory-limit", "-1GB", "--per-query", "-m", "-x"]
    )
    assert (args.k, args.memory_limit, args.per_query, args.measure) == (
        ["-3"],
        "-1GB",
        True,
        ["-x"],
    )
    # an attached value, an abbreviated option and "--" (only positionals after it) as before
    args = cli.build_parser().parse_args(
        ["evaluate", "g", "--memory=-2GB", "--rel-lev", "-1", "--", "-run"]
    )
    assert (args.memory_limit, args.rel_level, args.runs) == ("-2GB", "-1", [Path("-run")])


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["evaluate", "G", "R", "--memory-limit", "-1GB"], "--memory-limit: got '-1GB'"),
        (["evaluate", "G", "R", "--rel-level", "-1"], "--rel-level: got '-1'"),
        (["evaluate", "G", "R", "-k", "-3"], "-k: got '-3'"),
        (["evaluate", "G", "R", "-k", "-x"], "-k: got '-x'"),
        (["evaluate", "G", "R", "-m", "-Recall@5"], "-Recall@5"),
        (["compare", "G", "R", "R", "-k", "-x"], "-k: got '-x'"),
        (["check", "G", "R", "--require", "-Recall@5>=1"], "--require: got '-Recall@5'"),
        (["check", "G", "R", "--max-regressions", "-x"], "--max-regressions: got '-x'"),
        (["no-answer", "G", "R", "--max-false-confidence", "-x"], "got '-x'"),
        (["pool", "G", "R", "-o", "P", "--depth", "-x"], "--depth: got '-x'"),
        (["report", "W", "-o", "P", "--memory-limit", "-1GB"], "--memory-limit: got '-1GB'"),
        (["capture", "G", "--retriever", "m:f", "-o", "O", "--timeout", "-x"], "got '-x'"),
        (["capture", "G", "--retriever", "m:f", "-o", "O", "--concurrency", "-1"], "got '-1'"),
        (["capture", "G", "--retriever", "m:f", "-o", "O", "--allow-errors", "-1"], "got '-1'"),
        (["ui", "W", "--port", "-1"], "--port: got '-1'"),
        (["judge", "W", "--judge", "m:f", "--concurrency", "-1"], "got '-1'"),
    ],
)
def test_a_dashed_bad_value_is_one_line_like_every_bad_value(argv, shown, tmp_path, capsys):
    argv = [str(tmp_path / w) if w in ("G", "R", "W", "P", "O") else w for w in argv]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert shown in err
    assert "usage:" not in err and "expected one argument" not in err and "Traceback" not in err
