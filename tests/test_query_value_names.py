"""One query's value is never called by a mean's name (SPEC: "RR@k ... Its mean is MRR@k;
the value of one query is never called MRR"): asked as MRR@k, mrr@k or MAP, the means keep
the name asked and every query's value, in every output, is RR@k or AP."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis.compare import compare
from ragrecall_core.cli import main
from ragrecall_core.measures import parse_requests
from tests.samples import shared_samples

GOLD = shared_samples() / "gold.jsonl"
RUN = shared_samples() / "runs" / "bm25.jsonl"


@pytest.fixture(scope="module")
def samples() -> Workspace:
    return Workspace.open(shared_samples())


@pytest.mark.parametrize(
    ("asked", "per_query"),
    [
        ("MRR@5", "RR@5"),
        ("mrr@5", "RR@5"),
        ("MAP", "AP"),
        ("map@10", "AP@10"),
        ("RR@5", "RR@5"),
        ("P_5", "P_5"),
        ("Recall@5", "Recall@5"),
    ],
)
def test_a_query_s_value_is_named_by_its_measure_never_its_mean(asked, per_query):
    (request,) = parse_requests([asked])
    assert request.label == asked
    assert request.query_label == per_query


def test_evaluate_keeps_the_mean_s_name_and_names_each_query_s_value_rr(samples):
    ev = evaluate(samples, ["MRR@5", "Recall@5"], runs=["bm25"])
    assert ev.labels == ["MRR@5", "Recall@5"]
    assert list(ev.table().columns) == ["MRR@5", "Recall@5"]
    assert set(ev.per_query.measure) == {"RR@5", "Recall@5"}
    assert list(ev.wide().columns) == ["run", "query_id", "RR@5", "Recall@5"]
    runs = ev.to_dict(per_query=True)["runs"]
    assert set(runs[0]["aggregate"]) == {"MRR@5", "Recall@5"}
    assert {m for values in runs[0]["per_query"].values() for m in values} == {"RR@5", "Recall@5"}
    # the mean is the mean of the queries' values under their own name
    rr = ev.per_query[ev.per_query.measure == "RR@5"].value
    assert ev.value("bm25", "MRR@5") == pytest.approx(rr.mean())


@pytest.mark.parametrize("fmt", ["json", "csv", "tsv", "table"])
def test_every_output_format_names_a_query_s_value_rr(fmt, capsys):
    code = main(["evaluate", str(GOLD), str(RUN), "-m", "MRR@5", "--per-query", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0
    if fmt == "json":
        run = json.loads(out)["runs"][0]
        assert list(run["aggregate"]) == ["MRR@5"]
        assert {m for values in run["per_query"].values() for m in values} == {"RR@5"}
    elif fmt in ("csv", "tsv"):
        rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
        assert {r["measure"] for r in rows if r["scope"] == "query"} == {"RR@5"}
        assert {r["measure"] for r in rows if r["scope"] == "mean"} == {"MRR@5"}
    else:
        head, _, per_query = out.partition("\n\n")
        assert "MRR@5" in head.splitlines()[0]
        table = per_query.split("\n\n")[-1]
        assert "RR@5" in table and "MRR" not in table


def test_compare_s_deltas_keep_the_name_asked_and_its_queries_rr(samples):
    result = compare(samples, "bm25", "dense-minilm", k=5, measures=["MRR@5", "Recall@5"])
    assert {"MRR@5", "Recall@5"} <= set(result.deltas.measure)
    assert "MRR@5" in set(result.by_group.measure)
    assert "MRR@5" not in set(result.per_query.measure)
    rr = result.per_query[result.per_query.measure == "RR@5"]
    mrr = result.deltas.set_index("measure").loc["MRR@5"]
    assert mrr.delta == pytest.approx(rr.delta.mean())
    assert mrr.queries == len(rr)
