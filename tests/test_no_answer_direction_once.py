"""A run's score direction is a fact of the run, not of the filter: the dashboard reads it
once per run of a loaded workspace (its files' content key and the run's name) and every
filter, k or stored grade after that reuses it. It used to be read again over all of the
run's rows on every filter change (the no-answer frame is cached per filtered query ids).
A filter keeping only queries whose first ranks look the other way shows the same reading.
"""

from __future__ import annotations

import uuid
from collections import Counter

import pytest
from test_no_answer_direction import files  # noqa: F401

from ragrecall_app import analyses
from ragrecall_core import Workspace
from ragrecall_core.analysis import no_answer as no_answer_module
from ragrecall_core.analysis import score_direction
from ragrecall_core.analysis.score_direction import HIGHER, LOWER, NOT_ORDERED
from ragrecall_core.scoring.policy import Policy

RUNS = ("dense", "dist", "mixed")


@pytest.fixture
def read(monkeypatch) -> Counter:
    """How often each run's direction is read (every caller's name for the reader)."""
    real, seen = score_direction.score_directions, Counter()

    def counted(source, runs=None, *args, **kwargs):
        seen.update(runs if runs is not None else ["<every run>"])
        return real(source, runs, *args, **kwargs)

    for module in (score_direction, no_answer_module):
        monkeypatch.setattr(module, "score_directions", counted, raising=False)
    return seen


@pytest.fixture
def ws(files):  # noqa: F811
    ws = Workspace.from_files(files["gold"], [files[run] for run in RUNS])
    yield ws
    ws.con.close()


def test_a_filter_change_reads_no_direction_again_and_never_flips_it(ws, read):
    files_key = uuid.uuid4().hex  # a content key no other test's cache holds
    key = f"{files_key}+store|1"
    expected = {"dense": HIGHER, "dist": LOWER, "mixed": NOT_ORDERED}
    assert analyses.no_answer(key, 3, Policy(), RUNS, None, ws).directions == expected
    # only a1's scores rise in mixed: a view of a1 alone still reads it as not ordered
    for ids in (("a1",), ("n1",), ("n1", "n2", "a1")):
        assert analyses.no_answer(key, 3, Policy(), RUNS, ids, ws).directions == expected
    # another k, another stored grade (the key after "+"), a run shown alone: no new read
    analyses.no_answer(key, 5, Policy(), RUNS, ("a1",), ws)
    again = analyses.no_answer(f"{files_key}+store|2", 3, Policy(), ("mixed",), ("a1",), ws)
    assert again.directions == {"mixed": NOT_ORDERED}
    assert read == Counter(dict.fromkeys(RUNS, 1))  # each run's direction read once


def test_the_core_reads_the_same_direction_on_every_unit(ws):
    """A run's direction is read from its own rows, so the unit (chunks or documents) the
    figures use never changes the reading the dashboard keeps per run."""
    from ragrecall_core.analysis.no_answer import no_answer_report

    chunk = no_answer_report(ws, k=3).directions
    doc = no_answer_report(ws, k=3, policy=Policy(unit="doc")).directions
    assert chunk == doc == {"dense": HIGHER, "dist": LOWER, "mixed": NOT_ORDERED}
