"""What the Judge and Agreement pages need on top of :mod:`judging` and :mod:`pooling`.

One annotator's blind queue (the per-annotator pool, grouped by query, and how far they
got), the judgment store opened once per workspace even when a server reloads the
workspace, a version of the store for cache keys, the reasons offered one click away,
grades export (JSONL / CSV with formula cells neutralised) and import of a grades sheet.

The store is attached lazily (:func:`judging.connect_store`): opening a workspace
attaches ``judgments.duckdb`` only if it exists; it is created by the first write (a
judgment, a resolution, an import).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ragrecall_core.analysis.gold_gaps import write_proposal
from ragrecall_core.analysis.pooling import POOLED, SEED, check_pool, query_params
from ragrecall_core.errors import Problem, raise_if_any
from ragrecall_core.inputs.db import connect, lock_down
from ragrecall_core.inputs.grades import load_grades, look_alike_annotators
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.store import STORE, look_alike, store_transaction
from ragrecall_core.inputs.store import (
    StoreStatus as StoreStatus,  # re-exported: pages import one module
)
from ragrecall_core.inputs.store import connect_store as connect_store
from ragrecall_core.inputs.store import is_open as is_open
from ragrecall_core.inputs.store import open_store as open_store
from ragrecall_core.inputs.store import undo_last as undo_last
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import neutralise, plural

# typical reviewers' reasons, always offered
TYPICAL_REASONS = (
    "same product, other operation",
    "answer cut by the chunk boundary",
    "the exception is in the neighbouring chunk",
)

CRITERION = {
    2: "relevant: directly contains what the answer needs",
    1: "partially relevant: needed context, but not sufficient alone",
    0: "not relevant",
}
HARMFUL = "harmful: convincing, but outdated or contradicting"

GRADE_COLUMNS = ["query_id", "chunk_id", "grade", "harmful", "reason", "annotator"]


# ---------------------------------------------------------------- the store
def store_version(workspace: Workspace) -> str:
    """Changes whenever a judgment or a resolution is stored (for cache keys)."""
    if not is_open(workspace):
        return "no-store"
    row = (
        workspace.cursor()
        .execute(
            f"SELECT (SELECT count(*) FROM {STORE}.judgments), "  # noqa: S608
            f"(SELECT coalesce(max(id), 0) FROM {STORE}.judgments), "
            f"(SELECT count(*) FROM {STORE}.resolutions), "
            f"(SELECT coalesce(max(id), 0) FROM {STORE}.resolutions)"
        )
        .fetchone()
    )
    return "j{}.{}-r{}.{}".format(*row)


# ---------------------------------------------------------------- one annotator's queue
@dataclass(frozen=True)
class Queue:
    """One annotator's blind queue: what is left (no run, rank or score) and what is done.

    ``remaining`` holds only ids (``query_id, chunk_id``), in queue order; the texts of the
    current item are read for it alone (:func:`advance`), and those of the rest when a sheet
    is asked for (:func:`with_texts`): at 10,000 queries the pool is ~360,000 chunks.
    """

    remaining: pd.DataFrame  # query_id, chunk_id
    judged: int
    first: dict | None = None  # the current item with its query and chunk text

    @property
    def size(self) -> int:
        return self.judged + len(self.remaining)

    @property
    def share(self) -> float:
        return self.judged / self.size if self.size else 1.0

    def current(self) -> dict | None:
        return self.first


# the pool before any annotator's grades are taken out (only the gold's judgments are), in
# queue order: queries in a fixed shuffled order, each query's chunks together in the
# pool's own shuffled order (the order :data:`pooling.POOL_SQL` gives its rows)
POOL_ORDER_SQL = """
WITH {pooled}
SELECT p.query_id, p.chunk_id
FROM pooled p ANTI JOIN qrels g ON g.query_id = p.query_id AND g.chunk_id = p.chunk_id
ORDER BY md5($seed || p.query_id), md5($seed || p.query_id || chr(31) || p.chunk_id)
""".replace("{pooled}", POOLED)


def pool_order(
    workspace: Workspace,
    runs: Sequence[str],
    depth: int,
    query_ids: Sequence[str] | None,
    k: int,
) -> pd.DataFrame:
    """``query_id, chunk_id`` of the pool in queue order, before any reviewer's grade is
    taken out. It depends on the inputs only, never on the judgment store, so a page
    computes it once per (runs, depth, queries) and :func:`advance` it after each grade."""
    runs = list(runs)
    check_pool(workspace, runs, depth, k)
    params = {"depth": depth, "runs": runs, **query_params(query_ids), "seed": SEED}
    return workspace.cursor().execute(POOL_ORDER_SQL, params).df()


def advance(workspace: Workspace, order: pd.DataFrame, annotator: str) -> Queue:
    """The queue of ``annotator`` over a :func:`pool_order`: what they have not graded yet
    (in a file or in the store), and how many of the pool's chunks they have."""
    done = (
        workspace.cursor()
        .execute(
            "SELECT DISTINCT query_id, chunk_id FROM all_grades WHERE annotator = $a",
            {"a": annotator.strip()},
        )
        .fetchall()
    )
    graded = _graded(order, done)
    remaining = order[~graded].reset_index(drop=True)
    first = None
    if not remaining.empty:
        query_id, chunk_id = remaining.iloc[0][["query_id", "chunk_id"]]
        query, text = item_text(workspace, query_id, chunk_id)
        first = {"query_id": query_id, "chunk_id": chunk_id, "query": query, "text": text}
    return Queue(remaining=remaining, judged=int(graded.sum()), first=first)


