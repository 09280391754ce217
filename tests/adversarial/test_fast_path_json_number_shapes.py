"""Shapes the JSON-lines scores' number proof (``runs.JsonBytes.number_scores``, each
`e":` followed by a digit or "-") might not foresee, none of which broke it (issue 30, stop
44): other keys ending in "e" (at a line's top, in an item, in an object inside an item),
"score" inside a string or under an escaped name, a score key twice, numbers JSON writes
otherwise or refuses (1E5, -0, 0x10, .5, 5., +5, 05), a score key in another case, lines
ended "\\r\\n". Each file is read with the bytes' count deciding (its size threshold set
to 0) and by the validating read: the same table, or the same problems.
"""

from __future__ import annotations

import pytest

from tests.helpers import assert_read_as_validating


def item(chunk: str = '"a"', rank: str = "1", score: str = "0.5", extra: str = "") -> str:
    return f'{{"chunk_id": {chunk}, "rank": {rank}, "score": {score}{extra}}}'


def line(qid: str, *items: str, extra: str = "") -> str:
    return f'{{"id": "{qid}", "retrieved": [{", ".join(items)}]{extra}}}'


# a score written as a string ("0.5") beside each: the number proof must not be made up by
# the other key's number
STRING = item('"b"', "2", '"0.5"')
SHAPES = {
    "rank_score beside a string score": line("q1", item(extra=', "rank_score": 5'), STRING),
    "type at the top beside a string score": line("q1", item(), STRING, extra=', "type": 5'),
    "a nested object's key ending in e": line("q1", item(extra=', "metadata": {"type": 5}')),
    "a nested type beside a string score": line(
        "q1", item(extra=', "metadata": {"type": 5}'), STRING
    ),
    "e-colon-number inside a chunk id": line("q1", item('"x e\\": 5"'), STRING),
    "an escaped score key holding a string": line(
        "q1", item(score="1", extra=', "sc\\u006fre": "0.5"')
    ),
    "an escaped score key alone": line("q1", '{"chunk_id": "a", "rank": 1, "sc\\u006fre": 2}'),
    "a score twice, a number then a string": line("q1", item(extra=', "score": "0.7"')),
    "a score twice, a string then a number": line("q1", item(score='"0.7"', extra=', "score": 1')),
    "a score key in capitals": line("q1", '{"chunk_id": "a", "rank": 1, "SCORE": "0.5"}'),
    "lines ended CRLF": line("q1", item()) + "\r\n" + line("q2", item(score="-0")),
    **{
        f"a score {number}": line("q1", item(score=number), item('"b"', "2"))
        for number in ["1E5", "1e+5", "-0", "-0.0", "0x10", ".5", "5.", "+5", "05", "-05", "1.5e"]
    },
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_number_shape_loads_as_the_validating_read(tmp_path, name):
    path = tmp_path / "run.jsonl"
    path.write_bytes((SHAPES[name] + "\n").encode("utf-8"))
    assert_read_as_validating(
        path, COMMAS_COUNTED_FROM=0, bare_lines=lambda path: True
    )  # the count deciding
