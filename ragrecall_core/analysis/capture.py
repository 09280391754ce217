"""Capture a run from a live retriever: call it for every gold query, write a seed-format run.

The retriever is any Python callable ``f(query_text)`` (it also gets ``query_id=`` and
``k=`` when it names those parameters). What it returns is recognised by shape, with no
dependency on the library that made it: chunk ids, ``(id, score)`` pairs, dicts with
``chunk_id`` / ``id`` and ``score``, LangChain ``Document``-like objects (``metadata`` and
``page_content``; the id from ``metadata[id_key]``, else ``metadata["id"]``, else ``.id``),
LlamaIndex ``NodeWithScore``-like objects (``.node.node_id`` / ``.node.id_`` and ``.score``),
and ``(Document, score)`` pairs.

Each answered query is appended to a progress file (``.NAME.capture.jsonl`` beside the
run: a dotfile, so a workspace never reads it as a run) and flushed, so an interrupted
capture continues where it stopped. Its first line records what the capture depends on
(the gold file's hash, the redacted config's hash, k, the retriever, the id key); when one
of them changed, the capture starts over and says so. A query whose call raises, times out
or returns something unrecognised is written with an empty list and an ``error`` field
(the run loader ignores fields it does not know), never a crash; the next resume tries it
again. The run and its ``NAME.config.json`` are written when every query is done.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs.configs import (
    config_path_for,
    read_config_file,
    redact,
    redact_text,
    run_stem,
)
from ragrecall_core.inputs.readers import sha256_of

PROGRESS_VERSION = 1
DEFAULT_ID_KEYS = ("chunk_id", "id")
SECONDS = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")
SHOWN = 80  # characters of a retriever's message or value kept in an error field


class QueryFailed(Exception):
    """What one query's call produced that is not a ranked list (kept in the run, not raised)."""


@dataclass
class CaptureResult:
    run: Path
    config: Path
    queries: int
    resumed: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    restarted_because: str | None = None

    def to_text(self) -> str:
        lines = []
        if self.restarted_because:
            lines.append(one_line(f"started over: {self.restarted_because}"))
        if self.resumed:
            lines.append(f"resumed: {self.resumed} queries were captured before")
        failed = f", {len(self.errors)} with an error (kept as empty lists)" if self.errors else ""
        lines.append(f"captured {self.queries} queries into {one_line(self.run)}{failed}")
        lines.append(f"config written to {one_line(self.config)}")
        return "\n".join(lines) + "\n"


# --- options -------------------------------------------------------------------------------


def parse_retriever_spec(spec: str) -> tuple[str, str]:
    """``"package.module:function"`` -> its two parts."""
    module, _, attribute = spec.partition(":")
    if not module.strip() or not attribute.strip() or ":" in attribute:
        raise InputError([Problem("--retriever", None, spec, "module:callable, like mymod:search")])
    return module.strip(), attribute.strip()


def load_retriever(spec: str) -> Callable:
    """Import ``module:callable`` (from the current folder too, as ``python -m`` would)."""
    module_name, attribute = parse_retriever_spec(spec)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module: any failure of its import is their input
        reason = error_text(f"{type(error).__name__}: {error}")
        raise InputError(
            [Problem("--retriever", None, f"{spec} ({reason})", "an importable module")]
        ) from None
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise InputError(
            [Problem("--retriever", None, spec, f"a callable named {attribute!r} in the module")]
        )
    return target


def parse_positive_number(text: str, option: str) -> float:
    """A positive decimal in ASCII (``float`` alone would also take "inf", "1_0", "١")."""
    value = float(text) if SECONDS.fullmatch(text.strip()) else 0.0
    if not (math.isfinite(value) and value > 0):
        raise InputError([Problem(option, None, text, "a positive number of seconds")])
    return value


def read_config(path: Path) -> dict[str, Any]:
    """The ``--config`` file as a redacted JSON object (same rules as a run's config)."""
    if not path.is_file():
        raise InputError([Problem("--config", None, str(path), "an existing JSON file")])
    return read_config_file(path)


def output_problems(path: Path) -> list[Problem]:
    if path.suffix.lower() != ".jsonl":
        return [Problem("-o", None, str(path), "a run file ending in .jsonl")]
    if not path.parent.is_dir():
        return [Problem("-o", None, str(path.parent), "an existing folder to write into")]
    return []


def overwrite_problems(output: Path, inputs: list[Path]) -> list[Problem]:
    """The run and its config are written over: neither may be one of the inputs."""
    written = {output.resolve(), config_path_for(output).resolve()}
    return [
        Problem("-o", None, str(output), f"a run file that does not replace the input {path}")
        for path in inputs
        if path.resolve() in written
    ]


# --- what a retriever returns ----------------------------------------------------------------


