"""Generate a large synthetic ragrecall workspace for speed tests.

Default: 10,000 queries x 100 results x 4 runs, a corpus of 2,000 documents
(20,000 chunks) and one annotator's grades for the top 5 of 500 queries.
The output is deterministic for a given seed.

    python benchmarks/make_large_workspace.py /tmp/large_ws
    python benchmarks/make_large_workspace.py /tmp/small_ws --queries 500 --depth 20
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TYPES = ("exact_term", "paraphrase", "multi_condition", "abbreviation", "confusable", "no_answer")
SECTIONS = ("it-ops", "security", "hr", "finance", "facilities", "engineering", "support")
RUNS = {"bm25": 0.55, "dense": 0.7, "hybrid": 0.78, "hybrid-rerank": 0.83}
REASONS = (
    "same product, other operation",
    "right topic, wrong detail",
    "unrelated topic",
    "outdated policy version",
)


def make(folder: Path, queries: int, depth: int, docs: int, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    (folder / "grades").mkdir(exist_ok=True)
    chunks = []
    with (folder / "corpus.jsonl").open("w") as out:
        for d in range(docs):
            section = SECTIONS[d % len(SECTIONS)]
            for c in range(1, rng.randint(3, 17) + 1):
                cid = f"doc{d:05d}#chunk-{c:02d}"
                chunks.append(cid)
                words = " ".join(f"w{rng.randint(0, 999)}" for _ in range(rng.randint(20, 90)))
                out.write(
                    json.dumps(
                        {
                            "chunk_id": cid,
                            "doc_id": f"doc{d:05d}",
                            "section": section,
                            "text": words,
                        }
                    )
                    + "\n"
                )
    gold = {}
    with (folder / "gold.jsonl").open("w") as out:
        for q in range(queries):
            qid = f"q{q:05d}"
            qtype = TYPES[q % len(TYPES)]
            relevant = (
                [] if qtype == "no_answer" else rng.sample(chunks, rng.choice((1, 1, 1, 2, 3)))
            )
            gold[qid] = relevant
            out.write(
                json.dumps(
                    {
                        "id": qid,
                        "query": f"synthetic question {q} about w{rng.randint(0, 999)}",
                        "relevant_ids": relevant,
                        "query_type": qtype,
                        "section": SECTIONS[q % len(SECTIONS)],
                        "split": "test" if q % 5 in (1, 3) else "dev",
                        "require_all": len(relevant) > 1,
                    }
                )
                + "\n"
            )
    tops: dict[str, list[str]] = {}
    for run, quality in RUNS.items():
        with (folder / "runs" / f"{run}.jsonl").open("w") as out:
            for qid, relevant in gold.items():
                ranked = rng.sample(chunks, depth)
                for rel in relevant:
                    if rng.random() < quality:
                        pos = min(int(rng.expovariate(0.6)), depth - 1)
                        if rel in ranked:
                            ranked.remove(rel)
                            ranked.append(rng.choice(chunks))
                        ranked.insert(pos, rel)
                ranked = list(dict.fromkeys(ranked))[:depth]
                if run == "hybrid":
                    tops[qid] = ranked[:5]
                score = 1.0
                items = []
                for rank, cid in enumerate(ranked, 1):
                    score -= rng.random() * 0.01
                    items.append({"chunk_id": cid, "rank": rank, "score": round(score, 6)})
                out.write(json.dumps({"id": qid, "retrieved": items}) + "\n")
        (folder / "runs" / f"{run}.config.json").write_text(
            json.dumps(
                {"name": run, "corpus_version": "synthetic", "top_k": depth, "retrieval": run}
            )
        )
    with (folder / "grades" / "synth.jsonl").open("w") as out:
        for qid in list(gold)[: min(500, queries)]:
            for cid in tops.get(qid, []):
                grade = 2 if cid in gold[qid] else 0
                out.write(
                    json.dumps(
                        {
                            "query_id": qid,
                            "chunk_id": cid,
                            "grade": grade,
                            "harmful": False,
                            "reason": "" if grade else rng.choice(REASONS),
                            "annotator": "synth",
                        }
                    )
                    + "\n"
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--docs", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    make(args.folder, args.queries, args.depth, args.docs, args.seed)
    print(f"wrote {args.folder}")


if __name__ == "__main__":
    main()