def _graded(order: pd.DataFrame, done: list[tuple[str, str]]) -> np.ndarray:
    """Which of ``order``'s (query, chunk) pairs are in ``done``; only the rows of queries in
    ``done`` are compared pair by pair (a page rerun at 10k must not rebuild 360k pairs)."""
    graded = np.zeros(len(order), dtype=bool)
    candidates = order["query_id"].isin({query_id for query_id, _ in done}).to_numpy()
    if candidates.any():
        pairs = pd.MultiIndex.from_frame(order.loc[candidates, ["query_id", "chunk_id"]])
        graded[candidates] = pairs.isin(done)
    return graded


def queue(
    workspace: Workspace,
    annotator: str,
    runs: Sequence[str],
    depth: int,
    query_ids: Sequence[str] | None,
    k: int,
) -> Queue:
    """The pool left for ``annotator`` and how many pooled chunks they have judged already.

    Chunks of one query come together; queries and chunks are in fixed shuffled orders, so
    the queue resumes where the annotator stopped."""
    return advance(workspace, pool_order(workspace, runs, depth, query_ids, k), annotator)


def with_texts(workspace: Workspace, items: pd.DataFrame) -> pd.DataFrame:
    """``items`` (``query_id, chunk_id``, in order) with their query and chunk text."""
    con = workspace.cursor()
    con.register("sheet_items", items[["query_id", "chunk_id"]].assign(position=range(len(items))))
    try:
        return con.execute(
            "SELECT i.query_id, i.chunk_id, q.query, c.text FROM sheet_items i "
            "LEFT JOIN queries q USING (query_id) LEFT JOIN corpus c USING (chunk_id) "
            "ORDER BY i.position"
        ).df()
    finally:
        con.unregister("sheet_items")


def has_judged(workspace: Workspace, annotator: str, query_id: str, chunk_id: str) -> bool:
    """Whether ``annotator`` has a grade (file or store) for this query and chunk."""
    row = (
        workspace.cursor()
        .execute(
            "SELECT count(*) FROM all_grades WHERE annotator = $a AND query_id = $q "
            "AND chunk_id = $c",
            {"a": annotator.strip(), "q": query_id, "c": chunk_id},
        )
        .fetchone()
    )
    return row[0] > 0


def query_subset(
    workspace: Workspace, split: str = "", query_type: str = "", section: str = ""
) -> list[str] | None:
    """Query ids under the dashboard's filters; ``None`` when no filter is set (all)."""
    if not (split or query_type or section):
        return None
    rows = (
        workspace.cursor()
        .execute(
            "SELECT query_id FROM queries WHERE ($s = '' OR split = $s) "
            "AND ($t = '' OR query_type = $t) AND ($c = '' OR section = $c) ORDER BY query_id",
            {"s": split, "t": query_type, "c": section},
        )
        .fetchall()
    )
    return [r[0] for r in rows]


def common_reasons(workspace: Workspace, limit: int = 8) -> list[str]:
    """The workspace's most frequent reviewer reasons, then the typical ones, without repeats."""
    rows = (
        workspace.cursor()
        .execute(
            "SELECT trim(reason) AS r, count(*) AS n FROM all_grades "
            "WHERE reason IS NOT NULL AND trim(reason) <> '' GROUP BY 1 ORDER BY n DESC, r "
            "LIMIT $limit",
            {"limit": limit},
        )
        .fetchall()
    )
    return list(dict.fromkeys([r[0] for r in rows] + list(TYPICAL_REASONS)))


