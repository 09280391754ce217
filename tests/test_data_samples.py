"""Checks on the sample workspace in data_samples/ (stdlib json + pytest only)."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data_samples"
QUERY_TYPES = {
    "exact_term",
    "paraphrase",
    "multi_condition",
    "abbreviation",
    "confusable",
    "no_answer",
}
CHUNK_RE = re.compile(r"^[a-z0-9-]+#chunk-\d{2}$")


def load_jsonl(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def corpus():
    return load_jsonl(DATA / "corpus.jsonl")


@pytest.fixture(scope="module")
def chunk_ids(corpus):
    return {c["chunk_id"] for c in corpus}


@pytest.fixture(scope="module")
def gold():
    return load_jsonl(DATA / "gold.jsonl")


def load_build_runs():
    spec = importlib.util.spec_from_file_location("build_runs", DATA / "build_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bm25_run_rebuilds_byte_identical(tmp_path):
    build_runs = load_build_runs()
    assert build_runs.main(["--only", "bm25", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "bm25.jsonl").read_bytes() == (DATA / "runs" / "bm25.jsonl").read_bytes()
    assert (tmp_path / "bm25.config.json").read_bytes() == (
        DATA / "runs" / "bm25.config.json"
    ).read_bytes()
    # only the lexical run was written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bm25.config.json", "bm25.jsonl"]


def test_corpus_counts_and_ids(corpus, chunk_ids):
    assert len(corpus) >= 250
    assert len(chunk_ids) == len(corpus), "duplicate chunk ids"
    assert len({c["doc_id"] for c in corpus}) >= 40
    assert len({c["section"] for c in corpus}) >= 6
    for c in corpus:
        assert CHUNK_RE.match(c["chunk_id"]), c["chunk_id"]
        assert c["chunk_id"].split("#")[0] == c["doc_id"]
        assert c["status"] in {"current", "outdated"}
        assert c["text"].strip() and c["title"].strip()
    assert any(c["status"] == "outdated" for c in corpus)


def test_gold_counts_and_labels(gold, chunk_ids):
    assert len(gold) >= 100
    ids = [q["id"] for q in gold]
    assert len(ids) == len(set(ids))
    types = {q["query_type"] for q in gold}
    assert types == QUERY_TYPES
    no_answer = [q for q in gold if q["query_type"] == "no_answer"]
    assert len(no_answer) >= 12
    assert all(q["relevant_ids"] == [] for q in no_answer)
    assert {q["split"] for q in gold} == {"dev", "test"}
    for q in gold:
        if q["query_type"] != "no_answer":
            assert q["relevant_ids"], q["id"]
        for cid in q["relevant_ids"]:
            assert CHUNK_RE.match(cid), cid
            assert cid in chunk_ids, (q["id"], cid)
            assert cid in q["rationale"], (q["id"], cid)
        if q["require_all"]:
            assert len(q["relevant_ids"]) >= 2, q["id"]
        for cid in q.get("grades", {}):
            assert cid in chunk_ids
    assert any(q["require_all"] for q in gold)


def test_runs_reference_corpus_and_have_configs(gold, chunk_ids):
    runs = sorted((DATA / "runs").glob("*.jsonl"))
    assert len(runs) >= 4
    gold_ids = {q["id"] for q in gold}
    for run in runs:
        config = run.with_name(run.stem + ".config.json")
        assert config.exists(), f"missing config sidecar for {run.name}"
        cfg = json.loads(config.read_text(encoding="utf-8"))
        top_k = cfg["top_k"]
        rows = load_jsonl(run)
        assert {r["id"] for r in rows} == gold_ids, run.name
        for r in rows:
            ret = r["retrieved"]
            assert [x["rank"] for x in ret] == list(range(1, top_k + 1)), (run.name, r["id"])
            assert len({x["chunk_id"] for x in ret}) == len(ret)
            scores = [x["score"] for x in ret]
            assert scores == sorted(scores, reverse=True), (run.name, r["id"])
            for x in ret:
                assert x["chunk_id"] in chunk_ids, (run.name, x["chunk_id"])


def test_grades_reference_corpus(gold, chunk_ids):
    gold_ids = {q["id"] for q in gold}
    files = sorted((DATA / "grades").glob("*.jsonl"))
    assert {f.stem for f in files} >= {"anna", "boris"}
    for f in files:
        rows = load_jsonl(f)
        assert len({r["query_id"] for r in rows}) >= 30
        for r in rows:
            assert r["chunk_id"] in chunk_ids, (f.name, r["chunk_id"])
            assert r["query_id"] in gold_ids
            assert r["grade"] in (0, 1, 2)
            assert isinstance(r["harmful"], bool)
            # a model judge's file judge-NAME.jsonl holds annotator judge:NAME
            assert r["annotator"] == re.sub(r"^judge-", "judge:", f.stem)
