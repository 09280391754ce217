"""One contract, in memory (issue 26): every in-memory shape loads exactly the table its
equivalent file loads, or both refuse, naming the same queries.

Gold and runs are generated with hostile string ids (number-, date-, time-, hex-looking,
leading zeros, whitespace, control and bidi characters, look-alike letters, lone surrogates)
and odd values (ties, negative and float grades, NaN, infinities, None, bools, text), then
loaded through each shape -- a dict of lists, a dict of grades / scores, a long-form
DataFrame, seed records, a ranx-shaped and an ir_measures-shaped object (built here) -- and
through the equivalent file written to a temporary folder: JSON lines for dicts and records,
CSV for frames, TREC where the shape follows TREC's rules (a qrels object's negative grades,
a scored run's trec_eval order) and the ids can be written as TREC fields.
"""

from __future__ import annotations

import csv
import json
import math
import re
import tempfile
from pathlib import Path

import duckdb
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core import InputError
from ragrecall_core.inputs import db, gold, memory, readers, runs
from tests.peer_shapes import Qrel, Qrels, Run, ScoredDoc

SETTINGS = settings(max_examples=20)


def relevant(labels: dict) -> list[str]:
    """The chunks a JSON-lines gold lists in relevant_ids: those graded 1 or more."""
    return [chunk for chunk, grade in labels.items() if grade >= 1]


HOSTILE_IDS = [
    "1", "1.0", "01", "007", "1e5", "0x10", "2024-01-05", "2024-1-5", "10:30", "2.10", "2.1",
    "-0", "+1", " 1", "1 ", "a b", " ", "", "\t", "\u3000", "\u200f1", "\u202e1", "\u2028",
    "\x00", "\x1b[2J", "\x7f", "\ufeff1", "１", "l", "I", "ǀ", "K", "K", "a\ud800", "\udfff",
    "NaN", "null", "true", "a,b", 'a"b', "#1", "q\n", "\r",
]  # fmt: skip
IDS = st.one_of(st.sampled_from(HOSTILE_IDS), st.text("aA1 .", min_size=1, max_size=3))
GRADES = st.one_of(st.integers(0, 3), st.sampled_from([-1, -2, 1.0, 2.5, True, None, "1"]))
SCORES = st.one_of(
    st.sampled_from([1.0, 0.5, 0.5, 2, 0, -1e300]),
    st.sampled_from([math.nan, math.inf, True, None, "1"]),
)


# ------------------------------------------------------------------ loading and comparing
def outcome(con: duckdb.DuckDBPyConnection, load, tables, order: list[str]) -> tuple:
    """``("ok", tables)`` after ``load()``, or ``("refused", queries named)``: a problem
    names a query by the query itself, or by the record / row / item / line it is on
    (``order``: the query of each, from 1)."""
    try:
        load()
    except InputError as error:
        return "refused", named_queries(error.problems, order)
    return "ok", tables(con)


PLACE = re.compile(r"^(?:record|row|item) (\d+):")


def named_queries(problems, order: list[str]) -> frozenset:
    named = set()
    for problem in problems:
        if problem.line is not None:
            named.add(order[problem.line - 1] if problem.line <= len(order) else None)
            continue
        place = PLACE.match(problem.value)
        if place:
            named.add(order[int(place[1]) - 1])
        named |= {q for q in order if f"query {q!r}" in problem.value}
        named |= {q for q in order if problem.value.startswith(f'"{q}" retrieved[')}
    return frozenset(named)


def gold_tables(con: duckdb.DuckDBPyConnection) -> tuple:
    queries = con.execute("SELECT query_id FROM queries ORDER BY ALL").fetchall()
    qrels = con.execute("SELECT query_id, chunk_id, grade FROM qrels ORDER BY ALL").fetchall()
    con.execute("DELETE FROM queries; DELETE FROM qrels")
    return queries, qrels