def annotator_judgments(workspace: Workspace, annotator: str) -> pd.DataFrame:
    """This annotator's current grades (latest per chunk), newest stored first."""
    return (
        workspace.cursor()
        .execute(
            "SELECT query_id, chunk_id, grade, harmful, reason, parse_filename(source) AS source "
            "FROM all_grades WHERE annotator = $a "
            "ORDER BY source = 'judge page' DESC, query_id, chunk_id",
            {"a": annotator.strip()},
        )
        .df()
    )


def judging_sheet(pool: pd.DataFrame, annotator: str = "") -> str:
    """The pool as a CSV sheet to grade offline (blind: no run, rank or score)."""
    sheet = pool[["query_id", "chunk_id", "query", "text"]].assign(
        grade="", harmful="", reason="", annotator=annotator.strip()
    )
    return sheet.map(neutralise).to_csv(index=False)


# ---------------------------------------------------------------- agreement helpers
def disagreement_items(disagreements: pd.DataFrame) -> pd.DataFrame:
    """One row per disagreeing (query, chunk): who said what, and its resolution if any."""
    columns = ["query_id", "chunk_id", "grades", "status"]
    if disagreements.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for (query_id, chunk_id), group in disagreements.groupby(["query_id", "chunk_id"], sort=True):
        said: dict[str, str] = {}
        for r in group.itertuples(index=False):
            said[r.annotator_a] = _said(r.grade_a, r.harmful_a)
            said[r.annotator_b] = _said(r.grade_b, r.harmful_b)
        first = group.iloc[0]
        resolved = first.get("resolved_grade")
        status = (
            f"resolved: {int(resolved)} by {first['resolver']}" if pd.notna(resolved) else "open"
        )
        rows.append(
            {
                "query_id": query_id,
                "chunk_id": chunk_id,
                "grades": ", ".join(f"{a}: {g}" for a, g in sorted(said.items())),
                "status": status,
            }
        )
    return pd.DataFrame(rows, columns=columns)


def _said(grade, harmful) -> str:
    return f"{int(grade)}{' ⚠ harmful' if bool(harmful) else ''}"


def item_grades(workspace: Workspace, query_id: str, chunk_id: str) -> pd.DataFrame:
    """Every annotator's current grade of one (query, chunk)."""
    return (
        workspace.cursor()
        .execute(
            "SELECT annotator, grade, harmful, reason, parse_filename(source) AS source "
            "FROM all_grades WHERE query_id = $q AND chunk_id = $c ORDER BY annotator",
            {"q": query_id, "c": chunk_id},
        )
        .df()
    )


def item_resolutions(workspace: Workspace, query_id: str, chunk_id: str) -> pd.DataFrame:
    """Every recorded resolution of one (query, chunk), oldest first (none is overwritten)."""
    return (
        workspace.cursor()
        .execute(
            "SELECT grade, harmful, reason, resolver, created_at FROM all_resolutions "
            "WHERE query_id = $q AND chunk_id = $c ORDER BY created_at, id",
            {"q": query_id, "c": chunk_id},
        )
        .df()
    )


def item_text(workspace: Workspace, query_id: str, chunk_id: str) -> tuple[str, str]:
    """The query's text and the chunk's text ('' when unknown)."""
    con = workspace.cursor()
    query = con.execute("SELECT query FROM queries WHERE query_id = $q", {"q": query_id}).fetchone()
    text = con.execute("SELECT text FROM corpus WHERE chunk_id = $c", {"c": chunk_id}).fetchone()
    return (query[0] or "") if query else "", (text[0] or "") if text else ""


# ---------------------------------------------------------------- export / import
def grades_jsonl(grades: pd.DataFrame) -> str:
    """Grades as JSON lines in the grades file format."""
    lines = []
    for row in grades[GRADE_COLUMNS].itertuples(index=False):
        lines.append(
            json.dumps(
                {
                    "query_id": row.query_id,
                    "chunk_id": row.chunk_id,
                    "grade": int(row.grade),
                    "harmful": bool(row.harmful),
                    "reason": row.reason if isinstance(row.reason, str) else "",
                    "annotator": row.annotator,
                },
                ensure_ascii=False,
            )
        )
    return "".join(line + "\n" for line in lines)


