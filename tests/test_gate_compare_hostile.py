"""Hostile arguments to the gate, compare and no-answer from Python (stop 49's probe).

A CI job that wires ``check_gate`` or ``compare`` in with a mistyped run name, the same run
twice or a budget read from an environment variable (a string) must get an ``InputError``
naming the bad value, never a traceback and never a verdict on a run that is not there:
before this, a run name that differed by case or Unicode normalisation "failed" the gate with
a NaN value and "0 gold queries missing", and a baseline named like the candidate passed it
with nothing compared.
"""

from __future__ import annotations

import math

import pytest

from ragrecall_core import InputError, Workspace
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import Requirement, check_gate, parse_requirement
from ragrecall_core.analysis.no_answer import no_answer_report
from ragrecall_core.cli import main

GOLD = {"q1": ["d1", "d2"], "q2": ["d3"], "q3": ["d4"], "q4": []}
RUNS = {
    "base": {"q1": {"d1": 0.9, "d2": 0.8}, "q2": {"d3": 0.7}, "q3": {"x": 0.9, "d4": 0.2}},
    "cand": {"q1": {"d1": 0.9, "z": 0.1}, "q2": {"d3": 0.8}, "q3": {"d4": 0.9}},
    "Caf\u00e9": {"q1": {"d1": 0.9}, "q2": {"d3": 0.8}, "q3": {"d4": 0.9}},
}


@pytest.fixture(scope="module")
def ws():
    runs = {name: dict(run, q4={"x": 0.5}) for name, run in RUNS.items()}
    return Workspace.from_memory(GOLD, runs)


def refused(call) -> str:
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("name", ["nope", "CAND", "cand ", "Cafe\u0301", ""])
def test_a_gate_on_a_run_the_workspace_lacks_is_refused_naming_it(ws, name):
    message = refused(lambda: check_gate(ws, name, ["Recall@2>=0.5"]))
    assert repr(name)[1:-1] in message and "cand" in message  # the known runs are listed


@pytest.mark.parametrize("name", ["nope", "Base", "Cafe\u0301"])
def test_a_baseline_the_workspace_lacks_is_refused_not_a_key_error(ws, name):
    assert "--baseline" in refused(lambda: check_gate(ws, "cand", [], baseline=name))


def test_a_baseline_that_is_the_candidate_is_refused(ws):
    """Every query would tie: the gate would pass having compared nothing."""
    message = refused(lambda: check_gate(ws, "cand", [], baseline="cand"))
    assert "--baseline" in message and "cand" in message


def test_the_same_file_as_baseline_and_candidate_is_refused(tmp_path, capsys):
    """A CI variable left empty makes both paths one file; the loader names them apart
    (``cand`` and ``cand.jsonl``), and the gate must still see it is one run."""
    gold, run = tmp_path / "gold.jsonl", tmp_path / "cand.jsonl"
    gold.write_text('{"id":"q1","query":"a","relevant_ids":["d1"]}\n')
    run.write_text('{"id":"q1","retrieved":[{"chunk_id":"d1","rank":1,"score":1}]}\n')
    code = main(["check", str(gold), str(run), "--baseline", str(run)])
    captured = capsys.readouterr()
    assert code == 2, captured.out
    assert "--baseline" in captured.err and "Traceback" not in captured.err


@pytest.mark.parametrize("budget", [1.5, True, math.nan, "1", -1, None.__class__])
def test_a_budget_that_is_not_a_whole_number_is_refused(ws, budget):
    message = refused(lambda: check_gate(ws, "cand", [], baseline="base", max_regressions=budget))
    assert "--max-regressions" in message


@pytest.mark.parametrize("requirements", [[None], [0.5], [b"Recall@2>=0.5"], None, 3])
def test_a_requirement_that_is_not_text_is_refused(ws, requirements):
    assert "--require" in refused(lambda: check_gate(ws, "cand", requirements, baseline="base"))


@pytest.mark.parametrize("k", ["2", 2.0, True, 0, None])
def test_a_cutoff_that_is_not_a_positive_int_is_refused(ws, k):
    assert "-k" in refused(lambda: check_gate(ws, "cand", [], baseline="base", k=k))
    assert "-k" in refused(lambda: compare(ws, "base", "cand", k=k))


@pytest.mark.parametrize("names", [("nope", "cand"), ("base", "CAND"), ("cand", "cand")])
def test_compare_refuses_an_unknown_or_repeated_run(ws, names):
    message = refused(lambda: compare(ws, *names, k=2))
    assert "nope" in message or "CAND" in message or "cand" in message


