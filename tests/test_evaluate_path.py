"""The evaluate path is straight (issue 30): measures parsed once, the warnings and the
no-answer summary computed only when an output shows them, JSON built from the dicts."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli

from ragrecall_core import Workspace
from ragrecall_core.analysis.compare import compare
from ragrecall_core.analysis.gate import check_gate
from ragrecall_core.measures import base
from ragrecall_core.output import text
from ragrecall_core.output.text import json_text
from ragrecall_core.scoring import evaluate as evaluate_module
from tests.samples import shared_samples

SAMPLES = shared_samples()
GOLD = SAMPLES / "gold.jsonl"
RUNS = [SAMPLES / "runs" / "bm25.jsonl", SAMPLES / "runs" / "dense-minilm.jsonl"]


@pytest.fixture(scope="module")
def workspace():
    return Workspace.from_files(GOLD, RUNS)


@pytest.fixture
def notes_counted(monkeypatch):
    """How often the warnings and the no-answer summary were computed."""
    counts = {"warnings": 0, "no_answer": 0}
    for name, function in (
        ("warnings", evaluate_module.collect_warnings),
        ("no_answer", evaluate_module.no_answer_summary),
    ):

        def counted(*args, _name=name, _function=function, **kwargs):
            counts[_name] += 1
            return _function(*args, **kwargs)

        monkeypatch.setattr(evaluate_module, f"{function.__name__}", counted)
    return counts


def test_notes_are_computed_when_first_read_and_once(workspace, notes_counted):
    evaluation = evaluate_module.evaluate(workspace, ["Recall@5", "P@5"])
    assert notes_counted == {"warnings": 0, "no_answer": 0}
    warnings, no_answer = evaluation.warnings, evaluation.no_answer
    assert notes_counted == {"warnings": 1, "no_answer": 1}
    assert evaluation.warnings is warnings and evaluation.no_answer is no_answer
    assert notes_counted == {"warnings": 1, "no_answer": 1}
    assert set(no_answer) == set(workspace.run_names)  # the samples have no-answer queries


def test_check_and_compare_never_compute_the_notes(workspace, notes_counted):
    bm25, dense = workspace.run_names
    result = check_gate(workspace, dense, ["Recall@5>=0"], baseline=bm25, max_regressions=100)
    assert result.checks and result.checks[0]["ok"]
    comparison = compare(workspace, bm25, dense)
    assert not comparison.deltas.empty
    assert notes_counted == {"warnings": 0, "no_answer": 0}


def test_evaluate_command_parses_each_measure_once(tmp_path, monkeypatch, capsys):
    parsed: list[str] = []
    original = base.parse_measure

    def counted(text, *args, **kwargs):
        parsed.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(base, "parse_measure", counted)
    code, out, _ = run_cli(
        capsys, ["evaluate", GOLD, RUNS[0], "-m", "P@5", "-m", "nDCG@5", "--format", "json"]
    )
    assert code == 0 and set(json.loads(out)["runs"][0]["aggregate"]) == {"P@5", "nDCG@5"}
    assert sorted(parsed) == ["P@5", "nDCG@5"]


def test_evaluate_json_is_the_evaluations_dict(workspace, capsys, monkeypatch):
    """The command prints the evaluation's own dict, never a rendered text read back."""
    monkeypatch.setattr(text, "render", lambda *a, **k: pytest.fail("JSON rendered as text"))
    code, out, _ = run_cli(capsys, ["evaluate", GOLD, *RUNS, "-m", "MRR@5", "--format", "json"])
    assert code == 0
    expected = evaluate_module.evaluate(workspace, ["MRR@5"]).to_dict()
    assert out == json_text(expected)


def test_notes_computed_beside_equal_the_notes_computed_when_read(workspace, notes_counted):
    lazy = evaluate_module.evaluate(workspace, ["Recall@5", "P@5"])
    beside = evaluate_module.evaluate(workspace, ["Recall@5", "P@5"], notes_now=True)
    assert beside.to_dict(per_query=True) == lazy.to_dict(per_query=True)
    assert beside.warnings is beside.warnings
    assert notes_counted == {"warnings": 2, "no_answer": 2}


@pytest.mark.parametrize(("fmt", "computed"), [("json", 1), ("table", 1), ("csv", 0), ("tsv", 0)])
def test_the_command_computes_the_notes_only_for_an_output_that_shows_them(
    fmt, computed, capsys, notes_counted
):
    code, out, _ = run_cli(capsys, ["evaluate", GOLD, RUNS[0], "-m", "P@5", "--format", fmt])
    assert code == 0 and out
    assert notes_counted == {"warnings": computed, "no_answer": computed}


MEASURE_SETS = [
    ["P@5", "Recall@10", "MRR@10", "nDCG@10", "AP", "Judged@5"],
    ["Hit@1", "P(rel=2)@3", "RecallCap@5"],
]


@pytest.mark.parametrize("measures", MEASURE_SETS)
@pytest.mark.parametrize("split", [None, "test"])
def test_the_means_alone_are_the_means_of_every_querys_values(workspace, measures, split):
    """An evaluation told that no output shows a query's values computes the means alone:
    the same numbers to the last bit (each summed in query order), and the queries' values,
    read later, the ones computed with them."""
    from ragrecall_core.analysis.selection import query_ids

    ids = query_ids(workspace, split=split)
    both = evaluate_module.evaluate(workspace, measures, query_ids=ids)
    alone = evaluate_module.evaluate(workspace, measures, query_ids=ids, query_values=False)
    assert alone.means == both.means and len(both.means) == 2 * len(measures)
    assert alone.rows == both.rows and alone.per_query.equals(both.per_query)


@pytest.mark.parametrize(
    "argv, per_query, alone",
    [([], 0, 1), (["--per-query"], 1, 0), (["--format", "csv"], 0, 1)],
    ids=["means", "per query", "csv of the means"],
)
def test_the_command_computes_a_querys_values_only_for_an_output_that_shows_them(
    capsys, monkeypatch, argv, per_query, alone
):
    from ragrecall_core.scoring import families

    calls = {"per_query": 0, "means_alone": 0}
    for name in calls:
        real = getattr(families, name)

        def counted(*args, _name=name, _real=real, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(families, name, counted)
    code, out, _ = run_cli(capsys, ["evaluate", GOLD, RUNS[0], "-m", "P@5", *argv])
    assert code == 0 and "P@5" in out
    assert calls == {"per_query": per_query, "means_alone": alone}


@pytest.mark.parametrize(
    "runs, said",
    [
        (["nosuch"], ["'nosuch'"]),
        (["bm25", "BM25", "ghp_" + "a" * 36], ["'BM25'", "'[redacted]'"]),
    ],
    ids=["misspelt", "one known, two not (a token among them)"],
)
def test_a_run_the_workspace_lacks_is_refused_with_the_runs_it_has(workspace, runs, said):
    """Before, an unknown name left no run to measure: no mean, no error."""
    from ragrecall_core.errors import InputError

    with pytest.raises(InputError) as refused:
        evaluate_module.evaluate(workspace, ["P@5"], runs=runs)
    problems = refused.value.problems
    assert [repr(p.value) for p in problems] == said
    assert all("'bm25', 'dense-minilm'" in p.expected for p in problems)


def test_one_run_named_alone_is_that_run(workspace):
    """A string is one name, not its letters (which named no run and measured nothing)."""
    alone = evaluate_module.evaluate(workspace, ["P@5"], runs="bm25")
    assert alone.means == evaluate_module.evaluate(workspace, ["P@5"], runs=["bm25"]).means
    assert [run for run, *_ in alone.means] == ["bm25"]
