"""The named policies that change numbers (SPEC "Policies", ``policy.py``).

Every expected value is hand-computed in a comment next to its assertion.
"""

from __future__ import annotations

import json

import pytest
from helpers import (
    gold_row,
    grade_row,
    make_workspace,
    per_query,
    queries_in_mean,
    run_cli,
    run_row,
    write_jsonl,
    write_text,
)

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.analysis.failures import classify

# --- relevance level -----------------------------------------------------------------
# q1: a graded 2, b graded 1; list [b, a, x]
REL_GOLD = [gold_row("q1", ["a", "b"], grades={"a": 2, "b": 1})]
REL_RUN = [run_row("q1", ["b", "a", "x"])]


def test_rel_level_in_the_measure_name(tmp_path):
    ws = make_workspace(tmp_path, REL_GOLD, {"run": REL_RUN})
    ev = evaluate(ws, ["P@3", "P(rel=2)@3", "RR(rel=2)@3", "Recall(rel=2)@1"])
    assert ev.value("run", "P@3") == pytest.approx(2 / 3)  # a, b
    assert ev.value("run", "P(rel=2)@3") == pytest.approx(1 / 3)  # a only
    assert ev.value("run", "RR(rel=2)@3") == pytest.approx(1 / 2)  # a at rank 2
    assert ev.value("run", "Recall(rel=2)@1") == 0.0  # b at rank 1 is not relevant at level 2


