"""The typed read of a TREC run in the writer's order (ranks 1..n, the score falling, ties
in any docno order) against the validating read, on generated tie patterns (issue 30).

The typed read decides the order in one pass of the rows and numbers only the tie groups
again; whatever the pattern (ties at a block's start or end, a whole query tied, ids that
sort differently as text, scores equal but written differently, a run out of order), it
must load exactly what the validating read loads: trec_eval's order, score descending,
ties by docno descending.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragrecall_core import Workspace
from ragrecall_core.inputs import runs, trec_order
from tests.helpers import gold_row, write_jsonl, write_text

SETTINGS = settings(max_examples=15)
QUERIES = ["q1", "q2", "q3"]
# ids whose text order is not their length's or their number's ("10" < "9", "B" < "a")
IDS = ["a", "b", "c", "ab", "B", "10", "9", "d-1", "é", "z"]
# one value written three ways: equal scores the typed read must see as one tie
SPELLINGS = {0.5: ["0.5", "0.50", "5e-1"], 0.0: ["0", "-0.0", "0.0"], 2.0: ["2", "2.0", "2e0"]}


@st.composite
def writers_order_blocks(draw):
    """Per query: (docno, score text) rows ranked 1..n, the score falling, each tie group
    in a drawn docno order; sometimes two neighbours swapped (no longer in order)."""
    blocks = {}
    queries = draw(st.permutations(QUERIES))[: draw(st.integers(1, len(QUERIES)))]
    for query in queries:
        ids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=8, unique=True))
        scores = st.sampled_from([2.0, 1.25, 0.5, 0.0, -1.0])
        values = draw(st.lists(scores, min_size=len(ids), max_size=len(ids)))
        values.sort(reverse=True)
        groups: dict[float, list[str]] = {}
        for docno, value in zip(ids, values, strict=True):
            groups.setdefault(value, []).append(docno)
        rows = []
        for value in sorted(groups, reverse=True):
            for docno in draw(st.permutations(groups[value])):
                spellings = SPELLINGS.get(value, [repr(value)])
                rows.append((docno, draw(st.sampled_from(spellings))))
        if len(rows) > 1 and draw(st.integers(0, 5)) == 0:
            i = draw(st.integers(0, len(rows) - 2))
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
        blocks[query] = rows
    return blocks


def loaded(gold, run) -> list[tuple]:
    workspace = Workspace.from_files(gold, [run])
    sql = "SELECT query_id, chunk_id, rank, score FROM runs ORDER BY query_id, rank"
    return workspace.con.execute(sql).fetchall()


def trec_eval_order(rows: list[tuple[str, str]]) -> list[str]:
    """score descending, ties by docno descending (code points: UTF-8 bytes' order)"""
    by_docno = sorted(rows, key=lambda row: row[0], reverse=True)
    return [docno for docno, _ in sorted(by_docno, key=lambda row: -float(row[1]))]


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gold")
    return write_jsonl(folder / "gold.jsonl", [gold_row(q, ["a"]) for q in QUERIES])


# when the ties' directions are read: in the one pass (its sample of the first rows tied),
# or in a second pass after one without them found ties (no row sampled)
DIRECTIONS = pytest.mark.parametrize(
    "sample_rows", [trec_order.TIE_SAMPLE_ROWS, 0], ids=["one pass", "a second pass"]
)


@DIRECTIONS
@SETTINGS
@given(blocks=writers_order_blocks())
def test_writers_order_ties_load_as_the_validating_read(
    gold, tmp_path_factory, sample_rows, blocks
):
    folder = tmp_path_factory.mktemp("run")
    lines = [
        f"{query} Q0 {docno} {rank} {score} tag"
        for query, rows in blocks.items()
        for rank, (docno, score) in enumerate(rows, 1)
    ]
    run = write_text(folder / "run.trec", "\n".join(lines) + "\n")
    decided: list[tuple[str, bool]] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_order, "TIE_SAMPLE_ROWS", sample_rows)
        for name in ("in_trec_order", "ties_renumbered"):
            real = getattr(trec_order, name)
            patch.setattr(
                trec_order,
                name,
                lambda *a, _n=name, _r=real: decided.append((_n, _r(*a))) or decided[-1][1],
            )
        fast = loaded(gold, run)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "read_trec_typed", lambda *a: False)  # the validating read
        validated = loaded(gold, run)
    assert fast == validated
    for query, rows in blocks.items():
        assert [c for q, c, _, _ in fast if q == query] == trec_eval_order(rows)
        assert [r for q, _, r, _ in fast if q == query] == list(range(1, len(rows) + 1))
    # the fast read kept the file's ranks wherever the file is in the writer's order
    scores = [[float(score) for _, score in rows] for rows in blocks.values()]
    in_writers_order = all(s == sorted(s, reverse=True) for s in scores)
    in_trec_order = all(
        [docno for docno, _ in rows] == trec_eval_order(rows) for rows in blocks.values()
    )
    assert decided[0] == ("in_trec_order", in_writers_order and in_trec_order)
    if in_writers_order and not in_trec_order:
        assert decided[1] == ("ties_renumbered", True)