@pytest.mark.parametrize("ids", [[], ["zz"], "q1"])
def test_compare_on_no_gold_query_is_refused(ws, ids):
    """A filter that keeps no gold query (or a bare string, read letter by letter) leaves
    nothing to compare: an error naming it, not a KeyError from an empty pivot."""
    refused(lambda: compare(ws, "base", "cand", k=2, query_ids=ids))


def test_no_answer_refuses_a_run_the_workspace_lacks(ws):
    assert "nope" in refused(lambda: no_answer_report(ws, k=2, runs=["nope"]))


def test_a_gate_on_known_runs_still_passes_and_fails_as_before(ws):
    result = check_gate(ws, "cand", ["Recall@2>=0.8"], baseline="base", k=2)
    assert result.regressions == ["q1"] and not result.passed
    assert check_gate(ws, "Caf\u00e9", ["Recall@2>=0.8"], k=2).passed


@pytest.mark.parametrize(
    "text, shown",
    [
        ("Recall@5>=0.8333334", "Recall@5>=0.8333334"),
        ("Recall@5>=0.80000001", "Recall@5>=0.80000001"),
        ("Recall@5>=0.5", "Recall@5>=0.5"),
        ("Recall@5>=1", "Recall@5>=1"),
        ("Recall@5>=1e-05", "Recall@5>=1e-05"),
        ("Hits@5>=123456789", "Hits@5>=123456789"),
    ],
)
def test_a_requirement_is_shown_with_the_threshold_it_checks(text, shown):
    """``:g`` cut 0.8333334 to 0.833333: a mean of 0.83333333 then showed
    "FAIL Recall@5>=0.833333" next to a value that meets 0.833333."""
    requirement = parse_requirement(text)
    assert str(requirement) == shown
    assert float(str(requirement).split(">=")[1]) == requirement.threshold


def test_a_threshold_a_float_cannot_hold_is_refused_not_read_as_zero():
    """1e-400 reads as 0.0: the gate would check a threshold nobody wrote."""
    assert "--require" in refused(lambda: parse_requirement("Recall@5>=1e-400"))
    assert parse_requirement("Recall@5>=0e-400") == Requirement("Recall@5", ">=", 0.0)


def test_a_requirement_deeper_than_every_list_is_said_in_every_output(ws):
    """Runs captured at top 2 checked on Recall@50: the number is Recall@2's, and a CI
    reader must be told, as compare tells (a note, not a failure: the value is right)."""
    result = check_gate(ws, "cand", ["Recall@50>=0.5", "Recall@2>=0.5"], baseline="base", k=9)
    (deep, rule) = result.notes
    assert "cand" in deep and "Recall@50" in deep and "2" in deep
    assert "k = 9" in rule and "base" in rule and "cand" in rule
    assert "Recall@2 " not in " ".join(result.notes)  # a reachable cutoff is no note
    assert result.to_dict()["notes"] == result.notes
    for text in (result.to_text(), result.to_markdown(), result.to_junit()):
        assert "Recall@50" in text.split("note", 1)[-1], text


def test_no_depth_note_when_the_lists_reach_the_cutoffs(ws):
    assert check_gate(ws, "cand", ["Recall@2>=0.5"], baseline="base", k=2).notes == []


@pytest.mark.parametrize(
    "value, threshold, op, shown",
    [
        (0.79996, 0.8, ">=", "0.79996"),  # was "0.8000": a FAIL that read as a pass
        (0.80004, 0.8, ">", "0.80004"),  # was "0.8000 > 0.8"
        (0.7999999999999999, 0.8, ">=", "0.8000"),  # a float sum's error is no difference
        (0.6, 0.8, ">=", "0.6000"),
    ],
)
def test_a_value_that_rounds_to_its_threshold_is_shown_in_full(value, threshold, op, shown):
    from ragrecall_core.analysis.gate import GateResult

    requirement = Requirement("Recall@5", op, threshold)
    check = {
        "requirement": str(requirement),
        "measure": "Recall@5",
        "value": value,
        "threshold": threshold,
        "ok": requirement.holds(value),
    }
    result = GateResult(run="r", scope="all", checks=[check])
    assert f"Recall@5 = {shown}\n" in result.to_text()
    assert f"Recall@5 = {shown}<" in result.to_junit()
    assert shown.replace(".", "\\.") in result.to_markdown()


@pytest.mark.parametrize("share", [math.nan, "0.1", -0.1, 1.5, True, None])
def test_no_answer_refuses_a_share_that_is_no_share(ws, share):
    """pick(nan) picked no threshold, silently; a string raised a TypeError."""
    report = no_answer_report(ws, k=2)
    for render in (report.pick, report.to_dict, report.to_text):
        assert "--max-false-confidence" in refused(lambda render=render: render(share))