def ranked_list(result: Any, k: int, id_key: str | None = None) -> list[dict]:
    """``result`` as seed-format items (``chunk_id``, ``rank``, ``score``), the first ``k``.

    Raises :class:`QueryFailed` for anything not recognised, an empty id, a score that is
    not a finite number, or an id returned twice (a run lists each chunk once)."""
    if isinstance(result, (str, bytes)) or not isinstance(result, Iterable):
        raise QueryFailed(f"a list of results, got {type(result).__name__}")
    items = []
    seen: set[str] = set()
    for rank, entry in enumerate(result, start=1):
        if rank > k:
            break
        chunk_id, score = item_of(entry, id_key)
        if chunk_id in seen:
            raise QueryFailed(f"chunk {chunk_id[:SHOWN]!r} returned twice")
        seen.add(chunk_id)
        items.append({"chunk_id": chunk_id, "rank": rank, "score": score})
    return items


def item_of(entry: Any, id_key: str | None) -> tuple[str, float | None]:
    """One returned result as ``(chunk id, score or None)``, recognised by its shape."""
    if isinstance(entry, tuple) and len(entry) == 2:
        chunk_id, _ = item_of(entry[0], id_key)
        return chunk_id, checked_score(entry[1])
    if isinstance(entry, str):
        return checked_id(entry), None
    if isinstance(entry, dict):
        return checked_id(id_from_mapping(entry, id_key)), checked_score(entry.get("score"))
    node = getattr(entry, "node", None)
    if node is not None:  # LlamaIndex NodeWithScore
        node_id = getattr(node, "node_id", None) or getattr(node, "id_", None)
        return checked_id(node_id), checked_score(getattr(entry, "score", None))
    metadata = getattr(entry, "metadata", None)
    if isinstance(metadata, dict):  # LangChain Document
        chunk_id = id_from_mapping(metadata, id_key)
        if chunk_id is None:
            chunk_id = getattr(entry, "id", None)
        return checked_id(chunk_id), checked_score(metadata.get("score"))
    raise QueryFailed(f"a chunk id, (id, score), a dict or a document, got {type(entry).__name__}")


def id_from_mapping(mapping: dict, id_key: str | None) -> Any:
    for key in (id_key,) if id_key else DEFAULT_ID_KEYS:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def checked_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise QueryFailed(f"a non-empty string chunk id, got {str(value)[:SHOWN]!r}")
    return value


