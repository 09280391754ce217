"""Attack: a malformed value in any input format is refused, never rounded, dropped or coerced.

Issue 10, section 3. Each case writes a gold set, a run and (sometimes) a grades file, one of
them holding one bad value, and checks twice: through the Python API (an ``InputError``
whose problem names the file, the line, the value and what was expected) and through
``ragrecall evaluate`` (exit 2, that problem on stderr, no traceback). Parquet files are
written by DuckDB from a SQL query, so their columns carry real DOUBLE / NULL values.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.inputs import readers, runs
from tests.helpers import load_problems, per_query, run_cli, run_row, write_text

GOLD_JSONL = (
    '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
    '{"id": "q2", "query": "y", "relevant_ids": ["b"]}\n'
)
RUN_JSONL = (
    '{"id": "q1", "retrieved": [{"chunk_id": "a", "rank": 1, "score": 0.9}]}\n'
    '{"id": "q2", "retrieved": [{"chunk_id": "b", "rank": 1, "score": 0.8}]}\n'
)
RUN_CSV = "query_id,chunk_id,rank,score\nq1,a,1,0.9\n"
RUN_PARQUET = "SELECT 'q1' AS query_id, 'a' AS chunk_id, 1 AS rank, 0.9::DOUBLE AS score"
GRADES_CSV = "query_id,chunk_id,grade\nq1,a,2\n"


def run_jsonl_item(item: str) -> str:
    """A run whose second line's only item is ``item`` (raw JSON text)."""
    return RUN_JSONL.splitlines()[0] + '\n{"id": "q2", "retrieved": [' + item + "]}\n"


def parquet_run(rank: str = "2", score: str = "0.5", chunk: str = "'b'") -> str:
    return f"{RUN_PARQUET} UNION ALL SELECT 'q2', {chunk}, {rank}, {score}"


