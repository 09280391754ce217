"""Ids and names reach the terminal escaped (issue 26 item 7).

A query id or a run name is file text. Printed raw, a line break forges a line (a
``PASSED`` of its own), ``\\r`` or an ANSI escape erases or recolours one, U+2028 breaks
a line in some terminals and bidi controls reorder what is shown. Every text, table,
TSV / CSV and Markdown output of every command shows such characters as escapes
(``\\x1b``, ``\\u2028``); JSON keeps the exact values. So do error messages.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata

import pytest

from tests.helpers import gold_row, run_cli, run_row, write_jsonl

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
SEPARATORS = "\u2028\u2029\u0085"
# a query id and a run name holding C0 (ESC, CR, LF, TAB), DEL, C1 (CSI), bidi controls
# and line separators; each tries to forge a line starting with FORGED
QUERY = "q\x1b[2K\r\nFORGED PASSED\u2028\u2029\x85\u202e\u2066\u200f\u061c\x7f\x9b\t1"
RUN = "r\x1b[31m\rX\nFORGED\u2028\u202e\x9b"


def raw(text: str, allowed: str = "\n") -> list[str]:
    """The characters of ``text`` no terminal output may hold (as their escapes)."""
    bad = {
        c
        for c in text
        if c not in allowed and (unicodedata.category(c) == "Cc" or c in BIDI or c in SEPARATORS)
    }
    return sorted(c.encode("unicode_escape").decode() for c in bad)


def assert_safe(text: str, allowed: str = "\n") -> None:
    assert raw(text, allowed) == [], text
    assert not any(line.startswith("FORGED") for line in text.splitlines()), text


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("escapes")
    gold = write_jsonl(
        folder / "gold.jsonl",
        [gold_row(QUERY, ["c1"]), gold_row("q2", ["c2"]), gold_row(RUN, [])],
    )
    rows = [run_row(QUERY, ["c9"]), run_row("q2", ["c2"]), run_row(RUN, ["c2"])]
    candidate = write_jsonl(folder / "runs" / f"{RUN}.jsonl", rows)
    baseline = write_jsonl(
        folder / "runs" / "base.jsonl",
        [run_row(QUERY, ["c1"]), run_row("q2", ["c2"]), run_row(RUN, ["c1"])],
    )
    return {"folder": folder, "gold": gold, "candidate": candidate, "baseline": baseline}


def cli(capsys, *argv, code: int = 0, allowed: str = "\n") -> str:
    got, out, err = run_cli(capsys, argv)
    assert got == code, err or out
    assert_safe(out, allowed)
    assert_safe(err)
    return out


@pytest.mark.parametrize(
    "extra", [(), ("--per-query",), ("--per-query", "--format", "csv")], ids=str
)
def test_evaluate_tables_escape_ids_and_names(files, capsys, extra):
    out = cli(capsys, "evaluate", files["gold"], files["candidate"], *extra)
    assert "\\x1b[31m" in out  # the run name is shown, escaped
    if extra:
        assert "\\x1b[2K" in out and "\\u2028" in out and "\\u202e" in out


def test_evaluate_tsv_keeps_only_its_own_tabs(files, capsys):
    argv = ["evaluate", files["gold"], files["candidate"], "--per-query", "--format", "tsv"]
    out = cli(capsys, *argv, allowed="\n\t")
    assert {line.count("\t") for line in out.splitlines()} == {4}
    assert "\\t1" in out


def test_compare_escapes_ids_and_names(files, capsys):
    out = cli(capsys, "compare", files["gold"], files["baseline"], files["candidate"])
    assert "\\x1b[2K\\r\\nFORGED PASSED\\u2028" in out and "\\x1b[31m" in out


def test_check_escapes_ids_and_names_in_text_and_summary(files, tmp_path, capsys):
    summary = tmp_path / "gate.md"
    argv = ["check", files["gold"], files["candidate"], "--baseline", files["baseline"]]
    out = cli(capsys, *argv, "--summary", summary, code=1)
    assert out.rstrip().splitlines()[-1] == "FAILED"
    assert "regressed: q\\x1b[2K\\r\\nFORGED PASSED" in out
    markdown = summary.read_text("utf-8")
    assert_safe(markdown)
    shown = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)  # as CommonMark shows it
    assert "- q\\x1b[2K\\r\\nFORGED PASSED\\u2028" in shown


def test_json_keeps_the_exact_values(files, capsys):
    argv = ["check", files["gold"], files["candidate"], "--baseline", files["baseline"]]
    _, out, _ = run_cli(capsys, [*argv, "--format", "json"])
    data = json.loads(out)
    assert data["run"] == RUN and data["regressions"] == [QUERY]


def test_no_answer_escapes_ids_and_names(files, capsys):
    out = cli(capsys, "no-answer", files["gold"], files["candidate"])
    assert "\\x1b[31m" in out


def test_pool_escapes_run_names(files, tmp_path, capsys):
    out = cli(capsys, "pool", files["gold"], files["candidate"], "-o", tmp_path / "pool.jsonl")
    assert "\\x1b[31m" in out


def test_agreement_escapes_ids_and_annotators(tmp_path, capsys):
    def grades(name, grade):
        rows = [{"query_id": QUERY, "chunk_id": RUN, "grade": grade, "annotator": RUN + name}]
        return write_jsonl(tmp_path / f"{name}.jsonl", rows)

    out = cli(capsys, "agreement", grades("anna", 2), grades("ben", 0))
    assert "\\x1b[2K" in out and "\\x1b[31m" in out


def test_verdicts_escape_ids_and_names(files, tmp_path, capsys):
    verdict = {"run": RUN, "query_id": QUERY, "reason": "paraphrase", "note": QUERY}
    verdict |= {"owner": RUN, "recorded_by": RUN}
    imported = write_jsonl(tmp_path / "verdicts.jsonl", [verdict])
    cli(capsys, "verdicts", files["folder"], "--import", imported)
    out = cli(capsys, "verdicts", files["folder"])
    assert "\\x1b[2K" in out


def test_capture_summary_escapes_the_output_name(files, tmp_path, capsys, monkeypatch):
    (tmp_path / "escapes_retriever.py").write_text(
        "def search(text):\n    return ['c1']\n", "utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    output = tmp_path / f"{RUN}.jsonl"
    argv = ["capture", files["gold"], "--retriever", "escapes_retriever:search", "-o", output]
    out = cli(capsys, *argv)
    assert "\\x1b[31m" in out
    sys.modules.pop("escapes_retriever", None)


def test_errors_escape_file_names_and_values(tmp_path, capsys):
    gold = tmp_path / f"{RUN}.jsonl"
    gold.write_text(json.dumps({"id": QUERY, "query": 1, "relevant_ids": 5}) + "\n", "utf-8")
    run = write_jsonl(tmp_path / "run.jsonl", [run_row(QUERY, ["c1"])])
    got, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert got == 2 and out == ""
    assert_safe(err)
    assert "\\x1b[31m" in err


def test_report_names_a_hostile_split_escaped(tmp_path, capsys):
    split = "te\x1b[2K\rst\u2028\u202e"
    write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["c1"], split=split)])
    write_jsonl(tmp_path / "runs" / "bm25.jsonl", [run_row("q1", ["c1"])])
    out = cli(capsys, "report", tmp_path, "-o", tmp_path / "r.md", "--split", split)
    assert "te\\x1b[2K\\rst\\u2028\\u202e" in out


def test_a_problem_escapes_every_field():
    from ragrecall_core.errors import InputError, Problem

    error = InputError([Problem(RUN, 3, QUERY, f"a query id, not {QUERY}")])
    assert_safe(str(error))
    assert str(error).count("\\x1b[2K") == 2 and "\\u2028" in str(error)
