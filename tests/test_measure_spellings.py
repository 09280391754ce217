"""One measure, one column: what the registry says a name means decides (stop 45).

A measure has many spellings (``P@5``, ``P@05``, ``p@5``, trec_eval's ``P_5``, ranx's
``precision@5``, a :class:`Measure` value, an ir_measures object). The rule, one for every
way measures are asked for (``-m``, ``-k``'s default set, ``evaluate``'s list, ``compare``'s
measures and its pass measure, ``check``'s requirements):

- the same spelling given again adds nothing: the measure is reported once, under it;
- one measure given under two spellings is refused (exit 2), naming both: which label to
  report would be a guess, and two columns of one value under two names are wrong;
- one spelling naming two measures (an ir_measures object's ``str()`` may) is refused too;
- a measure ragrecall adds (``-k``'s default set, compare's pass measure) takes the user's
  spelling when they asked for it; requirements are no list of columns: each is reported
  under its own text, the measure computed once.
"""

from __future__ import annotations

import json

import pytest
from helpers import gold_row, run_cli, run_row, write_jsonl

from ragrecall_core import InputError
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.analysis.pass_rule import pass_measure
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import Measure, MeasureRequest, parse_requests
from ragrecall_core.output.text import FORMATS
from ragrecall_core.scoring.evaluate import default_measures, evaluate


class IrMeasure:
    """The shape of an ir_measures measure: ``NAME``, ``params``, and its own ``str()``."""

    def __init__(self, name: str, label: str, **params):
        self.NAME, self.params, self.label = name, params, label

    def __str__(self) -> str:
        return self.label


# ---------------------------------------------------------------- the parser
@pytest.mark.parametrize(
    "given",
    [["P@5", "P@5"], [" P@5", "P@5 "], ["P@5", Measure("P", 5)], [Measure("P", 5)] * 2],
    ids=["twice", "spaces", "a Measure", "two Measures"],
)
def test_the_same_spelling_again_is_one_measure(given):
    assert parse_requests(given) == [MeasureRequest(Measure("P", 5), "P@5")]


def test_a_peer_spelling_alone_keeps_its_label():
    assert parse_requests(["P_5", "P_5"]) == [MeasureRequest(Measure("P", 5), "P_5")]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("P@5", "P@05"),
        ("P@5", "P_5"),
        ("P_5", "P@5"),
        ("P@5", "p@5"),
        ("P@5", "precision@5"),
        ("nDCG@10", "ndcg_cut_10"),
        ("Hit@5", "Success@5"),
        ("MRR@10", "RR@10"),
        ("P@5", "P.5"),
    ],
)
def test_one_measure_under_two_spellings_is_refused_naming_both(first, second):
    with pytest.raises(InputError) as caught:
        parse_requests([first, second], "-m")
    (problem,) = caught.value.problems
    assert problem.file == "-m" and problem.value == second
    assert first in problem.expected


def test_every_spelling_of_a_measure_after_the_first_is_named_with_other_problems():
    with pytest.raises(InputError) as caught:
        parse_requests(["P@5", "Foo@3", "P@05", "P_5", "nDCG@5"], "-m")
    values = [p.value for p in caught.value.problems]
    assert values == ["Foo@3", "P@05", "P_5"]


def test_one_spelling_naming_two_measures_is_refused():
    """An ir_measures nDCG with dcg='exp-log2' prints as nDCG@10 and is nDCG_burges@10."""
    burges = IrMeasure("nDCG", "nDCG@10", cutoff=10, dcg="exp-log2")
    with pytest.raises(InputError) as caught:
        parse_requests(["nDCG@10", burges])
    (problem,) = caught.value.problems
    assert problem.value == "nDCG@10" and "nDCG_burges@10" in problem.expected


# ---------------------------------------------------------------- the command line
@pytest.fixture
def files(tmp_path):
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [gold_row("q1", ["a"]), gold_row("q2", ["b"]), gold_row("q3", ["c"])],
    )
    run = write_jsonl(
        tmp_path / "bm25.jsonl",
        [run_row("q1", ["x", "a", "y"]), run_row("q2", ["b", "x"]), run_row("q3", ["x"])],
    )
    other = write_jsonl(
        tmp_path / "dense.jsonl",
        [run_row("q1", ["a", "x"]), run_row("q2", ["x", "b"]), run_row("q3", ["c"])],
    )
    return gold, run, other