# (case id, {role: (file name, text or a SQL query for .parquet)}, bad role, line, value, expected)
CASES = [
    # --- a gold "grades" map grading a chunk relevant that relevant_ids does not list ----
    # (it was made relevant silently; under relevant_ids [] a no-answer query answerable)
    (
        "gold-graded-unlisted",
        {
            "gold": (
                "gold.jsonl",
                '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
                '{"id": "q2", "query": "y", "relevant_ids": ["b"], "grades": {"b": 2, "c": 1}}\n',
            )
        },
        "gold",
        2,
        '["c"]',
        'each chunk graded 1 or more in "grades" listed in relevant_ids',
    ),
    (
        "gold-long-no-answer-row-beside-a-relevant-one",
        {"gold": ("gold.csv", "query_id,chunk_id,grade\nq1,a,1\nq2,,\nq2,b,2\n")},
        "gold",
        3,
        "q2",
        "no relevant chunk for a query an empty chunk_id marks as having no answer",
    ),
    (
        "gold-no-answer-graded-relevant",
        {
            "gold": (
                "gold.jsonl",
                '{"id": "q1", "query": "x", "relevant_ids": ["a"]}\n'
                '{"id": "q2", "query": "y", "relevant_ids": [], "grades": {"b": 2}}\n',
            )
        },
        "gold",
        2,
        '["b"]',
        "[] in relevant_ids is a no-answer query",
    ),
    # --- non-finite scores ------------------------------------------------------------
    *[
        (
            f"jsonl-score-{literal}",
            {
                "run": (
                    "run.jsonl",
                    run_jsonl_item(f'{{"chunk_id": "b", "rank": 1, "score": {literal}}}'),
                )
            },
            "run",
            2,
            literal,
            "a finite numeric score",
        )
        for literal in ("NaN", "Infinity", "-Infinity")
    ],
    *[
        (
            f"trec-score-{literal}",
            {"run": ("run.trec", f"q1 Q0 a 1 0.9 t\nq2 Q0 b 1 {literal} t\n")},
            "run",
            2,
            literal,
            "a finite numeric score",
        )
        for literal in ("NaN", "Infinity", "-inf")
    ],
    *[
        (
            f"csv-score-{literal}",
            {"run": ("run.csv", f"{RUN_CSV}q2,b,1,{literal}\n")},
            "run",
            3,
            literal,
            "a finite numeric score",
        )
        for literal in ("nan", "inf", "-Infinity")
    ],
    *[
        (
            f"parquet-score-{literal}",
            {"run": ("run.parquet", parquet_run(score=f"'{literal}'::DOUBLE"))},
            "run",
            2,
            literal,
            "a finite numeric score",
        )
        for literal in ("nan", "inf", "-inf")
    ],
    # --- fractional ranks ----------------------------------------------------------------
    (
        "jsonl-rank-1.5",
        {"run": ("run.jsonl", run_jsonl_item('{"chunk_id": "b", "rank": 1.5, "score": 1}'))},
        "run",
        2,
        "1.5",
        "a rank that is a positive integer",
    ),
    (
        "jsonl-rank-over-bigint",
        {
            "run": (
                "run.jsonl",
                run_jsonl_item('{"chunk_id": "b", "rank": 18446744073709551615, "score": 1}'),
            )
        },
        "run",
        2,
        "18446744073709551615",
        "a rank that is a positive integer",
    ),
    (
        "csv-rank-1.5",
        {"run": ("run.csv", f"{RUN_CSV}q2,b,1.5,0.5\n")},
        "run",
        3,
        "1.5",
        "a rank that is a positive integer",
    ),
    (
        "parquet-rank-1.5",
        {"run": ("run.parquet", parquet_run(rank="1.5::DOUBLE"))},
        "run",
        2,
        "1.5",
        "a rank that is a positive integer",
    ),
    (
        "trec-rank-1.5",
        {"run": ("run.trec", "q1 Q0 a 1 0.9 t\nq2 Q0 b 1.5 0.5 t\n")},
        "run",
        2,
        "1.5",
        "a rank that is a positive integer",
    ),
    # --- run items without a chunk id --------------------------------------------------
    (
        "jsonl-chunk-null",
        {"run": ("run.jsonl", run_jsonl_item('{"chunk_id": null, "rank": 1, "score": 1}'))},
        "run",
        2,
        "null",
        '"chunk_id"',
    ),
    (
        "jsonl-chunk-missing",
        {"run": ("run.jsonl", run_jsonl_item('{"rank": 1, "score": 1}'))},
        "run",
        2,
        '"rank"',
        '"chunk_id"',
    ),
    (
        "csv-chunk-empty",
        {"run": ("run.csv", f"{RUN_CSV}q2,,1,0.5\n")},
        "run",
        3,
        "",
        "a chunk_id",
    ),
    (
        "parquet-chunk-null",
        {"run": ("run.parquet", parquet_run(chunk="NULL"))},
        "run",
        2,
        "",
        "a chunk_id",
    ),
    # --- non-string ids in JSON lines (refused, not coerced) ---------------------------------
    (
        "jsonl-run-id-number",
        {"run": ("run.jsonl", RUN_JSONL.replace('"id": "q2"', '"id": 5'))},
        "run",
        2,
        '"id": 5',
        '"id" to be a string',
    ),
    (
        "jsonl-run-chunk-number",
        {"run": ("run.jsonl", run_jsonl_item('{"chunk_id": 7, "rank": 1, "score": 1}'))},
        "run",
        2,
        '"q2" retrieved[1]: "chunk_id": 7',  # as the file writes it (stop 49)
        '"chunk_id"',
    ),
    (
        "jsonl-gold-id-number",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('"id": "q2"', '"id": 5'))},
        "gold",
        2,
        '"id": 5',
        '"id" to be a string',
    ),
    (
        "jsonl-gold-relevant-number",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', "[1]"))},
        "gold",
        2,
        "[1]",
        "every relevant id to be a non-empty string",
    ),
    # --- JSON that is not strict JSON ----------------------------------------------------------
    (
        "jsonl-run-trailing-comma-object",
        {"run": ("run.jsonl", RUN_JSONL.replace("0.8}]}", "0.8}],}"))},
        "run",
        2,
        ",}",
        "no trailing comma",
    ),
    (
        "jsonl-run-trailing-comma-list",
        {"run": ("run.jsonl", RUN_JSONL.replace("0.8}]}", "0.8}, ]}"))},
        "run",
        2,
        ", ]",
        "no trailing comma",
    ),
    (
        "jsonl-gold-trailing-comma",
        {"gold": ("gold.jsonl", GOLD_JSONL + '{"id":"q3","query":"z","relevant_ids":["c"],}\n')},
        "gold",
        3,
        ",}",
        "no trailing comma",
    ),
    # --- TREC lines with the wrong number of fields -------------------------------------------
    # (a run line's fields after the tag are ignored, as trec_eval ignores them:
    # tests/adversarial/test_fast_path_typing.py)
    (
        "trec-run-5-fields",
        {"run": ("run.trec", "q1 Q0 a 1 0.9 t\nq2 Q0 b 1 0.5\n")},
        "run",
        2,
        "q2 Q0 b 1 0.5",
        "6 fields",
    ),
    (
        "trec-qrels-5-fields",
        {"gold": ("gold.qrels", "q1 0 a 1\nq2 0 b 1 extra\n")},
        "gold",
        2,
        "q2 0 b 1 extra",
        "4 fields",
    ),
    # --- fractional and negative grades in gold ----------------------------------------------
    (
        "trec-qrels-grade-1.5",
        {"gold": ("gold.qrels", "q1 0 a 1\nq2 0 b 1.5\n")},
        "gold",
        2,
        "1.5",
        "an integer grade",
    ),
    (
        "csv-gold-grade-1.5",
        {"gold": ("gold.csv", "query_id,chunk_id,grade\nq1,a,1\nq2,b,1.5\n")},
        "gold",
        3,
        "1.5",
        "a grade that is a whole number, 0 or more",
    ),
    (
        "parquet-gold-grade-1.5",
        {
            "gold": (
                "gold.parquet",
                "SELECT * FROM (VALUES ('q1', 'a', 1.0), ('q2', 'b', 1.5)) "
                "t(query_id, chunk_id, grade)",
            )
        },
        "gold",
        2,
        "1.5",
        "a grade that is a whole number, 0 or more",
    ),
    (
        "csv-gold-grade-negative",
        {"gold": ("gold.csv", "query_id,chunk_id,grade\nq1,a,1\nq2,b,-1\n")},
        "gold",
        3,
        "-1",
        "a grade that is a whole number, 0 or more",
    ),
    (
        "parquet-gold-grade-negative",
        {
            "gold": (
                "gold.parquet",
                "SELECT * FROM (VALUES ('q1', 'a', 1), ('q2', 'b', -2)) "
                "t(query_id, chunk_id, grade)",
            )
        },
        "gold",
        2,
        "-2",
        "a grade that is a whole number, 0 or more",
    ),
    (
        "jsonl-gold-grades-negative",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "grades": {"b": -1}'))},
        "gold",
        2,
        '"grades": {"b": -1}',
        "whole-number grades, 0 or more",
    ),
    (
        "jsonl-gold-grades-fraction",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "grades": {"b": 1.5}'))},
        "gold",
        2,
        '"grades": {"b": 1.5}',
        "whole-number grades, 0 or more",
    ),
    (
        "jsonl-gold-grades-repeated-key",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "grades": {"b": 2, "b": 0}'))},
        "gold",
        2,
        '"b":2,"b":0',
        '"grades" keyed by non-empty chunk ids, each once',
    ),
    (
        "jsonl-gold-relevant-id-graded-0",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "grades": {"b": 0}'))},
        "gold",
        2,
        '"b"',
        "a grade of 1 or more for each chunk in relevant_ids",
    ),
    (
        "jsonl-gold-grades-empty-key",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "grades": {" ": 2}'))},
        "gold",
        2,
        '" ":2',
        '"grades" keyed by non-empty chunk ids, each once',
    ),
    # --- a key repeated on one JSON line (JSON parsers keep one value, silently) -----------
    (
        "jsonl-gold-repeated-relevant-ids",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "relevant_ids": []'))},
        "gold",
        2,
        "relevant_ids",
        "each key once per line",
    ),
    (
        "jsonl-gold-repeated-metadata-key",
        {"gold": ("gold.jsonl", GOLD_JSONL.replace('["b"]', '["b"], "team": 1, "team": 2'))},
        "gold",
        2,
        "team",
        "each key once per line",
    ),
    (
        "jsonl-gold-rationale-repeated-key",
        {
            "gold": (
                "gold.jsonl",
                GOLD_JSONL.replace('["b"]', '["b"], "rationale": {"b": "one", "b": "two"}'),
            )
        },
        "gold",
        2,
        '"b":"one","b":"two"',
        '"rationale" keyed by non-empty chunk ids, each once',
    ),
    (
        "jsonl-run-repeated-retrieved",
        {"run": ("run.jsonl", RUN_JSONL.replace("]}\n", '], "retrieved": []}\n', 1))},
        "run",
        1,
        "retrieved",
        "each key once per line",
    ),
    (
        "jsonl-run-repeated-id",
        {"run": ("run.jsonl", RUN_JSONL.replace('{"id": "q2",', '{"id": "q2", "id": "q1",'))},
        "run",
        2,
        "id",
        "each key once per line",
    ),
    (
        "jsonl-run-item-repeated-chunk-id",
        {"run": ("run.jsonl", run_jsonl_item('{"chunk_id": "b", "chunk_id": "z", "rank": 1}'))},
        "run",
        2,
        "chunk_id",
        "each key once per item",
    ),
    (
        "jsonl-grades-repeated-grade",
        {
            "grades": (
                "anna.jsonl",
                '{"query_id": "q1", "chunk_id": "a", "grade": 2}\n'
                '{"query_id": "q2", "chunk_id": "b", "grade": 2, "grade": 0}\n',
            )
        },
        "grades",
        2,
        "grade",
        "each key once per line",
    ),
    # --- CSV headers that DuckDB would rename (x,x -> x, x_1; an empty one -> column2) ------
    (
        "csv-run-header-repeated",
        {"run": ("run.csv", "query_id,chunk_id,rank,score,score\nq1,a,1,0.9,0.1\n")},
        "run",
        1,
        "score",
        "each column named once",
    ),
    (
        "csv-run-header-repeated-other-case",
        {"run": ("run.csv", "query_id,chunk_id,rank,Rank\nq1,a,1,2\n")},
        "run",
        1,
        "Rank",
        "each column named once",
    ),
    (
        "csv-gold-header-empty",
        {"gold": ("gold.csv", "query_id,chunk_id,,grade\nq1,a,x,1\nq2,b,y,1\n")},
        "gold",
        1,
        "column 3",
        "a non-empty column name",
    ),
    (
        "csv-grades-header-repeated",
        {"grades": ("anna.csv", "query_id,chunk_id,grade,grade\nq1,a,2,0\n")},
        "grades",
        1,
        "grade",
        "each column named once",
    ),
    # --- long-form gold: one query's rows disagree about it (one value was kept silently) ---
    *[
        (
            f"csv-gold-{field}-differs-between-rows",
            {"gold": ("gold.csv", f"query_id,chunk_id,{field}\nq1,a,x\nq1,b,y\nq2,b,x\n")},
            "gold",
            3,
            f"{field} y",
            f"one {field} per query, as on its first row",
        )
        for field in ("query", "query_type", "section", "split")
    ],
    # --- grades files -----------------------------------------------------------------------
    *[
        (
            f"jsonl-grades-{literal}",
            {
                "grades": (
                    "anna.jsonl",
                    '{"query_id": "q1", "chunk_id": "a", "grade": 2}\n'
                    f'{{"query_id": "q2", "chunk_id": "b", "grade": {literal}}}\n',
                )
            },
            "grades",
            2,
            literal,
            "a grade of 2 (relevant), 1 (partial) or 0 (not relevant)",
        )
        for literal in ("1.5", "3", "-1", "NaN")
    ],
    *[
        (
            f"csv-grades-{literal}",
            {"grades": ("anna.csv", f"{GRADES_CSV}q2,b,{literal}\n")},
            "grades",
            3,
            literal,
            "a grade of 2 (relevant), 1 (partial) or 0 (not relevant)",
        )
        for literal in ("1.5", "3", "-1", "NaN")
    ],
]


