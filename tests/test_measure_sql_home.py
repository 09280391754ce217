"""A measure's SQL lives in the module that declares it; the frame knows no family.

Expected numbers are counted by hand from ``GOLD`` and ``RUN`` below.
"""

from __future__ import annotations

import sys

import pytest

from ragrecall_core import Policy, Workspace, evaluate
from ragrecall_core.measures import ALIASES, REGISTRY, parse_measure
from ragrecall_core.measures.base import MeasureDef
from ragrecall_core.measures.sql import Columns, FamilySQL
from ragrecall_core.scoring.families import measure_rows_sql
from ragrecall_core.scoring.prepared import prepare, scope_params

GOLD = {"q1": ["a", "b", "c"], "q2": ["d"], "q3": ["e"]}
RUN = {
    "q1": {"a": 0.9, "x": 0.8, "b": 0.7, "y": 0.6},  # 2 relevant in the top 3
    "q2": {"z": 0.9, "d": 0.1},  # 1 relevant in the top 3
    "q3": {"w": 0.5},  # none
}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_measure_declares_its_sql_in_its_own_module(name):
    definition = REGISTRY[name]
    assert callable(definition.sql), f"{name}: MeasureDef.sql is missing"
    module = sys.modules[definition.sql.__module__]
    assert module.__name__.startswith("ragrecall_core.measures.")
    assert any(value is definition for value in vars(module).values()), (
        f"{name}'s SQL is defined in {module.__name__}, not where {name} is registered"
    )


def _twice_relevant(c: Columns) -> FamilySQL:
    return FamilySQL(c.count_relevant(), f"2.0 * coalesce(a.{c.agg}, 0)")


def test_a_family_declared_outside_the_frame_registers_and_computes(monkeypatch):
    novel = MeasureDef("TwiceHits", "2 x relevant items in the top k", sql=_twice_relevant)
    monkeypatch.setitem(REGISTRY, novel.name, novel)
    monkeypatch.setitem(ALIASES, novel.name.lower(), novel.name)
    evaluation = evaluate(GOLD, ["TwiceHits@3", "Hits@3"], runs=RUN, name="run")
    values = {(q, m): v for _, q, m, v in evaluation.rows}
    assert values == {
        ("q1", "TwiceHits@3"): 4.0,
        ("q2", "TwiceHits@3"): 2.0,
        ("q3", "TwiceHits@3"): 0.0,
        ("q1", "Hits@3"): 2.0,
        ("q2", "Hits@3"): 1.0,
        ("q3", "Hits@3"): 0.0,
    }
    assert evaluation.mean("run", "TwiceHits@3") == (2.0, 3)


def test_measure_rows_carry_the_measure_index_as_a_typed_value():
    workspace = Workspace.from_memory(GOLD, {"run": RUN})
    prepared = prepare(workspace, Policy())
    measures = [parse_measure("Hits@3"), parse_measure("FirstRank")]
    sql, params = measure_rows_sql(measures, prepared.policy, prepared.table)
    rows = prepared.query(sql, {**params, **scope_params(None, None)})
    assert list(rows.columns) == ["run", "query_id", "m", "value"]
    assert str(rows["m"].dtype) == "int32" and str(rows["value"].dtype) == "float64"
    first_rank = rows[rows["m"] == 1].set_index("query_id")["value"].to_dict()
    assert first_rank == {"q1": 1.0, "q2": 2.0}  # q3 finds none: no value, no row
    assert sorted(rows.loc[rows["m"] == 0, "value"]) == [0.0, 1.0, 2.0]
