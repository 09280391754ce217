"""Files built to slip a repeated rank past the typed (fast) read of a run (issue 14).

The fast read finds a repeated rank in the sort that numbers the positions (each rank
against the previous one given), not with a hash table of the whole run; a list with an
unranked item sorted between two equal ranks, or equal ranks far apart in the file, must
still be refused, with the line, by the validating read.

A long-form run (CSV, Parquet) whose every query is ranked exactly 1..n is not sorted at
all: its positions are its ranks. Which runs are so ranked is decided per query (first
rank, last rank, row count, distinct ranks); a repeated rank inside such a span, or any
other numbering, goes to the sorting read, and both reads load the same table. JSON lines
likewise: lists in rank order (each rank given is its item's place) are not sorted. TREC
runs follow trec_eval (score descending, ties by docno descending; the rank column is
ignored): a file already in that order, ranked 1..n, is not sorted; nor is one in the
writer's order (ranked 1..n, the score falling, ties in any docno order), whose tie groups
alone are numbered again; any other is.
"""

from __future__ import annotations

import duckdb
import pytest

from ragrecall_core import Workspace
from ragrecall_core.inputs import runs, trec_order
from tests.helpers import gold_row, load_problems, write_jsonl, write_text

GOLD = [gold_row("q1", ["a"]), gold_row("q2", ["b"])]


def item(chunk, rank=None, score=None):
    entry = {"chunk_id": chunk}
    if rank is not None:
        entry["rank"] = rank
    if score is not None:
        entry["score"] = score
    return entry


@pytest.mark.parametrize(
    "retrieved",
    [
        # the unranked item at position 2 sorts between the two rank-2 items
        [item("a", 2), item("b"), item("c", 2)],
        [item("a", 1), item("b", 3), item("c"), item("d", 3)],
        [item("a", 5), *[item(f"x{i}", i + 6) for i in range(50)], item("z", 5)],
    ],
)
def test_jsonl_repeated_rank_is_refused_with_its_line(tmp_path, retrieved):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q2", "retrieved": [item("b", 1)]}, {"id": "q1", "retrieved": retrieved}],
    )
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [2]
    assert problems[0].expected.startswith("a rank in this ranked list not used")