def checked_score(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:  # numpy and torch scalars
            value = float(value)
        except (TypeError, ValueError):
            raise QueryFailed(f"a numeric score, got {str(value)[:SHOWN]!r}") from None
    if not math.isfinite(value):
        raise QueryFailed(f"a finite score, got {value!r}")
    return float(value)


# --- calling the retriever -------------------------------------------------------------------


def call_arguments(retriever: Callable, query_id: str, k: int) -> dict[str, Any]:
    """``query_id=`` and ``k=`` for a retriever that names those parameters."""
    try:
        parameters = inspect.signature(retriever).parameters
    except (TypeError, ValueError):
        return {}
    offered = {"query_id": query_id, "k": k}
    return {name: value for name, value in offered.items() if name in parameters}


def call_with_timeout(call: Callable[[], Any], timeout: float | None) -> Any:
    """``call()``, or :class:`QueryFailed` after ``timeout`` seconds. Python cannot stop a
    thread: a call that overruns is left to finish in a daemon thread and its result dropped."""
    if timeout is None:
        return call()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised in the caller's thread below
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise QueryFailed(f"timeout: no answer after {timeout:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def error_text(message: str) -> str:
    """A retriever's error message as kept: redacted (a failed connection often names its
    URL and credentials) and shortened."""
    return redact_text(message)[: SHOWN * 2]


def capture_one(
    retriever: Callable,
    query_id: str,
    text: str,
    k: int,
    timeout: float | None,
    id_key: str | None,
) -> dict[str, Any]:
    """One run line: the ranked list and its latency, or an empty list and the error."""
    arguments = call_arguments(retriever, query_id, k)
    started = time.perf_counter()
    line: dict[str, Any] = {"id": query_id, "retrieved": []}
    try:
        result = call_with_timeout(lambda: retriever(text, **arguments), timeout)
        line["retrieved"] = ranked_list(result, k, id_key)
    except QueryFailed as failure:
        line["error"] = error_text(str(failure))
    except Exception as error:  # the user's code: its failure is recorded, not raised
        line["error"] = error_text(f"{type(error).__name__}: {error}")
    line["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return line


# --- gold queries and progress ---------------------------------------------------------------


def gold_queries(gold: Path) -> list[tuple[str, str]]:
    """``(query id, query text)`` in the gold file's order; every query needs its text."""
    from ragrecall_core.inputs.workspace import Workspace

    workspace = Workspace.from_files(gold, [])
    rows = (
        workspace.cursor()
        .execute("SELECT query_id, query, line FROM queries ORDER BY line, query_id")
        .fetchall()
    )
    missing = [
        Problem(str(gold), line, query_id, "a query text to send to the retriever")
        for query_id, text, line in rows
        if text is None or not text.strip()
    ]
    raise_if_any(missing)
    return [(query_id, text) for query_id, text, _ in rows]


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
            self.stream.write(f"\rcapturing [{bar}] {self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


# --- the capture -----------------------------------------------------------------------------


def retriever_version(retriever: Callable) -> str | None:
    """The ``__version__`` of the callable, its module, or its top-level package."""
    module_name = getattr(retriever, "__module__", None) or ""
    candidates = [
        retriever,
        sys.modules.get(module_name),
        sys.modules.get(module_name.split(".")[0]),
    ]
    for candidate in candidates:
        version = getattr(candidate, "__version__", None)
        if isinstance(version, str):
            return version
    return None


def retriever_name(retriever: Callable | str) -> str:
    if isinstance(retriever, str):
        return retriever
    module = getattr(retriever, "__module__", None) or "?"
    return f"{module}:{getattr(retriever, '__qualname__', type(retriever).__name__)}"


def capture(
    gold: str | Path,
    retriever: Callable | str,
    output: str | Path,
    k: int = 20,
    config: str | Path | dict | None = None,
    concurrency: int = 1,
    timeout: float | None = None,
    id_key: str | None = None,
    progress_stream: TextIO | None = None,
    name: str | None = None,
) -> CaptureResult:
    """Call ``retriever`` (a callable, or ``"module:callable"``) for every query of ``gold``
    and write the run ``output`` (.jsonl) with its ``.config.json``; resume an interrupted
    capture of the same inputs. ``name`` is what the config calls the retriever (default:
    its module and name)."""
    gold, output = Path(gold), Path(output)
    problems = output_problems(output)
    if not (isinstance(k, int) and k >= 1):
        problems.append(Problem("-k", None, str(k), "a positive whole number of results"))
    if not (isinstance(concurrency, int) and concurrency >= 1):
        problems.append(Problem("--concurrency", None, str(concurrency), "a whole number >= 1"))
    settings = {} if config is None else config
    if not isinstance(settings, dict):
        problems += overwrite_problems(output, [gold, Path(settings)])
        settings = read_config(Path(settings))
    else:
        problems += overwrite_problems(output, [gold])
    raise_if_any(problems)
    settings = redact(settings)
    call = load_retriever(retriever) if isinstance(retriever, str) else retriever
    queries = gold_queries(gold)
    name = name or retriever_name(retriever)
    header = fingerprint(gold, settings, k, name, id_key)
    progress_file = progress_path(output)
    done, restarted = resume(progress_file, header)
    result = CaptureResult(output, config_path_for(output), len(queries), len(done))
    result.restarted_because = restarted
    todo = [(qid, text) for qid, text in queries if qid not in done]
    write_progress(progress_file, header, done)
    bar = Progress(len(queries), len(done), progress_stream)
    lock = threading.Lock()
    with progress_file.open("a", encoding="utf-8") as log:

        def one(query: tuple[str, str]) -> None:
            line = capture_one(call, query[0], query[1], k, timeout, id_key)
            with lock:
                log.write(json.dumps(line, ensure_ascii=False) + "\n")
                log.flush()
                done[line["id"]] = line
                bar.advance()

        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            # on an interrupt, map cancels the queries that have not started
            list(pool.map(one, todo))
    result.errors = {qid: line["error"] for qid, line in done.items() if "error" in line}
    write_run(output, [done[qid] for qid, _ in queries])
    write_config(result.config, settings, name, call, k, gold, header, result)
    progress_file.unlink()
    return result


def write_progress(path: Path, header: dict, done: dict[str, dict]) -> None:
    """Start the progress file: the header, then the lines kept from before (if any)."""
    lines = [header, *done.values()]
    with path.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def write_run(output: Path, lines: list[dict]) -> None:
    """The run in the gold file's order, written whole and then moved in place."""
    staged = output.with_name(f".{output.name}.writing")
    with staged.open("w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    staged.replace(output)


def write_config(
    path: Path,
    settings: dict,
    name: str,
    retriever: Callable,
    k: int,
    gold: Path,
    header: dict,
    result: CaptureResult,
) -> None:
    # flat keys: a comparison's config diff then names the one that changed
    config = {**settings}
    config.setdefault("top_k", k)
    config.update(
        {
            "capture_retriever": name,
            "capture_retriever_version": retriever_version(retriever),
            "capture_k": k,
            "capture_gold": gold.name,
            "capture_gold_sha256": header["gold_sha256"],
            "capture_errors": len(result.errors),
        }
    )
    path.write_text(json.dumps(redact(config), indent=2, ensure_ascii=False) + "\n", "utf-8")
