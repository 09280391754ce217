"""No command line output shows Python or pandas internals (issue 11), and every command's
JSON parses with numbers as numbers (issue 17).

Every command runs in every ``--format`` on ``data_samples/`` and on a tiny workspace full
of missing values (a query missing from a run, an empty list, no query text, no section, a
no-answer query, an unresolved disagreement, a single annotator). People read words:
``yes`` / ``no``, a dash or an empty cell, "no disagreements"; never ``None``, ``nan``,
``NaN``, ``<NA>``, ``NaT``, ``True`` / ``False`` or ``Empty DataFrame``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragrecall_core.output.text import json_text
from tests.helpers import gold_row, grade_row, run_cli, run_row, write_jsonl
from tests.samples import shared_samples

SAMPLES = shared_samples()
INTERNALS = re.compile(r"(?<!\w)(None|nan|NaN|NaT|True|False|inf|Infinity|Empty DataFrame)(?!\w)")
NA_MARK = "<NA>"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Path]:
    """A workspace with every kind of missing value."""
    folder = tmp_path_factory.mktemp("tokens")
    gold = [
        gold_row("q1", ["a"], section="billing", split="test"),
        gold_row("q2", ["b", "c"], split="test"),  # no section
        gold_row("q3", ["d"], split="dev"),
        gold_row("na", [], split="test"),
    ]
    one = [run_row("q1", ["a", "x"]), run_row("na", ["x"]), {"id": "q3", "retrieved": []}]
    two = [run_row("q1", ["x", "a"]), run_row("q2", ["b"])]
    grades_a = [grade_row("q1", "x", 0), grade_row("q2", "z", 2, harmful=True)]
    grades_b = [grade_row("q1", "x", 1, annotator="boris")]
    return {
        "gold": write_jsonl(folder / "gold.jsonl", gold),
        "one": write_jsonl(folder / "runs" / "one.jsonl", one),
        "two": write_jsonl(folder / "runs" / "two.jsonl", two),
        "anna": write_jsonl(folder / "grades" / "anna.jsonl", grades_a),
        "boris": write_jsonl(folder / "grades" / "boris.jsonl", grades_b),
        "folder": folder,
    }


def samples() -> dict[str, Path]:
    return {
        "gold": SAMPLES / "gold.jsonl",
        "one": SAMPLES / "runs" / "bm25.jsonl",
        "two": SAMPLES / "runs" / "hybrid-rrf.jsonl",
        "anna": SAMPLES / "grades" / "anna.jsonl",
        "boris": SAMPLES / "grades" / "boris.jsonl",
        "folder": SAMPLES,
    }


def commands(f: dict[str, Path], out: Path) -> dict[str, tuple[list, tuple[str, ...]]]:
    """name -> (argv without --format, the formats it has)."""
    grades = ["--grades", f["anna"], "--grades", f["boris"]]
    table_json = ("table", "json")
    return {
        "evaluate": (
            ["evaluate", f["gold"], f["one"], f["two"], "--per-query", *grades],
            ("table", "tsv", "csv", "json"),
        ),
        "compare": (["compare", f["gold"], f["one"], f["two"], *grades], table_json),
        "check": (
            ["check", f["gold"], f["two"], "--baseline", f["one"], "--require", "FirstRank<=2"],
            table_json,
        ),
        "no-answer": (["no-answer", f["gold"], f["one"], f["two"]], table_json),
        "agreement": (["agreement", f["anna"], f["boris"]], table_json),
        "agreement of one file": (["agreement", f["anna"]], table_json),
        "pool": (["pool", f["gold"], f["one"], f["two"], "-o", out / "pool.jsonl"], ("",)),
    }


CASES = [
    (data, name, fmt)
    for data in ("samples", "tiny")
    for name, (_, formats) in commands(samples(), Path(".")).items()
    for fmt in formats
]


def run(capsys, argv: list, fmt: str) -> str:
    code, out, err = run_cli(capsys, argv + (["--format", fmt] if fmt else []))
    assert code in (0, 1), err  # 1: a gate that fails is still a result
    # stderr holds nothing but evaluate's warnings (check and compare say them there)
    assert all(line.startswith("warning: ") for line in err.splitlines()), err
    assert internals(err) == []
    return out


def internals(text: str) -> list[str]:
    found = INTERNALS.findall(text)
    return found + ([NA_MARK] if NA_MARK in text else [])


@pytest.mark.parametrize(("data", "name", "fmt"), CASES)
def test_no_python_internals_in_any_output(tiny, tmp_path, capsys, data, name, fmt):
    files = tiny if data == "tiny" else samples()
    argv, _ = commands(files, tmp_path)[name]
    out = run(capsys, argv, fmt)
    assert out.strip()
    if fmt == "json":  # null / true / false are JSON's words; look inside the strings
        out = " ".join(strings(json.loads(out)))
    assert internals(out) == []


@pytest.mark.parametrize(("data", "name", "fmt"), [c for c in CASES if c[2] == "json"])
def test_json_parses_with_numbers_as_numbers(tiny, tmp_path, capsys, data, name, fmt):
    files = tiny if data == "tiny" else samples()
    argv, _ = commands(files, tmp_path)[name]
    parsed = json.loads(run(capsys, argv, fmt), parse_constant=refuse)
    numbers = list(leaves(parsed, (int, float)))
    assert numbers or name == "agreement of one file"  # one annotator: no pair, no number
    assert all(math.isfinite(n) for n in numbers)
    assert not [s for s in strings(parsed) if looks_like_number(s)]


def test_the_scan_itself_finds_internals():
    assert internals("harmful_a False\nresolver NaN\nEmpty DataFrame <NA>") == [
        "False",
        "NaN",
        "Empty DataFrame",
        "<NA>",
    ]
    assert internals("no disagreements; Falsehood, nano, nonexistent") == []


def test_agreement_of_one_file_says_so_in_words(tiny, capsys):
    out = run(capsys, ["agreement", tiny["anna"]], "table")
    assert "no annotator pair" in out and "no disagreements" in out


def test_unresolved_disagreements_show_a_dash_and_words(tiny, capsys):
    out = run(capsys, ["agreement", tiny["anna"], tiny["boris"]], "table")
    assert "1 disagreement:" in out
    row = next(line for line in out.splitlines() if "q1" in line)
    assert row.split()[-6:] == ["0", "1", "no", "no", "—", "—"]


def test_singular_counts_read_as_singular(tiny, capsys):
    evaluate = run(capsys, ["evaluate", tiny["gold"], tiny["one"]], "table")
    assert "1 no-answer query outside the means" in evaluate
    no_answer = run(capsys, ["no-answer", tiny["gold"], tiny["one"]], "table")
    assert "one: 1 no-answer query," in no_answer


def test_a_requirement_without_a_value_fails_with_a_dash(tiny, capsys):
    argv = ["check", tiny["gold"], tiny["one"], "--require", "FirstRank<=2", "--split", "dev"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 1  # no query has a first relevant rank: the requirement cannot hold
    assert "FAIL FirstRank<=2: FirstRank = —" in out
    code, out, _ = run_cli(capsys, argv + ["--format", "json"])
    assert json.loads(out)["requirements"][0]["value"] is None


def refuse(constant: str):
    raise AssertionError(f"JSON with {constant}")


def leaves(value, kinds):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from leaves(item, kinds)
    elif isinstance(value, kinds) and not isinstance(value, bool):
        yield value


def strings(value) -> list[str]:
    return list(leaves(value, (str,)))


def looks_like_number(text: str) -> bool:
    """A string JSON value that is a stringified number (what ``default=str`` leaves)."""
    return bool(re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", text))


def test_report_says_where_it_wrote_in_words(tiny, tmp_path, capsys):
    out = run(capsys, ["report", tiny["folder"], "-o", tmp_path / "r.md"], "")
    assert out.startswith("report written to") and internals(out) == []


def test_json_text_converts_numpy_and_missing_values():
    data = {"n": np.int64(3), "x": np.float64(0.5), "gone": np.nan, "na": pd.NA, "ok": np.True_}
    assert json.loads(json_text(data)) == {"n": 3, "x": 0.5, "gone": None, "na": None, "ok": True}


@pytest.mark.parametrize("value", [Path("a"), {1, 2}, object(), pd.Timestamp("2026-01-01")])
def test_json_text_refuses_a_value_that_is_not_json(value):
    with pytest.raises(TypeError):
        json_text({"value": value})


def test_compare_notes_count_one_query_in_the_singular(tiny, tmp_path, capsys):
    single = write_jsonl(tmp_path / "single.jsonl", [run_row("q1", ["a"])])
    out = run(capsys, ["compare", tiny["gold"], single, tiny["two"]], "table")
    assert "1 query of the compared ones is listed by one run only" in out