def test_long_form_repeated_rank_far_apart_is_refused(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    rows = ["q1,a,3,0.9", "q2,b,1,0.8", "q1,b,1,0.7", "q1,c,3,0.1"]
    run = write_text(tmp_path / "run.csv", "query_id,chunk_id,rank,score\n" + "\n".join(rows))
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [5]
    assert "rank in this query's list" in problems[0].expected


def test_unranked_items_do_not_clash_with_ranks(tmp_path):
    """No rank is no rank: an unranked item beside a ranked one with its position loads."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q1", "retrieved": [item("a", 2), item("b"), item("c", 1)]}],
    )
    workspace = Workspace.from_files(gold, [run])
    order = workspace.con.execute(
        "SELECT chunk_id FROM runs WHERE query_id = 'q1' ORDER BY rank"
    ).fetchall()
    assert [c for (c,) in order] == ["c", "a", "b"]  # by rank, else position; ties by position


def write_long(folder, fmt: str, rows) -> object:
    """(query, chunk, rank, score) rows as a long-form CSV or Parquet run."""
    if fmt == "csv":
        lines = "".join(f"{q},{c},{r},{s}\n" for q, c, r, s in rows)
        return write_text(folder / "run.csv", "query_id,chunk_id,rank,score\n" + lines)
    path = folder / "run.parquet"
    with duckdb.connect() as con:  # not the module's connection: the whole worker's
        con.execute(
            "COPY (SELECT unnest($q) AS query_id, unnest($c) AS chunk_id, unnest($r) AS rank, "
            "unnest($s) AS score) TO '" + str(path) + "' (FORMAT parquet)",
            {k: [row[i] for row in rows] for i, k in enumerate("qcrs")},
        )
    return path


RANKINGS = {
    # each query one block in rank order, as most files are written: ranked 1..n without a
    # count of distinct ranks
    "dense, in blocks": [
        ("q1", "a", 1, 0.9),
        ("q1", "b", 2, 0.5),
        ("q1", "c", 3, 0.1),
        ("q2", "b", 1, 0.8),
    ],
    # blocks in rank order but one query in two of them: counted
    "dense, a query in two blocks": [
        ("q1", "a", 1, 0.9),
        ("q1", "b", 2, 0.5),
        ("q2", "b", 1, 0.8),
        ("q1", "c", 3, 0.1),
    ],
    # every query ranked 1..n, in no particular file order: positions are the ranks
    "dense, shuffled": [
        ("q1", "c", 3, 0.1),
        ("q2", "b", 1, 0.8),
        ("q1", "a", 1, 0.9),
        ("q1", "b", 2, 0.5),
    ],
    # gaps: positions are numbered by the sort
    "sparse": [("q1", "a", 1, 0.9), ("q1", "b", 3, 0.5), ("q1", "c", 7, 0.1), ("q2", "b", 2, 0.8)],
    # one query dense, the other starting at 2
    "mixed": [("q1", "a", 1, 0.9), ("q1", "b", 2, 0.5), ("q2", "b", 2, 0.8), ("q2", "c", 3, 0.1)],
}


def decisions_of(monkeypatch, test: str, module=runs) -> list[bool]:
    """Every answer the order test ``module.<test>`` gives from now on, in a list that fills
    as the test is asked (the test itself still decides)."""
    real, decided = getattr(module, test), []
    monkeypatch.setattr(module, test, lambda *a: decided.append(real(*a)) or decided[-1])
    return decided


def loaded(gold, run) -> list[tuple]:
    workspace = Workspace.from_files(gold, [run])
    sql = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY query_id, rank"
    return workspace.con.execute(sql).fetchall()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("ranking", list(RANKINGS))
def test_both_long_form_reads_load_the_same(tmp_path, monkeypatch, fmt, ranking):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    run = write_long(tmp_path, fmt, RANKINGS[ranking])
    decided = decisions_of(monkeypatch, "dense_ranks")
    fast = loaded(gold, run)
    assert decided == [ranking.startswith("dense")]
    monkeypatch.setattr(runs, "dense_ranks", lambda *a: False)  # the sorting read
    assert loaded(gold, run) == fast
    positions = {q: [c for qq, c, _, _ in fast if qq == q] for q in ("q1", "q2")}
    by_rank = {
        q: [c for qq, c, _, _ in sorted(RANKINGS[ranking], key=lambda r: r[2]) if qq == q]
        for q in ("q1", "q2")
    }
    assert positions == by_rank
    for query, chunks in positions.items():  # the view's rank is the position
        assert [r for q, _, r, _ in fast if q == query] == list(range(1, len(chunks) + 1))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_repeated_rank_inside_a_1_to_n_span_is_refused(tmp_path, fmt):
    """Ranks 1, 2, 2, 4 start at 1 and end at the row count: only distinctness tells."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    rows = [("q1", "a", 1, 0.9), ("q1", "b", 2, 0.8), ("q1", "c", 2, 0.7), ("q1", "d", 4, 0.1)]
    run = write_long(tmp_path, fmt, rows)
    problems = load_problems(gold, [run])
    assert [p.line for p in problems] == [4 if fmt == "csv" else 3]
    assert "rank in this query's list" in problems[0].expected


LISTS = {
    # ranks where given are the items' places: positions are the places, nothing sorted
    "in list order": [[item("a", 1), item("b", 2), item("c", 3)], [item("b", 1)]],
    "unranked and ranked in place": [[item("a"), item("b", 2), item("c")], []],
    # any other order is sorted by rank, else place
    "out of order": [[item("c", 3), item("a", 1), item("b", 2)], [item("b", 1)]],
    "gaps": [[item("a", 1), item("b", 5), item("c")], [item("b", 2)]],
}


@pytest.mark.parametrize("lists", list(LISTS))
def test_both_jsonl_reads_load_the_same(tmp_path, monkeypatch, lists):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    q1, q2 = LISTS[lists]
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"id": "q1", "retrieved": q1}, {"id": "q2", "retrieved": q2}],
    )
    decided = decisions_of(monkeypatch, "in_list_order")
    fast = loaded(gold, run)
    assert decided == [lists in ("in list order", "unranked and ranked in place")]
    monkeypatch.setattr(runs, "in_list_order", lambda *a: False)  # sorted, whatever the order
    assert loaded(gold, run) == fast
    order = [c for q, c, _, _ in fast if q == "q1"]
    assert order == (["a", "b", "c"] if lists != "gaps" else ["a", "c", "b"])


