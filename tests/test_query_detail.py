"""One query in detail: document fields, reviewers under every chunk, a gold chunk's neighbours."""

import json

import pytest

from ragrecall_core import Workspace
from ragrecall_core.analysis.query_detail import RELEVANT, chunk_neighbours, query_detail
from tests.samples import shared_samples


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def shuffled_corpus(count: int) -> list[dict]:
    """Chunks of two documents interleaved, ids in no sorted order: file order is not id
    order, so a neighbour found by sorting would differ from one found by file line."""
    rows = []
    for i in range(count):
        doc = "doc-b" if i % 2 else "doc-a"
        rows.append(
            {
                "chunk_id": f"{doc}#{(i * 7919) % 100_003:06d}",
                "doc_id": doc,
                "text": f"text {i}",
            }
        )
    return rows


@pytest.fixture(scope="module")
def samples():
    return Workspace.open(shared_samples())


def test_chunks_carry_document_fields_and_reviews(samples):
    d = query_detail(samples, "bm25", "q066", 5)
    gold = d.gold.set_index("chunk_id")
    top = gold.loc["per-diem-2025#chunk-02"]
    assert (top.title, top.version, top.status) == (
        "Per diem and meal allowance rates",
        "2025-04",
        "current",
    )
    assert top.retrieved_at == 2 and top["mark"] == RELEVANT
    assert top.reviews == "anna: 2; boris: 2"
    outdated = d.retrieved.set_index("chunk_id").loc["per-diem-2023#chunk-02"]
    assert (outdated.version, outdated.status) == ("2023-01", "outdated")
    assert outdated.reviews.startswith("anna: 0 harmful (")


def test_neighbours_of_gold_chunks(samples):
    d = query_detail(samples, "bm25", "q066", 5)
    n = d.neighbours.set_index("chunk_id")
    assert n.at["per-diem-2025#chunk-02", "previous_id"] == "per-diem-2025#chunk-01"
    assert n.at["per-diem-2025#chunk-02", "next_id"] == "per-diem-2025#chunk-03"
    assert n.at["per-diem-2025#chunk-02", "next_text"].startswith("Claiming per diem.")
    # the first chunk of a document has nothing before it
    assert n.isna().at["per-diem-2025#chunk-01", "previous_id"]


def test_neighbours_follow_file_order_not_id_order(tmp_path):
    rows = shuffled_corpus(4000)
    write_jsonl(tmp_path / "corpus.jsonl", rows)
    write_jsonl(
        tmp_path / "gold.jsonl", [{"id": "q", "query": "q", "relevant_ids": [rows[10]["chunk_id"]]}]
    )
    write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q", "retrieved": [{"chunk_id": rows[0]["chunk_id"], "rank": 1, "score": 1.0}]}],
    )
    ws = Workspace.from_files(
        tmp_path / "gold.jsonl", [tmp_path / "run.jsonl"], [], tmp_path / "corpus.jsonl"
    )
    picked = [rows[i]["chunk_id"] for i in (0, 10, 2001, 3999)]
    n = chunk_neighbours(ws, picked).set_index("chunk_id")
    # same document, two file lines apart (the documents alternate line by line)
    assert n.at[rows[10]["chunk_id"], "previous_id"] == rows[8]["chunk_id"]
    assert n.at[rows[10]["chunk_id"], "next_text"] == "text 12"
    assert n.at[rows[2001]["chunk_id"], "previous_id"] == rows[1999]["chunk_id"]
    assert n.isna().at[rows[0]["chunk_id"], "previous_id"]
    assert n.isna().at[rows[3999]["chunk_id"], "next_id"]
    detail = query_detail(ws, "run", "q", 5)
    assert list(detail.neighbours["chunk_id"]) == [rows[10]["chunk_id"]]


def test_neighbours_ids_are_bound_values(samples):
    hostile = "x' OR 1=1 --"
    assert chunk_neighbours(samples, [hostile]).empty