def test_a_share_a_float_cannot_hold_is_refused_not_read_as_zero():
    from ragrecall_core.analysis.no_answer import parse_share

    assert "--max-false-confidence" in refused(lambda: parse_share("1e-400"))
    assert parse_share("0") == 0.0


@pytest.mark.parametrize("share, shown", [(0.1, "10%"), (0.125, "12.5%"), (0.005, "0.5%")])
def test_the_share_asked_for_is_shown_as_asked(ws, share, shown):
    """0.005 showed as "at most 0%": a share nobody asked for."""
    text = no_answer_report(ws, k=2).to_text(share)
    assert f"at most {shown})" in text or f"<= {shown}\n" in text


@pytest.mark.parametrize("allow", ["no", 0, None])
def test_allow_missing_is_true_or_false(ws, allow):
    """allow_missing="no" is truthy: it let a coverage gap pass the gate."""
    message = refused(lambda: check_gate(ws, "cand", [], baseline="base", allow_missing=allow))
    assert "--allow-missing" in message


def test_one_paired_query_has_no_confidence_interval(ws):
    """A bootstrap of one delta is that delta every time: a 95% CI of width 0 that excluded
    0 beside a p-value of 1 (the CI said "significant", the test said nothing is)."""
    comparison = compare(ws, "base", "cand", k=2, query_ids=["q1"])
    row = comparison.deltas.set_index("measure").loc["Recall@2"]
    assert row["queries"] == 1 and row["delta"] == -0.5 and row["p_value"] == 1.0
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
    assert comparison.to_dict()["deltas"][0]["ci_low"] is None


@pytest.mark.parametrize("ids, said", [(["q1"], True), (["q1", "q2", "q3"], True), (None, True)])
def test_too_few_queries_for_significance_are_said(ws, ids, said):
    """With 5 or fewer paired queries no sign-flip p-value can fall below 0.05 (the
    smallest is 2 / 2**5): a reader must not take "not significant" for "no change"."""
    notes = compare(ws, "base", "cand", k=2, query_ids=ids).notes
    assert any("0.05" in note for note in notes) is said


def test_a_policy_that_is_no_policy_is_refused(ws):
    """policy="x" raised an AttributeError from deep in the evaluation."""
    assert "policy" in refused(lambda: compare(ws, "base", "cand", k=2, policy="x"))
    assert "policy" in refused(lambda: check_gate(ws, "cand", ["Recall@2>=0.1"], policy="x"))
    assert "policy" in refused(lambda: no_answer_report(ws, k=2, policy="x"))


def test_a_query_id_that_is_no_text_is_refused_not_dropped(ws):
    """[q1, 5] compared q1 alone: the 5 was dropped without a word (ids are text)."""
    assert "5" in refused(lambda: compare(ws, "base", "cand", k=2, query_ids=["q1", 5]))


def test_a_requirement_with_no_value_fails_and_says_why():
    """A split of no-answer queries only has no Recall mean: the gate fails it (it cannot
    be met) and every output says why, not just "—"."""
    ws = Workspace.from_memory({"q1": [], "q2": []}, {"r": {"q1": ["x"], "q2": ["y"]}})
    result = check_gate(ws, "r", ["Recall@2>=0.5"])
    assert not result.passed and math.isnan(result.checks[0]["value"])
    for text in (result.to_text(), result.to_markdown(), result.to_junit()):
        assert "no query in scope has a value" in text, text


def test_compare_text_lists_ids_that_hold_a_comma_unambiguously():
    """ "regressions: 2: a, b, c" could not say whether "a, b" was one query or two."""
    gold = {"a, b": ["d1"], "c": ["d1"], " d": ["d1"]}
    runs = {"base": {q: ["d1"] for q in gold}, "cand": {q: ["x"] for q in gold}}
    ws = Workspace.from_memory(gold, runs)
    line = next(
        line
        for line in compare(ws, "base", "cand", k=1).to_text().splitlines()
        if line.startswith("regressions")
    )
    assert line.endswith(": 3: ' d', 'a, b', 'c'"), line
    plain = Workspace.from_memory({"q1": ["d1"]}, {"b": {"q1": ["d1"]}, "c": {"q1": ["x"]}})
    assert (
        "regressions (RecallCap@1 = 1 is a pass): 1: q1" in compare(plain, "b", "c", k=1).to_text()
    )
