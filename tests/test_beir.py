"""A BEIR-layout folder opens as a workspace and scores as the same data in seed JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragrecall_core import InputError, Workspace, evaluate
from ragrecall_core.errors import shortened

QUERIES = {"q1": "reset a password", "q2": "vpn error 107", "q3": "holiday policy"}
DOCS = {
    "d1": ("Passwords", "Reset it from the portal."),
    "d2": ("VPN", "Error 107 means an expired certificate."),
    "d3": ("Leave", "Twenty days a year."),
    "d4": ("Printers", "Floor 3."),
}
QRELS = {"test": [("q1", "d1", 1), ("q2", "d2", 2), ("q2", "d4", 0)], "dev": [("q3", "d3", 1)]}
RUN = {"q1": ["d4", "d1"], "q2": ["d2", "d4"], "q3": ["d1"]}
MEASURES = ["Recall@1", "MRR@5", "nDCG@2", "Judged@2"]


def jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def beir_folder(root: Path) -> Path:
    root.mkdir()
    jsonl(root / "queries.jsonl", [{"_id": q, "text": t} for q, t in QUERIES.items()])
    corpus = [{"_id": d, "title": title, "text": text} for d, (title, text) in DOCS.items()]
    jsonl(root / "corpus.jsonl", corpus)
    (root / "qrels").mkdir()
    for split, rows in QRELS.items():
        lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{g}" for q, d, g in rows)]
        (root / "qrels" / f"{split}.tsv").write_text("\n".join(lines) + "\n")
    return root


def seed_folder(root: Path) -> Path:
    """The same data in ragrecall's own formats."""
    root.mkdir()
    gold = []
    for split, rows in QRELS.items():
        for qid in dict.fromkeys(q for q, _, _ in rows):
            grades = {d: g for q, d, g in rows if q == qid}
            relevant = [d for d, g in grades.items() if g > 0]
            gold.append(
                {"id": qid, "query": QUERIES[qid], "relevant_ids": relevant, "split": split}
                | {"grades": grades}
            )
    jsonl(root / "gold.jsonl", gold)
    corpus = [
        {"chunk_id": d, "doc_id": d, "title": title, "text": text}
        for d, (title, text) in DOCS.items()
    ]
    jsonl(root / "corpus.jsonl", corpus)
    return root


def run_file(path: Path) -> Path:
    records = [
        {"id": q, "retrieved": [{"chunk_id": c, "rank": i} for i, c in enumerate(ids, 1)]}
        for q, ids in RUN.items()
    ]
    return jsonl(path, records)


def loaded(workspace: Workspace, sql: str) -> list[tuple]:
    return workspace.cursor().execute(sql).fetchall()


def test_beir_folder_scores_as_the_same_seed_data(tmp_path):
    run = run_file(tmp_path / "bm25.jsonl")
    beir = Workspace.from_files(beir_folder(tmp_path / "beir"), [run])
    seed = seed_folder(tmp_path / "seed")
    plain = Workspace.from_files(seed / "gold.jsonl", [run], corpus=seed / "corpus.jsonl")
    for sql in (
        "SELECT query_id, query, split FROM queries ORDER BY 1",
        "SELECT query_id, chunk_id, grade FROM qrels ORDER BY 1, 2",
        "SELECT chunk_id, doc_id, text, metadata->>'$.title' FROM corpus ORDER BY 1",
    ):
        assert loaded(beir, sql) == loaded(plain, sql)
    expected = evaluate(plain, MEASURES).to_frame()
    assert evaluate(beir, MEASURES).to_frame().equals(expected)
    assert loaded(beir, "SELECT DISTINCT split FROM queries ORDER BY 1") == [("dev",), ("test",)]


def test_beir_folder_with_runs_opens_as_a_workspace(tmp_path):
    root = beir_folder(tmp_path / "beir")
    (root / "runs").mkdir()
    run_file(root / "runs" / "bm25.jsonl")
    workspace = Workspace.open(root)
    assert workspace.run_names == ["bm25"]
    roles = [role for role, _ in workspace.input_files()]
    assert roles == ["gold", "qrels", "qrels", "run bm25", "corpus"]
    assert evaluate(workspace, ["Recall@1"]).value("bm25", "Recall@1") == pytest.approx(
        1 / 3
    )  # only q2 has its relevant first


