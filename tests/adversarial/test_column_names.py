"""Attacks on the column-name mapping of CSV and Parquet runs and gold (issue 14).

Other tools' names (``qid``, ``docno``, ``sim``, ...) are read as ragrecall's roles. A header
is the attacker's text: two candidates for one role are refused with both named, a repeat
after case folding is refused, and a header built like SQL, holding a line break or 10 kB
long changes nothing and is quoted at most 80 characters, on one line.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core import Workspace, evaluate
from tests.helpers import gold_row, load_problems, run_cli, write_jsonl, write_text

GOLD_ROWS = [gold_row("q1", ["c1"]), gold_row("q2", ["c3"])]
ROWS = [("q1", "c1", "1", "0.9"), ("q1", "c2", "2", "0.5"), ("q2", "c3", "1", "0.7")]


def csv_run(path, header: list[str], rows=ROWS):
    body = "".join(",".join(row) + "\n" for row in rows)
    return write_text(path, ",".join(header) + "\n" + body)


def parquet_run(path, header: list[str], rows=ROWS):
    columns = list(zip(*rows, strict=True))
    pq.write_table(
        pa.table({name: list(col) for name, col in zip(header, columns, strict=True)}), path
    )
    return path


@pytest.fixture
def gold(tmp_path):
    return write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)


@pytest.mark.parametrize("write", [csv_run, parquet_run], ids=["csv", "parquet"])
@pytest.mark.parametrize(
    ("header", "role", "candidates"),
    [
        (["qid", "topic", "docid", "rank"], "query_id", "qid, topic"),
        (["query_id", "qid", "chunk_id", "rank"], "query_id", "query_id, qid"),
        (["qid", "docno", "pid", "rank"], "chunk_id", "docno, pid"),
        (["qid", "chunk_id", "doc_id", "rank"], "chunk_id", "chunk_id, doc_id"),
        (["qid", "docid", "rank", "position"], "rank", "rank, position"),
    ],
)
def test_two_candidates_for_one_role_are_refused_naming_both(
    tmp_path, gold, write, header, role, candidates
):
    suffix = ".csv" if write is csv_run else ".parquet"
    run = write(tmp_path / f"run{suffix}", header)
    problems = load_problems(gold, [run])
    ambiguous = [p for p in problems if role in p.expected and "one column" in p.expected]
    assert len(ambiguous) == 1, problems
    assert ambiguous[0].file == str(run)
    assert ambiguous[0].value == candidates
    assert "ignoring ASCII case" in ambiguous[0].expected


def test_two_score_candidates_are_refused(tmp_path, gold):
    rows = [(*row, row[3]) for row in ROWS]
    run = csv_run(tmp_path / "run.csv", ["qid", "docid", "rank", "score", "SIM"], rows)
    problems = load_problems(gold, [run])
    assert [(p.value, p.line) for p in problems] == [("score, SIM", 1)]


def test_ambiguous_gold_is_refused(tmp_path):
    gold = write_text(tmp_path / "gold.csv", "qid,q_id,docid\nq1,q1,c1\n")
    run = csv_run(tmp_path / "run.csv", ["query_id", "chunk_id", "rank", "score"])
    problems = load_problems(gold, [run])
    assert [(p.file, p.value) for p in problems] == [(str(gold), "qid, q_id")]


def test_the_cli_refuses_an_ambiguous_file_with_exit_2(tmp_path, gold, capsys):
    run = csv_run(tmp_path / "run.csv", ["qid", "topic", "docid", "rank"])
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and out == ""
    assert "Traceback" not in err
    assert f"{run}:1: got 'qid, topic', expected one column for query_id" in err


@pytest.mark.parametrize("write", [csv_run, parquet_run], ids=["csv", "parquet"])
def test_repeat_after_case_folding_is_refused(tmp_path, gold, write):
    suffix = ".csv" if write is csv_run else ".parquet"
    if write is parquet_run:
        table = pa.table({"qid": ["q1"], "QID": ["q1"], "docid": ["c1"], "rank": [1]})
        run = tmp_path / f"run{suffix}"
        pq.write_table(table, run)
    else:
        run = write_text(tmp_path / f"run{suffix}", "qid,QID,docid,rank\nq1,q1,c1,1\n")
    problems = load_problems(gold, [run])
    assert [p.value for p in problems] == ["QID"]
    assert "each column named once" in problems[0].expected


SQL_HEADER = 'qid" VARCHAR); DROP TABLE qrels; SELECT 1 AS "x'


@pytest.mark.parametrize(
    "bad",
    [SQL_HEADER, "q\nid", "q id", "qİd", "q" * 10_000],
    ids=["sql", "newline", "inner-space", "dotted-I", "10kB"],
)
def test_a_hostile_header_is_not_a_role_and_changes_nothing(tmp_path, gold, bad, capsys):
    """Not one of the names: the file lacks a query column, said once, briefly, on one line;
    the gold is untouched. Only ASCII names match (``İ`` lowers to ``i`` and a dot)."""
    quoted = '"' + bad.replace('"', '""') + '"'
    run = write_text(tmp_path / "run.csv", f"{quoted},docid,rank,sim\nq1,c1,1,0.5\n")
    problems = load_problems(gold, [run])
    assert len(problems) == 1
    assert problems[0].expected.startswith("a column named 'query_id'")
    assert len(str(problems[0])) < 400
    code, out, err = run_cli(capsys, ["evaluate", gold, run])
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.splitlines()) == 2  # the heading and the one problem
    ok = csv_run(tmp_path / "ok.csv", ["qid", "docid", "rank", "sim"])
    workspace = Workspace.from_files(gold, [ok])
    assert workspace.con.execute("SELECT count(*) FROM qrels").fetchone()[0] == 2


def test_a_hostile_score_header_beside_the_roles_is_ignored(tmp_path, gold):
    """An extra column is not read at all, whatever it is called."""
    run = csv_run(
        tmp_path / "run.csv",
        ["qid", "docid", "rank", '"' + SQL_HEADER.replace('"', '""') + '"'],
    )
    evaluation = evaluate(Workspace.from_files(gold, [run]), ["MRR@10"])
    assert evaluation.aggregate.value.iloc[0] == pytest.approx(1.0)


def test_a_parquet_column_named_like_sql_is_mapped_by_its_role_only(tmp_path, gold):
    table = pa.table({"QID": ["q1", "q2"], "DocNo": ["c1", "c3"], SQL_HEADER: [1, 2]})
    run = tmp_path / "run.parquet"
    pq.write_table(table, run)
    problems = load_problems(gold, [run])
    assert [p.expected.split(" (")[0] for p in problems] == ["a column named 'rank'"]


def test_a_long_s_is_not_an_s(tmp_path, gold):
    """``ſcore`` folds to ``score`` in Python's casefold; only ASCII names match, so it is
    an extra column and the run has no score (ties keep the rank order)."""
    run = csv_run(tmp_path / "run.csv", ["qid", "docid", "rank", "ſcore"])
    workspace = Workspace.from_files(gold, [run])
    scores = workspace.con.execute("SELECT count(score) FROM runs").fetchone()[0]
    assert scores == 0
    assert workspace.column_mappings() == {str(run): {"qid": "query_id", "docid": "chunk_id"}}
