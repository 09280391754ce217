"""The command line's options each have one home: a shared option is declared once, and
every command that takes it gets the same option."""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

import pytest

from ragrecall_core import cli

POLICY_FLAGS = (
    "--grades",
    "--corpus",
    "--unit",
    "--rel-level",
    "--compat",
    "--complete",
    "--partial",
    "--harmful",
)
# options whose every attribute, help included, is the same in every command taking them
UNIFORM_FLAGS = ("--pass-rule", "--memory-limit", "--cache", "--unit", "--rel-level", "--compat")
UNIFORM_FLAGS += ("--complete", "--partial", "--harmful")


def commands() -> dict[str, argparse.ArgumentParser]:
    (action,) = [
        a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    ]
    return dict(action.choices)


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: a for a in parser._actions for flag in a.option_strings}


def declared_names() -> list[str]:
    """Every option string or positional name passed to a declaring call in cli.py."""
    tree = ast.parse(Path(cli.__file__).read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("add_argument", "arg"):
            names += [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
    return names


def test_each_option_is_declared_once_in_the_source():
    names = declared_names()
    assert "--pass-rule" in names and "gold" in names  # the scan sees the declarations
    twice = {name: n for name, n in Counter(names).items() if n > 1}
    assert twice == {}


def test_policy_commands_take_every_policy_option():
    with_policy = set()
    for name, parser in commands().items():
        taken = [flag for flag in POLICY_FLAGS if flag in options(parser)]
        if "--unit" in taken:
            with_policy.add(name)
            assert taken == list(POLICY_FLAGS), name
    assert with_policy == {"evaluate", "compare", "check", "no-answer"}


@pytest.mark.parametrize("flag", UNIFORM_FLAGS)
def test_a_shared_option_is_the_same_option_everywhere(flag):
    seen = {
        name: options(parser)[flag]
        for name, parser in commands().items()
        if flag in options(parser)
    }
    assert len(seen) >= 2, flag
    shapes = {
        (a.dest, a.default, a.choices, a.metavar, a.type, a.nargs, a.help) for a in seen.values()
    }
    assert len(shapes) == 1, (flag, sorted(seen))


def test_every_command_reading_inputs_takes_memory_limit_and_cache():
    for name, parser in commands().items():
        has = {"--memory-limit", "--cache"} & set(options(parser))
        expected = name in {"evaluate", "compare", "check", "no-answer", "pool", "report", "judge"}
        assert bool(has) == expected and len(has) in (0, 2), name


def parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def test_representative_command_lines_parse_as_documented():
    ev = parse(
        "evaluate", "g.jsonl", "a.jsonl", "b.jsonl", "-k", "5", "-k", "10", "--format", "csv"
    )
    assert (ev.gold, ev.runs, ev.k, ev.measure) == (
        Path("g.jsonl"),
        [Path("a.jsonl"), Path("b.jsonl")],
        ["5", "10"],
        [],
    )
    assert (ev.format, ev.unit, ev.rel_level, ev.cache, ev.handler) == (
        "csv",
        "chunk",
        "1",
        False,
        cli.cmd_evaluate,
    )
    cmp = parse("compare", "g", "b", "c", "--unit", "doc", "--pass-rule", "hit", "-c")
    assert (cmp.baseline, cmp.candidate, cmp.k, cmp.pass_rule, cmp.unit, cmp.complete) == (
        Path("b"),
        Path("c"),
        "5",
        "hit",
        "doc",
        True,
    )
    chk = parse("check", "g", "r", "--grades", "x", "--grades", "y", "--split", "dev")
    assert (chk.run, chk.grades, chk.split, chk.format) == (
        Path("r"),
        [Path("x"), Path("y")],
        "dev",
        "table",
    )
    cap = parse("capture", "g", "--retriever", "m:f", "-o", "out.jsonl")
    assert (cap.k, cap.output, cap.corpus, cap.handler) == (
        "20",
        Path("out.jsonl"),
        None,
        cli.cmd_capture,
    )
    pool = parse("pool", "g", "r1", "-o", "p.csv", "--memory-limit", "1GB", "--cache")
    assert (pool.k, pool.depth, pool.grades, pool.memory_limit, pool.cache) == (
        None,
        "10",
        [],
        "1GB",
        True,
    )
    rep = parse("report", "ws", "-o", "r.html")
    assert (rep.workspace, rep.k, rep.pass_rule, rep.split) == (Path("ws"), "5", "capped", None)
    ver = parse("verdicts", "ws", "--import", "v.csv")
    assert (ver.import_file, ver.export, ver.format) == (Path("v.csv"), None, "table")
    ui = parse("ui", "--gold", "g", "--run", "a", "--run", "b")
    assert (ui.workspace, ui.gold, ui.run, ui.port) == (
        None,
        Path("g"),
        [Path("a"), Path("b")],
        "8501",
    )