def test_cli_evaluates_a_beir_folder(tmp_path):
    root = beir_folder(tmp_path / "beir")
    run = run_file(tmp_path / "bm25.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "ragrecall_core", "evaluate", str(root), str(run)]
        + ["-m", "Recall@1", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["runs"][0]["aggregate"]["Recall@1"] == pytest.approx(
        1 / 3
    )  # only q2 has its relevant first


def test_bad_beir_files_are_named_with_file_and_line(tmp_path):
    root = beir_folder(tmp_path / "beir")
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1.5\nq1\td1\t1\nq3\td4\t1\n"
    )
    jsonl(root / "queries.jsonl", [{"_id": 7, "text": "x"}, {"_id": "q2", "text": "y"}])
    with pytest.raises(InputError) as caught:
        Workspace.from_files(root, [run_file(tmp_path / "bm25.jsonl")])
    shown = {
        (Path(p.file).name, p.line, p.expected.split(" (also")[0]) for p in caught.value.problems
    }
    assert ("queries.jsonl", 1, '"_id" to be a string') in shown
    assert ("test.tsv", 2, "a grade that is a whole number, 0 or more") in shown
    assert ("test.tsv", 3, "a (query, chunk) pair not used at an earlier line") in shown
    assert ("test.tsv", 4, "a query of one split only") in shown  # q3 is in dev.tsv too


def test_wrong_qrels_header_is_refused(tmp_path):
    root = beir_folder(tmp_path / "beir")
    (root / "qrels" / "test.tsv").write_text("qid\tdocid\trel\nq1\td1\t1\n")
    with pytest.raises(InputError) as caught:
        Workspace.from_files(root, [run_file(tmp_path / "bm25.jsonl")])
    assert {p.expected for p in caught.value.problems} == {
        "a column named 'query-id'",
        "a column named 'corpus-id'",
        "a column named 'score'",
    }


def test_a_qrels_link_out_of_the_folder_is_refused(tmp_path):
    root = beir_folder(tmp_path / "beir")
    outside = tmp_path / "secret.tsv"
    outside.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (root / "qrels" / "train.tsv").symlink_to(outside)
    with pytest.raises(InputError) as caught:
        Workspace.from_files(root, [run_file(tmp_path / "bm25.jsonl")])
    assert [Path(p.file).name for p in caught.value.problems] == ["train.tsv"]


def test_a_qrels_query_missing_from_queries_jsonl_is_refused(tmp_path):
    """Its text would be silently empty: refused, naming the qrels line."""
    root = beir_folder(tmp_path / "beir")
    (root / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq3\td3\t1\nq9\td1\t1\n")
    with pytest.raises(InputError) as caught:
        Workspace.from_files(root, [run_file(tmp_path / "bm25.jsonl")])
    shown = [(Path(p.file).name, p.line, p.value) for p in caught.value.problems]
    assert shown == [("dev.tsv", 3, "q9")]


def test_a_second_corpus_beside_a_beir_folder_is_refused(tmp_path):
    """The folder's corpus.jsonl is its corpus; another one would be silently ignored."""
    root = beir_folder(tmp_path / "beir")
    other = jsonl(tmp_path / "corpus.jsonl", [{"chunk_id": "d1", "text": "x"}])
    with pytest.raises(InputError) as caught:
        Workspace.from_files(root, [run_file(tmp_path / "bm25.jsonl")], corpus=other)
    assert [p.value for p in caught.value.problems] == [shortened(str(other))]


def test_ui_takes_a_beir_folder_with_runs_as_its_gold(tmp_path):
    """`ragrecall ui FOLDER --run RUN` passes the BEIR folder to the app as the gold."""
    from ragrecall_core.cli import build_parser, ui_arguments
    from ragrecall_core.views.dashboard_state import Source

    folder = beir_folder(tmp_path / "beir")
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "q1", "retrieved": []}\n', "utf-8")
    args = build_parser().parse_args(["ui", str(folder), "--run", str(run)])
    arguments = ui_arguments(args)
    assert arguments[:2] == ["--gold", str(folder.resolve())]
    source = Source(gold=folder, runs=(run,))
    watched = {
        p.relative_to(folder).as_posix() for p in source.input_files() if folder in p.parents
    }
    assert {"queries.jsonl", "qrels/test.tsv"} <= watched
