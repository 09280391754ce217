"""Bad input is an error naming file, line and value (SPEC "Policies", seed 001's checks).

Every class is checked twice: through ``Workspace.from_files`` (an ``InputError``
whose ``problems`` carry file, line, value, expected) and through the command
line (exit 2, the problems on stderr, no traceback).
"""

from __future__ import annotations

import json

import pytest
from helpers import (
    gold_row,
    grade_row,
    load_problems,
    per_query,
    run_cli,
    run_row,
    write_jsonl,
    write_text,
)

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.errors import shortened
from ragrecall_core.measures import REGISTRY

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]
RUN = [run_row("q1", ["a", "x"]), run_row("q2", ["y", "b"])]


def jsonl(*rows) -> str:
    """Lines of JSON; a ``str`` row is written as it is (a malformed line)."""
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def find(problems, line):
    """The problems reported for ``line``."""
    return [p for p in problems if p.line == line]


def assert_cli_rejects(capsys, argv, *needles):
    code, out, err = run_cli(capsys, ["evaluate", *argv])
    assert code == 2, (out, err)
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def rejected(tmp_path, capsys, gold_text=None, run_text=None, *, grades_text=None, names=None):
    """Write the files, return the API's problems after checking the CLI rejects them too."""
    names = names or {}
    gold = write_text(tmp_path / names.get("gold", "gold.jsonl"), gold_text or jsonl(*GOLD))
    run = write_text(tmp_path / names.get("run", "run.jsonl"), run_text or jsonl(*RUN))
    grades = []
    if grades_text is not None:
        grades = [write_text(tmp_path / names.get("grades", "grades.jsonl"), grades_text)]
    problems = load_problems(gold, [run], grades)
    given = {gold: gold_text, run: run_text, **{g: grades_text for g in grades}}
    assert {p.file for p in problems} <= {str(path) for path, text in given.items() if text}
    argv = [gold, run]
    for g in grades:
        argv += ["--grades", g]
    err = assert_cli_rejects(capsys, argv)
    for p in problems:
        where = p.file if p.line is None else f"{p.file}:{p.line}"
        assert where in err, (where, err)
    return problems


# --- JSON lines: gold ----------------------------------------------------------------


def test_malformed_json_line_in_gold(tmp_path, capsys):
    text = jsonl(
        GOLD[0], '{"id": "q2", "query": "y", "relevant_ids": ["b"]', GOLD[1] | {"id": "q3"}
    )
    problems = rejected(tmp_path, capsys, gold_text=text)
    (p,) = problems
    assert p.file == str(tmp_path / "gold.jsonl")
    assert p.line == 2
    assert '"id": "q2"' in p.value
    assert "JSON" in p.expected


def test_malformed_json_line_in_run(tmp_path, capsys):
    text = jsonl(RUN[0], "not json at all")
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert (p.file, p.line) == (str(tmp_path / "run.jsonl"), 2)
    assert "not json at all" in p.value


