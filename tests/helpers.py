"""Small builders shared by the tests: write seed-shaped files, load them, read values.

Everything is written under a folder the test owns (``tmp_path`` or a temporary
directory); nothing here reads the shared specification folder.
"""

from __future__ import annotations

import gc
import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

from ragrecall_core import InputError, Problem, Workspace
from ragrecall_core.cli import main
from tests.samples import shared_samples


def write_jsonl(path: Path, rows: Iterable[Mapping]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def gold_row(qid: str, relevant: Sequence[str], **extra) -> dict:
    """A seed-000 gold line: ``{"id", "query", "relevant_ids", ...}``."""
    return {"id": qid, "query": f"question {qid}", "relevant_ids": list(relevant), **extra}


def run_row(qid: str, chunks: Sequence[str], scores: Sequence[float] | None = None) -> dict:
    """A seed-000 run line; ranks 1..n in list order, scores descending unless given."""
    scores = list(scores) if scores is not None else [1.0 - i / 100 for i in range(len(chunks))]
    return {
        "id": qid,
        "retrieved": [
            {"chunk_id": c, "rank": i + 1, "score": s}
            for i, (c, s) in enumerate(zip(chunks, scores, strict=True))
        ],
    }


def grade_row(qid: str, chunk: str, grade: int, harmful: bool = False, **extra) -> dict:
    return {
        "query_id": qid,
        "chunk_id": chunk,
        "grade": grade,
        "harmful": harmful,
        "reason": extra.pop("reason", ""),
        "annotator": extra.pop("annotator", "anna"),
        **extra,
    }


def make_workspace(
    folder: Path,
    gold: Sequence[Mapping],
    runs: Mapping[str, Sequence[Mapping]],
    grades: Sequence[Mapping] | None = None,
    corpus: Sequence[Mapping] | None = None,
) -> Workspace:
    """Write gold / runs / grades / corpus as JSON lines under ``folder`` and load them."""
    gold_path = write_jsonl(folder / "gold.jsonl", gold)
    run_paths = [
        write_jsonl(folder / "runs" / f"{name}.jsonl", rows) for name, rows in runs.items()
    ]
    grade_paths = [write_jsonl(folder / "grades" / "anna.jsonl", grades)] if grades else []
    corpus_path = write_jsonl(folder / "corpus.jsonl", corpus) if corpus else None
    return Workspace.from_files(gold_path, run_paths, grade_paths, corpus_path)


def per_query(evaluation, run: str, measure: str) -> dict[str, float | None]:
    """``{query_id: value}`` of one run and measure (``None`` where the query has no value);
    ``measure`` as it was asked for (a query's value of ``MRR@3`` goes by ``RR@3``)."""
    measure = dict(zip(evaluation.labels, evaluation.query_labels, strict=True)).get(
        measure, measure
    )
    frame = evaluation.per_query
    rows = frame[(frame.run == run) & (frame.measure == measure)]
    return {
        q: (None if v != v else float(v)) for q, v in zip(rows.query_id, rows.value, strict=True)
    }


def queries_in_mean(evaluation, run: str, measure: str) -> int:
    agg = evaluation.aggregate
    rows = agg[(agg.run == run) & (agg.measure == measure)]
    return int(rows.queries.iloc[0])


def load_problems(
    gold: Path, runs: Sequence[Path], grades: Sequence[Path] = (), corpus: Path | None = None
) -> list[Problem]:
    """The problems ``Workspace.from_files`` reports; fails the test if it loads."""
    try:
        Workspace.from_files(gold, runs, grades, corpus)
    except InputError as error:
        assert error.problems, "an InputError must carry its problems"
        return error.problems
    raise AssertionError("expected InputError, the files loaded")


def run_cli(capsys, argv: Sequence[str]) -> tuple[int, str, str]:
    """``ragrecall`` in-process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def compare_with_config(tmp_path: Path, capsys, config: Mapping) -> dict[str, tuple]:
    """``ragrecall compare`` of two runs in ``--format json`` and ``table``, the candidate's
    config file holding ``config`` (the baseline's a plain one): each format's (exit code,
    stdout, stderr), for tests that a config's text leaves no output unredacted."""
    gold = write_jsonl(tmp_path / "gold.jsonl", [gold_row("q1", ["a"]), gold_row("q2", ["b"])])
    runs = tmp_path / "runs"
    base = write_jsonl(runs / "base.jsonl", [run_row("q1", ["a"]), run_row("q2", [])])
    cand = write_jsonl(runs / "cand.jsonl", [run_row("q1", ["a"]), run_row("q2", ["b"])])
    write_text(runs / "base.config.json", json.dumps({"top_k": 5, "note": "plain"}))
    write_text(runs / "cand.config.json", json.dumps(dict(config)))
    return {
        fmt: run_cli(capsys, ["compare", gold, base, cand, "--format", fmt])
        for fmt in ("json", "table")
    }


def cli_texts(commands: Mapping[str, Sequence]) -> dict[str, str]:
    """Run each named command line in this process (no capsys: module fixtures use it) and
    return its stdout + stderr by name; each must pass or fail, never be refused (exit 2)."""
    texts = {}
    for name, argv in commands.items():
        out, err = StringIO(), StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv])
        assert code in (0, 1), (name, err.getvalue())
        texts[name] = out.getvalue() + err.getvalue()
    return texts