def test_a_query_without_any_valid_rank_is_refused(tmp_path):
    """No rank casts: the query's first and last rank are missing, not 'other than 1..n'
    by a comparison that is NULL; the validating read names the lines."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    text = "query_id,chunk_id,rank,score\nq1,a,first,0.9\nq1,b,second,0.8\nq2,b,1,0.5\n"
    problems = load_problems(gold, [write_text(tmp_path / "run.csv", text)])
    assert [p.line for p in problems] == [2, 3]


TREC_RUNS = {
    # trec_eval's order, ranks 1..n: positions are the ranks, nothing sorted
    "in order": ["q1 Q0 a 1 0.9 t", "q1 Q0 b 2 0.5 t", "q2 Q0 b 1 0.8 t"],
    "tie, docno falling": ["q1 Q0 b 1 0.5 t", "q1 Q0 a 2 0.5 t", "q2 Q0 b 1 0.8 t"],
    "-0 ties 0, docno falling": ["q1 Q0 b 1 -0.0 t", "q1 Q0 a 2 0.0 t", "q2 Q0 b 1 0.8 t"],
    # any other order is sorted, whatever the ranks say
    "tie, docno rising": ["q1 Q0 a 1 0.5 t", "q1 Q0 b 2 0.5 t", "q2 Q0 b 1 0.8 t"],
    "ranks against scores": ["q1 Q0 a 1 0.1 t", "q1 Q0 b 2 0.5 t", "q2 Q0 b 1 0.8 t"],
    "a query in two blocks": ["q1 Q0 a 1 0.9 t", "q2 Q0 b 1 0.8 t", "q1 Q0 b 2 0.5 t"],
    "two blocks, each from 1": ["q1 Q0 a 1 0.9 t", "q2 Q0 b 1 0.8 t", "q1 Q0 b 1 0.5 t"],
    "a rank missed": ["q1 Q0 a 1 0.9 t", "q1 Q0 b 3 0.5 t", "q2 Q0 b 1 0.8 t"],
    "every rank 1": ["q1 Q0 a 1 0.9 t", "q1 Q0 b 1 0.5 t", "q2 Q0 b 1 0.8 t"],
    "rank order, file shuffled": ["q1 Q0 b 2 0.5 t", "q2 Q0 b 1 0.8 t", "q1 Q0 a 1 0.9 t"],
}
IN_TREC_ORDER = ("in order", "tie, docno falling", "-0 ties 0, docno falling")
# the writer's order: blocks ranked 1..n, the score falling or holding, ties in any docno
# order (Anserini, Pyserini): only the tie groups are numbered again, nothing sorted
TREC_RUNS |= {
    "ties at the start, the middle and the end": [
        "q1 Q0 a 1 0.9 t",
        "q1 Q0 c 2 0.9 t",
        "q1 Q0 b 3 0.9 t",
        "q1 Q0 d 4 0.7 t",
        "q1 Q0 e 5 0.5 t",
        "q1 Q0 g 6 0.5 t",
        "q1 Q0 f 7 0.4 t",
        "q1 Q0 h 8 0.2 t",
        "q1 Q0 k 9 0.2 t",
        "q2 Q0 a 1 0.3 t",
        "q2 Q0 b 2 0.1 t",
        "q2 Q0 c 3 0.1 t",
    ],
    "a whole query tied": [
        "q1 Q0 a 1 0.9 t",
        "q2 Q0 a 1 1 t",
        "q2 Q0 c 2 1 t",
        "q2 Q0 b 3 1.0 t",
        "q2 Q0 d 4 1 t",
        "q3 Q0 z 1 0.5 t",
    ],
    "-0 ties 0, docno rising": [
        "q1 Q0 a 1 0.0 t",
        "q1 Q0 b 2 -0.0 t",
        "q1 Q0 c 3 0 t",
        "q1 Q0 d 4 -1 t",
        "q2 Q0 a 1 -0 t",
        "q2 Q0 b 2 0 t",
    ],
}
WRITERS_ORDER = (
    "tie, docno rising",
    "ties at the start, the middle and the end",
    "a whole query tied",
    "-0 ties 0, docno rising",
)


@pytest.mark.parametrize("ranking", list(TREC_RUNS))
@pytest.mark.parametrize("delim", [" ", "\t"])
def test_both_trec_reads_load_the_same(tmp_path, monkeypatch, ranking, delim):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    lines = [line.replace(" ", delim) for line in TREC_RUNS[ranking]]
    run = write_text(tmp_path / "run.trec", "\n".join(lines) + "\n")
    decided = decisions_of(monkeypatch, "in_trec_order", trec_order)
    renumbered = decisions_of(monkeypatch, "ties_renumbered", trec_order)
    fast = loaded(gold, run)
    # a file whose queries are not blocks ranked 1..n is sorted before either is asked
    assert (decided[-1:] or [False]) == [ranking in IN_TREC_ORDER]
    assert (renumbered[-1:] or [False]) == [
        ranking not in IN_TREC_ORDER and ranking in WRITERS_ORDER
    ]
    monkeypatch.setattr(trec_order, "in_trec_order", lambda *a: False)  # sorted, whatever the order
    monkeypatch.setattr(trec_order, "ties_renumbered", lambda *a: False)
    assert loaded(gold, run) == fast
    # trec_eval's order: score descending, ties by docno descending
    parsed = [line.split() for line in TREC_RUNS[ranking]]
    expected = sorted(parsed, key=lambda f: (f[0], -float(f[4]), [-ord(c) for c in f[2]]))
    assert [(q, c) for q, c, _, _ in fast] == [(f[0], f[2]) for f in expected]


def test_trec_duplicate_in_a_writers_order_tie_is_refused(tmp_path, monkeypatch):
    """A docno twice in one tie group of a run in the writer's order: the ties are
    renumbered, and the whole-table tests still send the file to the validating read."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    lines = ["q1 Q0 a 1 0.5 t", "q1 Q0 b 2 0.5 t", "q1 Q0 a 3 0.5 t", "q2 Q0 b 1 0.8 t"]
    renumbered = decisions_of(monkeypatch, "ties_renumbered", trec_order)
    problems = load_problems(gold, [write_text(tmp_path / "run.trec", "\n".join(lines))])
    assert renumbered[:1] == [True]
    assert [p.line for p in problems] == [3]
    assert "chunk id in this query's ranked list" in problems[0].expected


def test_trec_duplicate_in_order_is_refused(tmp_path):
    """A docno twice in one query, each copy in its place in trec_eval's order."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    lines = ["q1 Q0 b 1 0.9 t", "q1 Q0 a 2 0.5 t", "q1 Q0 b 3 0.1 t"]
    problems = load_problems(gold, [write_text(tmp_path / "run.trec", "\n".join(lines))])
    assert [p.line for p in problems] == [3]
    assert "chunk id in this query's ranked list" in problems[0].expected
