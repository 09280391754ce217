"""A query named ``all`` cannot be mistaken for a mean (issue 26 item 6).

``evaluate --per-query --format tsv/csv`` wrote the means as rows with ``query_id = all``:
a gold query named ``all`` had two rows under one key, its own value and the mean. Mean
rows now carry ``scope = mean`` (query rows ``scope = query``) and no query id, so no id
can collide with them; JSON and the table keep the means apart by structure.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.helpers import gold_row, run_cli, run_row, write_jsonl

# "all" finds its chunk (Recall 1); "x" does not (Recall 0); the mean is 0.5
IDS = ("all", "x", "mean")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mean_rows")
    gold = write_jsonl(folder / "gold.jsonl", [gold_row(q, [f"c-{q}"]) for q in IDS])
    run = write_jsonl(
        folder / "bm25.jsonl",
        [run_row("all", ["c-all"]), run_row("x", ["other"]), run_row("mean", ["c-mean"])],
    )
    return gold, run


def evaluate(capsys, files, fmt: str) -> str:
    gold, run = files
    argv = ["evaluate", gold, run, "-m", "Recall@3", "--per-query", "--format", fmt]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0
    return out


@pytest.mark.parametrize(("fmt", "sep"), [("tsv", "\t"), ("csv", ",")])
def test_long_form_mean_rows_have_their_own_scope(files, capsys, fmt, sep):
    rows = list(csv.DictReader(io.StringIO(evaluate(capsys, files, fmt)), delimiter=sep))
    assert list(rows[0]) == ["run", "query_id", "measure", "value", "scope"]
    queries = [r for r in rows if r["scope"] == "query"]
    means = [r for r in rows if r["scope"] == "mean"]
    assert len(queries) + len(means) == len(rows)
    keys = [(r["run"], r["query_id"], r["measure"]) for r in queries]
    assert len(keys) == len(set(keys)) == len(IDS), "one row per query, none shared"
    by_query = {r["query_id"]: float(r["value"]) for r in queries}
    assert by_query == {"all": 1.0, "x": 0.0, "mean": 1.0}
    (mean,) = means
    assert mean["query_id"] == "" and mean["measure"] == "Recall@3"
    assert float(mean["value"]) == pytest.approx(2 / 3, abs=1e-4)


def test_json_keeps_the_query_all_apart_from_the_mean(files, capsys):
    (run,) = json.loads(evaluate(capsys, files, "json"))["runs"]
    assert run["per_query"]["all"] == {"Recall@3": 1.0}
    assert run["aggregate"]["Recall@3"] == pytest.approx(2 / 3)


def test_the_table_shows_the_query_all_as_a_query(files, capsys):
    out = evaluate(capsys, files, "table")
    means, per_query = out.split("\n\n", 1)[0], out.split("\n\n")[-1]
    assert means.splitlines()[1].split() == ["bm25", "0.6667"]
    rows = [line.split() for line in per_query.splitlines()[1:]]
    assert ["bm25", "all", "1.0000"] in rows and ["bm25", "mean", "1.0000"] in rows
