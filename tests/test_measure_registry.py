"""The registry is the one source of measure names, docs and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragrecall_core import InputError, Measure, parse_measure
from ragrecall_core.measures import REGISTRY, parse_requests
from ragrecall_core.measures.docs import markdown_table

MEASURES_PAGE = Path(__file__).parent.parent / "docs" / "measures.md"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Recall@5", Measure("Recall", 5)),
        ("R@5", Measure("Recall", 5)),
        ("Hit@3", Measure("Hit", 3)),
        ("Success@3", Measure("Hit", 3)),
        ("RR@10", Measure("RR", 10)),
        ("MRR@10", Measure("RR", 10)),
        ("RR", Measure("RR")),
        ("P@3", Measure("P", 3)),
        ("Precision@3", Measure("P", 3)),
        ("P(rel=2)@3", Measure("P", 3, rel=2)),
        ("nDCG@10", Measure("nDCG", 10)),
        ("AP", Measure("AP")),
        ("MAP@100", Measure("AP", 100)),
        ("R-Precision", Measure("Rprec")),
        ("Judged@10", Measure("Judged", 10)),
        ("FirstRank", Measure("FirstRank")),
    ],
)
def test_parsing_gives_values_equal_to_those_built_in_code(text, expected):
    parsed = parse_measure(text)
    assert parsed == expected
    assert hash(parsed) == hash(expected)
    assert parse_measure(str(parsed)) == parsed


@pytest.mark.parametrize(
    "text", ["Recall", "Recall@0", "Recall@-1", "Recall@x", "Rprec@5", "P(rel=0)@3", "Recall@2.5"]
)
def test_bad_cutoffs_are_errors(text):
    with pytest.raises(InputError):
        parse_measure(text)


def test_unknown_names_list_every_valid_name_and_all_are_reported_at_once():
    with pytest.raises(InputError) as error:
        parse_requests(["Foo@3", "Recall@5", "Bar"])
    assert len(error.value.problems) == 2
    for definition in REGISTRY.values():
        assert definition.name in str(error.value)


def test_the_docs_measure_table_is_generated_from_the_registry():
    text = MEASURES_PAGE.read_text(encoding="utf-8")
    assert markdown_table() in text, "run: python -m ragrecall_core.measures.docs"
    for definition in REGISTRY.values():
        assert f"`{definition.name}" in text


def test_a_registered_measure_without_sql_fails_loudly(monkeypatch):
    from ragrecall_core.measures.base import MeasureDef
    from ragrecall_core.scoring import families

    monkeypatch.setitem(REGISTRY, "Novel", MeasureDef("Novel", "no SQL declared for it"))
    with pytest.raises(RuntimeError, match="Novel"):
        families.require_every_family_computed()


def test_every_measure_declares_its_value_for_a_query_missing_from_the_run():
    for definition in REGISTRY.values():
        assert definition.missing in (0.0, None), definition.name
