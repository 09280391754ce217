"""Capture a run from a live retriever: call it for every gold query, write a seed-format run.

The retriever is a callable or an object with a retrieval method, sync or async
(:mod:`ragrecall_core.analysis.capture_calls`: which method, how k reaches it); what it
returns is read by shape (:mod:`ragrecall_core.analysis.capture_results`); what the capture
tells is :mod:`ragrecall_core.analysis.capture_summary`.

Each answered query is appended to a progress file (``.NAME.capture.jsonl`` beside the
run: a dotfile, so a workspace never reads it as a run) and flushed, so an interrupted
capture continues where it stopped. Its first line records what the capture depends on
(the gold file's hash, the redacted config's hash, k, the retriever, the id key); when one
of them changed, the capture starts over and says so. A query whose call raises, times out
or returns something unreadable is a failed query: it is recorded with its error and the
capture goes on. When more queries failed than ``allow_errors`` allows (none by default),
no run is written, :class:`CaptureFailed` is raised with the summary, and the progress file
stays: the same capture again retries only the failed queries. Otherwise the run (a failed
query as an empty list with an ``error`` field) and its ``NAME.config.json`` are written.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from ragrecall_core.analysis.capture_calls import (
    QueryFailed,
    Target,
    arguments_for,
    call_async,
    call_sync,
    describe,
    owner_and_method,
    process_state_kept,
    resolved,
    retriever_name,
    retriever_version,
    run_loop,
)
from ragrecall_core.analysis.capture_defaults import TIMEOUT
from ragrecall_core.analysis.capture_results import ranked_list, read_at_most, read_results
from ragrecall_core.analysis.capture_summary import (
    CaptureFailed,
    CaptureResult,
    earlier_run_line,
    summarise,
)
from ragrecall_core.errors import InputError, Problem, raise_if_any
from ragrecall_core.inputs.configs import (
    config_path_for,
    read_config_file,
    redact,
    run_stem,
)
from ragrecall_core.inputs.readers import sha256_of
from ragrecall_core.inputs.secrets import redact_path, redact_text

__all__ = [
    "CaptureFailed",
    "CaptureResult",
    "QueryFailed",
    "capture",
    "earlier_run_line",
    "ranked_list",
]

PROGRESS_VERSION = 1
# the failure of each answerable query when none of them got a result (nothing_found)
NO_RESULT = (
    "no result for any answerable query (an empty index, a wrong collection name or a "
    "filter that matches nothing?)"
)
SECONDS = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")
SHARE = re.compile(r"(0?\.[0-9]+|[01](\.0*)?)|([0-9]+(\.[0-9]*)?)%")
# --- options -------------------------------------------------------------------------------


def parse_spec(spec: str, option: str, example: str) -> tuple[str, str]:
    """``"package.module:function"`` -> its two parts; ``option`` and ``example`` name the
    command-line option in the problem (``--retriever`` / ``mymod:search``)."""
    module, _, attribute = spec.partition(":")
    if not module.strip() or not attribute.strip() or ":" in attribute:
        raise InputError(
            [Problem(option, None, redact_text(spec), f"module:callable, like {example}")]
        )
    return module.strip(), attribute.strip()


def import_target(spec: str, option: str, example: str) -> Any:
    """Import ``module:name`` (from the current folder too, as ``python -m`` would) and
    return what ``name`` (dotted: ``obj.method``) names there, or None when nothing is."""
    module_name, attribute = parse_spec(spec, option, example)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the user's module: any failure of its import, exit too
        raise InputError(
            [
                Problem(
                    option, None, redact_text(f"{spec} ({describe(error)})"), "an importable module"
                )
            ]
        ) from None
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
    return target


def parse_retriever_spec(spec: str) -> tuple[str, str]:
    """``"package.module:function"`` -> its two parts."""
    return parse_spec(spec, "--retriever", "mymod:search")


def load_retriever(spec: str) -> Any:
    """Import ``module:name``: a callable or a retriever object (checked by
    :func:`check_retriever`)."""
    target = import_target(spec, "--retriever", "mymod:search")
    if target is None:
        attribute = parse_retriever_spec(spec)[1]
        expected = (
            f"a callable or a retriever object named {redact_text(repr(attribute))} in the module"
        )
        raise InputError([Problem("--retriever", None, redact_text(spec), expected)])
    check_retriever(target)
    return target


def check_retriever(retriever: Any) -> None:
    """Refuse, before any call, what has no method to call (InputError naming them)."""
    owner_and_method(retriever)


def parse_allowance(value: int | float | str) -> tuple[str, float]:
    """``--allow-errors``: a number of queries (``3``) or a share (``0.05``, ``5%``)."""
    if isinstance(value, bool):
        pass
    elif isinstance(value, int) and value >= 0:
        return "count", value
    elif isinstance(value, float) and 0 <= value <= 1:
        return "share", value
    elif isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit():
            return "count", int(text)
        match = SHARE.fullmatch(text)
        if match and match.group(3) is not None and float(match.group(3)) <= 100:
            return "share", float(match.group(3)) / 100
        if match and match.group(1) is not None:
            return "share", float(match.group(1))
    expected = "a number of queries (3) or a share of them (0.05 or 5%)"
    raise InputError([Problem("--allow-errors", None, redact_text(str(value)), expected)])


def allowed(allowance: tuple[str, float], failed: int, total: int) -> bool:
    kind, amount = allowance
    return failed <= (amount if kind == "count" else amount * total + 1e-9)


def parse_positive_number(text: str, option: str) -> float:
    """A positive decimal in ASCII (``float`` alone would also take "inf", "1_0", "١")."""
    value = float(text) if SECONDS.fullmatch(text.strip()) else 0.0
    if not (math.isfinite(value) and value > 0):
        raise InputError([Problem(option, None, redact_text(text), "a positive number of seconds")])
    return value


def read_config(path: Path) -> dict[str, Any]:
    """The ``--config`` file as a redacted JSON object (same rules as a run's config)."""
    if not path.is_file():
        raise InputError([Problem("--config", None, redact_path(path), "an existing JSON file")])
    return read_config_file(path)


def output_problems(path: Path) -> list[Problem]:
    if path.suffix.lower() != ".jsonl":
        return [Problem("-o", None, redact_path(path), "a run file ending in .jsonl")]
    if not path.parent.is_dir():
        return [Problem("-o", None, redact_path(path.parent), "an existing folder to write into")]
    return []


def overwrite_problems(output: Path, inputs: Mapping[str, Path | None]) -> list[Problem]:
    """The run and its config are written over: neither may be one of the ``inputs`` (role:
    path, None when not given), by name or by file (:func:`.output_targets.overwritten`)."""
    from ragrecall_core.analysis.output_targets import overwritten

    given = [(role, path) for role, path in inputs.items() if path is not None]
    targets = {"-o": output, "-o (its config beside it)": config_path_for(output)}
    return overwritten(targets, given)


# --- gold queries and progress ---------------------------------------------------------------


def corpus_beside(gold: Path) -> Path | None:
    """The workspace's corpus file beside the gold file, if there is one."""
    from ragrecall_core.inputs.workspace import CORPUS_NAMES

    return next((gold.parent / n for n in CORPUS_NAMES if (gold.parent / n).is_file()), None)


class GoldFacts(NamedTuple):
    """What a capture needs of the gold file (and the corpus beside it)."""

    queries: list[tuple[str, str]]  # (query id, query text) in the gold file's order
    corpus_ids: set  # the corpus's chunk ids (empty without one)
    answerable: set  # ids of the queries with a chunk graded 1 or more
    graded: set  # every chunk id the gold grades, any grade


def gold_queries(gold: Path, corpus: Path | None = None) -> GoldFacts:
    """The gold file's queries (every query needs its text), the corpus's chunk ids, which
    queries are answerable (a no-answer query rightly gets nothing) and which chunks the gold
    grades."""
    from ragrecall_core.inputs.workspace import Workspace

    workspace = Workspace.from_files(gold, [], corpus=corpus)
    cursor = workspace.cursor()
    rows = cursor.execute("SELECT query_id, query, line FROM queries ORDER BY line, query_id")
    rows = rows.fetchall()
    missing = [
        Problem(redact_path(gold), line, query_id, "a query text to send to the retriever")
        for query_id, text, line in rows
        if text is None or not text.strip()
    ]
    raise_if_any(missing)

    def ids(sql: str) -> set:
        return {row[0] for row in cursor.execute(sql).fetchall()}

    return GoldFacts(
        queries=[(query_id, text) for query_id, text, _ in rows],
        corpus_ids=ids("SELECT chunk_id FROM corpus") if corpus is not None else set(),
        answerable=ids("SELECT DISTINCT query_id FROM qrels WHERE grade >= 1"),
        graded=ids("SELECT DISTINCT chunk_id FROM qrels WHERE chunk_id IS NOT NULL"),
    )


def progress_path(output: Path) -> Path:
    return output.with_name(f".{run_stem(output)}.capture.jsonl")


def fingerprint(gold: Path, config: dict, k: int, retriever: str, id_key: str | None) -> dict:
    """What the captured lists depend on; a change in any of it means starting over."""
    canonical = json.dumps(config, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return {
        "capture": PROGRESS_VERSION,
        "gold_sha256": sha256_of(gold),
        "config_sha256": hashlib.sha256(canonical).hexdigest(),
        "k": k,
        "retriever": retriever,
        "id_key": id_key,
    }


def resume(path: Path, header: dict) -> tuple[dict[str, dict], str | None]:
    """The lines captured before under the same ``header``, and why they were dropped if not.

    A torn last line (the process died while writing it) is skipped: that query runs again.
    A query that failed before runs again too."""
    if not path.exists():
        return {}, None
    with path.open(encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    try:
        previous = json.loads(lines[0]) if lines else None
    except ValueError:
        previous = None
    if previous != header:
        return {}, changed_since(previous, header)
    done: dict[str, dict] = {}
    for text in lines[1:]:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("id"), str) and "error" not in line:
            done[line["id"]] = line
    return done, None


def changed_since(previous: Any, header: dict) -> str:
    if not isinstance(previous, dict):
        return "the progress file of the interrupted capture is unreadable"
    changed = [key for key in header if previous.get(key) != header[key]]
    names = {"gold_sha256": "the gold file", "config_sha256": "the config"}
    return "changed since the interrupted capture: " + ", ".join(names.get(c, c) for c in changed)


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, done: int, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.total, self.done = total, done

    def advance(self) -> None:
        self.done += 1
        if self.shown:
            width = 30
            filled = width * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (width - filled)
            end = "\n" if self.done == self.total else ""
            try:
                self.stream.write(f"\rcapturing [{bar}] {self.done}/{self.total}{end}")
                self.stream.flush()
            except (OSError, ValueError):  # the retriever closed the terminal's stream
                self.shown = False


# --- the capture -----------------------------------------------------------------------------


def capture(
    gold: str | Path,
    retriever: Any,
    output: str | Path,
    k: int = 20,
    config: str | Path | dict | None = None,
    concurrency: int = 1,
    timeout: float | None = TIMEOUT,
    id_key: str | None = None,
    progress_stream: TextIO | None = None,
    name: str | None = None,
    allow_errors: int | float | str = 0,
    corpus: str | Path | None = None,
) -> CaptureResult:
    """Call ``retriever`` (a callable, a retriever object, or ``"module:name"``) for every
    query of ``gold`` and write the run ``output`` (.jsonl) with its ``.config.json``;
    resume an interrupted capture of the same inputs. ``name`` is what the config calls the
    retriever (default: its module and name). Raises :class:`CaptureFailed` when more
    queries failed than ``allow_errors`` (a count, or a share as a float or ``"5%"``).
    Retrieved ids are checked against ``corpus`` (default: the corpus beside the gold). A
    query taking more than ``timeout`` seconds (None: no limit) is a failed query."""
    # absolute: a retriever that changes the working folder cannot move the files written
    shown, gold, output = Path(output), Path(gold).absolute(), Path(output).absolute()
    corpus = Path(corpus).absolute() if corpus is not None else corpus_beside(gold)
    settings, allowance = checked_options(
        gold, output, k, concurrency, config, allow_errors, corpus
    )
    target = load_retriever(retriever) if isinstance(retriever, str) else retriever
    check_retriever(target)
    facts = gold_queries(gold, corpus)
    queries = facts.queries
    name = name or (retriever if isinstance(retriever, str) else retriever_name(target))
    header = fingerprint(gold, settings, k, name, id_key)
    progress_file = progress_path(output)
    done, restarted = resume(progress_file, header)
    result = CaptureResult(shown, config_path_for(shown), len(queries), k, len(done))
    result.restarted_because, result.progress, result.corpus = restarted, progress_file, corpus
    todo = [(qid, text) for qid, text in queries if qid not in done]
    write_progress(progress_file, header, done)
    bar = Progress(len(queries), len(done), progress_stream)
    with resolved(target, k) as target_call, process_state_kept():
        result.k_forwarded_as = target_call.k_knob
        calls = Calls(target_call, k, timeout, id_key, concurrency)
        run_queries(calls, todo, done, progress_file, bar)
    nothing_found(done, facts.answerable, progress_file, header)
    lines = [done[qid] for qid, _ in queries]
    summarise(result, lines, facts.corpus_ids if corpus is not None else None, facts)
    if not allowed(allowance, len(result.errors), len(queries)):
        result.earlier_run = output.exists()
        raise CaptureFailed(result)
    write_run(output, [public(line) for line in lines])
    write_config(config_path_for(output), settings, name, target, k, gold, header, result)
    progress_file.unlink()
    result.written = True
    return result


def checked_options(
    gold: Path,
    output: Path,
    k: Any,
    concurrency: Any,
    config: Any,
    allow_errors: Any,
    corpus: Path | None = None,
) -> tuple[dict, tuple[str, float]]:
    """The redacted config and the error allowance; every bad option reported at once (the
    run written over none of the inputs: gold, a config file, the corpus)."""
    problems = output_problems(output)
    if not (isinstance(k, int) and k >= 1):
        problems.append(Problem("-k", None, str(k), "a positive whole number of results"))
    if not (isinstance(concurrency, int) and concurrency >= 1):
        problems.append(Problem("--concurrency", None, str(concurrency), "a whole number >= 1"))
    settings = {} if config is None else config
    config_file = None if isinstance(settings, dict) else Path(settings)
    problems += overwrite_problems(output, {"gold": gold, "config": config_file, "corpus": corpus})
    if config_file is not None:
        settings = read_config(config_file)
    allowance = None
    try:
        allowance = parse_allowance(allow_errors)
    except InputError as error:
        problems += error.problems
    raise_if_any(problems)
    return redact(settings), allowance


@dataclass
class Calls:
    """How each query is called and read."""

    target: Target
    k: int
    timeout: float | None
    id_key: str | None
    concurrency: int


def run_queries(
    calls: Calls,
    todo: list[tuple[str, str]],
    done: dict[str, dict],
    progress_file: Path,
    bar: Progress,
) -> None:
    """Every query of ``todo`` captured into ``done`` and appended to the progress file:
    awaited on one event loop (``concurrency`` at once) or called in as many threads."""
    lock = threading.Lock()
    with progress_file.open("a", encoding="utf-8") as log:

        def keep(line: dict) -> None:
            with lock:
                log.write(json.dumps(line, ensure_ascii=False) + "\n")
                log.flush()
                done[line["id"]] = line
                bar.advance()

        if calls.target.is_async:

            async def main() -> None:
                limit = asyncio.Semaphore(calls.concurrency)

                async def one(query: tuple[str, str]) -> None:
                    async with limit:
                        keep(await capture_one_async(calls, *query))

                await asyncio.gather(*(one(query) for query in todo))

            run_loop(main)
            return

        # set by an interrupt: a worker begins no further query (map cancels the queued
        # ones only once the main thread reaches the interrupted query's result, and a
        # worker takes the next query at once)
        stopping = threading.Event()

        def one(query: tuple[str, str]) -> None:
            if stopping.is_set():
                return
            try:
                keep(capture_one(calls, *query))
            except KeyboardInterrupt:
                stopping.set()
                raise

        with ThreadPoolExecutor(max_workers=calls.concurrency) as pool:
            try:
                list(pool.map(one, todo))
            except KeyboardInterrupt:
                stopping.set()
                raise


def query_line(query_id: str, result: Any, calls: Calls) -> dict[str, Any]:
    ranked = read_results(result, calls.k, calls.id_key)
    line: dict[str, Any] = {"id": query_id, "retrieved": ranked.items}
    if ranked.duplicates:
        line["_duplicates"] = ranked.duplicates
    return line


def failed_line(query_id: str, error: BaseException) -> dict[str, Any]:
    return {"id": query_id, "retrieved": [], "error": describe(error)}


def capture_one(calls: Calls, query_id: str, text: str) -> dict[str, Any]:
    """One run line: the ranked list and its latency, or an empty list and the error."""
    started = time.perf_counter()
    arguments = arguments_for(calls.target, query_id, calls.k)
    try:
        result = call_sync(calls.target, text, arguments, calls.timeout)
        line = query_line(query_id, result, calls)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the user's code, SystemExit too: one failed query
        line = failed_line(query_id, error)
    line["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return line


async def capture_one_async(calls: Calls, query_id: str, text: str) -> dict[str, Any]:
    """:func:`capture_one`, awaited."""
    started = time.perf_counter()
    arguments = arguments_for(calls.target, query_id, calls.k)
    try:
        limit = read_at_most(calls.k)
        result = await call_async(calls.target, text, arguments, calls.timeout, limit)
        line = query_line(query_id, result, calls)
    except KeyboardInterrupt:
        raise
    except asyncio.CancelledError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # the capture itself is stopping
            raise
        line = failed_line(query_id, error)
    except BaseException as error:  # the user's code, SystemExit too: one failed query
        line = failed_line(query_id, error)
    line["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return line


def public(line: dict) -> dict:
    """A run line without the capture's own notes (keys starting with ``_``)."""
    return {key: value for key, value in line.items() if not key.startswith("_")}


def nothing_found(done: dict[str, dict], answerable: set, progress: Path, header: dict) -> None:
    """When no answerable query got a result (an empty index, a wrong collection name, a
    filter that matches nothing: the retriever raised nothing), each one answered with an
    empty list is a failed query (:data:`NO_RESULT`) and the progress file keeps none of
    them: the same capture, the retriever mended, asks them again. Some answerable queries
    without a result are a run's own (the summary names them)."""
    answered = [qid for qid in answerable if "error" not in done[qid]]
    if not answered or any(done[qid]["retrieved"] for qid in answered):
        return
    for qid in answered:
        done[qid] = {**done[qid], "error": NO_RESULT}
    write_progress(progress, header, {q: line for q, line in done.items() if "error" not in line})


def write_progress(path: Path, header: dict, done: dict[str, dict]) -> None:
    """Start the progress file: the header, then the lines kept from before (if any)."""
    lines = [header, *done.values()]
    with path.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def write_whole(path: Path, text: str) -> None:
    """``text`` written beside ``path`` and then moved in place: ``path`` is never a part of
    it, nor an earlier file half written over."""
    staged = path.with_name(f".{path.name}.writing")
    with staged.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    staged.replace(path)


def write_run(output: Path, lines: list[dict]) -> None:
    """The run in the gold file's order."""
    write_whole(output, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


def write_config(
    path: Path,
    settings: dict,
    name: str,
    retriever: Any,
    k: int,
    gold: Path,
    header: dict,
    result: CaptureResult,
) -> None:
    # flat keys: a comparison's config diff then names the one that changed
    config = {**settings}
    # the depth the run has: k, unless no list reached it (a retriever that ignored k)
    config.setdefault("top_k", result.longest or k)
    package, version = retriever_version(retriever)
    config.update(
        {
            "capture_retriever": name,
            "capture_retriever_package": package,
            "capture_retriever_version": version,
            "capture_k": k,
            "capture_k_forwarded_as": result.k_forwarded_as,
            "capture_short_lists": len(result.short),
            "capture_gold": gold.name,
            "capture_gold_sha256": header["gold_sha256"],
            "capture_errors": len(result.errors),
        }
    )
    write_whole(path, json.dumps(redact(config), indent=2, ensure_ascii=False) + "\n")
