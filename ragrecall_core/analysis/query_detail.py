"""One query in detail: its gold list beside what a run retrieved, with relevance marks.

Every retrieved item gets one mark, as the measures see it under the policy:
``relevant``, ``judged not relevant``, ``harmful`` (a reviewer flagged it) or
``unjudged`` (neither the gold set nor a reviewer said anything about it).
Text comes from the corpus when one is loaded, with the document's ``title``,
``version`` and ``status`` where the corpus records carry them (kept as metadata); it is
untrusted and returned as plain strings for the page to show as text. Every chunk, gold
or retrieved, carries the reviewers' grades and reasons (``reviews``); each gold chunk
also the text of the chunks before and after it in its document (:data:`NEIGHBOURS_SQL`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.scoring.policy import Policy
from ragrecall_core.scoring.prepared import (  # noqa: F401 (the marks, re-exported)
    HARMFUL,
    MARK_SQL,
    NOT_RELEVANT,
    RELEVANT,
    UNJUDGED,
    prepare,
)

QUERY_SQL = """
SELECT query_id, query, query_type, section, split, require_all, metadata::VARCHAR AS metadata
FROM queries WHERE query_id = $q
"""

# the document fields a corpus record may carry beside the known ones (see inputs/corpus.py)
CHUNK_FIELDS = """c.doc_id, c.section, json_extract_string(c.metadata, '$.title') AS title,
       json_extract_string(c.metadata, '$.version') AS version,
       json_extract_string(c.metadata, '$.status') AS status, c.text"""

# each chunk's reviewers in one line: "anna: 2 (reason); boris: 0 harmful"
REVIEWS_CTE = """
reviews AS (
    SELECT chunk_id, string_agg(annotator || ': ' || grade
                      || CASE WHEN harmful THEN ' harmful' ELSE '' END
                      || CASE WHEN coalesce(reason, '') <> ''
                              THEN ' (' || reason || ')' ELSE '' END,
                      '; ' ORDER BY annotator) AS reviews
    FROM all_grades WHERE query_id = $q GROUP BY chunk_id)"""

GOLD_SQL = f"""
WITH first AS (SELECT chunk_id, min(rank) AS rank FROM runs
               WHERE run = $run AND query_id = $q GROUP BY chunk_id),
{REVIEWS_CTE}
SELECT j.chunk_id, j.grade, CASE WHEN g.chunk_id IS NULL THEN 'reviewers' ELSE 'gold' END
       AS source, {{mark}} AS mark, g.rationale, f.rank AS retrieved_at, v.reviews,
       {CHUNK_FIELDS}
FROM {{s}}.chunk_judgments j
LEFT JOIN qrels g ON g.query_id = j.query_id AND g.chunk_id = j.chunk_id
LEFT JOIN first f ON f.chunk_id = j.chunk_id
LEFT JOIN reviews v ON v.chunk_id = j.chunk_id
LEFT JOIN corpus c ON c.chunk_id = j.chunk_id
WHERE j.query_id = $q AND j.grade >= $level
ORDER BY f.rank NULLS LAST, j.chunk_id
"""

RETRIEVED_SQL = f"""
WITH {REVIEWS_CTE}
SELECT r.rank, r.score, r.chunk_id, {{mark}} AS mark, j.grade,
       coalesce(j.harmful, false) AS harmful, v.reviews, {CHUNK_FIELDS}
FROM runs r
LEFT JOIN {{s}}.chunk_judgments j ON j.query_id = r.query_id AND j.chunk_id = r.chunk_id
LEFT JOIN reviews v ON v.chunk_id = r.chunk_id
LEFT JOIN corpus c ON c.chunk_id = r.chunk_id
WHERE r.run = $run AND r.query_id = $q AND r.rank <= $depth
ORDER BY r.rank
"""

# The chunks before and after each of $ids in its document, in corpus file order (each
# chunk's line in the corpus file, kept by the loader). Only the documents of $ids are
# ordered, not the whole corpus.
NEIGHBOURS_SQL = """
WITH docs AS (SELECT DISTINCT doc_id FROM corpus WHERE list_contains($ids, chunk_id)),
ordered AS (
    SELECT c.chunk_id,
           lag(c.chunk_id) OVER doc AS previous_id, lag(c.text) OVER doc AS previous_text,
           lead(c.chunk_id) OVER doc AS next_id, lead(c.text) OVER doc AS next_text
    FROM corpus c SEMI JOIN docs d ON d.doc_id = c.doc_id
    WINDOW doc AS (PARTITION BY c.doc_id ORDER BY c.line))
SELECT chunk_id, previous_id, previous_text, next_id, next_text
FROM ordered WHERE list_contains($ids, chunk_id) ORDER BY chunk_id
"""

REVIEWS_SQL = """
SELECT chunk_id, annotator, grade, harmful, reason FROM all_grades
WHERE query_id = $q ORDER BY chunk_id, annotator
"""


@dataclass
class QueryDetail:
    """The query, its gold list, a run's list, and the reviewers' rows."""

    query: dict
    gold: pd.DataFrame
    retrieved: pd.DataFrame
    reviews: pd.DataFrame
    run: str
    k: int
    has_corpus: bool
    missing: list[str] = field(default_factory=list)
    neighbours: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def found(self) -> bool:
        return bool(self.query)


def query_detail(
    workspace: Workspace,
    run: str,
    query_id: str,
    k: int,
    policy: Policy | None = None,
    depth: int | None = None,
) -> QueryDetail:
    """Gold list and the first ``depth`` (default: all) retrieved items of ``run`` for a query."""
    prepared = prepare(workspace, policy)
    policy, con = prepared.policy, workspace.cursor()
    rows = con.execute(QUERY_SQL, {"q": query_id}).df()
    query = rows.iloc[0].to_dict() if len(rows) else {}
    gold = prepared.query(
        GOLD_SQL.replace("{mark}", MARK_SQL),
        {"q": query_id, "run": run, "level": policy.rel_level},
    )
    retrieved = prepared.query(
        RETRIEVED_SQL.replace("{mark}", MARK_SQL),
        {"q": query_id, "run": run, "depth": depth or 1_000_000, "level": policy.rel_level},
    )
    retrieved.insert(1, "in top k", retrieved["rank"] <= k)
    reviews = con.execute(REVIEWS_SQL, {"q": query_id}).df()
    has_corpus = con.execute("SELECT count(*) > 0 FROM corpus").fetchone()[0]
    missing = []
    if not has_corpus:
        missing.append("no corpus is loaded: chunk text and sections are not available")
    if query and not query.get("query"):
        missing.append("the gold file has no query text (e.g. TREC qrels): only the id is known")
    neighbours = chunk_neighbours(workspace, list(gold["chunk_id"]))
    return QueryDetail(
        query, gold, retrieved, reviews, run, k, bool(has_corpus), missing, neighbours
    )


def chunk_neighbours(workspace: Workspace, chunk_ids: list[str]) -> pd.DataFrame:
    """Per chunk id: the id and text of the chunks before and after it in its document,
    in corpus file order (empty cells at a document's ends; no row for an id the corpus
    does not have)."""
    return workspace.cursor().execute(NEIGHBOURS_SQL, {"ids": chunk_ids}).df()
