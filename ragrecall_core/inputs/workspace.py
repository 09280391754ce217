"""A workspace: gold, runs, grades, corpus and configs, opened into one DuckDB schema.

Folder convention (``data_samples/`` is one)::

    gold.jsonl | gold.csv | gold.parquet | qrels.txt ...   the labelled queries
    runs/<name>.<jsonl|trec|run|txt|csv|parquet>           one file per run
    runs/<name>.config.json                                 its config (optional)
    grades/<annotator>.<jsonl|csv>                          manual grades (optional)
    corpus.<jsonl|csv|parquet>                              chunk text (optional)

A symlink in the folder that leads out of it is refused before anything is read. From
before the first read, the DuckDB connection can open no file but the inputs it was given
and the judgment store (:func:`ragrecall_core.inputs.db.lock_down`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ragrecall_core.errors import InputError, Problem, gather, raise_if_any
from ragrecall_core.inputs import load_cache
from ragrecall_core.inputs.beir import beir_files, is_beir_folder, load_beir
from ragrecall_core.inputs.beside import in_background, on_cursor
from ragrecall_core.inputs.configs import config_path_for, run_stem
from ragrecall_core.inputs.corpus import load_corpus
from ragrecall_core.inputs.db import connect, lock_down, store_files
from ragrecall_core.inputs.gold import load_gold
from ragrecall_core.inputs.grades import load_grade_files
from ragrecall_core.inputs.home import store_places
from ragrecall_core.inputs.memory import (
    GOLD_LABEL,
    is_in_memory,
    load_memory_gold,
    load_memory_run,
    named_memory_runs,
    run_label,
    shown,
)
from ragrecall_core.inputs.runs import JsonBytes, counts_begun, load_run, load_runs
from ragrecall_core.inputs.secrets import redact_path

GOLD_NAMES = (
    "gold.jsonl",
    "gold.json",
    "gold.csv",
    "gold.tsv",
    "gold.parquet",
    "qrels.txt",
    "qrels",
    "gold.qrels",
    "gold.txt",
)
CORPUS_NAMES = ("corpus.jsonl", "corpus.parquet", "corpus.csv")


# From this many bytes a file's gold is read on a cursor of its own beside the runs' reads
# (none reads what the other writes): a TREC qrels file of 115,000 lines (2.4 MB) took
# 0.2-0.3 s of the load's path, mostly on one core. A smaller gold is read first, as
# before: beside a run's read its few hundredths of a second cost more CPU than they saved
# (a 145 KB qrels file beside a 7M-line run: +0.1 CPU s, +0.03 s).
GOLD_BESIDE_FROM_BYTES = 500_000


def _gold_problems(con: duckdb.DuckDBPyConnection, gold: Path) -> list[Problem]:
    """Load the gold file ``gold`` into ``queries`` and ``qrels``; its problems."""
    return gather([gold], lambda path: load_gold(con, path))[1]


def _gold_read(con: duckdb.DuckDBPyConnection, gold: Path) -> Callable[[], list[Problem]]:
    """The gold's read begun (:func:`_gold_problems`): beside the caller's work for a large
    file (:data:`GOLD_BESIDE_FROM_BYTES`), else now; the function that waits for its
    problems."""
    try:
        large = gold.stat().st_size >= GOLD_BESIDE_FROM_BYTES
    except OSError:  # the read itself says what is wrong with it
        large = False
    if large:
        return in_background(on_cursor, _gold_problems, con, gold)
    problems = _gold_problems(con, gold)
    return lambda: problems


@dataclass
class Workspace:
    """Loaded inputs. Query through :meth:`cursor` (one per thread / session)."""

    con: duckdb.DuckDBPyConnection
    gold: Path
    runs: dict[str, Path] = field(default_factory=dict)
    grades: list[Path] = field(default_factory=list)
    corpus: Path | None = None
    folder: Path | None = None
    # a BEIR folder's qrels files (its queries.jsonl is ``gold``)
    qrels: list[Path] = field(default_factory=list)
    # stand-in paths of inputs given in memory (they have no file to hash or show)
    memory_inputs: tuple[Path, ...] = ()
    # prepared evaluations by (policy, judgment state), built under the lock
    prepared: OrderedDict = field(default_factory=OrderedDict, repr=False, compare=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_files(
        cls,
        gold: str | Path,
        runs: Sequence[str | Path],
        grades: Sequence[str | Path] = (),
        corpus: str | Path | None = None,
        folder: str | Path | None = None,
        memory_limit: str | None = None,
        cache: str | Path | None = None,
    ) -> Workspace:
        """Load loose files; every file's problems are reported together. ``gold`` may be a
        BEIR-layout folder (:mod:`.beir`). ``memory_limit`` (e.g. ``"4GB"``; default
        ``$RAGRECALL_MEMORY_LIMIT``, else DuckDB's 80% of memory) bounds DuckDB, which
        spills to a temporary folder beyond it. ``cache``: a folder where the loaded tables
        are kept by content (:mod:`.load_cache`); None reads every input in full."""
        if Path(gold).is_dir() and is_beir_folder(Path(gold)):
            if corpus is not None:
                expected = (
                    f"no other corpus beside the BEIR folder {redact_path(gold)} (it has its own)"
                )
                raise InputError(
                    [Problem(redact_path(corpus), None, redact_path(corpus), expected)]
                )
            return cls.from_beir(gold, runs, grades, memory_limit=memory_limit, cache=cache)
        fields = {
            "gold": Path(gold),
            "grades": list(map(Path, grades)),
            "corpus": Path(corpus) if corpus is not None else None,
            "folder": Path(folder) if folder else None,
        }
        run_paths = list(map(Path, runs))

        def fresh(con: duckdb.DuckDBPyConnection) -> Workspace:
            ws = cls(con, **fields)
            ws._lock_down(run_paths)
            counted = counts_begun(run_paths)  # beside the gold's load
            gold_read = _gold_read(con, ws.gold)
            try:
                run_problems = ws._load_run_files(run_paths, counted)
            finally:
                gold_problems = gold_read()  # never left running on a closed database
            return ws._finish_loading(gold_problems + run_problems)

        plan = load_plan("files", [("gold", fields["gold"])], run_paths, fields["grades"], corpus)
        restored = cls._restorer(fields, run_paths)
        return load_cache.load(cache, plan, memory_limit, fresh, restored)

    @classmethod
    def from_memory(
        cls,
        gold: object,
        runs: object,
        grades: Sequence[str | Path] = (),
        corpus: str | Path | None = None,
        name: str | None = None,
    ) -> Workspace:
        """Load gold and runs given as files or in memory (see :mod:`.memory` for the forms).

        ``runs`` is a dict of run name to run, or one run named ``name`` (else its own
        ``name``, as a ranx ``Run`` has, else ``"run"``), or a list of run files. Grades and
        corpus are files. Every input's problems are reported together; a problem in data
        names the input (``gold``, ``run 'name'``) and the query.
        """
        named = named_runs(runs, name)
        files_only = not any(map(is_in_memory, [gold, *named.values()]))
        if files_only and name is None and not isinstance(runs, Mapping):
            return cls.from_files(gold, list(named.values()), grades, corpus)
        files = [gold, *named.values(), *grades, *([corpus] if corpus is not None else [])]
        con = connect()
        ws = cls(
            con,
            Path(gold) if not is_in_memory(gold) else Path(f"<{GOLD_LABEL}>"),
            grades=list(map(Path, grades)),
            corpus=Path(corpus) if corpus is not None else None,
        )
        lock_down(con, [Path(f) for f in files if not is_in_memory(f)])
        problems = gather([gold], lambda data: load_any_gold(con, data))[1]
        loaded, run_problems = gather(named.items(), lambda item: load_any_run(con, *item))
        ws.runs = dict(loaded)
        ws.memory_inputs = tuple(Path(f"<{GOLD_LABEL}>") for _ in [gold] if is_in_memory(gold))
        ws.memory_inputs += tuple(path for path in ws.runs.values() if path.name.startswith("<"))
        return ws._finish_loading(problems + run_problems)

    @classmethod
    def from_beir(
        cls,
        folder: str | Path,
        runs: Sequence[str | Path],
        grades: Sequence[str | Path] = (),
        in_place: bool = False,
        memory_limit: str | None = None,
        cache: str | Path | None = None,
    ) -> Workspace:
        """A BEIR-layout folder (:mod:`.beir`) with runs and grades from files. The judgment
        store lives in the folder when it is opened as a workspace (``in_place``), else
        beside its ``queries.jsonl``. ``cache`` as for :meth:`from_files`."""
        root = Path(folder)
        raise_if_any(links_leaving(root))
        queries, corpus, *qrels = beir_files(root)
        fields = {
            "gold": queries,
            "grades": list(map(Path, grades)),
            "corpus": corpus,
            "folder": root if in_place else None,
            "qrels": qrels,
        }
        run_paths = list(map(Path, runs))

        def fresh(con: duckdb.DuckDBPyConnection) -> Workspace:
            ws = cls(con, **fields)
            ws._lock_down(run_paths)
            counted = counts_begun(run_paths)  # beside the BEIR folder's load
            problems = gather([root], lambda path: load_beir(con, path))[1]
            problems += ws._load_run_files(run_paths, counted)
            return ws._finish_loading(problems, corpus_loaded=True)

        beir = [("beir", path) for path in beir_files(root)]
        plan = load_plan("beir", beir, run_paths, fields["grades"], None)
        restored = cls._restorer(fields, run_paths)
        return load_cache.load(cache, plan, memory_limit, fresh, restored)

    @classmethod
    def _restorer(
        cls, fields: dict, run_paths: list[Path]
    ) -> Callable[[duckdb.DuckDBPyConnection, dict[str, Path]], Workspace]:
        """How a load cache's hit makes the workspace: its connection, filled by the cache,
        with the runs it names, locked down as a fresh load's."""
        return lambda con, names: cls(con, runs=names, **fields)._locked(run_paths)

    def _load_run_files(
        self, paths: list[Path], counted: dict[Path, Callable[[], JsonBytes]] | None = None
    ) -> list[Problem]:
        """Load every run file, keeping the loaded ones by name; the others' problems
        (``counted``: :func:`~ragrecall_core.inputs.runs.counts_begun`)."""
        loaded, problems = load_runs(self.con, paths, counted)
        self.runs = dict(loaded)
        return problems

    def _finish_loading(self, problems: list[Problem], corpus_loaded: bool = False) -> Workspace:
        """Load the grades and the corpus (unless it came with the gold, as a BEIR folder's
        does), then raise every input's problems together, or return the workspace once its
        runs and gold share queries."""
        problems += load_grade_files(self.con, self.grades)
        if self.corpus is not None and not corpus_loaded:
            problems += gather([self.corpus], lambda path: load_corpus(self.con, path))[1]
        raise_if_any(problems)
        self._require_shared_queries()
        return self

    @classmethod
    def open(
        cls, folder: str | Path, memory_limit: str | None = None, cache: str | Path | None = None
    ) -> Workspace:
        """Open a workspace folder (see the module docstring for its layout); the memory
        limit and the cache folder as for :meth:`from_files`."""
        root = Path(folder)
        if not root.is_dir():
            raise InputError(
                [Problem(redact_path(root), None, redact_path(root), "a workspace folder")]
            )
        raise_if_any(links_leaving(root))
        gold = next((root / n for n in GOLD_NAMES if (root / n).is_file()), None)
        if gold is None and is_beir_folder(root):
            return cls.from_beir(
                root, workspace_runs(root), workspace_grades(root), True, memory_limit, cache
            )
        if gold is None:
            raise InputError(
                [
                    Problem(
                        redact_path(root), None, "no gold file", f"one of {', '.join(GOLD_NAMES)}"
                    )
                ]
            )
        runs = workspace_runs(root)
        if not runs:
            raise InputError(
                [Problem(redact_path(root / "runs"), None, "no run files", "runs/<name>.jsonl")]
            )
        grades = workspace_grades(root)
        corpus = next((root / n for n in CORPUS_NAMES if (root / n).is_file()), None)
        return cls.from_files(
            gold, runs, grades, corpus, folder=root, memory_limit=memory_limit, cache=cache
        )

    def _lock_down(self, runs: list[Path]) -> None:
        """From before the first read, the connection may open only the input files it is
        given and this workspace's judgment store (see :func:`.db.lock_down`)."""
        inputs = [self.gold, *self.qrels, *runs, *self.grades]
        inputs += [self.corpus] if self.corpus else []
        places = store_places(self.folder, self.gold)  # an upload set's two, to switch
        lock_down(self.con, inputs + [f for place in places for f in store_files(place)])

    def _locked(self, runs: list[Path]) -> Workspace:
        """This workspace, its connection locked down as a fresh load's (a cache restored it)."""
        self._lock_down(runs)
        return self

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self.con.cursor()

    @property
    def run_names(self) -> list[str]:
        return list(self.runs)

    def input_files(self) -> list[tuple[str, Path]]:
        """Every input file with its role, in a stable order."""
        files = [("gold", self.gold)] if self.gold not in self.memory_inputs else []
        files += [("qrels", path) for path in self.qrels]
        files += [
            (f"run {name}", path)
            for name, path in self.runs.items()
            if path not in self.memory_inputs
        ]
        files += [
            (f"config {name}", config_path_for(path))
            for name, path in self.runs.items()
            if path not in self.memory_inputs and config_path_for(path).exists()
        ]
        files += [("grades", path) for path in self.grades]
        if self.corpus:
            files.append(("corpus", self.corpus))
        return files

    def column_mappings(self) -> dict[str, dict[str, str]]:
        """``{file: {its column: the role it was read as}}`` for each CSV / Parquet input
        that names a column as another tool does (``qid``, ``docno``, ``sim``, ...); files in
        ragrecall's own names are not listed."""
        rows = self.cursor().execute(
            "SELECT path, source, target FROM column_mappings ORDER BY rowid"
        )
        mappings: dict[str, dict[str, str]] = {}
        for path, source, target in rows.fetchall():
            mappings.setdefault(redact_path(path), {})[source] = target
        return mappings

    def configs(self) -> dict[str, dict]:
        import json

        rows = self.cursor().execute("SELECT run, config FROM run_files").fetchall()
        return {run: json.loads(config) for run, config in rows}

    def _require_shared_queries(self) -> None:
        rows = (
            self.cursor()
            .execute(
                "SELECT f.run, f.path FROM run_files f WHERE NOT EXISTS ("
                "SELECT 1 FROM run_queries r JOIN queries q USING (query_id) WHERE r.run = f.run)"
            )
            .fetchall()
        )
        if rows:
            raise InputError(
                [
                    Problem(
                        redact_path(path),
                        None,
                        f"run {run!r} shares no query id with {redact_path(self.gold)}",
                        "query ids that match the gold set's",
                    )
                    for run, path in rows
                ]
            )


def load_plan(
    kind: str,
    first: list[tuple[str, Path]],
    runs: list[Path],
    grades: list[Path],
    corpus: str | Path | None,
) -> load_cache.LoadPlan:
    """Every file a load reads, in its order: ``first`` (the gold, or a BEIR folder's
    files), each run with its config sidecar (present or not), the grades, the corpus."""
    files = list(first)
    for run in runs:
        files += [("run", run), ("config", config_path_for(run))]
    files += [("grades", path) for path in grades]
    files += [("corpus", Path(corpus))] if corpus is not None else []
    return load_cache.LoadPlan(kind, tuple(files))


def workspace_runs(root: Path) -> list[Path]:
    """The run files in ``runs/`` (configs and hidden files aside)."""
    if not (root / "runs").is_dir():
        return []
    return sorted(
        p
        for p in (root / "runs").glob("*")
        if p.is_file() and not p.name.endswith(".config.json") and not p.name.startswith(".")
    )


def workspace_grades(root: Path) -> list[Path]:
    if not (root / "grades").is_dir():
        return []
    return sorted(
        p for p in (root / "grades").glob("*") if p.is_file() and not p.name.startswith(".")
    )


def named_runs(runs: object, name: str | None) -> dict[str, object]:
    """Run name -> run (a file name or data). Without ``name``, a dict is one run per key and
    a list of file names one run per file; anything else (and anything with ``name``) is one
    run, named ``name``, else by its own ``name`` attribute (a ranx ``Run``), else ``"run"``."""
    in_memory = named_memory_runs(runs, name)  # a list of ranx Runs too
    if in_memory is not None:
        return in_memory
    if isinstance(runs, list | tuple):
        return {run_stem(Path(run)): run for run in runs}
    return {name or run_stem(Path(runs)): runs}


def load_any_gold(con: duckdb.DuckDBPyConnection, gold: object) -> None:
    if is_in_memory(gold):
        load_memory_gold(con, gold)
    else:
        load_gold(con, Path(gold))


def load_any_run(con: duckdb.DuckDBPyConnection, name: str, run: object) -> tuple[str, Path]:
    """Load one run (a file, or data); return its name and its path (a stand-in for data)."""
    if not isinstance(name, str) or not name.strip():
        expected = "a run name that is a non-empty string"
        raise InputError([Problem(run_label(name), None, shown(name), expected)])
    if is_in_memory(run):
        return load_memory_run(con, name, run), Path(f"<{run_label(name)}>")
    return load_run(con, Path(run), name), Path(run)


def links_leaving(root: Path) -> list[Problem]:
    """Every symlink in the workspace (its folder, ``runs/`` and ``grades/``) whose target
    lies outside it, found before any file is read: a shared workspace must not make
    ragrecall read, echo or write a file elsewhere (a system file, another store)."""
    base = root.resolve()
    problems = []
    for entry in _entries(root, base):
        if not entry.is_symlink():
            continue
        try:
            target = entry.resolve()
        except (OSError, RuntimeError):
            problems.append(
                Problem(redact_path(entry), None, "a symlink loop", "a file or a folder")
            )
            continue
        if not target.is_relative_to(base):
            problems.append(
                Problem(
                    redact_path(entry),
                    None,
                    redact_path(target),
                    f"a file inside the workspace folder {redact_path(root)} (links out of it "
                    "are refused)",
                )
            )
    return problems


def _entries(root: Path, base: Path) -> list[Path]:
    """Every path the workspace may read: the folder's entries and those of ``runs/``,
    ``grades/`` and ``qrels/`` (BEIR) when these stay inside (a link out is itself an entry,
    and refused)."""
    entries = sorted(root.iterdir())
    for sub in (root / "runs", root / "grades", root / "qrels"):
        if sub.is_dir() and sub.resolve().is_relative_to(base):
            entries += sorted(sub.iterdir())
    return entries


def open_workspace(folder: str | Path) -> Workspace:
    return Workspace.open(folder)


@dataclass(frozen=True)
class WorkspaceFacts:
    """What a workspace holds, for choosing filters and saying what is missing."""

    splits: tuple[str, ...]
    query_types: tuple[str, ...]
    sections: tuple[str, ...]
    depths: dict[str, int]  # run -> its longest ranked list (0 when it returned nothing)
    queries: int
    has_query_text: bool
    corpus_chunks: int
    grades: int  # people's grades the evaluation counts: files' and the judgment store's
    judge_grades: int = 0  # model judges' grades, files' and stored (shown, never counted)


# the filter values a query can carry, by fact: each SQL text a constant
_DISTINCT_SQL = {
    name: f"SELECT DISTINCT {column} FROM queries WHERE {column} <> '' ORDER BY 1"  # noqa: S608
    for name, column in (
        ("splits", "split"),
        ("query_types", "query_type"),
        ("sections", "section"),
    )
}
# people's grades, then model judges' (annotator "judge:NAME"), kept apart: read from the
# views the evaluation reads (inputs/db.py, widened to the judgment store when it is
# attached), so a grade saved on the Judge page counts here as it counts in the numbers
_COUNTS_SQL = """
SELECT (SELECT count(*) FROM queries), (SELECT count(query) FROM queries),
       (SELECT count(*) FROM corpus),
       (SELECT count(*) FROM all_grades),
       (SELECT count(*) FROM judge_grades)
"""


def workspace_facts(workspace: Workspace) -> WorkspaceFacts:
    """Filter values, run depths and counts of ``workspace``'s inputs, in a few queries."""
    con = workspace.cursor()
    distinct = {
        name: tuple(row[0] for row in con.execute(sql).fetchall())
        for name, sql in _DISTINCT_SQL.items()
    }
    depths = dict(con.execute("SELECT run, max(rank) FROM runs GROUP BY run").fetchall())
    counts = con.execute(_COUNTS_SQL).fetchone()
    queries, with_text, chunks, grades, judge_grades = counts
    return WorkspaceFacts(
        **distinct,
        depths={run: int(depths.get(run) or 0) for run in workspace.run_names},
        queries=queries,
        has_query_text=with_text > 0,
        corpus_chunks=chunks,
        grades=grades,
        judge_grades=judge_grades,
    )
