"""One measure passed alone (``measures="Recall@5"``, as ranx's ``evaluate`` takes a metric)
is that one measure: before, ``list()`` split the name into letters and each letter was
refused as a measure name. A value that is neither a measure nor a list of them is an
InputError, never a TypeError."""

import pytest

import ragrecall
from ragrecall_core import InputError, Workspace, parse_measure
from tests.test_peer_measure_names import IrMeasure

GOLD = {"q1": ["a", "b"], "q2": ["c"]}
RUNS = {"base": {"q1": ["a", "x"], "q2": ["c"]}, "new": {"q1": ["x", "a"], "q2": ["y"]}}


def means(measures) -> list[tuple]:
    return ragrecall.evaluate(GOLD, measures, runs=RUNS).means


@pytest.mark.parametrize("name", ["Recall@5", "nDCG", "RR", "P_5", "hit_rate@5"])
def test_a_single_name_is_one_measure(name):
    assert means(name) == means([name])


@pytest.mark.parametrize("one", [parse_measure("Recall@5"), IrMeasure("nDCG", cutoff=5)])
def test_a_single_measure_object_is_one_measure(one):
    assert means(one) == means([one])


def test_compare_takes_a_single_name_too():
    workspace = Workspace.from_memory(GOLD, RUNS)
    alone = ragrecall.compare(workspace, "base", "new", k=2, measures="Recall@2")
    listed = ragrecall.compare(workspace, "base", "new", k=2, measures=["Recall@2"])
    assert list(alone.deltas.measure) == list(listed.deltas.measure)
    assert "Recall@2" in set(alone.deltas.measure)


@pytest.mark.parametrize("value", [5, 2.5, b"Recall@5", {"Recall@5": 1}])
def test_anything_else_is_an_input_error(value):
    with pytest.raises(InputError) as error:
        means(value)
    assert "a measure name" in str(error.value)