def run_tables(name: str):
    def tables(con: duckdb.DuckDBPyConnection) -> tuple:
        rows = con.execute(
            "SELECT query_id, chunk_id, rank, score FROM runs WHERE run = $r ORDER BY ALL",
            {"r": name},
        ).fetchall()
        listed = con.execute(
            "SELECT query_id, listed FROM run_queries WHERE run = $r ORDER BY ALL", {"r": name}
        ).fetchall()
        return rows, listed

    return tables


def same(outcomes: dict[str, tuple]) -> None:
    """Every path's outcome equals the first's."""
    first, expected = next(iter(outcomes.items()))
    for path, found in outcomes.items():
        assert found == expected, f"{path} differs from {first}: {found} != {expected}"


# ------------------------------------------------------------------ files
def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8", "surrogatepass")
    return path


def write_csv(path: Path, header: list[str], rows: list) -> Path:
    with path.open("w", newline="", encoding="utf-8", errors="surrogatepass") as handle:
        csv.writer(handle).writerows([header, *rows])
    return path


def write_trec(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), "utf-8", "surrogatepass")
    return path


def trec_safe(ids) -> bool:
    """Ids a TREC file holds as written: non-empty, no whitespace a split would eat, no
    comment mark, valid UTF-8."""
    return all(
        i and not re.search(r"\s", i) and not i.startswith("#") and memory._is_text(i) for i in ids
    )


def csv_safe(ids) -> bool:
    """Ids a CSV line holds as a frame cell does: one physical line each. Not yet a line
    opening with '#': DuckDB's CSV sniffer may take it for a comment and drop the row (a
    file-path bug, reported; the frame keeps the row)."""
    return all("\n" not in i and "\r" not in i and not i.startswith("#") for i in ids)


