"""A workspace where a candidate run wins on average but regresses on three queries.

``write_workspace(folder)`` writes, under ``folder``::

    gold.jsonl                    13 queries, ``split`` test (t01..t09) / dev (d01..d04)
    runs/baseline.jsonl           + baseline.config.json
    runs/candidate.jsonl          + candidate.config.json (every kind of secret in it)
    grades/anna.jsonl             one harmful grade-0 chunk with a reason starting with "-"
    corpus.jsonl                  chunk text, one chunk holding a <script> tag

Recall@5 per query (every answerable query has one relevant chunk, d03 has two):

    query  split  baseline           candidate          outcome
    t01    test   1 (rank 1)         0 (rank 6)         regression
    t02    test   1 (rank 1)         0 (not retrieved)  regression
    t03    test   1 (rank 1)         0 (rank 6)         regression
    t04    test   0 (not retrieved)  1                  improvement
    t05    test   0 (rank 6)         1                  improvement
    t06    test   0 (not retrieved)  1                  improvement
    t07    test   0 (rank 6)         1                  improvement
    t08    test   1                  1                  still passing
    t09    test   no answer (relevant_ids []): outside Recall's mean
    d01    dev    0                  1                  improvement
    d02    dev    0                  1                  improvement
    d03    dev    0.5 (1 of 2)       0.5 (1 of 2)       still failing
    d04    dev    1                  1                  still passing

All 12 answerable queries: baseline mean (5 + 0.5) / 12 = 0.4583, candidate
(8 + 0.5) / 12 = 0.7083, mean delta 3 / 12 = 0.25; wins 6, ties 3, losses 3.
Test split (8 answerable): candidate Recall@5 = 5 / 8 = 0.625, baseline 4 / 8 = 0.5.
Dev split (4): candidate (1 + 1 + 0.5 + 1) / 4 = 0.875, baseline (0 + 0 + 0.5 + 1) / 4 = 0.375.

The configs differ in two retrieval factors, ``top_k`` (k) and ``reranker``.
Query texts start with spreadsheet-formula characters (=, +, -, @, tab; a carriage
return on request, ``CR_TEXT``) and hold HTML / Markdown markup and an apostrophe, so
the reports' escaping can be checked on them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

K = 5
REGRESSIONS = ("t01", "t02", "t03")
IMPROVEMENTS = ("t04", "t05", "t06", "t07", "d01", "d02")
TEST_IDS = ("t01", "t02", "t03", "t04", "t05", "t06", "t07", "t08", "t09")
DEV_IDS = ("d01", "d02", "d03", "d04")
NO_ANSWER = ("t09",)

SCRIPT_TEXT = "<script>alert(1)</script>"
FORMULA_TEXT = '=HYPERLINK("http://x")'
PIPE_TEXT = "refunds | returns | exchanges"
# query id -> a query text whose first character a spreadsheet would run as a formula
FORMULA_STARTS = {
    "t01": "-1 minus start: pricing of plan B",
    "t02": "@admin how to reset a password",
    "t03": "\tTAB start: export limits",
    "t05": FORMULA_TEXT,
    "t07": "+1 plus start: SLA for enterprise",
}
CR_TEXT = "\rCR start: data retention"  # for t08 when asked (write_workspace(query_texts=...))
APOSTROPHE_TEXT = "what's the weather on Mars next week"
HARMFUL_REASON = "-outdated: superseded by v2"

SECRETS = {
    "api_key": "sk-live-abcdef123456",
    "token": "tok_SECRET_1",
    "password": "hunter2",
    "dsn": "postgresql://app:pgsecret@db.internal/rag",
    "endpoint": "https://user:urlsecret@search.internal/v1",
    "connection_string": "Server=x;Password=connsecret;",
}
# the part of each secret that must never be shown
SECRET_VALUES = (
    "sk-live-abcdef123456",
    "tok_SECRET_1",
    "hunter2",
    "pgsecret",
    "urlsecret",
    "connsecret",
)

BASE_CONFIG = {
    "corpus_version": "kb-2026-06",
    "embedding_model": "e5-base",
    "retrieval": "dense",
    "chunk_size": 512,
    "chunk_overlap": 64,
    "top_k": 5,
    "filters": {},
    "reranker": "none",
}
CAND_CONFIG = {**BASE_CONFIG, "top_k": 10, "reranker": "bge-reranker-base", **SECRETS}

# (id, split, query text, relevant ids, baseline state, candidate state)
# state: "pass" = relevant chunks first; "below" = first relevant chunk at rank 6;
# "never" = not retrieved; "half" = only the first relevant chunk, at rank 1
QUERIES = [
    ("t01", "test", FORMULA_STARTS["t01"], ["doc-a#c1"], "pass", "below"),
    ("t02", "test", FORMULA_STARTS["t02"], ["doc-b#c1"], "pass", "never"),
    ("t03", "test", FORMULA_STARTS["t03"], ["doc-c#c1"], "pass", "below"),
    ("t04", "test", SCRIPT_TEXT, ["doc-d#c1"], "never", "pass"),
    ("t05", "test", FORMULA_TEXT, ["doc-e#c1"], "below", "pass"),
    ("t06", "test", PIPE_TEXT, ["doc-f#c1"], "never", "pass"),
    ("t07", "test", FORMULA_STARTS["t07"], ["doc-g#c1"], "below", "pass"),
    ("t08", "test", "data retention period", ["doc-h#c1"], "pass", "pass"),
    ("t09", "test", APOSTROPHE_TEXT, [], "never", "never"),
    ("d01", "dev", "how to rotate keys", ["doc-i#c1"], "never", "pass"),
    ("d02", "dev", "invoice currency", ["doc-j#c1"], "below", "pass"),
    ("d03", "dev", "limits and quotas, both", ["doc-k#c1", "doc-k#c2"], "half", "half"),
    ("d04", "dev", "login via SSO", ["doc-l#c1"], "pass", "pass"),
]
DEPTH = 6


def write_jsonl(path: Path, rows: Iterable[Mapping]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def run_line(qid: str, chunks: Sequence[str], scores: Sequence[float] | None = None) -> dict:
    """A seed-000 run line; ranks 1..n in list order, scores descending unless given."""
    if scores is None:
        scores = [round(1.0 - i / 20, 4) for i in range(len(chunks))]
    return {
        "id": qid,
        "retrieved": [
            {"chunk_id": c, "rank": i + 1, "score": s}
            for i, (c, s) in enumerate(zip(chunks, scores, strict=True))
        ],
    }


def ranked(relevant: Sequence[str], state: str, noise: str) -> list[str]:
    """A list of DEPTH chunk ids whose relevant chunks sit where ``state`` says."""
    filler = [f"{noise}#n{i}" for i in range(1, DEPTH + 1)]
    if state == "pass":
        head = list(relevant)
    elif state == "half":
        head = list(relevant[:1])
    elif state == "below":
        return filler[: DEPTH - 1] + [relevant[0]]
    else:
        head = []
    return head + filler[: DEPTH - len(head)]


def write_workspace(folder: Path, query_texts: Mapping[str, str] | None = None) -> Path:
    """Write the workspace described in the module docstring into ``folder``; return it.

    ``query_texts`` replaces the text of the given query ids.
    """
    folder = Path(folder)
    query_texts = dict(query_texts or {})
    folder.mkdir(parents=True, exist_ok=True)
    gold, base, cand = [], [], []
    for qid, split, text, relevant, b_state, c_state in QUERIES:
        gold.append(
            {
                "id": qid,
                "query": query_texts.get(qid, text),
                "relevant_ids": relevant,
                "query_type": "no-answer" if not relevant else "paraphrase",
                "section": "billing" if qid in ("t04", "t05", "d02") else "platform",
                "split": split,
            }
        )
        base.append(run_line(qid, ranked(relevant, b_state, f"noise-base-{qid}")))
        cand.append(run_line(qid, ranked(relevant, c_state, f"noise-cand-{qid}")))
    write_jsonl(folder / "gold.jsonl", gold)
    write_jsonl(folder / "runs" / "baseline.jsonl", base)
    write_jsonl(folder / "runs" / "candidate.jsonl", cand)
    for name, config in (("baseline", BASE_CONFIG), ("candidate", CAND_CONFIG)):
        (folder / "runs" / f"{name}.config.json").write_text(json.dumps(config, indent=2), "utf-8")
    write_jsonl(
        folder / "grades" / "anna.jsonl",
        [
            {
                "query_id": "t01",
                "chunk_id": "noise-cand-t01#n1",
                "grade": 0,
                "harmful": True,
                "reason": HARMFUL_REASON,
                "annotator": "anna",
            }
        ],
    )
    corpus = [
        {
            "chunk_id": chunk,
            "doc_id": chunk.split("#")[0],
            "section": "platform",
            "text": SCRIPT_TEXT if chunk == "doc-d#c1" else f"text of {chunk}",
        }
        for _, _, _, relevant, _, _ in QUERIES
        for chunk in relevant
    ]
    write_jsonl(folder / "corpus.jsonl", corpus)
    return folder


def paths(folder: Path) -> dict[str, Path]:
    """The fixture's files by role, for commands that take loose files."""
    folder = Path(folder)
    return {
        "gold": folder / "gold.jsonl",
        "baseline": folder / "runs" / "baseline.jsonl",
        "candidate": folder / "runs" / "candidate.jsonl",
        "grades": folder / "grades" / "anna.jsonl",
        "corpus": folder / "corpus.jsonl",
    }
