"""CSV and Parquet runs and gold under the column names other tools write (issue 14).

Every alias of every role, in both formats, for runs and gold, evaluates exactly as the file
with ragrecall's own names; the mapping used is said (stderr for people, a JSON key for
programs) and nothing is said for a file that already uses the names.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragrecall_core import Workspace, evaluate
from ragrecall_core.inputs.readers import COLUMN_ALIASES
from tests.helpers import gold_row, run_cli, write_jsonl, write_text

MEASURES = ["MRR@10", "nDCG@3", "P@2", "Recall@3"]
GOLD_ROWS = [gold_row("q1", ["c2"]), gold_row("q2", ["c3", "c4"]), gold_row("q3", ["c9"])]
# rank order differs from file order and from score order, so a rank read wrongly shows
RUN_ROWS = [
    ("q1", "c1", 2, 0.9),
    ("q1", "c2", 1, 0.8),
    ("q1", "c5", 3, 0.7),
    ("q2", "c4", 3, 0.6),
    ("q2", "c6", 1, 0.5),
    ("q2", "c3", 2, 0.4),
    ("q3", "c7", 1, 0.3),
]
RUN_ROLES = ("query_id", "chunk_id", "rank", "score")
GOLD_LONG = [("q1", "c2"), ("q2", "c3"), ("q2", "c4"), ("q3", "c9")]


def write_table(path, header, rows):
    if path.suffix == ".parquet":
        columns = list(zip(*rows, strict=True))
        pq.write_table(pa.table(dict(zip(header, map(list, columns), strict=True))), path)
        return path
    lines = [",".join(header)] + [",".join(map(str, row)) for row in rows]
    return write_text(path, "\n".join(lines) + "\n")


def header_with(roles, role, alias):
    return [alias if name == role else name for name in roles]


def aggregate(workspace):
    frame = evaluate(workspace, MEASURES).aggregate
    return dict(zip(frame.measure, frame.value.round(12), strict=True))


RUN_CASES = [(role, alias) for role in RUN_ROLES for alias in COLUMN_ALIASES[role] if alias != role]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(("role", "alias"), RUN_CASES)
def test_every_run_alias_evaluates_as_the_canonical_file(tmp_path, suffix, role, alias):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    canonical = write_table(tmp_path / f"canonical{suffix}", RUN_ROLES, RUN_ROWS)
    aliased = write_table(
        tmp_path / f"aliased{suffix}", header_with(RUN_ROLES, role, alias), RUN_ROWS
    )
    expected = aggregate(Workspace.from_files(gold, [canonical]))
    workspace = Workspace.from_files(gold, [aliased])
    assert aggregate(workspace) == expected
    assert workspace.column_mappings() == {str(aliased): {alias: role}}


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(
    ("role", "alias"), [(r, a) for r in ("query_id", "chunk_id") for a in COLUMN_ALIASES[r]]
)
def test_every_gold_alias_loads_as_the_canonical_file(tmp_path, suffix, role, alias):
    run = write_table(tmp_path / "run.csv", RUN_ROLES, RUN_ROWS)
    canonical = write_table(
        tmp_path / f"gold{suffix}",
        ("query_id", "chunk_id", "grade"),
        [(*row, 1) for row in GOLD_LONG],
    )
    header = header_with(("query_id", "chunk_id", "grade"), role, alias)
    aliased = write_table(tmp_path / f"aliased_gold{suffix}", header, [(*r, 1) for r in GOLD_LONG])
    expected = aggregate(Workspace.from_files(canonical, [run]))
    workspace = Workspace.from_files(aliased, [run])
    assert aggregate(workspace) == expected
    said = {} if alias == role else {str(aliased): {alias: role}}
    assert workspace.column_mappings() == said


def test_names_are_read_ignoring_ascii_case(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    canonical = write_table(tmp_path / "canonical.csv", RUN_ROLES, RUN_ROWS)
    shouting = write_table(tmp_path / "shouting.csv", ["QID", "DocNo", "Position", "SIM"], RUN_ROWS)
    workspace = Workspace.from_files(gold, [shouting])
    assert aggregate(workspace) == aggregate(Workspace.from_files(gold, [canonical]))
    assert workspace.column_mappings() == {
        str(shouting): {"QID": "query_id", "DocNo": "chunk_id", "Position": "rank", "SIM": "score"}
    }


def test_a_file_checked_under_its_own_names_names_them_in_problems(tmp_path):
    """A bad value in an aliased file goes through the validating path: still the line."""
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    rows = [*RUN_ROWS[:2], ("q1", "c5", 0, 0.7)]
    run = write_table(tmp_path / "run.csv", ["qid", "docid", "rank", "sim"], rows)
    code_problems = None
    try:
        Workspace.from_files(gold, [run])
    except Exception as error:  # InputError
        code_problems = error.problems
    assert [(p.line, p.value) for p in code_problems] == [(4, "rank 0")]


def test_the_cli_says_the_mapping_on_stderr_for_people(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    run = write_table(tmp_path / "bm25.parquet", ["qid", "docid", "rank", "sim"], RUN_ROWS)
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "-m", "MRR@10"])
    assert code == 0
    assert err == f"{run}: read qid as query_id, docid as chunk_id, sim as score\n"
    assert "qid" not in out


def test_the_cli_carries_the_mapping_in_json(tmp_path, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    run = write_table(tmp_path / "bm25.csv", ["topic", "pid", "position", "score"], RUN_ROWS)
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "-m", "MRR@10", "--format", "json"])
    assert code == 0 and err == ""
    assert json.loads(out)["column_mapping"] == {
        str(run): {"topic": "query_id", "pid": "chunk_id", "position": "rank"}
    }


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_nothing_is_said_for_canonical_names(tmp_path, capsys, fmt):
    gold = write_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS)
    run = write_table(tmp_path / "run.parquet", RUN_ROLES, RUN_ROWS)
    code, out, err = run_cli(capsys, ["evaluate", gold, run, "--format", fmt])
    assert code == 0 and err == ""
    assert "column_mapping" not in out


def test_compare_says_the_mapping_of_each_file(tmp_path, capsys):
    gold = write_text(
        tmp_path / "gold.csv", "qid,docno\n" + "".join(f"{q},{c}\n" for q, c in GOLD_LONG)
    )
    base = write_table(tmp_path / "base.csv", ["qid", "docid", "rank", "score"], RUN_ROWS)
    cand = write_table(tmp_path / "cand.csv", RUN_ROLES, RUN_ROWS)
    code, out, err = run_cli(capsys, ["compare", gold, base, cand])
    assert code == 0
    assert err.splitlines() == [
        f"{gold}: read qid as query_id, docno as chunk_id",
        f"{base}: read qid as query_id, docid as chunk_id",
    ]