BOOM = "SELECT error('this way of numbering ties must not run')"


def tie_blocks(seed: int, rising: bool) -> dict[str, list[tuple[str, str]]]:
    """Forty queries of 30 rows ranked 1..n, scores of one decimal (groups of 1 to ~8 tied
    rows, a whole query's head or tail among them); each group's docnos rising (Anserini's
    and Pyserini's order), or each in a shuffled order when not ``rising``."""
    import random

    draw = random.Random(seed)
    blocks = {}
    for q in range(40):
        ids = draw.sample(range(1000), 30)
        scores = sorted((round(draw.uniform(0, 1.5), 1) for _ in ids), reverse=True)
        groups: dict[float, list[str]] = {}
        for i, score in zip(ids, scores, strict=True):
            groups.setdefault(score, []).append(f"d{i}")
        rows = []
        for score, docnos in groups.items():
            docnos.sort()
            if not rising:
                draw.shuffle(docnos)
            rows += [(docno, str(score)) for docno in docnos]
        blocks[f"q{q:02}"] = rows
    return blocks


@DIRECTIONS
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    "rising, unused",
    [(True, "RENUMBER_STEPS"), (False, "REVERSE_TIES_SQL")],
    ids=["every group rising: reversed", "groups in any order: sorted"],
)
def test_each_way_of_numbering_ties_loads_as_the_validating_read(
    tmp_path, seed, rising, unused, sample_rows
):
    """Every group's docnos rising: the groups are reversed by their row ids alone (the other
    way made to fail here); groups in any order: each sorted by docno (reversing made to
    fail). Either way the run loads as the validating read loads it, with the file's ranks."""
    blocks = tie_blocks(seed, rising)
    queries = list(blocks)
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row(q, ["d1"]) for q in queries])
    lines = [
        f"{query} Q0 {docno} {rank} {score} tag"
        for query, rows in blocks.items()
        for rank, (docno, score) in enumerate(rows, 1)
    ]
    run = write_text(tmp_path / "run.trec", "\n".join(lines) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_order, "TIE_SAMPLE_ROWS", sample_rows)
        steps = (BOOM,) if unused == "RENUMBER_STEPS" else BOOM
        patch.setattr(trec_order, unused, steps)
        renumbered = []
        real = trec_order.ties_renumbered
        patch.setattr(
            trec_order, "ties_renumbered", lambda *a: renumbered.append(real(*a)) or renumbered[-1]
        )
        fast = loaded(gold, run)
    assert renumbered == [True]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "read_trec_typed", lambda *a: False)  # the validating read
        assert fast == loaded(gold, run)
    for query, rows in blocks.items():
        assert [c for q, c, _, _ in fast if q == query] == trec_eval_order(rows)
