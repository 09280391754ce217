"""Real LangChain and LlamaIndex retrievers captured over ``data_samples/`` (issue 28).

Both frameworks are in the ``test`` extra (not the runtime dependencies) and work offline:
LlamaIndex ships the nltk stopwords it needs; the node parser here splits on whitespace
(nltk's sentence model takes seconds to load). Each retriever is passed as the object, as
users hold it; its own k is 4 (LangChain) or 2 (LlamaIndex), and capture must forward
``-k`` to it, read ids from the documented places, and record the retriever package's
version.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import warnings
from pathlib import Path

import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.analysis.capture import capture
from tests.helpers import write_text
from tests.test_capture import read_jsonl, run_cli_in

with warnings.catch_warnings():  # langchain-community warns that it is being sunset
    warnings.simplefilter("ignore")
    from langchain_community.retrievers import BM25Retriever as LangChainBM25
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from llama_index.core.node_parser import TokenTextSplitter
from llama_index.core.schema import Document as LlamaDocument
from llama_index.core.schema import TextNode
from llama_index.retrievers.bm25 import BM25Retriever as LlamaBM25

from tests.samples import shared_samples

SAMPLES = shared_samples()
CHUNKS = read_jsonl(SAMPLES / "corpus.jsonl")
CHUNK_IDS = {chunk["chunk_id"] for chunk in CHUNKS}
GOLD = SAMPLES / "gold.jsonl"


def small_gold(folder: Path, n: int = 12) -> Path:
    """The first ``n`` sample queries, with the sample corpus beside them."""
    lines = (GOLD.read_text("utf-8").splitlines())[:n]
    write_text(folder / "corpus.jsonl", (SAMPLES / "corpus.jsonl").read_text("utf-8"))
    return write_text(folder / "gold.jsonl", "\n".join(lines) + "\n")


def langchain_bm25() -> LangChainBM25:
    documents = [Document(c["text"], metadata={"chunk_id": c["chunk_id"]}) for c in CHUNKS]
    return LangChainBM25.from_documents(documents)  # its own k is 4


def recall_at_10(gold: Path, run: Path) -> float:
    table = evaluate(Workspace.from_files(gold, [run]), ["Recall@10"]).table()
    return float(table["Recall@10"].iloc[0])


def test_a_langchain_bm25_retriever_object_gets_k_and_its_ids(tmp_path):
    gold = small_gold(tmp_path)
    retriever = langchain_bm25()
    result = capture(gold, retriever, tmp_path / "lc.jsonl", k=10)
    assert result.errors == {} and result.short == {} and result.k_forwarded_as == "k"
    assert retriever.k == 4, "the user's retriever is left as it was"
    lines = read_jsonl(tmp_path / "lc.jsonl")
    assert all(len(line["retrieved"]) == 10 for line in lines)
    assert {i["chunk_id"] for line in lines for i in line["retrieved"]} <= CHUNK_IDS
    assert result.not_in_corpus == []
    config = json.loads((tmp_path / "lc.config.json").read_text("utf-8"))
    assert config["top_k"] == 10
    assert config["capture_retriever_version"] == importlib.metadata.version("langchain-community")
    assert recall_at_10(gold, tmp_path / "lc.jsonl") > 0.5


def test_langchain_from_the_command_line_as_an_object_and_async(tmp_path):
    gold = small_gold(tmp_path, 6)
    write_text(
        tmp_path / "lc_mod.py",
        "import json, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "from langchain_community.retrievers import BM25Retriever\n"
        "from langchain_core.documents import Document\n"
        "chunks = [json.loads(l) for l in open('corpus.jsonl', encoding='utf-8')]\n"
        "retriever = BM25Retriever.from_documents(\n"
        "    [Document(c['text'], metadata={'chunk_id': c['chunk_id']}) for c in chunks])\n",
    )
    code, out, err = run_cli_in(
        tmp_path, ["capture", gold, "--retriever", "lc_mod:retriever", "-k", "7", "-o", "a.jsonl"]
    )
    assert code == 0, err
    assert "Traceback" not in err
    by_object = read_jsonl(tmp_path / "a.jsonl")
    assert all(len(line["retrieved"]) == 7 for line in by_object)
    retriever = langchain_bm25()
    result = capture(gold, retriever.ainvoke, tmp_path / "b.jsonl", k=7, concurrency=2)
    assert result.errors == {} and result.k_forwarded_as == "k"
    assert read_jsonl(tmp_path / "b.jsonl") == [
        {**line, "latency_ms": b["latency_ms"]}
        for line, b in zip(by_object, read_jsonl(tmp_path / "b.jsonl"), strict=True)
    ]


class RerankedRetriever(BaseRetriever):
    """A LangChain retriever that keeps its scores in metadata, as rerankers do."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            Document("t", metadata={"chunk_id": c["chunk_id"], "relevance_score": 1 / (i + 1)})
            for i, c in enumerate(CHUNKS[:3])
        ]