def count_cache_restores(monkeypatch, hits: list[bool]) -> None:
    """The load cache on whatever the environment says (``RAGRECALL_CACHE`` unset), each
    restore's outcome (a hit or not) appended to ``hits``, which starts empty."""
    from ragrecall_core.inputs import load_cache

    monkeypatch.delenv(load_cache.CACHE_ENV, raising=False)
    restore = load_cache.restore

    def counted(*args):
        con = restore(*args)
        hits.append(con is not None)
        return con

    monkeypatch.setattr(load_cache, "restore", counted)
    hits.clear()


def build_report(workspace: Workspace, *args, **kwargs):
    """The report as the command and the dashboard build it: with the workspace's latest
    meeting verdicts, which the report takes as data."""
    from ragrecall_core.analysis.verdicts import latest_verdicts
    from ragrecall_core.output.report import build_report as report_of

    return report_of(workspace, *args, verdicts=latest_verdicts(workspace), **kwargs)


def run_table(path: Path, validating: bool, con=None, **patched) -> list[tuple]:
    """The run table of ``path`` (``qid, docno, rank, score, position``, sorted) read by the
    typed path, or by the validating one with the typed reads switched off, with
    ``ragrecall_core.inputs.runs`` attributes set as ``patched`` says, on ``con`` (a table
    it holds is replaced) or a new connection; or its problems (``line or 0, value,
    expected``), sorted. A fast path's differential tests compare the two."""
    import pytest

    from ragrecall_core.inputs import runs
    from ragrecall_core.inputs.db import connect

    con = con or connect()
    con.execute("DROP TABLE IF EXISTS run_table_0")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in patched.items():
            patch.setattr(runs, name, value)
        if validating:
            patch.setattr(runs, "read_typed", lambda *args: False)
        read = runs.read_run(con, path, "run_table_0")
    if read.file_problems:
        return sorted((p.line or 0, p.value, p.expected) for p in read.file_problems)
    return con.execute(
        "SELECT qid, docno, rank, score, position FROM run_table_0 ORDER BY ALL"
    ).fetchall()


def assert_read_as_validating(path: Path, **patched) -> None:
    """The typed path loads ``path`` as the validating read does, or refuses it with the
    same problems (:func:`run_table`, both with ``patched``)."""
    fast = run_table(path, False, **patched)
    assert fast == run_table(path, True, **patched), path.read_bytes()[:600]


class HtmlCells(HTMLParser):
    """The text of every table cell of rendered HTML, row by row (a header's first)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def launch_here(monkeypatch, args: Sequence[str] = (), warm_up=lambda: None) -> int:
    """``serve.main(args)`` in this interpreter, with ``warm_up`` as its warm-up and no
    server; everything process-wide the launcher changes (the collector, streamlit's
    component scan and REPL check, ``sys.argv``, the pages mode, the stop) is as before
    afterwards, so no later test of this worker meets a launched process. Without a source
    in ``args`` or the environment it launches on the tests' store-free copy of data_samples,
    not on its own default (the checkout's, whose judgment store it would read)."""
    import streamlit.delta_generator
    from streamlit.components.v2 import manifest_scanner
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    from ragrecall_app import serve

    if not os.environ.get("RAGRECALL_WORKSPACE"):
        monkeypatch.setenv("RAGRECALL_WORKSPACE", str(shared_samples()))
    monkeypatch.setattr(serve, "warm_up", warm_up)
    monkeypatch.setattr(serve, "STOPPING", threading.Event())  # this launch's own
    monkeypatch.setattr(cli, "main", lambda: 0)
    monkeypatch.setattr(serve.sys, "argv", ["ragrecall-ui"])
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    scan = manifest_scanner.scan_component_manifests
    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", scan)
    warned = streamlit.delta_generator._use_warning_has_been_displayed
    monkeypatch.setattr(streamlit.delta_generator, "_use_warning_has_been_displayed", warned)
    collecting = gc.isenabled()
    try:
        return serve.main(list(args))
    finally:
        if collecting:
            gc.enable()
