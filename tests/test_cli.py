"""The ``ragrecall evaluate`` contract: formats, keys, exit codes (``cli.py``, ``render.py``).

Numbers use seed 001's three queries (SPEC "Measures"): at k=3,
(Recall, RR) = (1, 1/2), (1, 1), (0, 0).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import gold_row, run_cli, run_row, write_jsonl

from ragrecall_core.scoring.evaluate import default_measures

ROOT = Path(__file__).parent.parent


@pytest.fixture
def files(tmp_path):
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [gold_row("q1", ["doc-a"]), gold_row("q2", ["doc-b"]), gold_row("q3", ["doc-c"])],
    )
    run = write_jsonl(
        tmp_path / "bm25.jsonl",
        [
            run_row("q1", ["doc-x", "doc-a", "doc-y"]),
            run_row("q2", ["doc-b", "doc-x", "doc-y"]),
            run_row("q3", ["doc-x", "doc-y", "doc-z"]),
        ],
    )
    return gold, run


def test_json_with_the_measure_key_as_given_and_per_query(files, capsys):
    gold, run = files
    argv = ["evaluate", gold, run, "-m", "MRR@5", "--format", "json", "--per-query"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    result = json.loads(out)
    entry = result["runs"][0]
    assert entry["name"] == "bm25"  # the file stem
    assert list(entry["aggregate"]) == ["MRR@5"]
    assert entry["aggregate"]["MRR@5"] == pytest.approx(0.5)  # (1/2 + 1 + 0) / 3
    assert entry["queries"]["MRR@5"] == 3
    # one query's value is never called MRR (the spec): it is RR@5, its mean MRR@5
    assert entry["per_query"] == {
        "q1": {"RR@5": 0.5},
        "q2": {"RR@5": 1.0},
        "q3": {"RR@5": 0.0},
    }
    assert "ragrecall averaging" in result["policy"]
    assert err == ""


def test_json_without_per_query_has_no_per_query(files, capsys):
    gold, run = files
    _, out, _ = run_cli(capsys, ["evaluate", gold, run, "-m", "Recall@3", "--format", "json"])
    entry = json.loads(out)["runs"][0]
    assert "per_query" not in entry
    assert entry["aggregate"]["Recall@3"] == pytest.approx(2 / 3)


def test_k_adds_the_default_set_at_that_cutoff(files, capsys):
    gold, run = files
    argv = ["evaluate", gold, run, "-m", "MRR@5", "-k", "3", "--format", "json"]
    _, out, _ = run_cli(capsys, argv)
    aggregate = json.loads(out)["runs"][0]["aggregate"]
    assert list(aggregate) == ["MRR@5", *default_measures([3])]
    assert {"Recall@3", "Hit@3", "MRR@3", "P@3", "nDCG@3", "Judged@3"} <= set(aggregate)
    assert aggregate["Recall@3"] == pytest.approx(2 / 3)
    assert aggregate["Hit@3"] == pytest.approx(2 / 3)
    assert aggregate["P@3"] == pytest.approx(2 / 9)  # (1/3 + 1/3 + 0) / 3


def test_two_cutoffs_and_no_measure(files, capsys):
    gold, run = files
    _, out, _ = run_cli(capsys, ["evaluate", gold, run, "-k", "1", "-k", "3", "--format", "json"])
    aggregate = json.loads(out)["runs"][0]["aggregate"]
    assert list(aggregate) == default_measures([1, 3])
    assert aggregate["Recall@1"] == pytest.approx(1 / 3)  # only q2 at rank 1


def test_no_measure_and_no_k_gives_the_default_set(files, capsys):
    gold, run = files
    _, out, _ = run_cli(capsys, ["evaluate", gold, run, "--format", "json"])
    assert list(json.loads(out)["runs"][0]["aggregate"]) == default_measures()


@pytest.mark.parametrize(("fmt", "sep"), [("tsv", "\t"), ("csv", ",")])
def test_long_form_with_a_header(files, capsys, fmt, sep):
    gold, run = files
    argv = ["evaluate", gold, run, "-m", "Recall@3", "-m", "RR@3", "--format", fmt, "--per-query"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0
    assert out.splitlines()[0] == sep.join(["run", "query_id", "measure", "value", "scope"])
    rows = list(csv.DictReader(io.StringIO(out), delimiter=sep))
    values = {(r["run"], r["query_id"], r["measure"], r["scope"]): float(r["value"]) for r in rows}
    assert values[("bm25", "q1", "RR@3", "query")] == 0.5
    assert values[("bm25", "q3", "Recall@3", "query")] == 0.0
    assert values[("bm25", "", "Recall@3", "mean")] == pytest.approx(0.6667, abs=1e-4)
    assert len(rows) == 2 * 3 + 2  # every query and measure, then the two means


@pytest.mark.parametrize(("fmt", "sep"), [("tsv", "\t"), ("csv", ",")])
def test_long_form_neutralises_cells_a_spreadsheet_would_run(tmp_path, capsys, fmt, sep):
    """A query id or run name from a file that a spreadsheet reads as a formula (the CSV
    opened in one) is prefixed with ' as in the report, the pool and the exports; --format
    json keeps every id exactly."""
    link = '=HYPERLINK("http://evil.example","x")'
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(link, ["a"]), gold_row("-1", ["b"])])
    run = write_jsonl(tmp_path / "@run.jsonl", [run_row(link, ["a"]), run_row("-1", ["b"])])
    argv = ["evaluate", gold, run, "-m", "Recall@3", "--format", fmt, "--per-query"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out), delimiter=sep))
    assert {r["query_id"] for r in rows} == {"'" + link, "'-1", ""}
    assert {r["run"] for r in rows} == {"'@run"}
    _, out, _ = run_cli(capsys, [*argv[:-2], "json", "--per-query"])
    (shown,) = json.loads(out)["runs"]
    assert shown["name"] == "@run" and set(shown["per_query"]) == {link, "-1"}


def test_long_form_without_per_query_has_only_the_means(files, capsys):
    gold, run = files
    _, out, _ = run_cli(capsys, ["evaluate", gold, run, "-m", "Recall@3", "--format", "csv"])
    assert out.splitlines() == ["run,query_id,measure,value,scope", "bm25,,Recall@3,0.6667,mean"]


def test_table_is_readable(files, capsys):
    gold, run = files
    argv = ["evaluate", gold, run, "-m", "Recall@3", "-m", "MRR@3", "--per-query"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0
    lines = out.splitlines()
    assert "Recall@3" in lines[0] and "MRR@3" in lines[0]
    assert lines[0].index("Recall@3") < lines[0].index("MRR@3")  # in the order asked
    row = next(line for line in lines if line.startswith("bm25 "))
    assert row.split() == ["bm25", "0.6667", "0.5000"]
    assert "policy:" in out and "queries per mean" in out
    assert "q1" in out and "Traceback" not in out


def test_table_shows_warnings_and_no_answer_counts(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("na", [])])
    run = write_jsonl(tmp_path / "r.jsonl", [run_row("q1", ["a"]), run_row("na", ["b"])])
    run2 = write_jsonl(tmp_path / "s.jsonl", [run_row("q1", ["a"]), run_row("zz", ["b"])])
    code, out, _ = run_cli(capsys, ["evaluate", gold, run, run2, "-m", "Recall@3"])
    assert code == 0
    assert "1 no-answer query outside" in out
    assert "warning: s:" in out and "zz" in out


def test_two_runs_in_order(files, tmp_path, capsys):
    gold, run = files
    other = write_jsonl(tmp_path / "dense.jsonl", [run_row("q3", ["doc-c"])])
    _, out, _ = run_cli(
        capsys, ["evaluate", gold, run, other, "-m", "Recall@3", "--format", "json"]
    )
    runs = json.loads(out)["runs"]
    assert [r["name"] for r in runs] == ["bm25", "dense"]
    assert runs[1]["aggregate"]["Recall@3"] == pytest.approx(1 / 3)  # q1, q2 missing = 0


def test_exit_codes(files, tmp_path, capsys):
    gold, run = files
    assert run_cli(capsys, ["evaluate", gold, run])[0] == 0
    code, out, err = run_cli(capsys, ["evaluate", gold, tmp_path / "nope.jsonl"])
    assert code == 2 and out == ""
    assert "nope.jsonl" in err and "Traceback" not in err


def test_usage_error_exits_2(files, capsys):
    gold, run = files
    with pytest.raises(SystemExit) as error:
        run_cli(capsys, ["evaluate", gold, run, "--format", "yaml"])
    assert error.value.code == 2
    assert "yaml" in capsys.readouterr().err


def test_console_script_reports_bad_input_without_a_traceback(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    bad = tmp_path / "run.jsonl"
    bad.write_text('{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 0}]}\n', "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "ragrecall_core", "evaluate", str(gold), str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{bad}:1" in result.stderr and "rank" in result.stderr


def test_a_programming_error_keeps_its_traceback(files, monkeypatch):
    """Only input failures become exit 2; a bug must stay visible, not hide behind a message."""
    import ragrecall_core.cli as cli

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "evaluate", broken)
    gold, run = files
    with pytest.raises(KeyError):
        cli.main(["evaluate", str(gold), str(run)])


# ---------------------------------------------------------------- start-up (issue 13)
HEAVY = ("pandas", "duckdb", "numpy", "scipy", "plotly", "pyarrow", "streamlit")

START_UP = """
import sys
from ragrecall_core.cli import main
for argv in {argvs!r}:
    try:
        main(argv)
    except SystemExit:
        pass