def grades_csv(grades: pd.DataFrame) -> str:
    """Grades as CSV; a cell a spreadsheet would run as a formula is neutralised."""
    frame = grades[GRADE_COLUMNS].astype(object)
    frame["harmful"] = frame["harmful"].map(lambda v: "true" if bool(v) else "false")
    return frame.map(neutralise).to_csv(index=False)


def read_grades_file(path: Path) -> pd.DataFrame:
    """Validate a grades file with :func:`load_grades` (raises InputError) and return its
    rows, read by a connection confined to that one file."""
    con = connect()
    try:
        lock_down(con, [Path(path)])
        load_grades(con, Path(path))
        raise_if_any(look_alike_annotators(con))  # two spellings of one name in the sheet
        return con.execute(
            "SELECT query_id, chunk_id, grade, harmful, reason, annotator FROM grades"
        ).df()
    finally:
        con.close()


# a sheet row the store already holds, exactly as an import would store it, and not undone
# since (an undone row imported again is a new grade)
STORED_ALREADY = f"""
EXISTS (SELECT 1 FROM {STORE}.judgments s
        WHERE s.query_id = i.query_id AND s.chunk_id = i.chunk_id AND s.grade = i.grade
          AND s.harmful = coalesce(i.harmful, false)
          AND s.reason IS NOT DISTINCT FROM coalesce(i.reason, '')
          AND s.annotator = trim(i.annotator) AND NOT coalesce(s.withdrawn, false)
          AND NOT EXISTS (SELECT 1 FROM {STORE}.judgments u WHERE u.undoes = s.id))
"""


def import_grades(workspace: Workspace, path: Path) -> pd.DataFrame:
    """Add a validated grades file's new rows to the judgment store in one transaction;
    return the file's rows, ``new`` telling which were added.

    Nothing is written if the file has any problem (InputError lists them all), nor if it
    names an annotator differing only in case or Unicode normalisation from one of the store
    or of the grades files (``Kim`` beside ``kim``), as a save would be refused. Importing
    is idempotent: a row the store already holds (same query, chunk, grade, harmful, reason
    and annotator) is recognised and skipped, so a sheet imported twice counts once. Each
    new row becomes that annotator's latest judgment; earlier ones stay recorded.
    """
    rows = read_grades_file(path)
    if rows.empty:
        return rows.assign(new=pd.Series(dtype=bool))
    open_store(workspace)  # its names, when it exists: a refused sheet creates no store
    raise_if_any(_look_alikes(workspace, path, rows))
    with store_transaction(workspace) as con:
        raise_if_any(_look_alikes(workspace, path, rows))  # again, under the store's lock
        con.register("imported_grades", rows.assign(sheet_row=range(len(rows))))
        try:
            new = con.execute(
                f"SELECT NOT {STORED_ALREADY} FROM imported_grades i ORDER BY sheet_row"  # noqa: S608
            ).fetchall()
            con.execute(
                f"INSERT INTO {STORE}.judgments (query_id, chunk_id, grade, harmful, reason, "
                "annotator) SELECT query_id, chunk_id, grade, coalesce(harmful, false), "
                f"coalesce(reason, ''), trim(annotator) FROM imported_grades i "
                f"WHERE NOT {STORED_ALREADY}"
            )
        finally:
            con.unregister("imported_grades")
    return rows.assign(new=[flag for (flag,) in new])


def _look_alikes(workspace: Workspace, path: Path, rows: pd.DataFrame) -> list[Problem]:
    """Each annotator of the sheet ``path`` (its ``rows``) whose name differs only in case
    or Unicode normalisation from one of the store or of the grades files, as the store's
    own saves refuse it (:func:`~ragrecall_core.inputs.store.look_alike`), naming the sheet:
    imported, it would be a second annotator, voting twice in the reviewers' median."""
    found = (look_alike(workspace, name) for name in sorted(set(rows["annotator"])))
    return [replace(problem, file=redact_path(path)) for problem in found if problem is not None]


def import_summary(rows: pd.DataFrame, name: str) -> str:
    """What an import did, in one sentence: new grades, by whom, and how many were skipped."""
    added = int(rows["new"].sum())
    who = ", ".join(sorted(set(rows["annotator"]))) or "nobody"
    skipped = len(rows) - added
    tail = f" ({skipped} already stored, skipped)" if skipped else ""
    return f"Imported {plural(added, 'new grade')} by {who} from {name}{tail}."


def proposal_jsonl(gaps: pd.DataFrame) -> str:
    """The proposed gold update (:func:`gold_gaps.write_proposal`) as text."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gold_proposal.jsonl"
        write_proposal(gaps, path)
        return path.read_text("utf-8")
