"""A ranx, ir_measures or trec_eval script ports by changing the call: their measure names
and ir_measures' measure objects mean what they mean there, or are refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragrecall_core import InputError, Measure, Policy, Workspace, evaluate, parse_measure
from ragrecall_core.measures import REGISTRY, parse_requests

DATA = Path(__file__).parent / "data"
TREC = DATA / "trec_eval"
TOLERANCE = 5e-5  # trec_eval prints 4 decimals


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ranx
        ("hit_rate@5", Measure("Hit", 5)),
        ("hits@5", Measure("Hits", 5)),
        ("f1@10", Measure("F1", 10)),
        ("bpref", Measure("Bpref")),
        ("ndcg_burges@10", Measure("nDCG_burges", 10)),
        ("ndcg@10-l2", Measure("nDCG", 10, rel=2)),
        ("precision@5-l2", Measure("P", 5, rel=2)),
        ("map-l3", Measure("AP", rel=3)),
        ("r-precision", Measure("Rprec")),
        ("mrr@10", Measure("RR", 10)),
        # trec_eval / pytrec_eval
        ("recip_rank", Measure("RR")),
        ("P_5", Measure("P", 5)),
        ("P.5", Measure("P", 5)),
        ("ndcg_cut_10", Measure("nDCG", 10)),
        ("ndcg_cut.10", Measure("nDCG", 10)),
        ("recall_100", Measure("Recall", 100)),
        ("map_cut_10", Measure("AP", 10)),
        ("success_5", Measure("Hit", 5)),
        ("map", Measure("AP")),
        ("ndcg", Measure("nDCG")),
        ("Rprec", Measure("Rprec")),
        # ir_measures
        ("R@100", Measure("Recall", 100)),
        ("RR@10", Measure("RR", 10)),
        ("Success@5", Measure("Hit", 5)),
        ("nDCG(rel=2)@5", Measure("nDCG", 5, rel=2)),
    ],
)
def test_peer_names_parse_to_ragrecall_measures(text, expected):
    assert parse_measure(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ndcg@10-l", "relevance level"),
        ("ndcg@10-lx", "relevance level"),
        ("ndcg(rel=2)@10-l2", "one relevance level"),
        ("P_0", "cutoff"),
        ("ndcg_cut_x", "measure name"),
        ("Judged(rel=2)@5", "Judged@k without a relevance level"),
        ("Harm(rel=2)@5", "Harm@k without a relevance level"),
        ("dcg@10", "nDCG"),
        ("dcg_burges@10", "nDCG_burges"),
        ("rbp.95", "not supported"),
    ],
)
def test_bad_or_unsupported_peer_names_are_refused_saying_what_is_expected(text, expected):
    with pytest.raises(InputError) as error:
        parse_measure(text)
    assert expected in str(error.value)


def test_a_ranx_level_suffix_is_not_reported_as_a_bad_cutoff():
    with pytest.raises(InputError) as error:
        parse_measure("ndcg@10-l0")
    assert "cutoff" not in str(error.value) and "relevance level" in str(error.value)


def test_unknown_name_lists_valid_names_and_the_alias_families():
    with pytest.raises(InputError) as error:
        parse_measure("Foo@3")
    message = str(error.value)
    for definition in REGISTRY.values():
        assert definition.name in message
    for family in ("ranx", "trec_eval", "ir_measures"):
        assert family in message


class IrMeasure:
    """The shape of an ir_measures measure object: NAME, params, str() its name."""

    def __init__(self, name: str, **params):
        self.NAME = name
        self.params = params

    def __str__(self) -> str:
        rel = f"(rel={self.params['rel']})" if "rel" in self.params else ""
        at = f"@{self.params['cutoff']}" if "cutoff" in self.params else ""
        return f"{self.NAME}{rel}{at}"


class StrOnly:
    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text


class BadStr:
    def __str__(self) -> str:
        raise RuntimeError("no name")


@pytest.mark.parametrize(
    ("obj", "expected", "label"),
    [
        (IrMeasure("nDCG", cutoff=10), Measure("nDCG", 10), "nDCG@10"),
        (IrMeasure("RR", cutoff=10), Measure("RR", 10), "RR@10"),
        (IrMeasure("R", cutoff=100), Measure("Recall", 100), "R@100"),
        (IrMeasure("P", rel=2, cutoff=5), Measure("P", 5, rel=2), "P(rel=2)@5"),
        (IrMeasure("AP"), Measure("AP"), "AP"),
        (IrMeasure("Success", cutoff=5), Measure("Hit", 5), "Success@5"),
        (IrMeasure("Judged", cutoff=10), Measure("Judged", 10), "Judged@10"),
        (IrMeasure("Bpref"), Measure("Bpref"), "Bpref"),
        (IrMeasure("RR", judged_only=False), Measure("RR"), "RR"),
        (IrMeasure("nDCG", cutoff=10, dcg="log2"), Measure("nDCG", 10), "nDCG@10"),
        (IrMeasure("nDCG", cutoff=10, dcg="exp-log2"), Measure("nDCG_burges", 10), "nDCG@10"),
        (StrOnly("nDCG@10"), Measure("nDCG", 10), "nDCG@10"),
        (Measure("P", 3), Measure("P", 3), "P@3"),
    ],
)
def test_ir_measures_objects_are_read_by_their_shape(obj, expected, label):
    (request,) = parse_requests([obj])
    assert request.measure == expected
    assert request.label == label


def test_ir_measures_parameters_not_honoured_are_refused_all_at_once():
    objects = [
        IrMeasure("nDCG", cutoff=10, judged_only=True),
        IrMeasure("nDCG", cutoff=10, gains={0: 1}),
        IrMeasure("P", cutoff=True),
        IrMeasure("Judged", cutoff=10, rel=2),
        IrMeasure("ERR", cutoff=10),
        BadStr(),
        3,
    ]
    with pytest.raises(InputError) as error:
        parse_requests(objects)
    message = str(error.value)
    assert len(error.value.problems) == len(objects)
    assert "judged_only" in message and "cutoff, rel" in message


class Hostile:
    def __str__(self) -> str:
        raise RuntimeError("boom")

    __format__ = __str__


class RaisingParams(dict):
    def __iter__(self):
        raise RuntimeError("boom")

    def keys(self):
        raise RuntimeError("boom")


def test_hostile_measure_objects_are_input_errors_not_tracebacks():
    broken = IrMeasure("nDCG")
    broken.params = RaisingParams(cutoff=10)
    objects = [IrMeasure("nDCG", cutoff=Hostile()), broken, StrOnly("x" * 10**6)]
    with pytest.raises(InputError) as error:
        parse_requests(objects)
    assert len(error.value.problems) == len(objects)
    assert len(str(error.value)) < 2000


@pytest.fixture(scope="module")
def trec_ws():
    return Workspace.from_files(TREC / "qrels.rel_level", [TREC / "results.test"])


def per_query(evaluation) -> dict[str, dict[str, float]]:
    """``{measure as asked: {query: value}}`` (a query's value of ranx's ``mrr@10`` goes by
    ``RR@10`` in the rows: never a mean's name)."""
    asked = evaluation.asked
    table: dict[str, dict[str, float]] = {}
    for _, query, measure, value in evaluation.rows:
        table.setdefault(asked[measure], {})[query] = value
    return table


def test_every_alias_gives_the_same_values_as_the_canonical_name(trec_ws):
    pairs = [
        ("hit_rate@5", "Hit@5"),
        ("success_5", "Hit@5"),
        ("recip_rank", "RR"),
        ("P_5", "P@5"),
        ("ndcg_cut_10", "nDCG@10"),
        ("recall_100", "Recall@100"),
        ("map_cut_10", "AP@10"),
        ("ndcg@10-l2", "nDCG(rel=2)@10"),
        ("precision@5-l2", "P(rel=2)@5"),
    ]
    # each alias alone: one measure under two spellings in one evaluation is refused
    policy = Policy(compat="trec_eval")
    canonicals = per_query(evaluate(trec_ws, [name for _, name in pairs], policy=policy))
    for alias, canonical in pairs:
        values = per_query(evaluate(trec_ws, [alias], policy=policy))
        assert values[alias] == canonicals[canonical], alias


def test_ir_measures_objects_run_through_evaluate(trec_ws):
    objects = [IrMeasure("nDCG", cutoff=10), IrMeasure("R", cutoff=100), IrMeasure("AP")]
    evaluation = evaluate(trec_ws, objects, policy=Policy(compat="trec_eval"))
    names = evaluate(trec_ws, ["nDCG@10", "Recall@100", "AP"], policy=Policy(compat="trec_eval"))
    assert [m[2] for m in evaluation.means] == [m[2] for m in names.means]
    assert evaluation.labels == ["nDCG@10", "R@100", "AP"]


def test_ranx_names_give_ranx_numbers(trec_ws):
    """tests/data/ranx/expected.json: ranx's own values (see make_expected.py there)."""
    expected = json.loads((DATA / "ranx" / "expected.json").read_text())["values"]
    ours = per_query(evaluate(trec_ws, sorted(expected), policy=Policy(compat="trec_eval")))
    for metric, values in expected.items():
        for query, value in values.items():
            assert ours[metric][query] == pytest.approx(value, abs=1e-9), (metric, query)


def test_a_relevance_level_changes_ndcg_gains(trec_ws):
    values = per_query(evaluate(trec_ws, ["nDCG@100", "nDCG(rel=2)@100"]))
    assert values["nDCG@100"] != values["nDCG(rel=2)@100"]


def trec_values(expected: str, name: str) -> dict[str, float]:
    values = {}
    for line in (TREC / expected).read_text().splitlines():
        measure, query, value = line.split()
        if measure == name:
            values[query] = float(value)
    return values


CASES = [
    # (expected output, qrels, run, relevance level, trec_eval -c)
    ("out.test.aq", "qrels.test", "results.test", 1, False),
    ("out.test.aql", "qrels.rel_level", "results.test", 2, False),
    ("out.test.aqc", "qrels.test", "results.trunc", 1, True),
]


@pytest.mark.parametrize(("expected", "qrels", "run", "level", "complete"), CASES)
def test_bpref_matches_trec_eval(expected, qrels, run, level, complete):
    want = trec_values(expected, "bpref")
    ws = Workspace.from_files(TREC / qrels, [TREC / run])
    policy = Policy(rel_level=level, compat="trec_eval", complete=complete)
    evaluation = evaluate(ws, ["bpref"], policy=policy)
    got = per_query(evaluation)["bpref"]
    for query, value in want.items():
        actual = evaluation.value(evaluation.runs[0], "bpref") if query == "all" else got[query]
        assert actual == pytest.approx(value, abs=TOLERANCE), query


def test_f1_at_the_list_length_is_trec_eval_set_f():
    """Every list of results.test has 500 items: F1@500 is trec_eval's set_F (beta 1)."""
    want = trec_values("out.test.aq", "set_F")
    ws = Workspace.from_files(TREC / "qrels.test", [TREC / "results.test"])
    evaluation = evaluate(ws, ["F1@500"], policy=Policy(compat="trec_eval"))
    got = per_query(evaluation)["F1@500"]
    for query, value in want.items():
        actual = evaluation.value("results", "F1@500") if query == "all" else got[query]
        assert actual == pytest.approx(value, abs=TOLERANCE), query


@pytest.mark.parametrize("k", [5, 10, 100])
def test_hits_is_trec_eval_precision_times_k(k):
    want = trec_values("out.test.aq", f"P_{k}")
    ws = Workspace.from_files(TREC / "qrels.test", [TREC / "results.test"])
    got = per_query(evaluate(ws, [f"hits@{k}"], policy=Policy(compat="trec_eval")))[f"hits@{k}"]
    for query, value in want.items():
        if query != "all":
            assert got[query] == pytest.approx(value * k, abs=TOLERANCE * k), query


def test_a_negative_grade_is_unjudged_as_in_trec_eval(trec_ws):
    """trec_eval reads a qrels grade below 0 as "in the pool but unjudged" (form_res_rels.c:
    RELVALUE_UNJUDGED): not relevant, and not judged either (its unj_k counts it)."""
    names = ["Judged@5", "Judged@10", "Judged@100"]
    ours = per_query(evaluate(trec_ws, names, policy=Policy(rel_level=2, compat="trec_eval")))
    for name in names:
        want = trec_values("out.test.aql", f"unj_{name.split('@')[1]}")
        for query, value in want.items():
            if query != "all":
                assert ours[name][query] == pytest.approx(1 - value, abs=TOLERANCE), query


@pytest.mark.parametrize(("expected", "qrels", "run", "level", "complete"), CASES)
def test_every_trec_eval_name_ragrecall_accepts_gives_trec_evals_values(
    expected, qrels, run, level, complete
):
    """Each name trec_eval printed is either refused or, read as ragrecall reads it, gives
    trec_eval's values: a name is never accepted as something else."""
    table: dict[str, dict[str, float]] = {}
    for line in (TREC / expected).read_text().splitlines():
        name, query, value = line.split()
        if name not in ("runid",) and not name.startswith("relstring"):  # text, not numbers
            table.setdefault(name, {})[query] = float(value)
    accepted = []
    for name in table:
        try:
            parse_measure(name)
            accepted.append(name)
        except InputError:
            pass
    ws = Workspace.from_files(TREC / qrels, [TREC / run])
    policy = Policy(rel_level=level, compat="trec_eval", complete=complete)
    evaluation = evaluate(ws, accepted, policy=policy)
    ours = per_query(evaluation)
    for name in accepted:
        for query, value in table[name].items():
            got = evaluation.value("results", name) if query == "all" else ours[name][query]
            assert got == pytest.approx(value, abs=TOLERANCE), (name, query)
    assert len(accepted) >= 40  # P_k, recall_k, success_k, ndcg_cut_k, map_cut_k, bpref, ...


def test_compare_takes_ir_measures_objects():
    from ragrecall_core import compare

    gold = {"q1": ["a", "b"], "q2": {"c": 2, "d": 0}}
    runs = {"x": {"q1": ["a", "z"], "q2": ["d", "c"]}, "y": {"q1": ["b"], "q2": ["c"]}}
    ws = Workspace.from_memory(gold, runs)
    objects = [IrMeasure("nDCG", cutoff=2), IrMeasure("R", cutoff=2)]
    by_objects = compare(ws, "x", "y", k=2, measures=objects).deltas
    by_names = compare(ws, "x", "y", k=2, measures=["nDCG@2", "R@2"]).deltas
    assert by_objects.equals(by_names)