print("imported:", *(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize(
    "argvs",
    [
        [["--help"]],
        [["compare", "--help"], ["check", "--help"], ["evaluate", "--help"], ["ui", "--help"]],
        [["evaluate"], ["compare", "gold.jsonl"], ["nonsense"]],  # usage errors: exit 2
    ],
)
def test_help_and_usage_errors_import_no_data_library(argvs):
    """``ragrecall --help`` answers at once: pandas, DuckDB, numpy, scipy and plotly are
    imported by the command that runs, not by parsing its options."""
    done = subprocess.run(
        [sys.executable, "-c", START_UP.format(argvs=argvs, heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "imported:"


def test_the_public_names_load_on_first_use():
    code = (
        "import sys, ragrecall_core\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
        "from ragrecall_core import evaluate, Workspace, Policy, InputError, parse_measure\n"
        "from ragrecall_core.scoring.evaluate import evaluate as real\n"
        "print(evaluate is real, Workspace.__name__, Policy.__name__, InputError.__name__)\n"
        "try:\n"
        "    ragrecall_core.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "",
        "True Workspace Policy InputError",
        "module 'ragrecall_core' has no attribute 'no_such_name'",
    ]


@pytest.mark.parametrize("fmt", ["table", "tsv", "json"])
def test_evaluating_files_needs_no_pandas(files, fmt):
    """``ragrecall evaluate`` on files is DuckDB and plain Python: importing pandas and numpy
    (about 0.4 s) is left to what needs frames (``--per-query`` tables, the dashboard)."""
    gold, run = files
    argv = [["evaluate", str(gold), str(run), "--format", fmt]]
    done = subprocess.run(
        [sys.executable, "-c", START_UP.format(argvs=argv, heavy=("pandas", "numpy", "scipy"))],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Recall@5" in done.stdout
    assert done.stdout.splitlines()[-1] == "imported:"


def test_running_out_of_memory_while_scoring_is_one_line_not_a_traceback(
    files, monkeypatch, capsys
):
    """Loaders name the file that did not fit; past loading, the limit is still named."""
    import duckdb

    import ragrecall_core.cli as cli

    def too_big(*args, **kwargs):
        raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")

    monkeypatch.setattr(cli, "evaluate", too_big)
    gold, run = files
    assert cli.main(["evaluate", str(gold), str(run), "--memory-limit", "1GB"]) == 2
    err = capsys.readouterr().err
    assert "--memory-limit" in err and "Traceback" not in err