def test_malformed_json_line_in_corpus(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    corpus = write_text(tmp_path / "corpus.jsonl", jsonl({"chunk_id": "a", "text": "x"}, "{oops"))
    (p,) = load_problems(gold, [run], corpus=corpus)
    assert (p.file, p.line) == (str(corpus), 2)
    assert "{oops" in p.value
    assert_cli_rejects(capsys, [gold, run, "--corpus", corpus], f"{corpus}:2")


def test_missing_required_field_in_gold(tmp_path, capsys):
    text = jsonl(GOLD[0], {"id": "q2", "query": "y"})
    (p,) = rejected(tmp_path, capsys, gold_text=text)
    assert p.line == 2
    assert "q2" in p.value
    assert "relevant_ids" in p.expected


def test_missing_required_field_in_run(tmp_path, capsys):
    text = jsonl(RUN[0], {"id": "q2"})
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert "retrieved" in p.value and "retrieved" in p.expected


def test_missing_id_in_gold(tmp_path, capsys):
    text = jsonl(GOLD[0], {"query": "y", "relevant_ids": ["b"]})
    (p,) = rejected(tmp_path, capsys, gold_text=text)
    assert p.line == 2
    assert '"b"' in p.value
    assert '"id"' in p.expected


@pytest.mark.parametrize(
    ("row", "value"),
    [
        (gold_row("q2", ["b"]) | {"relevant_ids": "b"}, '"relevant_ids": "b"'),
        (gold_row("q2", ["b"]) | {"relevant_ids": [7]}, "7"),
        (gold_row("q2", ["b"]) | {"query": 5}, '"query": 5'),
        (gold_row("q2", ["b"]) | {"id": 2}, '"id": 2'),
        (gold_row("q2", ["b"], grades={"b": "high"}), "high"),
    ],
)
def test_wrong_field_type_in_gold(tmp_path, capsys, row, value):
    (p,) = rejected(tmp_path, capsys, gold_text=jsonl(GOLD[0], row))
    assert p.line == 2
    assert value in p.value


def test_wrong_field_type_in_run(tmp_path, capsys):
    text = jsonl(RUN[0], {"id": "q2", "retrieved": "b"})
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert '"b"' in p.value


@pytest.mark.parametrize("empty", ["", "   "])
def test_empty_id_in_gold(tmp_path, capsys, empty):
    text = jsonl(GOLD[0], gold_row(empty, ["b"]))
    (p,) = rejected(tmp_path, capsys, gold_text=text)
    assert p.line == 2
    assert '"id"' in p.value and "non-empty" in p.expected


def test_empty_id_in_run(tmp_path, capsys):
    text = jsonl(RUN[0], run_row("", ["b"]))
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert '"id"' in p.value


def test_empty_chunk_id_in_run(tmp_path, capsys):
    text = jsonl(RUN[0], run_row("q2", ["b", ""]))
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert "chunk_id" in p.expected


def test_duplicate_query_id_in_gold(tmp_path, capsys):
    text = jsonl(GOLD[0], GOLD[1], gold_row("q1", ["c"]))
    (p,) = rejected(tmp_path, capsys, gold_text=text)
    assert p.line == 3
    assert "q1" in p.value and "line 1" in p.value


def test_duplicate_query_id_in_run(tmp_path, capsys):
    # line 2 is a valid list; only line 3 (the repeated id) is wrong
    text = jsonl(RUN[0], RUN[1], run_row("q2", ["b"]))
    problems = rejected(tmp_path, capsys, run_text=text)
    assert [(p.file, p.line) for p in problems] == [(str(tmp_path / "run.jsonl"), 3)], problems
    (p,) = problems
    assert "q2" in p.value and "line 2" in p.value


def test_same_chunk_twice_in_one_ranked_list(tmp_path, capsys):
    text = jsonl(RUN[0], run_row("q2", ["b", "c", "b"]))
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert "b" in p.value and "q2" in p.value
    assert "chunk id" in p.expected


def test_same_chunk_in_two_lists_is_fine(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(
        tmp_path / "run.jsonl", [run_row("q1", ["a", "b"]), run_row("q2", ["a", "b"])]
    )
    ws = Workspace.from_files(gold, [run])
    rows = ws.con.execute("SELECT query_id, chunk_id, rank FROM runs ORDER BY 1, 3").fetchall()
    assert rows == [("q1", "a", 1), ("q1", "b", 2), ("q2", "a", 1), ("q2", "b", 2)]


@pytest.mark.parametrize("rank", [0, -1, 1.5, "x", "1", None])
def test_rank_not_a_positive_integer(tmp_path, capsys, rank):
    item = {"chunk_id": "b", "rank": rank, "score": 0.5}
    if rank is None:  # JSON null: no rank given; the list position is used, not an error
        gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
        run = write_jsonl(tmp_path / "run.jsonl", [RUN[0], {"id": "q2", "retrieved": [item]}])
        Workspace.from_files(gold, [run])
        return
    text = jsonl(RUN[0], {"id": "q2", "retrieved": [item]})
    (p,) = rejected(tmp_path, capsys, run_text=text)
    assert p.line == 2
    assert json.dumps(rank) in p.value
    assert "positive integer" in p.expected


def test_repeated_rank_in_one_list(tmp_path, capsys):
    items = [
        {"chunk_id": "b", "rank": 1, "score": 0.9},
        {"chunk_id": "c", "rank": 2, "score": 0.8},
        {"chunk_id": "d", "rank": 2, "score": 0.7},
    ]
    (p,) = rejected(tmp_path, capsys, run_text=jsonl(RUN[0], {"id": "q2", "retrieved": items}))
    assert p.line == 2
    assert '"rank": 2' in p.value
    assert "rank" in p.expected


@pytest.mark.parametrize("score", ["high", "0.5", True, [1]])
def test_non_numeric_score(tmp_path, capsys, score):
    item = {"chunk_id": "b", "rank": 1, "score": score}
    (p,) = rejected(tmp_path, capsys, run_text=jsonl(RUN[0], {"id": "q2", "retrieved": [item]}))
    assert p.line == 2
    assert json.dumps(score).strip('"') in p.value
    assert "numeric" in p.expected


# --- files ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["gold", "run"])
def test_empty_file(tmp_path, capsys, role):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    empty = {"gold": gold, "run": run}[role]
    empty.write_bytes(b"")
    problems = load_problems(gold, [run])
    assert [p.file for p in problems] == [str(empty)]
    assert "empty" in problems[0].value
    assert_cli_rejects(capsys, [gold, run], str(empty), "empty")


def test_file_of_blank_lines_is_rejected(tmp_path, capsys):
    gold = write_text(tmp_path / "gold.jsonl", "\n\n  \n")
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    assert load_problems(gold, [run])
    assert_cli_rejects(capsys, [gold, run])


@pytest.mark.parametrize("role", ["gold", "run", "grades"])
def test_missing_file(tmp_path, capsys, role):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    grades = tmp_path / "grades.jsonl"
    write_jsonl(grades, [grade_row("q1", "x", 0)])
    missing = {"gold": gold, "run": run, "grades": grades}[role]
    missing.unlink()
    (p,) = load_problems(gold, [run], [grades])
    assert p.file == str(missing)
    # the value is bounded (errors.shortened): a long temporary folder is cut in its middle
    assert shortened(str(missing)) in p.value
    assert_cli_rejects(capsys, [gold, run, "--grades", grades], str(missing))


def test_gold_and_run_sharing_no_query(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "other.jsonl", [run_row("z1", ["a"]), run_row("z2", ["b"])])
    (p,) = load_problems(gold, [run])
    assert p.file == str(run)
    assert "other" in p.value and "no query" in p.value
    assert_cli_rejects(capsys, [gold, run], str(run), "shares no query")


# --- measures and cutoffs ------------------------------------------------------------


def test_unknown_measure_name_lists_the_valid_ones(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    ws = Workspace.from_files(gold, [run])
    with pytest.raises(InputError) as error:
        evaluate(ws, ["Recal@5"])
    (p,) = error.value.problems
    assert p.value == "Recal@5"
    for name in REGISTRY:
        assert name in p.expected
    err = assert_cli_rejects(capsys, [gold, run, "-m", "Recal@5"], "Recal@5")
    for name in REGISTRY:
        assert name in err


@pytest.mark.parametrize("k", ["0", "-1", "1.5", "x", ""])
def test_cutoff_k_not_a_positive_integer(tmp_path, capsys, k):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    ws = Workspace.from_files(gold, [run])
    with pytest.raises(InputError) as error:
        evaluate(ws, [f"Recall@{k}"])
    assert error.value.problems[0].value == f"Recall@{k}"
    assert_cli_rejects(capsys, [gold, run, "-k", k])
    assert_cli_rejects(capsys, [gold, run, "-m", f"Recall@{k}"], f"Recall@{k}")


def test_every_bad_measure_and_cutoff_reported_at_once(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(tmp_path / "run.jsonl", RUN)
    assert_cli_rejects(
        capsys, [gold, run, "-m", "Foo@3", "-m", "Hit@0", "-k", "x"], "Foo@3", "Hit@0"
    )


# --- all problems at once ------------------------------------------------------------


def test_all_problems_of_a_file_are_reported_at_once(tmp_path, capsys):
    text = jsonl(
        RUN[0],  # 1 fine
        {"id": "q4", "retrieved": [{"chunk_id": "b", "rank": 0, "score": 1}]},  # 2 rank 0
        "{oops",  # 3 malformed
        RUN[1],  # 4 fine
        {"id": "q3", "retrieved": [{"chunk_id": "c", "rank": 1, "score": "hi"}]},  # 5 score
    )
    problems = rejected(tmp_path, capsys, run_text=text)
    assert [p.line for p in problems] == [2, 3, 5]
    assert "0" in find(problems, 2)[0].value
    assert "{oops" in find(problems, 3)[0].value
    assert "hi" in find(problems, 5)[0].value
    assert {p.file for p in problems} == {str(tmp_path / "run.jsonl")}


def test_problems_of_gold_and_run_are_reported_together(tmp_path, capsys):
    gold = jsonl(GOLD[0], gold_row("", ["b"]))
    run = jsonl(RUN[0], run_row("q2", ["b", "b"]))
    problems = rejected(tmp_path, capsys, gold, run)
    assert {(p.file, p.line) for p in problems} == {
        (str(tmp_path / "gold.jsonl"), 2),
        (str(tmp_path / "run.jsonl"), 2),
    }


# --- encodings -----------------------------------------------------------------------


def test_utf8_bom_and_crlf_are_accepted(tmp_path, capsys):
    def dos(rows):
        return "\ufeff" + "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows)

    gold = write_text(
        tmp_path / "gold.jsonl", dos([gold_row("q1", ["é#1"]), gold_row("q2", ["b"])])
    )
    run = write_text(tmp_path / "run.jsonl", dos([run_row("q1", ["x", "é#1"]), RUN[1]]))
    grades = write_text(tmp_path / "grades.jsonl", dos([grade_row("q1", "x", 0)]))
    ws = Workspace.from_files(gold, [run], [grades])
    ev = evaluate(ws, ["RR@3", "Judged@2"])
    # q1: relevant é#1 at rank 2 -> 1/2; q2: b at rank 2 -> 1/2
    assert per_query(ev, "run", "RR@3") == {"q1": 0.5, "q2": 0.5}
    # q1: x judged 0 by the grades file, é#1 judged by gold -> 2/2
    assert per_query(ev, "run", "Judged@2")["q1"] == 1.0
    code, _, err = run_cli(capsys, ["evaluate", gold, run, "--grades", grades, "-m", "RR@3"])
    assert code == 0, err


# --- other formats -------------------------------------------------------------------


def test_trec_run_with_bad_fields(tmp_path, capsys):
    text = (
        "q1 Q0 a 1 0.9 t\n"  # 1 fine
        "q1 Q0 x 2 high t\n"  # 2 score
        "q2 Q0 b 1 0.5\n"  # 3 five fields
        "q2 Q0 y zero 0.4 t\n"  # 4 rank
        "q2 Q0 b 3 0.3 t\n"  # 5 fine (b first at line 3 was bad; still a repeat)
    )
    problems = rejected(tmp_path, capsys, run_text=text, names={"run": "run.trec"})
    assert {p.file for p in problems} == {str(tmp_path / "run.trec")}
    assert "high" in find(problems, 2)[0].value
    assert "q2 Q0 b 1 0.5" in find(problems, 3)[0].value
    assert "zero" in find(problems, 4)[0].value
    assert {2, 3, 4} <= {p.line for p in problems}


def test_trec_qrels_with_bad_grade(tmp_path, capsys):
    text = "q1 0 a 1\nq2 0 b yes\n"
    (p,) = rejected(tmp_path, capsys, gold_text=text, names={"gold": "qrels.txt"})
    assert p.line == 2 and "yes" in p.value


def test_csv_gold_bad_row_counts_the_header_as_line_one(tmp_path, capsys):
    text = "query_id,chunk_id,grade\nq1,a,1\nq2,b,high\n"
    (p,) = rejected(tmp_path, capsys, gold_text=text, names={"gold": "gold.csv"})
    assert (p.file, p.line) == (str(tmp_path / "gold.csv"), 3)
    assert "high" in p.value


def test_csv_run_bad_row_counts_the_header_as_line_one(tmp_path, capsys):
    text = "query_id,chunk_id,rank,score\nq1,a,1,0.9\nq1,x,2,0.8\nq2,b,0,0.7\nq2,y,2,lots\n"
    problems = rejected(tmp_path, capsys, run_text=text, names={"run": "run.csv"})
    assert [(p.line, p.file) for p in problems] == [
        (4, str(tmp_path / "run.csv")),
        (5, str(tmp_path / "run.csv")),
    ]
    assert "0" in problems[0].value and "lots" in problems[1].value


def test_csv_run_without_a_rank_or_a_score_column(tmp_path, capsys):
    # with a score column it is ordered by score, as trec_eval (tests/test_tied_frames.py)
    text = "query_id,chunk_id\nq1,a\n"
    (p,) = rejected(tmp_path, capsys, run_text=text, names={"run": "run.csv"})
    assert p.line == 1 and "rank" in p.expected


@pytest.mark.parametrize("grade", [3, -1, "2x", None])
def test_grades_with_a_grade_outside_0_1_2(tmp_path, capsys, grade):
    text = jsonl(grade_row("q1", "x", 0), grade_row("q1", "a", 2) | {"grade": grade})
    (p,) = rejected(tmp_path, capsys, grades_text=text)
    assert (p.file, p.line) == (str(tmp_path / "grades.jsonl"), 2)
    assert json.dumps(grade).strip('"') in p.value
    assert "2 (relevant)" in p.expected


def test_csv_grades_with_grade_3(tmp_path, capsys):
    text = "query_id,chunk_id,grade,harmful,reason,annotator\nq1,x,0,false,,anna\nq1,a,3,,,anna\n"
    (p,) = rejected(tmp_path, capsys, grades_text=text, names={"grades": "grades.csv"})
    assert (p.file, p.line) == (str(tmp_path / "grades.csv"), 3)
    assert "3" in p.value


def test_grades_with_non_boolean_harmful(tmp_path, capsys):
    text = jsonl(grade_row("q1", "x", 0) | {"harmful": "yes"})
    (p,) = rejected(tmp_path, capsys, grades_text=text)
    assert p.line == 1 and "yes" in p.value
