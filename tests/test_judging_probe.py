"""Attacks on the judging paths from outside (stop 48): a pool, a grades file and the
agreement table must not say more, or less, than the inputs hold.

Each test here failed before its fix:
- a run query the gold set does not know went into the pool to judge (no query text to
  judge it by), while ``evaluate`` ignores and reports it (SPEC "Policies");
- a filter that leaves no query (``query_ids=[]``) pooled every query;
- a tie straddling the pool's depth was silent, though which chunk is pooled depends on it;
- two annotators who graded nothing in common read "agreement needs grades from at least
  two annotators", and a kappa that is undefined was a bare "—" with no reason;
- a grades file holding no grade at all (a CSV header only, blank lines) loaded as nothing.
"""

from __future__ import annotations

from helpers import gold_row, grade_row, make_workspace, run_cli, run_row, write_jsonl, write_text

from ragrecall_core.analysis.agreement import agreement_of_files
from ragrecall_core.analysis.pooling import build_pool, coverage_text

GOLD = [gold_row("q1", ["A"]), gold_row("q2", ["B"])]


def test_a_run_query_outside_the_gold_set_is_not_pooled_and_is_reported(tmp_path):
    run = [run_row("q1", ["A", "X"]), run_row("qNOPE", ["Z"])]
    workspace = make_workspace(tmp_path, GOLD, {"r": run})
    pool = build_pool(workspace, depth=2)
    assert set(pool.query_id) == {"q1"}
    assert "1 run query not in the gold set was ignored (qNOPE)" in coverage_text(
        workspace, depth=2, k=2
    )


def test_a_filter_that_leaves_no_query_pools_nothing(tmp_path):
    workspace = make_workspace(tmp_path, GOLD, {"r": [run_row("q1", ["X"])]})
    assert build_pool(workspace, depth=1, query_ids=[]).empty
    assert len(build_pool(workspace, depth=1, query_ids=None)) == 1


def test_a_tie_across_the_pool_depth_is_said(tmp_path):
    run = [run_row("q1", ["A", "X", "Y"], scores=[0.9, 0.5, 0.5])]
    workspace = make_workspace(tmp_path, GOLD, {"r": run})
    text = coverage_text(workspace, depth=2, k=2)
    assert "r: 1 query has tied scores at ranks 2 and 3: which is pooled depends on tie order" in (
        text
    )
    assert "tied" not in coverage_text(workspace, depth=1, k=1)


