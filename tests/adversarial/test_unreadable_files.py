"""Attack: a file DuckDB cannot read is a clean exit 2, never a traceback.

Issue 10, section 4 (the loaders): bytes that are not UTF-8 (in gold, run, grades and corpus;
JSON lines, TREC and CSV), a line over the 16 MB line limit, garbage or truncated
Parquet. Each is checked through the Python API (an ``InputError`` naming file, line and what
was expected) and through ``ragrecall evaluate`` (exit 2, the same lines on stderr).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ragrecall_core.errors import CUT_MARK, Problem
from tests.helpers import load_problems, run_cli

GOLD = b'{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
RUN = b'{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1, "score": 0.9}]}\n'
LATIN1 = "caf\u00e9".encode("latin-1")  # b"caf\xe9": latin-1, not UTF-8
BROKEN = b"bad \xff\xfe byte"

# role -> {format: (file name, good first line(s), a line template holding {bad})}
LINES = {
    "gold": {
        "jsonl": ("gold.jsonl", GOLD, b'{"id": "q2", "query": "{bad}", "relevant_ids": ["b"]}\n'),
        "trec": ("gold.qrels", b"q1 0 a 1\n", b"q2 0 {bad} 1\n"),
        "csv": ("gold.csv", b"query_id,chunk_id\nq1,a\n", b"q2,{bad}\n"),
    },
    "run": {
        "jsonl": (
            "run.jsonl",
            RUN,
            b'{"id": "q2", "retrieved": [{"chunk_id": "{bad}", "rank": 1, "score": 1}]}\n',
        ),
        "trec": ("run.trec", b"q1 Q0 a 1 0.9 t\n", b"q2 Q0 {bad} 1 0.5 t\n"),
        "csv": ("run.csv", b"query_id,chunk_id,rank,score\nq1,a,1,0.9\n", b"q2,{bad},1,0.5\n"),
    },
    "grades": {
        "jsonl": (
            "anna.jsonl",
            b'{"query_id": "q1", "chunk_id": "a", "grade": 2}\n',
            b'{"query_id": "q1", "chunk_id": "{bad}", "grade": 0}\n',
        ),
        "csv": ("anna.csv", b"query_id,chunk_id,grade\nq1,a,2\n", b"q1,{bad},0\n"),
    },
    "corpus": {
        "jsonl": ("corpus.jsonl", b'{"chunk_id": "a", "text": "ok"}\n', b'{"chunk_id": "{bad}"}\n'),
        "csv": ("corpus.csv", b"chunk_id,text\na,ok\n", b"{bad},text\n"),
    },
}
ENCODING_CASES = [
    pytest.param(role, fmt, bad, id=f"{role}-{fmt}-{name}")
    for role, formats in LINES.items()
    for fmt in formats
    for name, bad in (("latin1", LATIN1), ("invalid-utf8", BROKEN))
]
SHOWN = {LATIN1: "caf\\xe9", BROKEN: "bad \\xff\\xfe byte"}


def write_case(tmp_path: Path, role: str, content: bytes, name: str) -> dict[str, Path]:
    """Good gold and run files, with ``content`` written as ``name`` in ``role``."""
    paths = {"gold": tmp_path / "gold.jsonl", "run": tmp_path / "run.jsonl"}
    paths["gold"].write_bytes(GOLD)
    paths["run"].write_bytes(RUN)
    paths[role] = tmp_path / name
    paths[role].write_bytes(content)
    return paths


def problems_of(paths: dict[str, Path]) -> list[Problem]:
    grades = [paths["grades"]] if "grades" in paths else []
    return load_problems(paths["gold"], [paths["run"]], grades, paths.get("corpus"))


def cli_rejects(capsys, paths: dict[str, Path], problems: list[Problem]) -> str:
    argv = ["evaluate", paths["gold"], paths["run"]]
    if "grades" in paths:
        argv += ["--grades", paths["grades"]]
    if "corpus" in paths:
        argv += ["--corpus", paths["corpus"]]
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (out, err)
    assert "Traceback" not in err and "Error:" not in err, err
    for problem in problems:
        assert str(problem) in err, err
    return err


@pytest.mark.parametrize(("role", "fmt", "bad"), ENCODING_CASES)
def test_bytes_that_are_not_utf8_are_refused_naming_each_line(tmp_path, capsys, role, fmt, bad):
    name, head, template = LINES[role][fmt]
    bad_line = template.replace(b"{bad}", bad)
    good_line = template.replace(b"{bad}", b"fine")
    # two bad lines, with a good line between them: both are named, at once
    content = head + bad_line + good_line + bad_line
    paths = write_case(tmp_path, role, content, name)
    first = head.count(b"\n") + 1

    problems = problems_of(paths)
    assert [(p.file, p.line) for p in problems] == [
        (str(paths[role]), first),
        (str(paths[role]), first + 2),
    ], problems
    for problem in problems:
        assert problem.expected == "UTF-8 text", problem
        assert SHOWN[bad] in problem.value, problem
    cli_rejects(capsys, paths, problems)


@pytest.mark.parametrize("fmt", ["jsonl", "trec", "csv"])
@pytest.mark.parametrize("role", ["gold", "run"])
def test_a_line_over_the_line_limit_is_refused_quoting_80_characters(tmp_path, capsys, role, fmt):
    name, head, template = LINES[role][fmt]
    huge = b"x" * (17 * 1000 * 1000)
    content = head + template.replace(b"{bad}", huge)
    paths = write_case(tmp_path, role, content, name)
    line = head.count(b"\n") + 1

    problems = problems_of(paths)
    assert [(p.file, p.line) for p in problems] == [(str(paths[role]), line)], problems
    (problem,) = problems
    assert "16 MB" in problem.expected, problem
    assert len(str(problem)) < 300, str(problem)
    err = cli_rejects(capsys, paths, problems)
    assert len(err) < 1000, err[:2000]
    assert "x" * 100 not in err


PARQUET_GOLD = "SELECT 'q1' AS query_id, 'a' AS chunk_id"
PARQUET_RUN = "SELECT 'q1' AS query_id, 'a' AS chunk_id, 1 AS rank, 0.9::DOUBLE AS score"


def garbage(path: Path, query: str) -> None:
    path.write_bytes(b"PAR1 this is not parquet \x00\xff" * 20)


def truncated(path: Path, query: str) -> None:
    duckdb.connect().execute(f"COPY ({query}) TO '{path}' (FORMAT parquet)")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize("damage", [garbage, truncated])
@pytest.mark.parametrize(
    ("role", "query"),
    [("gold", PARQUET_GOLD), ("run", PARQUET_RUN), ("grades", None), ("corpus", None)],
)
def test_a_damaged_parquet_file_is_refused(tmp_path, capsys, role, query, damage):
    paths = write_case(tmp_path, role, b"", f"{role}.parquet")
    damage(paths[role], query or "SELECT 'q1' AS query_id, 'a' AS chunk_id, 2 AS grade")

    problems = problems_of(paths)
    assert [(p.file, p.line) for p in problems] == [(str(paths[role]), None)], problems
    assert problems[0].expected == "a Parquet file", problems
    cli_rejects(capsys, paths, problems)


def test_problem_shows_at_most_80_characters_of_the_value():
    shown = str(Problem("run.jsonl", 4, "v" * 500, "a short value"))
    value = "v" * 40 + CUT_MARK.format(cut=420, total=500) + "v" * 40
    assert shown == f"run.jsonl:4: got {value!r}, expected a short value"
    # cut in the middle: a long path keeps its file name, a long line its first fields
    path = "/tmp/" + "d" * 200 + "/taken.jsonl"
    assert str(Problem("-o", None, path, "e")).endswith("/taken.jsonl', expected e")
    assert str(Problem("f", 1, "q1\t" + "x" * 200, "e")).startswith("f:1: got 'q1\\t")
    assert str(Problem("f", None, "v" * 80, "e")) == f"f: got {'v' * 80!r}, expected e"


def test_csv_rows_of_the_wrong_width_are_named(tmp_path, capsys):
    """DuckDB's sniffer took a wider row for the header (the rows above it were lost) or
    refused the file without a line; each uneven row is named instead."""
    text = b"query_id,chunk_id,rank,score\nq1,a,1,0.9\nq1,b,2,0.5,extra\nq1,c\n"
    paths = write_case(tmp_path, "run", text, "run.csv")

    problems = problems_of(paths)
    assert [(p.line, p.value) for p in problems] == [(3, "q1,b,2,0.5,extra"), (4, "q1,c")]
    assert problems[0].expected == "4 fields, as in the header (this row has 5)"
    cli_rejects(capsys, paths, problems)


@pytest.mark.parametrize("role", ["gold", "run"])
def test_a_line_the_line_reader_cannot_split_is_named(tmp_path, capsys, role):
    """The line reader splits on the byte \\x01; a line holding one raw is refused by line."""
    name, head, template = LINES[role]["jsonl"]
    paths = write_case(tmp_path, role, head + template.replace(b"{bad}", b"x\x01y"), name)

    problems = problems_of(paths)
    assert [(p.file, p.line) for p in problems] == [(str(paths[role]), 2)], problems
    assert "x\x01y" in problems[0].value
    assert problems[0].expected == "a line without the byte \\x01"
    cli_rejects(capsys, paths, problems)


@pytest.mark.parametrize(
    "name",
    [
        "run.jsonl\nfake.jsonl:1: got 'x', expected nothing",
        "run\r.jsonl",
        "run\x1b[31m.jsonl",
        "run\u2028.jsonl",
        "run\x85.jsonl",
    ],
)
def test_one_problem_is_always_one_line(name):
    """Every field of a problem is file text; a line break or a terminal escape in any of
    them is shown escaped, so a crafted file name cannot fake a second problem line."""
    problem = Problem(name, 3, "v\nfake.jsonl:9: got 'y'", "a rank\nfake.jsonl:8: got 'z'")
    shown = str(problem)
    assert len(shown.splitlines()) == 1, shown
    assert shown.isprintable(), shown
    assert shown.startswith(name.encode("unicode_escape").decode("ascii") + ":3: "), shown


def test_a_file_name_with_a_line_break_is_one_problem_line_in_the_cli(tmp_path, capsys):
    name = "run.jsonl\nforged.jsonl:1: got 'x', expected y"
    paths = write_case(tmp_path, "run", RUN + b'{"id": "q2", "retrieved": 5}\n', "run.jsonl")
    odd = paths["run"].rename(tmp_path / name)

    code, _, err = run_cli(capsys, ["evaluate", paths["gold"], odd])
    assert code == 2 and "Traceback" not in err
    problem_lines = [line for line in err.splitlines() if ": got " in line]
    assert len(problem_lines) == 1, err
    assert "run.jsonl\\nforged.jsonl" in problem_lines[0]