def cell(value) -> str:
    """A value as a CSV cell says it: missing (None, NaN) empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def validating_read(con: duckdb.DuckDBPyConnection, path: Path, name: str) -> None:
    """The reference reading of a run file, the validating one (each fast read has its own
    differential test against it), added as run ``name``."""
    fmt = readers.detect_format(path)
    table = f"run_table_{con.execute('SELECT count(*) FROM run_files').fetchone()[0]}"
    con.execute(f"DROP TABLE IF EXISTS {table}")
    if fmt == readers.CSV:
        runs._load_long_validating(con, path, fmt, table)
    elif fmt == readers.JSONL:
        runs._load_jsonl_validating(con, path, table)
    else:
        runs._load_trec_validating(con, path, table)
    runs.register_run(con, runs.ReadRun(path, table, fmt), name)


# ------------------------------------------------------------------ gold
@st.composite
def gold_sets(draw):
    """``(qid, chunk, grade)`` triples, each (query, chunk) once, and no-answer queries."""
    triples = draw(
        st.lists(st.tuples(IDS, IDS, GRADES), max_size=10, unique_by=lambda t: (t[0], t[1]))
    )
    empty = draw(st.lists(IDS, max_size=2, unique=True))
    return triples, [q for q in empty if q not in {t[0] for t in triples}]


def by_query(triples) -> dict:
    grouped: dict = {}
    for q, c, g in triples:
        grouped.setdefault(q, {})[c] = g
    return grouped


@given(gold_sets())
@settings(SETTINGS, max_examples=7)
def test_gold_in_memory_loads_as_its_file(data):
    triples, empty = data
    grouped = by_query(triples)
    order = list(grouped) + empty
    graded = {**grouped, **{q: {} for q in empty}}
    listed = {q: [c for c, g in labels.items()] for q, labels in graded.items()}
    ints = all(isinstance(g, int) and not isinstance(g, bool) for _, _, g in triples)
    con = db.connect()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)

        def via(load) -> tuple:
            return outcome(con, load, gold_tables, order)

        def from_memory(value):
            return lambda: memory.load_memory_gold(con, value)

        def from_file(path):
            return lambda: gold.load_gold(con, path)

        # lists: every listed id relevant (grade 1), as "relevant_ids" in a seed file
        seed_lists = [{"id": q, "query": "x", "relevant_ids": ids} for q, ids in listed.items()]
        same(
            {
                "dict of lists": via(from_memory(listed)),
                "records": via(from_memory(seed_lists)),
                "JSON lines": via(from_file(write_jsonl(tmp / "lists.jsonl", seed_lists))),
            }
        )
        # qrels objects: each the other's, the JSONL "grades" when those are whole and >= 0,
        # a TREC qrels file when the grades are whole (a negative one too)
        qrels = {
            "dict of grades": via(from_memory(graded)),
            "ranx": via(from_memory(Qrels(graded))),
        }
        if not empty:  # an ir_measures iterable has no query without a row
            qrels["ir_measures"] = via(from_memory([Qrel(q, c, g, "0") for q, c, g in triples]))
        if ints and all(g >= 0 for _, _, g in triples):
            seed = [
                # the relevant ones listed (a chunk graded 1+ only in "grades" is refused)
                {"id": q, "query": "x", "relevant_ids": relevant(labels), "grades": labels}
                for q, labels in graded.items()
            ]
            qrels["JSON lines"] = via(from_file(write_jsonl(tmp / "graded.jsonl", seed)))
        if ints and triples and not empty and trec_safe(c for t in triples for c in t[:2]):
            lines = [f"{q} 0 {c} {g}" for q, c, g in triples]
            qrels["TREC"] = via(from_file(write_trec(tmp / "qrels.txt", lines)))
        same(qrels)
        if not ints:
            assert qrels["dict of grades"][0] == "refused"
        # a long-form frame as the CSV file with the same cells (numbers in a typed column)
        rows = [(q, c, g) for q, c, g in triples if not isinstance(g, str | bool)]
        rows += [(q, "", None) for q in empty]
        frame = pd.DataFrame(
            {
                "query_id": pd.Series([r[0] for r in rows], dtype=object),
                "chunk_id": pd.Series([r[1] for r in rows], dtype=object),
                "grade": pd.Series([r[2] for r in rows], dtype="float64"),
            }
        )
        if rows and csv_safe(i for r in rows for i in r[:2]):
            csv_rows = [(q, c, cell(g)) for q, c, g in rows]
            path = write_csv(tmp / "gold.csv", ["query_id", "chunk_id", "grade"], csv_rows)
            row_order = [r[0] for r in rows]
            in_frame = outcome(con, from_memory(frame), gold_tables, row_order)
            in_file = outcome(con, from_file(path), gold_tables, ["header", *row_order])
            if all(memory._is_text(i) for r in rows for i in r[:2]):
                same({"frame": in_frame, "CSV": in_file})
            else:  # a file that is not UTF-8 is refused for that alone, the frame for all
                assert in_frame[0] == in_file[0] == "refused"
                assert in_file[1] <= in_frame[1]
    con.close()


# ------------------------------------------------------------------ runs
@st.composite
def run_sets(draw):
    """``{qid: [(chunk, score), ...]}``, each chunk once per query (an empty list too)."""
    queries = draw(st.lists(IDS, min_size=1, max_size=4, unique=True))
    return {
        q: draw(st.lists(st.tuples(IDS, SCORES), max_size=5, unique_by=lambda t: t[0]))
        for q in queries
    }


@given(run_sets())
@settings(SETTINGS, max_examples=5)
def test_runs_in_memory_load_as_their_files(run):
    order = list(run)
    con = db.connect()
    counter = iter(range(1000))
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)

        def via(value, items: list[str] | None = None) -> tuple:
            name = f"m{next(counter)}"
            load = lambda: memory.load_memory_run(con, name, value)  # noqa: E731
            return outcome(con, load, run_tables(name), items or order)

        def via_file(path: Path, lines: list[str] | None = None) -> tuple:
            name = f"f{next(counter)}"
            load = lambda: validating_read(con, path, name)  # noqa: E731
            return outcome(con, load, run_tables(name), lines or order)

        # lists in list order, as JSON lines items without ranks
        lists = {q: [c for c, _ in ranked] for q, ranked in run.items()}
        records = [
            {"id": q, "retrieved": [{"chunk_id": c} for c in ids]} for q, ids in lists.items()
        ]
        same(
            {
                "dict of lists": via(lists),
                "records": via(records),
                "JSON lines": via_file(write_jsonl(tmp / "lists.jsonl", records)),
            }
        )
        # scored items as JSON lines items, in memory as records
        scored_records = [
            {"id": q, "retrieved": [{"chunk_id": c, "score": s} for c, s in ranked]}
            for q, ranked in run.items()
        ]
        same(
            {
                "scored records": via(scored_records),
                "scored JSON lines": via_file(write_jsonl(tmp / "scored.jsonl", scored_records)),
            }
        )
        # scored: trec_eval's order in every shape, and in a TREC run file
        scores = {q: dict(ranked) for q, ranked in run.items()}
        flat = [(q, c, s) for q, ranked in run.items() for c, s in ranked]
        peer_frame = pd.DataFrame(
            {
                "q_id": pd.Series([f[0] for f in flat], dtype=object),
                "doc_id": pd.Series([f[1] for f in flat], dtype=object),
                "score": pd.Series([f[2] for f in flat], dtype=object),
            }
        )
        scored = {
            "dict of scores": via(scores),
            "ranx": via(Run(scores, "r")),
        }
        numbers = all(isinstance(s, int | float) and not isinstance(s, bool) for *_, s in flat)
        complete = all(ranked for ranked in run.values())  # an iterable has no empty list
        if complete:
            scored["ir_measures"] = via([ScoredDoc(*f) for f in flat], [f[0] for f in flat])
        if flat and complete and numbers and all(math.isfinite(s) for *_, s in flat):
            if trec_safe(i for f in flat for i in f[:2]):
                lines = [f"{q} Q0 {c} 1 {s!r} tag" for q, c, s in flat]
                scored["TREC"] = via_file(write_trec(tmp / "run.trec", lines), [f[0] for f in flat])
        if complete:  # a frame has no row for an empty list
            scored["frame without ranks"] = outcome(
                con,
                lambda: memory.load_memory_run(con, "peer", peer_frame),
                run_tables("peer"),
                [f[0] for f in flat],
            )
        same(scored)
        # a long-form frame with ranks as the CSV file with the same cells
        ranked_rows = [
            (q, c, i, s) for q, ranked in run.items() for i, (c, s) in enumerate(ranked, 1)
        ]
        ranked_rows = [r for r in ranked_rows if not isinstance(r[3], str | bool)]
        if ranked_rows and csv_safe(i for r in ranked_rows for i in r[:2]):
            frame = pd.DataFrame(
                {
                    "query_id": pd.Series([r[0] for r in ranked_rows], dtype=object),
                    "chunk_id": pd.Series([r[1] for r in ranked_rows], dtype=object),
                    "rank": [r[2] for r in ranked_rows],
                    "score": pd.Series([r[3] for r in ranked_rows], dtype="float64"),
                }
            )
            header = ["query_id", "chunk_id", "rank", "score"]
            csv_rows = [(q, c, i, cell(s)) for q, c, i, s in ranked_rows]
            path = write_csv(tmp / "run.csv", header, csv_rows)
            row_order = [r[0] for r in ranked_rows]
            same(
                {
                    "frame": outcome(
                        con,
                        lambda: memory.load_memory_run(con, "frame", frame),
                        run_tables("frame"),
                        row_order,
                    ),
                    "CSV": via_file(path, ["header", *row_order]),
                }
            )
            # without ranks, both ordered by score as trec_eval (every row needs one)
            rankless = frame.drop(columns="rank")
            header = ["query_id", "chunk_id", "score"]
            csv_rows = [(q, c, cell(s)) for q, c, _, s in ranked_rows]
            path = write_csv(tmp / "rankless.csv", header, csv_rows)
            same(
                {
                    "frame without ranks": outcome(
                        con,
                        lambda: memory.load_memory_run(con, "rankless", rankless),
                        run_tables("rankless"),
                        row_order,
                    ),
                    "CSV without ranks": via_file(path, ["header", *row_order]),
                }
            )
    con.close()