def test_scores_a_langchain_retriever_keeps_in_metadata_are_captured(tmp_path):
    capture(small_gold(tmp_path, 2), RerankedRetriever(), tmp_path / "r.jsonl", k=3)
    for line in read_jsonl(tmp_path / "r.jsonl"):
        assert [i["score"] for i in line["retrieved"]] == pytest.approx([1, 1 / 2, 1 / 3])


def llama_bm25(nodes) -> LlamaBM25:
    return LlamaBM25.from_defaults(nodes=nodes, similarity_top_k=2)


def test_a_llamaindex_bm25_retriever_with_uuid_nodes_and_id_key(tmp_path):
    gold = small_gold(tmp_path)
    nodes = [TextNode(text=c["text"], metadata={"chunk_id": c["chunk_id"]}) for c in CHUNKS]
    assert nodes[0].node_id not in CHUNK_IDS  # LlamaIndex names its nodes by UUID
    retriever = llama_bm25(nodes)
    result = capture(gold, retriever, tmp_path / "li.jsonl", k=10, id_key="chunk_id")
    assert result.errors == {} and result.k_forwarded_as == "similarity_top_k"
    assert retriever.similarity_top_k == 2
    lines = read_jsonl(tmp_path / "li.jsonl")
    assert all(len(line["retrieved"]) == 10 for line in lines)
    assert all(i["score"] is not None for line in lines for i in line["retrieved"])
    assert result.not_in_corpus == []
    assert recall_at_10(gold, tmp_path / "li.jsonl") > 0.5
    config = json.loads((tmp_path / "li.config.json").read_text("utf-8"))
    assert config["capture_retriever_version"] == importlib.metadata.version(
        "llama-index-retrievers-bm25"
    )
    # awaited through aretrieve: the same lists
    result = capture(gold, retriever.aretrieve, tmp_path / "async.jsonl", k=10, id_key="chunk_id")
    assert ids(tmp_path / "async.jsonl") == ids(tmp_path / "li.jsonl")


def ids(path: Path) -> dict[str, list[str]]:
    return {line["id"]: [i["chunk_id"] for i in line["retrieved"]] for line in read_jsonl(path)}


def test_node_parser_uuids_are_warned_about_and_split_chunks_kept_once(tmp_path):
    gold = small_gold(tmp_path, 6)
    # the documents the six queries are about, split finer than the corpus chunks
    about = {json.loads(line)["relevant_ids"][0].split("#")[0] for line in gold.open()}
    chunks = [c for c in CHUNKS if c["doc_id"] in about]
    documents = [LlamaDocument(text=c["text"], metadata={"source": c["chunk_id"]}) for c in chunks]
    splitter = TokenTextSplitter(chunk_size=32, chunk_overlap=0, tokenizer=str.split)
    nodes = splitter.get_nodes_from_documents(documents)
    assert len(nodes) > len(chunks)  # some chunks became several nodes
    retriever = llama_bm25(nodes)
    uuids = capture(gold, retriever, tmp_path / "uuid.jsonl", k=5)
    assert uuids.not_in_corpus and len(uuids.not_in_corpus) == uuids.retrieved_ids
    assert "not in the corpus" in uuids.to_text()
    by_key = capture(gold, retriever, tmp_path / "key.jsonl", k=5, id_key="source")
    assert by_key.not_in_corpus == [] and by_key.errors == {}
    for chunk_ids in ids(tmp_path / "key.jsonl").values():
        assert len(chunk_ids) == len(set(chunk_ids))
    # five nodes asked for, some from one chunk: each chunk kept once, the query reported
    assert by_key.duplicates and set(by_key.short) <= set(by_key.duplicates)


def test_an_async_retriever_over_a_shared_client_runs_on_one_loop(tmp_path):
    class AsyncClient:
        """Bound to the loop it was first used on, like aiohttp's sessions."""

        def __init__(self):
            self.loop = None
            self.inner = langchain_bm25()

        async def search(self, query, k):
            loop = asyncio.get_running_loop()
            self.loop = self.loop or loop
            if loop is not self.loop:
                raise RuntimeError("attached to a different loop")
            await asyncio.sleep(0)
            return [(d.metadata["chunk_id"], None) for d in self.inner.invoke(query)][:k]

    result = capture(small_gold(tmp_path, 8), AsyncClient(), tmp_path / "r.jsonl", concurrency=4)
    assert result.errors == {}
    assert result.k_forwarded_as == "k="