def problem_lines(err: str) -> list[str]:
    """The lines of a refusal after its heading, one per problem."""
    heading, *lines = err.strip().splitlines()
    assert heading == "ragrecall: invalid input"
    return lines


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("second", ["P@05", "P_5", "p@5", "precision@5"])
def test_evaluate_refuses_two_spellings_in_every_format(files, capsys, fmt, second):
    gold, run, _ = files
    argv = ["evaluate", gold, run, "-m", "P@5", "-m", second, "--format", fmt]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    lines = problem_lines(err)
    assert len(lines) == 1 and "P@5" in lines[0] and second in lines[0], err


@pytest.mark.parametrize("fmt", FORMATS)
def test_evaluate_reports_a_repeated_spelling_once_in_every_format(files, capsys, fmt):
    gold, run, _ = files
    argv = ["evaluate", gold, run, "-m", "P_5", "-m", "P_5", "--format", fmt, "--per-query"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    if fmt == "json":
        entry = json.loads(out)["runs"][0]
        assert list(entry["aggregate"]) == ["P_5"]
        assert all(list(values) == ["P_5"] for values in entry["per_query"].values())
    elif fmt == "table":
        assert out.count("P_5") == 3  # the means' header, its count, the queries' header
    else:
        assert out.count("P_5") == 4  # one row a query (three) and the mean's


def test_k_adds_only_the_default_measures_not_asked_for_already(files, capsys):
    gold, run, _ = files
    argv = ["evaluate", gold, run, "-m", "P_5", "-m", "hit_rate@5", "-k", "5", "--format", "json"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    aggregate = json.loads(out)["runs"][0]["aggregate"]
    others = [m for m in default_measures([5]) if m not in ("P@5", "Hit@5")]
    assert list(aggregate) == ["P_5", "hit_rate@5", *others]


def test_compare_refuses_two_spellings_and_keeps_the_pass_measure_as_spelled(files, capsys):
    gold, run, other = files
    argv = ["compare", gold, run, other, "-m", "P@5", "-m", "P_5"]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == "" and len(problem_lines(err)) == 1, err
    spelled = pass_measure("capped", 5).lower()  # recallcap@5
    argv = ["compare", gold, run, other, "-m", spelled, "--format", "json"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    result = json.loads(out)
    assert [d["measure"] for d in result["deltas"]] == [spelled]


def test_compare_adds_the_pass_measure_once_whatever_its_spelling(files):
    gold, run, other = files
    ws = Workspace.from_files(gold, [run, other])
    spelled = pass_measure("capped", 5).lower()
    comparison = compare(ws, "bm25", "dense", measures=["P@5", spelled])
    assert list(comparison.deltas.measure) == ["P@5", spelled]
    assert comparison.pass_measure == spelled
    assert len(comparison.outcomes) == 3


def test_evaluate_in_python_refuses_two_spellings_and_keeps_one_repeated(files):
    gold, run, _ = files
    ws = Workspace.from_files(gold, [run])
    with pytest.raises(InputError):
        evaluate(ws, ["P@5", "P@05"])
    with pytest.raises(InputError):
        evaluate(ws, [MeasureRequest(Measure("P", 5)), "P_5"])
    once = evaluate(ws, ["P@5", "P@5", MeasureRequest(Measure("P", 5))])
    assert once.labels == ["P@5"]
    assert [m for _, m, _, _ in once.means] == ["P@5"]
    assert len(once.rows) == 3


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_check_reports_each_requirement_under_its_own_spelling(files, capsys, fmt):
    """Two requirements on one measure (a range, under two spellings) are two checks of
    one value: neither refused nor computed twice."""
    gold, run, _ = files
    argv = ["check", gold, run, "--require", "P@5>=0.1", "--require", "P_5<=0.9"]
    code, out, err = run_cli(capsys, [*argv, "--format", fmt])
    assert code == 0, err
    if fmt == "json":
        checks = json.loads(out)["requirements"]
        assert [c["measure"] for c in checks] == ["P@5", "P_5"]
        assert checks[0]["value"] == checks[1]["value"]
    else:
        assert "P@5>=0.1: P@5 = " in out and "P_5<=0.9: P_5 = " in out


def test_check_computes_one_measure_once(files, monkeypatch):
    gold, run, _ = files
    ws = Workspace.from_files(gold, [run])
    asked = []
    import ragrecall_core.analysis.gate as gate

    real = gate.evaluate
    monkeypatch.setattr(
        gate,
        "evaluate",
        lambda ws, measures, *a, **kw: asked.append(list(measures)) or real(ws, measures, *a, **kw),
    )
    result = check_gate(ws, "bm25", ["P@5>=0.1", "P@05<=0.9", "P@5>0"])
    assert result.passed
    assert asked == [["P@5"]]