def test_pool_command_prints_the_ignored_query_and_the_tie(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = [run_row("q1", ["A", "X", "Y"], scores=[0.9, 0.5, 0.5]), run_row("qNOPE", ["Z"])]
    run_path = write_jsonl(tmp_path / "r.jsonl", run)
    out_path = tmp_path / "pool.jsonl"
    code, out, err = run_cli(
        capsys, ["pool", str(gold), str(run_path), "--depth", "2", "-o", str(out_path)]
    )
    assert code == 0, err
    assert "qNOPE" not in out_path.read_text("utf-8")
    assert "ignored (qNOPE)" in out and "ranks 2 and 3" in out


def _grades(tmp_path, name, rows):
    return write_jsonl(tmp_path / name, rows)


def test_annotators_with_no_item_in_common_are_named(tmp_path):
    ann = _grades(tmp_path, "ann.jsonl", [grade_row("q1", "A", 2, annotator="ann")])
    bob = _grades(tmp_path, "bob.jsonl", [grade_row("q2", "B", 2, annotator="bob")])
    text = agreement_of_files([ann, bob]).to_text()
    assert "at least two annotators" not in text
    assert "ann and bob graded no (query, chunk) in common" in text


def test_one_annotator_is_named(tmp_path):
    ann = _grades(tmp_path, "ann.jsonl", [grade_row("q1", "A", 2, annotator="ann")])
    text = agreement_of_files([ann]).to_text()
    assert "only one annotator (ann)" in text


def test_an_undefined_kappa_says_why(tmp_path):
    rows = [grade_row("q1", c, 2, annotator=a) for a in ("ann", "bob") for c in "AB"]
    grades = _grades(tmp_path, "g.jsonl", rows)
    result = agreement_of_files([grades])
    assert result.pairs.kappa.isna().all()
    text = result.to_text()
    assert "kappa undefined" in text and "ann and bob" in text
    assert "same grade" in text


def test_a_grades_file_with_no_grade_is_refused(tmp_path, capsys):
    ann = _grades(tmp_path, "ann.jsonl", [grade_row("q1", "A", 2, annotator="ann")])
    header = write_text(tmp_path / "bob.csv", "query_id,chunk_id,grade,annotator\n")
    blank = write_text(tmp_path / "cat.jsonl", "\n\n")
    code, out, err = run_cli(capsys, ["agreement", str(ann), str(header), str(blank)])
    assert code == 2
    assert f"{header}: got 'no grade rows', expected at least one grade" in err
    assert f"{blank}: got 'no grade rows', expected at least one grade" in err
    assert "Traceback" not in err


def test_annotator_names_that_differ_only_in_case_or_normalisation_are_refused(tmp_path, capsys):
    composed, combining = "Ren\u00e9", "Rene\u0301"
    one = _grades(tmp_path, "one.jsonl", [grade_row("q1", "A", 2, annotator=composed)])
    two = _grades(tmp_path, "two.jsonl", [grade_row("q1", "A", 0, annotator=combining)])
    kim = _grades(
        tmp_path,
        "kim.jsonl",
        [grade_row("q1", "A", 2, annotator="Kim"), grade_row("q1", "B", 2, annotator="kim")],
    )
    code, out, err = run_cli(capsys, ["agreement", str(one), str(two), str(kim)])
    assert code == 2, out
    lines = err.strip().splitlines()[1:]
    assert len(lines) == 4 and "Traceback" not in err
    got = f"got \"annotator '{composed}' (non-ASCII: U+00E9)\""
    assert any(line.startswith(f"{one}: {got}") and str(two) in line for line in lines)
    got = f"got \"annotator '{combining}' (non-ASCII: U+0301)\""
    assert any(line.startswith(f"{two}: {got}") and str(one) in line for line in lines)
    assert any(line.startswith(f"{kim}: got \"annotator 'Kim'\"") for line in lines)


def _verdict(query_id, reason, at="2026-12-01 10:00:00"):
    return {"run": "r", "query_id": query_id, "reason": reason, "recorded_at": at}


def test_an_import_keeps_the_file_order_of_verdicts_recorded_in_one_second(tmp_path):
    """Store A holds P then C for q1, in one second (C is the latest). Store B already holds
    C. Importing A's export into B added P after C, so P, older in A, became B's latest."""
    from ragrecall_core import Workspace
    from ragrecall_core.analysis.verdicts import export_verdicts, import_verdicts, latest_verdicts

    def store(name):
        folder = tmp_path / name
        write_jsonl(folder / "gold.jsonl", GOLD)
        write_jsonl(folder / "runs" / "r.jsonl", [run_row("q1", ["A"])])
        return Workspace.open(folder)

    a, b = store("a"), store("b")
    both = write_jsonl(
        tmp_path / "pc.jsonl", [_verdict("q1", "paraphrase"), _verdict("q1", "other")]
    )
    import_verdicts(a, both)
    import_verdicts(b, write_jsonl(tmp_path / "c.jsonl", [_verdict("q1", "other")]))
    export_verdicts(a, tmp_path / "a.jsonl")
    assert import_verdicts(b, tmp_path / "a.jsonl") == 1
    assert list(latest_verdicts(b).reason) == list(latest_verdicts(a).reason) == ["other"]
    assert import_verdicts(b, tmp_path / "a.jsonl") == 0  # a second import adds nothing
    assert list(latest_verdicts(b).reason) == ["other"]


def test_agreement_says_how_many_grades_name_a_query_the_gold_lacks(tmp_path):
    """A grade of "q1 " (a trailing space) or of a query an edited gold removed is no item
    of this gold set: left out of the agreement, as before, but no longer in silence."""
    from ragrecall_core import Workspace
    from ragrecall_core.analysis.agreement import agreement

    write_jsonl(tmp_path / "gold.jsonl", GOLD)
    write_jsonl(tmp_path / "runs" / "r.jsonl", [run_row("q1", ["A"])])
    rows = [grade_row("q1", "A", 2, annotator="ann"), grade_row("q1 ", "A", 0, annotator="ann")]
    rows += [grade_row("q1", "A", 2, annotator="bob"), grade_row("q9", "A", 0, annotator="bob")]
    write_jsonl(tmp_path / "grades" / "g.jsonl", rows)
    result = agreement(Workspace.open(tmp_path))
    assert list(result.pairs["items"]) == [1]
    note = "2 grades name a query the gold set lacks and are left out (e.g. 'q1 ', 'q9')"
    assert note in result.notes()