def test_rel_level_as_a_policy_and_on_the_command_line(tmp_path, capsys):
    ws = make_workspace(tmp_path, REL_GOLD, {"run": REL_RUN})
    ev = evaluate(ws, ["P@3", "Recall@3"], policy=Policy(rel_level=2))
    assert ev.value("run", "P@3") == pytest.approx(1 / 3)
    assert ev.value("run", "Recall@3") == 1.0  # R = {a}
    argv = ["evaluate", tmp_path / "gold.jsonl", tmp_path / "runs" / "run.jsonl"]
    code, out, err = run_cli(capsys, [*argv, "--rel-level", "2", "-m", "P@3", "--format", "json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["runs"][0]["aggregate"]["P@3"] == pytest.approx(1 / 3)
    assert "grade >= 2" in result["policy"]
    code, out, _ = run_cli(capsys, [*argv, "-m", "P(rel=2)@3", "--format", "json"])
    assert json.loads(out)["runs"][0]["aggregate"]["P(rel=2)@3"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("level", ["0", "00", " 2 "])
def test_a_rel_level_from_zero_up_is_a_level(tmp_path, capsys, level):
    make_workspace(tmp_path, REL_GOLD, {"run": REL_RUN})
    argv = ["evaluate", tmp_path / "gold.jsonl", tmp_path / "runs" / "run.jsonl"]
    code, out, err = run_cli(capsys, [*argv, "--rel-level", level, "--format", "json"])
    assert code == 0, err
    assert f"grade >= {int(level)}" in json.loads(out)["policy"]


@pytest.mark.parametrize("level", ["-2", "x", "1.5", "2147483648"])
def test_a_bad_rel_level_names_the_levels_accepted(tmp_path, capsys, level):
    make_workspace(tmp_path, REL_GOLD, {"run": REL_RUN})
    argv = ["evaluate", tmp_path / "gold.jsonl", tmp_path / "runs" / "run.jsonl"]
    code, _, err = run_cli(capsys, [*argv, f"--rel-level={level}"])
    assert code == 2
    assert f"--rel-level: got '{level}', expected a relevance level N that is an integer " in err
    assert "from 0 to 2147483647" in err


# --- reviewer grades: partial and harmful ---------------------------------------------


def test_reviewer_partial_grade_does_not_enlarge_the_recall_denominator_by_default(tmp_path):
    # gold: a; list [a, x, y, p]; a reviewer grades p partial (1)
    gold = [gold_row("q1", ["a"])]
    run = [run_row("q1", ["a", "x", "y", "p"])]
    ws = make_workspace(tmp_path, gold, {"run": run}, grades=[grade_row("q1", "p", 1)])
    default = evaluate(ws, ["Recall@3", "Recall@4", "Judged@4"])
    assert default.value("run", "Recall@3") == 1.0  # 1 / |{a}|
    assert default.value("run", "Recall@4") == 1.0
    assert default.value("run", "Judged@4") == pytest.approx(2 / 4)  # a and p are judged
    assert "partial (1) = not relevant" in default.policy.describe()
    partial = evaluate(ws, ["Recall@3", "Recall@4"], policy=Policy(partial="relevant"))
    assert partial.value("run", "Recall@3") == pytest.approx(1 / 2)  # 1 / |{a, p}|
    assert partial.value("run", "Recall@4") == 1.0  # 2 / 2
    assert "partial (1) = relevant" in partial.policy.describe()


def test_reviewer_partial_policy_on_the_command_line(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a", "x", "y", "p"])])
    grades = write_jsonl(tmp_path / "anna.jsonl", [grade_row("q1", "p", 1)])
    argv = ["evaluate", gold, run, "--grades", grades, "-m", "Recall@3"]
    code, out, _ = run_cli(capsys, [*argv, "--format", "json"])
    assert json.loads(out)["runs"][0]["aggregate"]["Recall@3"] == 1.0
    code, out, _ = run_cli(capsys, [*argv, "--format", "json", "--partial", "relevant"])
    assert json.loads(out)["runs"][0]["aggregate"]["Recall@3"] == pytest.approx(1 / 2)
    code, out, _ = run_cli(capsys, argv)
    assert "partial (1) = not relevant" in out  # printed beside the numbers


def test_the_policy_line_says_when_no_reviewer_grade_was_loaded(tmp_path, capsys):
    """ "reviewers' grades = used" beside numbers no reviewer's grade touched read as if
    grades went in: without any, every output says none were loaded."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"])])
    run = write_jsonl(tmp_path / "run.jsonl", [run_row("q1", ["a", "p"])])
    grades = write_jsonl(tmp_path / "anna.jsonl", [grade_row("q1", "p", 1)])
    none = "reviewers' grades = used (none loaded)"
    for argv, shown in (([], True), (["--grades", grades], False)):
        code, out, _ = run_cli(capsys, ["evaluate", gold, run, "-m", "Recall@2", *argv])
        assert code == 0 and (none in out) is shown
        assert ("reviewers' grades = used" in out) is True
        code, out, _ = run_cli(capsys, ["evaluate", gold, run, *argv, "--format", "json"])
        assert (none in json.loads(out)["policy"]) is shown
    ws = make_workspace(tmp_path / "ws", [gold_row("q1", ["a"])], {"run": [run_row("q1", ["a"])]})
    assert none in evaluate(ws, ["Recall@2"]).policy_line
    assert none not in evaluate(ws, ["Recall@2"], policy=Policy(manual_grades=False)).policy_line


def test_harmful_chunk_graded_2_is_not_relevant_by_default(tmp_path):
    # gold: a; list [h, a, x]; a reviewer grades h 2 but flags it harmful (outdated)
    gold = [gold_row("q1", ["a"])]
    run = [run_row("q1", ["h", "a", "x"])]
    grades = [grade_row("q1", "h", 2, harmful=True, reason="outdated version")]
    ws = make_workspace(tmp_path, gold, {"run": run}, grades=grades)
    default = evaluate(ws, ["P@3", "RR@3", "Judged@3"])
    assert default.value("run", "P@3") == pytest.approx(1 / 3)  # a only
    assert default.value("run", "RR@3") == pytest.approx(1 / 2)  # a at rank 2
    assert default.value("run", "Judged@3") == pytest.approx(2 / 3)  # h is judged (not relevant)
    assert "harmful = not relevant" in default.policy.describe()
    graded = evaluate(ws, ["P@3", "RR@3"], policy=Policy(harmful="as_graded"))
    assert graded.value("run", "P@3") == pytest.approx(2 / 3)  # h and a
    assert graded.value("run", "RR@3") == 1.0  # h at rank 1
    assert "harmful = as graded" in graded.policy.describe()


# --- document level ------------------------------------------------------------------


def test_doc_level_counts_a_document_once_at_its_first_chunk(tmp_path):
    # gold: two chunks of doc d1; list [d1#c1, d1#c2, d2#c1]
    gold = [gold_row("q1", ["d1#c1", "d1#c2"])]
    run = [run_row("q1", ["d1#c1", "d1#c2", "d2#c1"])]
    ws = make_workspace(tmp_path, gold, {"run": run})
    chunks = evaluate(ws, ["P@3", "Recall@3", "Recall@1"])
    assert chunks.value("run", "P@3") == pytest.approx(2 / 3)  # two relevant chunks
    assert chunks.value("run", "Recall@1") == pytest.approx(1 / 2)
    docs = evaluate(ws, ["P@3", "Recall@3", "Recall@1", "RR@3"], policy=Policy(unit="doc"))
    assert docs.value("run", "P@3") == pytest.approx(1 / 3)  # d1 once, d2 not relevant
    assert docs.value("run", "Recall@1") == 1.0  # d1 at the rank of its first chunk
    assert docs.value("run", "RR@3") == 1.0
    assert "unit = doc" in docs.policy.describe()


def test_doc_level_uses_the_corpus_map(tmp_path, capsys):
    # chunk ids without '#': only the corpus says c1 and c2 belong to document D
    corpus = [
        {"chunk_id": "c1", "doc_id": "D", "text": "one"},
        {"chunk_id": "c2", "doc_id": "D", "text": "two"},
        {"chunk_id": "c3", "doc_id": "E", "text": "three"},
    ]
    gold = [gold_row("q1", ["c2"])]
    run = [run_row("q1", ["c1", "c3", "c2"])]
    ws = make_workspace(tmp_path, gold, {"run": run}, corpus=corpus)
    assert evaluate(ws, ["RR@3"]).value("run", "RR@3") == pytest.approx(1 / 3)  # c2 at rank 3
    docs = evaluate(ws, ["RR@3", "P@3"], policy=Policy(unit="doc"))
    assert docs.value("run", "RR@3") == 1.0  # D at the rank of c1
    assert docs.value("run", "P@3") == pytest.approx(1 / 3)  # D once
    argv = ["evaluate", tmp_path / "gold.jsonl", tmp_path / "runs" / "run.jsonl"]
    argv += ["--corpus", tmp_path / "corpus.jsonl", "--unit", "doc", "-m", "RR@3"]
    code, out, err = run_cli(capsys, [*argv, "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["runs"][0]["aggregate"]["RR@3"] == 1.0


# --- trec_eval compatibility ---------------------------------------------------------
# q1 found; q2, q5 missing from the run; q3 judged but nothing relevant (retrieved z);
# q4 a no-answer query without any judgment (retrieved y).
COMPAT_GOLD = [
    gold_row("q1", ["a"]),
    gold_row("q2", ["b"]),
    gold_row("q5", ["e"]),
    gold_row("q3", [], grades={"z": 0}),
    gold_row("q4", []),
]
COMPAT_RUN = [run_row("q1", ["a"]), run_row("q3", ["z"]), run_row("q4", ["y"])]


def test_trec_eval_compat_differs_from_the_default_on_missing_and_no_answer(tmp_path):
    ws = make_workspace(tmp_path, COMPAT_GOLD, {"run": COMPAT_RUN})
    default = evaluate(ws, ["Recall@3"])
    # q1 1, q2 0, q5 0 (missing scores 0); q3, q4 outside the mean
    assert default.value("run", "Recall@3") == pytest.approx(1 / 3)
    assert queries_in_mean(default, "run", "Recall@3") == 3
    values = per_query(default, "run", "Recall@3")
    assert values["q2"] == 0.0 and values.get("q3") is None
    trec = evaluate(ws, ["Recall@3"], policy=Policy(compat="trec_eval"))
    # only queries in both files: q1 1, q3 0 (no relevant item counts as 0)
    assert trec.value("run", "Recall@3") == pytest.approx(1 / 2)
    assert per_query(trec, "run", "Recall@3") == {"q1": 1.0, "q3": 0.0}
    complete = evaluate(ws, ["Recall@3"], policy=Policy(compat="trec_eval", complete=True))
    # every judged query: q1 1, q2 0, q3 0, q5 0
    assert complete.value("run", "Recall@3") == pytest.approx(1 / 4)
    assert set(per_query(complete, "run", "Recall@3")) == {"q1", "q2", "q3", "q5"}
    assert default.policy.describe() != trec.policy.describe() != complete.policy.describe()
    assert "trec_eval" in trec.to_dict()["policy"]


def test_trec_eval_compat_on_the_command_line(tmp_path, capsys):
    ws_args = [tmp_path / "gold.jsonl", tmp_path / "runs" / "run.jsonl"]
    make_workspace(tmp_path, COMPAT_GOLD, {"run": COMPAT_RUN})
    argv = ["evaluate", *ws_args, "-m", "Recall@3", "--format", "json"]
    _, out, _ = run_cli(capsys, [*argv, "--compat", "trec_eval"])
    assert json.loads(out)["runs"][0]["aggregate"]["Recall@3"] == pytest.approx(1 / 2)
    _, out, _ = run_cli(capsys, [*argv, "--compat", "trec_eval", "-c"])
    assert json.loads(out)["runs"][0]["aggregate"]["Recall@3"] == pytest.approx(1 / 4)


# --- ordering and ties ---------------------------------------------------------------


def test_ties_straddling_the_cutoff_give_a_warning(tmp_path):
    gold = [gold_row("q1", ["c"]), gold_row("q2", ["a"])]
    run = [
        run_row("q1", ["a", "b", "c", "d"], [0.9, 0.5, 0.5, 0.1]),  # ranks 2 and 3 tie
        run_row("q2", ["a", "b", "c"], [0.9, 0.8, 0.7]),
    ]
    ws = make_workspace(tmp_path, gold, {"run": run})
    at2 = evaluate(ws, ["P@2"])
    ties = [w for w in at2.warnings.get("run", []) if "tie" in w]
    assert len(ties) == 1 and "2" in ties[0] and "1 quer" in ties[0]
    at3 = evaluate(ws, ["P@3"])  # 0.5 vs 0.1: no tie across 3
    assert not [w for w in at3.warnings.get("run", []) if "tie" in w]


def test_ties_inside_the_cutoff_give_no_warning(tmp_path):
    gold = [gold_row("q1", ["a"])]
    run = [run_row("q1", ["a", "b", "c"], [0.5, 0.5, 0.1])]  # tie at ranks 1-2, cutoff 3
    ev = evaluate(make_workspace(tmp_path, gold, {"run": run}), ["P@3"])
    assert not [w for w in ev.warnings.get("run", []) if "tie" in w]


def test_trec_run_follows_trec_eval_order(tmp_path):
    # score desc: b (0.9); then a and c tie at 0.5 -> docno desc: c before a.
    # The rank column (a 1, b 2, c 3) is ignored.
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["y"])])
    run = write_text(
        tmp_path / "run.trec",
        "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq1 Q0 c 3 0.5 t\n"
        "q2 Q0 x 1 -2 t\nq2 Q0 y 2 10 t\n",  # numeric, not text, order: y (10) first
    )
    ws = Workspace.from_files(gold, [run])
    ev = evaluate(ws, ["RR@3", "FirstRank"])
    assert per_query(ev, "run", "RR@3") == {"q1": pytest.approx(1 / 3), "q2": 1.0}
    assert per_query(ev, "run", "FirstRank")["q1"] == 3.0
    order = (
        ws.cursor()
        .execute("SELECT chunk_id FROM runs WHERE query_id = 'q1' ORDER BY rank")
        .fetchall()
    )
    assert [r[0] for r in order] == ["b", "c", "a"]


def test_jsonl_run_follows_rank_not_list_position(tmp_path):
    gold = [gold_row("q1", ["a"])]
    items = [
        {"chunk_id": "x", "rank": 2, "score": 0.9},
        {"chunk_id": "a", "rank": 1, "score": 0.1},
    ]
    ws = make_workspace(tmp_path, gold, {"run": [{"id": "q1", "retrieved": items}]})
    assert evaluate(ws, ["RR@1"]).value("run", "RR@1") == 1.0  # a has rank 1


def test_run_whose_lists_are_all_empty_scores_zero(tmp_path):
    # SPEC: a gold query whose list is empty scores 0 and stays in the mean; the run
    # does list q1, so it shares a query with the gold set.
    gold = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]
    ws = make_workspace(tmp_path, gold, {"run": [run_row("q1", []), run_row("q2", [])]})
    ev = evaluate(ws, ["Recall@3"])
    assert ev.value("run", "Recall@3") == 0.0
    assert queries_in_mean(ev, "run", "Recall@3") == 2


# --- failure classes -----------------------------------------------------------------


def test_failure_classes(tmp_path):
    gold = [
        gold_row("ok", ["a"]),
        gold_row("partial", ["a", "b"]),
        gold_row("below", ["c"]),
        gold_row("never", ["d"]),
        gold_row("missing", ["e"]),
        gold_row("empty", ["e"]),
        gold_row("ghost", ["f", "ghost"]),
        gold_row("noanswer", []),
    ]
    run = [
        run_row("ok", ["a", "x", "y"]),
        run_row("partial", ["a", "x", "y", "z"]),  # b never listed: 1 of 2 in top 3
        run_row("below", ["x", "y", "z", "c"]),  # c at rank 4
        run_row("never", ["x", "y", "z"]),
        run_row("empty", []),
        run_row("ghost", ["f", "x"]),  # 'ghost' is not in the corpus
        run_row("noanswer", ["x"]),
    ]
    corpus = [{"chunk_id": c, "doc_id": c, "text": c} for c in "abcdefxyz"]
    ws = make_workspace(tmp_path, gold, {"run": run}, corpus=corpus)
    table = classify(ws, 3)
    classes = dict(zip(table.query_id, table.failure_class, strict=True))
    assert classes == {
        "ok": "ok",
        "partial": "partial",
        "below": "ranked below k",
        "never": "never retrieved",
        "missing": "missing from run",
        "empty": "missing from run",
        "ghost": "gold not in corpus",
    }
    below = table[table.query_id == "below"].iloc[0]
    assert below.first_rank == 4 and list(below.positions) == [4]
    assert classify(ws, 4).set_index("query_id").failure_class["below"] == "ok"
    ev = evaluate(ws, ["Recall@3"])
    assert any("ghost" in w and "corpus" in w for w in ev.warnings["run"])


def test_doc_level_keeps_each_document_at_its_first_chunk_rank_without_renumbering(tmp_path):
    # list [d1#c1, d1#c2, d2#c1] with d2 relevant: d2 stands at rank 3 (its first chunk),
    # not at rank 2 as it would if documents were renumbered after merging d1's chunks
    gold = [gold_row("q1", ["d2#c1"])]
    run = [run_row("q1", ["d1#c1", "d1#c2", "d2#c1"])]
    ws = make_workspace(tmp_path, gold, {"run": run})
    docs = evaluate(ws, ["RR@3", "Recall@2", "Recall@3", "Judged@3"], policy=Policy(unit="doc"))
    assert docs.value("run", "RR@3") == pytest.approx(1 / 3)
    assert docs.value("run", "Recall@2") == 0.0
    assert docs.value("run", "Recall@3") == 1.0
    # two documents in the top 3 positions, one of them (d2) judged
    assert docs.value("run", "Judged@3") == pytest.approx(1 / 2)


def test_a_gold_chunk_flagged_harmful_stays_relevant_and_is_a_gold_gap_candidate(tmp_path):
    from ragrecall_core.analysis.gold_gaps import gold_gaps

    gold = [gold_row("q1", ["old#c1", "new#c1"])]
    run = [run_row("q1", ["old#c1", "x#c1", "new#c1"])]
    grades = [grade_row("q1", "old#c1", 2, harmful=True, reason="outdated policy version")]
    ws = make_workspace(tmp_path, gold, {"run": run}, grades=grades)
    evaluation = evaluate(ws, ["Recall@1", "Harm@1"])
    assert evaluation.value("run", "Recall@1") == pytest.approx(1 / 2)  # gold is the authority
    assert evaluation.value("run", "Harm@1") == 1.0  # ... and the harm is visible
    gaps = gold_gaps(ws)
    assert list(gaps.kind) == ["gold chunk flagged harmful by a reviewer"]
    assert list(gaps.chunk_id) == ["old#c1"]