def write_input(path: Path, content: str) -> Path:
    """Write ``content``; for a ``.parquet`` name, ``content`` is the query whose rows it holds."""
    if path.suffix == ".parquet":
        duckdb.connect().execute(f"COPY ({content}) TO '{path}' (FORMAT parquet)")
        return path
    return write_text(path, content)


def write_case(tmp_path: Path, files: dict[str, tuple[str, str]]) -> dict[str, Path]:
    """The case's files, the defaults (JSON-lines gold and run) for the roles it leaves out."""
    chosen = {"gold": ("gold.jsonl", GOLD_JSONL), "run": ("run.jsonl", RUN_JSONL), **files}
    return {role: write_input(tmp_path / name, text) for role, (name, text) in chosen.items()}


@pytest.mark.parametrize(
    ("files", "role", "line", "value", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_bad_value_is_refused(tmp_path, capsys, files, role, line, value, expected):
    paths = write_case(tmp_path, files)
    grades = [paths["grades"]] if "grades" in paths else []
    bad = str(paths[role])

    problems = load_problems(paths["gold"], [paths["run"]], grades)
    assert [(p.file, p.line) for p in problems] == [(bad, line)], problems
    (problem,) = problems
    assert value in problem.value, problem
    assert expected in problem.expected, problem

    argv = ["evaluate", paths["gold"], paths["run"], *[a for g in grades for a in ("--grades", g)]]
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    assert str(problem) in err, err


@pytest.mark.parametrize("policy", [Policy(), Policy(compat="trec_eval")], ids=["ours", "trec"])
def test_negative_trec_qrels_grade_is_in_the_pool_but_unjudged(tmp_path, policy):
    """trec_eval reads a negative relevance as in the pool but unjudged (its Judged@5 of
    query 303 in its own test data is 0.8, not 1.0): the numbers equal those of the same
    qrels without those lines, and the chunk is never relevant."""
    run = write_text(tmp_path / "run.trec", "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.8 t\nq2 Q0 c 1 0.9 t\n")
    negative = write_text(tmp_path / "neg.qrels", "q1 0 a -1\nq1 0 b 1\nq2 0 c -2\nq2 0 d 2\n")
    absent = write_text(tmp_path / "absent.qrels", "q1 0 b 1\nq2 0 d 2\n")
    measures = ["P@1", "P@2", "Recall@2", "RR", "AP", "nDCG@2", "Judged@2"]
    results = [
        evaluate(Workspace.from_files(gold, [run]), measures, policy=policy)
        for gold in (negative, absent)
    ]
    for measure in measures:
        got, want = (per_query(r, "run", measure) for r in results)
        assert got == want, (measure, got, want)
    assert per_query(results[0], "run", "Judged@2") == {"q1": 0.5, "q2": 0.0}
    assert per_query(results[0], "run", "P@1") == {"q1": 0.0, "q2": 0.0}


def test_commas_and_number_words_inside_strings_are_plain_text(tmp_path):
    """The trailing-comma test looks at the text; a comma before a bracket inside a string
    is not a trailing comma, and the file loads with the same numbers as a plain one."""
    odd = write_text(
        tmp_path / "odd.jsonl",
        '{"id": "q1", "retrieved": [{"chunk_id": "a,}", "rank": 1, "score": 1}, '
        '{"chunk_id": "a", "rank": 2, "score": 0.5}]}\n'
        '{"id": "q2", "retrieved": [{"chunk_id": "NaN, ]", "rank": 1, "score": 1}]}\n',
    )
    gold = write_text(
        tmp_path / "gold.jsonl",
        '{"id": "q1", "query": "x,}", "relevant_ids": ["a"]}\n'
        '{"id": "q2", "query": "y", "relevant_ids": ["NaN, ]"]}\n',
    )
    evaluation = evaluate(Workspace.from_files(gold, [odd]), ["RR"])
    assert per_query(evaluation, "odd", "RR") == {"q1": 0.5, "q2": 1.0}


def test_whole_numbers_written_as_decimals_are_accepted(tmp_path):
    """``2.0`` (a Parquet DOUBLE column, pandas' habit) is the whole number 2, not 1.5."""
    gold = write_input(
        tmp_path / "gold.parquet",
        "SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q2', 'b', 1.0)) t(query_id, chunk_id, grade)",
    )
    run = write_input(tmp_path / "run.csv", "query_id,chunk_id,rank,score\nq1,a,1.0,1\nq2,x,1,1\n")
    grades = write_text(tmp_path / "anna.csv", "query_id,chunk_id,grade\nq2,x,2\n")
    evaluation = evaluate(Workspace.from_files(gold, [run], [grades]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"q1": 1.0, "q2": 0.5}


def refuse_slow_path(*args):
    raise AssertionError("a valid run must load through the typed path")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("run.jsonl", RUN_JSONL),
        ("run.jsonl", RUN_JSONL.replace("\n", "\r\n   \r\n")),  # CRLF, blank lines
        ("run.trec", "q1 Q0 a 1 0.9 t\nq2 Q0 b 1 0.5 t\n"),
        ("run.csv", f"{RUN_CSV}q2,b,1,0.5\n"),
        ("run.parquet", parquet_run(rank="1")),
    ],
)
def test_valid_runs_keep_the_typed_fast_path(tmp_path, monkeypatch, name, content):
    """The new checks are whole-table tests on the typed read (finite scores, whole ranks,
    string ids), so a valid file never pays for the line-numbered validating read."""
    for slow in ("_load_jsonl_validating", "_load_trec_validating", "_load_long_validating"):
        monkeypatch.setattr(runs, slow, refuse_slow_path)
    paths = write_case(tmp_path, {"run": (name, content)})
    evaluation = evaluate(Workspace.from_files(paths["gold"], [paths["run"]]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"q1": 1.0, "q2": 1.0}


def test_typed_parquet_columns_read_as_their_text(tmp_path, capsys):
    """Integer ids and grades in Parquet gold, run and grades (MS MARCO's qids are integers)
    read as their digits; gold checks on text columns used to crash on them."""
    gold = write_input(
        tmp_path / "gold.parquet",
        "SELECT * FROM (VALUES (1, 10, 1), (2, 20, 2)) t(query_id, chunk_id, grade)",
    )
    run = write_input(
        tmp_path / "run.parquet",
        "SELECT * FROM (VALUES (1, 10, 1, 0.9), (2, 21, 1, 0.9), (2, 20, 2, 0.5)) "
        "t(query_id, chunk_id, rank, score)",
    )
    grades = write_input(
        tmp_path / "anna.parquet",
        "SELECT * FROM (VALUES (2, 21, 2, false)) t(query_id, chunk_id, grade, harmful)",
    )
    evaluation = evaluate(Workspace.from_files(gold, [run], [grades]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"1": 1.0, "2": 0.5}
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "--grades", grades])
    assert code == 0, err


def test_csv_ids_keep_their_leading_zeros(tmp_path):
    """DuckDB's CSV sniffer types a column of digits as a number ("007" becomes 7); ids are
    text, so the run's "007" must still meet the gold set's "007"."""
    gold = write_text(tmp_path / "gold.csv", "query_id,chunk_id\n007,0042\n010,0043\n")
    run = write_text(
        tmp_path / "run.csv", "query_id,chunk_id,rank,score\n007,0042,1,0.9\n010,0043,1,0.9\n"
    )
    evaluation = evaluate(Workspace.from_files(gold, [run]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"007": 1.0, "010": 1.0}


def test_a_header_named_line_is_a_column_like_any_other(tmp_path):
    """The staged row number is called ``line``; a file's own ``line`` column must neither
    replace it (problems would name the file's numbers) nor be renamed ``line_1``."""
    run = write_text(
        tmp_path / "run.csv", "line,query_id,chunk_id,rank,score\n99,q1,a,1,0.9\n98,q2,b,0,0.5\n"
    )
    problems = load_problems(write_input(tmp_path / "gold.jsonl", GOLD_JSONL), [run])
    assert [(p.line, p.value) for p in problems] == [(3, "rank 0")], problems

    con = duckdb.connect()
    columns = readers.stage_table_rows(con, run, readers.CSV, "staged")
    assert columns == ["line", "query_id", "chunk_id", "rank", "score"]
    rows = con.execute("SELECT line, rec.line, rec.query_id FROM staged ORDER BY line").fetchall()
    assert rows == [(2, "99", "q1"), (3, "98", "q2")]


def test_a_repeated_key_a_run_item_does_not_use_is_ignored_on_both_paths(tmp_path):
    """An item's unknown keys are not read, so their repeats change nothing: the file loads
    the same through the typed path and through the validating one (forced here by a second
    run whose only problem sends it there)."""
    item = '{"chunk_id": "b", "rank": 1, "score": 0.5, "note": 1, "note": 2}'
    gold = write_input(tmp_path / "gold.jsonl", GOLD_JSONL)
    run = write_text(tmp_path / "run.jsonl", run_jsonl_item(item))
    evaluation = evaluate(Workspace.from_files(gold, [run]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"q1": 1.0, "q2": 1.0}
    bad = write_text(tmp_path / "bad.jsonl", run_jsonl_item(item) + '{"id": "q3"}\n')
    problems = load_problems(gold, [bad])
    assert [(p.line, p.expected) for p in problems] == [(3, problems[0].expected)]
    assert "retrieved" in problems[0].expected


def test_a_repeated_key_a_run_line_does_not_use_is_ignored_on_both_paths(tmp_path):
    """A run line's keys but "id" and "retrieved" are not read, so their repeats change
    nothing, as an item's do not: the file loads the same through the typed path and
    through the validating one (forced by a second run whose only problem sends it there).
    (Refused until stop 53, which cost the typed read a parse of every line's keys.)"""
    repeated = RUN_JSONL.replace('{"id": "q2",', '{"id": "q2", "x": 1, "x": 2, "\\u0078": 3,')
    assert '"x": 1, "x": 2' in repeated
    gold = write_input(tmp_path / "gold.jsonl", GOLD_JSONL)
    run = write_text(tmp_path / "run.jsonl", repeated)
    plain = write_text(tmp_path / "plain.jsonl", RUN_JSONL)
    measured = evaluate(Workspace.from_files(gold, [run, plain]), ["Recall@1", "RR@10"])
    for measure in ("Recall@1", "RR@10"):
        assert per_query(measured, "run", measure) == per_query(measured, "plain", measure)
    bad = write_text(tmp_path / "bad.jsonl", repeated + '{"id": "q3"}\n')
    problems = load_problems(gold, [bad])
    assert [p.line for p in problems] == [3]
    assert "retrieved" in problems[0].expected


@pytest.mark.parametrize("role", ["gold", "run", "grades"])
def test_a_parquet_column_named_twice_is_refused(tmp_path, capsys, role):
    """DuckDB reads a Parquet file with two ``rank`` (or ``grade``) columns as ``rank,
    rank_1`` and would use the first silently; the file is refused, naming the column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {
        "gold": (["q1", "q2"], ["a", "b"], [1, 1], [2, 2]),
        "run": (["q1", "q2"], ["a", "b"], [1, 1], [2, 2]),
        "grades": (["q1", "q2"], ["a", "b"], [2, 2], [0, 0]),
    }[role]
    repeated = {"gold": "grade", "run": "rank", "grades": "grade"}[role]
    names = ["query_id", "chunk_id", repeated, repeated]
    path = tmp_path / f"{role}.parquet"
    pq.write_table(pa.table([pa.array(c) for c in columns], names=names), path)
    paths = write_case(tmp_path, {})
    paths[role] = path
    grades = [paths["grades"]] if "grades" in paths else []

    problems = load_problems(paths["gold"], [paths["run"]], grades)
    assert [(p.file, p.line, p.value) for p in problems] == [(str(path), None, repeated)]
    assert problems[0].expected.startswith("each column named once")
    argv = ["evaluate", paths["gold"], paths["run"], *[a for g in grades for a in ("--grades", g)]]
    code, _, err = run_cli(capsys, argv)
    assert code == 2 and str(problems[0]) in err and "Traceback" not in err


def test_parquet_columns_are_the_top_level_names_whatever_they_nest(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "query_id": ["q1"],
            "meta": pa.array([{"a": 1, "b": {"c": 2}}]),
            "tags": pa.array([[1, 2]]),
            "rank": [1],
        }
    )
    pq.write_table(table, tmp_path / "nested.parquet")
    names = readers.parquet_columns(duckdb.connect(), tmp_path / "nested.parquet")
    assert names == ["query_id", "meta", "tags", "rank"]


@pytest.mark.parametrize("name", ["src", "SRC", "rec", "line", "src_1"])
def test_a_column_named_like_the_staging_names_is_data(tmp_path, name):
    """The row is staged as a struct through a table alias; a column named like that alias
    must not take its place (DuckDB resolves a column before an alias)."""
    run = write_text(
        tmp_path / "run.csv",
        f"query_id,chunk_id,rank,src,{name}\nq1,a,1,x,y\n"
        if name.lower() != "src"
        else f"query_id,chunk_id,rank,{name}\nq1,a,1,x\n",
    )
    con = duckdb.connect()
    columns = readers.stage_table_rows(con, run, readers.CSV, "staged")
    assert columns[:3] == ["query_id", "chunk_id", "rank"] and name in columns
    assert con.execute("SELECT rec.query_id FROM staged").fetchall() == [("q1",)]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("kim.csv", "query_id,chunk_id,grade,annotator\nq1,a,2,   \nq2,b,0, lea \n"),
        (
            "kim.jsonl",
            '{"query_id": "q1", "chunk_id": "a", "grade": 2, "annotator": "   "}\n'
            '{"query_id": "q2", "chunk_id": "b", "grade": 0, "annotator": " lea "}\n',
        ),
    ],
)
def test_a_blank_annotator_is_no_annotator(tmp_path, name, content):
    """A blank annotator cell is a missing one (the file's stem names it), and names are
    trimmed as the judgment store trims them, so one person is one annotator everywhere."""
    paths = write_case(tmp_path, {"grades": (name, content)})
    workspace = Workspace.from_files(paths["gold"], [paths["run"]], [paths["grades"]])
    rows = workspace.cursor().execute("SELECT query_id, annotator FROM grades ORDER BY 1")
    assert rows.fetchall() == [("q1", "kim"), ("q2", "lea")]


def test_relevant_ids_are_looked_up_in_grades_as_keys_not_paths(tmp_path):
    """Chunk ids with JSON-path characters: graded 2 they load, graded 0 they are refused."""
    odd = 'doc.1"[0]$'
    row = {"id": "q1", "query": "x", "relevant_ids": [odd], "grades": {odd: 2}}
    gold = write_text(tmp_path / "gold.jsonl", json.dumps(row) + "\n")
    run = write_text(tmp_path / "run.jsonl", json.dumps(run_row("q1", [odd])) + "\n")
    evaluation = evaluate(Workspace.from_files(gold, [run]), ["Recall@1"])
    assert per_query(evaluation, "run", "Recall@1") == {"q1": 1.0}
    row["grades"] = {odd: 0}
    write_text(gold, json.dumps(row) + "\n")
    (problem,) = load_problems(gold, [run])
    assert problem.line == 1 and odd.replace('"', '\\"') in problem.value


def test_a_column_named_like_the_alias_in_quotes_the_sniffer_picks_is_data(tmp_path):
    """DuckDB's sniffer may take ``'`` as the quote, where the csv module keeps it: the
    alias must avoid the names as DuckDB reads them (here ``src``)."""
    run = write_text(tmp_path / "run.csv", "query_id,chunk_id,rank,'src'\nq1,a,1,'x,y'\n")
    con = duckdb.connect()
    assert readers.stage_table_rows(con, run, readers.CSV, "staged")[-1] == "src"
    assert con.execute("SELECT rec.src FROM staged").fetchall() == [("x,y",)]
