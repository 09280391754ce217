"""Attack: no exception but ``InputError`` reaches the caller of ``ragrecall.evaluate`` for
any gold or run handed over in memory (issue 26 item 3): wrong types at every level, nesting
10^5 deep, lone surrogates, NaN and infinities, None, bytes, sets, generators, objects whose
``__str__`` / ``__eq__`` / ``__hash__`` / ``__iter__`` raise, NumPy scalars, pandas NA and NaT,
categorical columns, MultiIndex frames. Each evaluates, or an ``InputError`` says why.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pandas as pd

import ragrecall
from ragrecall_core import InputError
from tests.adversarial.test_memory_hostile import (
    RUN,
    Qrel,
    Qrels,
    Run,
    ScoredDoc,
    deep_list,
    frame_run,
    objects,
)


class Raising:
    """Every dunder a loader might call raises."""

    def __str__(self):
        raise RuntimeError("__str__")

    __repr__ = __format__ = __str__

    def __eq__(self, other):
        raise RuntimeError("__eq__")

    def __hash__(self):
        raise RuntimeError("__hash__")

    def __iter__(self):
        raise RuntimeError("__iter__")

    def __len__(self):
        raise RuntimeError("__len__")

    def __getattr__(self, name):
        raise RuntimeError(f"getattr {name}")


class RaisingKey(str):
    def __hash__(self):
        return 1

    def __eq__(self, other):
        raise RuntimeError("__eq__")

    def __str__(self):
        raise RuntimeError("__str__")

    __repr__ = __str__


class BadMapping(dict):
    def items(self):
        raise RuntimeError("items")

    def __iter__(self):
        raise RuntimeError("__iter__")


class BadRanx:
    qrels = run = name = "x"

    def to_dict(self):
        raise RuntimeError("to_dict")


def generator():
    yield {"id": "q1", "query": "x", "relevant_ids": ["a"]}
    raise RuntimeError("midway")


def hostile_values() -> list:
    deep = deep_list(100_000)
    deep_dict: dict = {}
    inner = deep_dict
    for _ in range(100_000):
        inner["k"] = {}
        inner = inner["k"]
    multi = pd.DataFrame({("query_id", ""): ["q1"], ("chunk_id", ""): ["a"], ("rank", ""): [1]})
    indexed = frame_run(["a"]).set_index(["query_id", "chunk_id"])
    return [
        None,
        0,
        1.5,
        math.nan,
        math.inf,
        True,
        "",
        b"gold",
        bytearray(b"x"),
        {"a"},
        frozenset(),
        (x for x in ()),
        generator(),
        Raising(),
        BadMapping(),
        BadRanx(),
        np.float64(1),
        np.int64(3),
        np.array([1, 2]),
        pd.NA,
        pd.NaT,
        Decimal("1"),
        deep,
        deep_dict,
        {"q1": deep},
        {"q1": {"a": deep_dict}},
        {"q1": Raising()},
        {"q1": [Raising()]},
        {"q1": {"a": Raising()}},
        {RaisingKey("q1"): ["a"]},
        {"q1": {RaisingKey("a"): 1}},
        {("q", 1): ["a"]},
        {None: ["a"]},
        {1: ["a"]},
        {"q1": None},
        {"q1": "a"},
        {"q1": b"a"},
        {"q1": {"a"}},
        {"q1": ["a\ud800"]},
        {"q\udfff": ["a"]},
        {"q1": [None]},
        {"q1": [math.nan]},
        {"q1": {"a": math.inf}},
        {"q1": {"a": -math.inf}},
        {"q1": {"a": None}},
        {"q1": {"a": np.float32(0.5)}},
        {"q1": {"a": np.int8(1)}},
        {"q1": {"a": np.bool_(True)}},
        {"q1": {"a": pd.NA}},
        {"q1": {"a": pd.NaT}},
        {"q1": [pd.NA]},
        {"q1": [np.str_("a")]},
        {"q1": (c for c in "ab")},
        {"q1": range(3)},
        [None],
        [1],
        ["a"],
        [Raising()],
        [{"id": Raising()}],
        [{"id": "q1", "retrieved": None}],
        [{"id": "q1", "retrieved": [None, 1, "a", {"chunk_id": Raising()}]}],
        [{"id": "q1", "query": "x", "relevant_ids": deep}],
        [{"id": "q1", "query": "x", "relevant_ids": ["a"], "grades": {"a": Raising()}}],
        [{"id": "q1", "query": "x", "relevant_ids": ["a"], "x": {1, 2}}],
        [{"id": "q1", "query": "x", "relevant_ids": ["a"], "x": b"\xff"}],
        [ScoredDoc("q1", "a", 1.0), {"x": 1}],
        [ScoredDoc(Raising(), "a", 1.0)],
        [ScoredDoc("q1", ["a"], 1.0)],
        [ScoredDoc("q1", "a", "1")],
        [ScoredDoc("q1", "a", None)],
        [Qrel("q1", "a", None, "0")],
        [Qrel("q1", "a", True, "0")],
        [Qrel(1, 2, 3, 4)],
        [Qrel("q1", "a", 1, "0"), ScoredDoc("q1", "a", 1.0)],
        Qrels(Raising()),
        Qrels({"q1": Raising()}),
        Run(Raising(), "r"),
        Run({"q1": ["a"]}, Raising()),
        [Run({"q1": {"a": 1.0}}, "a"), Raising()],
        [Run({"q1": {"a": 1.0}}, Raising())],
        pd.DataFrame(),
        pd.DataFrame({"query_id": []}),
        multi,
        indexed,
        pd.DataFrame({0: ["q1"], 1: ["a"], 2: [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [True]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": ["1"]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [pd.NaT]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": objects([Raising()])}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": objects([Raising()]), "rank": [1]}),
        pd.DataFrame(
            {"query_id": pd.Categorical(["q1"]), "chunk_id": pd.Categorical([1]), "rank": [1]}
        ),
        pd.DataFrame({"query_id": pd.Categorical(["q1"]), "chunk_id": ["a"], "rank": [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [1], "score": [math.inf]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [1], "score": [pd.NA]}),
        pd.DataFrame({"query_id": objects([pd.NA]), "chunk_id": ["a"], "rank": [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": objects([b"a"]), "rank": [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": objects([["a"]]), "rank": [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": objects([{"a": 1}]), "rank": [1]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": objects([Decimal(1)])}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [2**70]}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [1], "": [1]}),
        pd.DataFrame(
            [["q1", "a", 1, 1]],
            columns=pd.Index(["query_id", "chunk_id", "rank", "x\ud800"], dtype=object),
        ),
        pd.DataFrame(
            {"query_id": ["q1"], "chunk_id": ["a"], "rank": [1], "x": objects([Raising()])}
        ),
        pd.DataFrame([["q1", "a", 1]], columns=["query_id", "query_id", "rank"]),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": pd.array([1], dtype="Int64")}),
        pd.DataFrame({"query_id": ["q1"], "chunk_id": ["a"], "rank": [1.0], "grade": [2.5]}),
    ]


def outcome(gold, runs) -> str | None:
    """None when it evaluates or raises InputError (shown without error), else what escaped."""
    try:
        ragrecall.evaluate(gold, ["Recall@2"], runs=runs)
    except InputError as error:
        assert error.problems and all(isinstance(p.value, str) for p in error.problems)
        str(error)  # it can be shown
    except Exception as error:  # noqa: BLE001 - what this test looks for
        return f"{type(error).__name__}: {str(error)[:80]}"
    return None


def test_no_exception_but_input_error_reaches_the_caller_for_any_gold():
    escaped = [found for value in hostile_values() if (found := outcome(value, {"r": RUN}))]
    assert escaped == []
