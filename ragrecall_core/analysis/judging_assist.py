"""Assisted judging: a model judge grades the blind pool, stored as annotator ``judge:NAME``.

The judge is any callable ``judge(query_text, chunk_text)`` (sync or ``async def``) that
returns a grade (the whole number 0, 1 or 2), or a dict ``{"grade", "harmful", "reason"}``,
or a tuple ``(grade, harmful, reason)`` (the last two optional). Anything else it returns
(3, -1, NaN, 2.0, "2", True, a harmful flag that is no bool, an unknown key) and anything it
raises (``SystemExit`` too) or a call over ``timeout`` seconds is one failed pair, named
with its error (cut, then redacted); only ``KeyboardInterrupt`` stops the grading.

It grades the same pool as ``ragrecall pool`` and the Judge page
(:func:`.pooling.build_pool`): by default what neither the gold set nor a human judged;
with ``include_judged`` the whole pool, so it can be measured against the humans. Each
grade is committed to the judgment store as it comes (append-only), so an interrupted
grading resumes: the pairs this judge already graded are not sent again, and failed pairs
are retried. Its grades never reach ``all_grades`` (the humans' evidence): they are shown
beside it and count only when asked.

The calls reuse capture's machinery (:mod:`.capture_calls`): timeout, thread or event-loop
concurrency, the process state kept, an error's message cut and redacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import math
import numbers
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ragrecall_core.analysis.capture import (
    Progress,
    allowed,
    import_target,
    parse_allowance,
    parse_spec,
)
from ragrecall_core.analysis.capture_calls import (
    QueryFailed,
    Target,
    call_async,
    call_sync,
    describe,
    is_coroutine_call,
    process_state_kept,
    retriever_name,
    retriever_version,
    run_loop,
)
from ragrecall_core.analysis.pooling import DEFAULT_DEPTH, build_pool
from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs import store
from ragrecall_core.inputs.configs import redact, redact_text
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.output.text import plural

EXPORT_SUFFIXES = (".jsonl", ".csv")
MAX_REASON = 300  # characters of a judge's reason kept (redacted, one line, then cut)
MAX_NAME = 80
VERDICT_KEYS = {"grade", "harmful", "reason"}


class JudgeFailed(Exception):
    """More pairs failed than allowed; ``result`` says which and why (grades kept)."""

    def __init__(self, result: JudgeResult):
        super().__init__(result.to_text())
        self.result = result


@dataclass
class JudgeResult:
    """What a grading did: the pool's size, what was graded now and before, what failed."""

    annotator: str
    pool: int
    graded_before: int
    graded: int = 0
    grades: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0, 2: 0})
    errors: dict[tuple[str, str], str] = field(default_factory=dict)
    include_judged: bool = False

    def to_dict(self) -> dict:
        return {
            "annotator": self.annotator,
            "pool": self.pool,
            "graded_before": self.graded_before,
            "graded": self.graded,
            "grades": {str(g): n for g, n in self.grades.items()},
            "failed": [
                {"query_id": q, "chunk_id": c, "error": e} for (q, c), e in self.errors.items()
            ],
        }

    def to_text(self) -> str:
        scope = "the whole pool" if self.include_judged else "the pool (unjudged pairs)"
        lines = [
            f"{self.annotator} graded {plural(self.graded, 'pair')} of {scope}: "
            f"{plural(self.pool, 'pair')}, {self.graded_before} graded before",
            "grades: " + ", ".join(f"{g}: {n}" for g, n in sorted(self.grades.items())),
        ]
        if self.errors:
            lines.append(f"{plural(len(self.errors), 'failed pair')} (not stored; run again):")
            lines += [
                f"  {one_line(q)} / {one_line(c)}: {one_line(e)}"
                for (q, c), e in self.errors.items()
            ]
        lines.append(
            "judge grades are shown beside the humans' and not counted; see `ragrecall "
            "agreement` for how far they agree"
        )
        return "\n".join(lines) + "\n"


# --- options ---------------------------------------------------------------------------------


# judges named by a short name: the name -> its ``module:name``
NAMED_JUDGES = {"minilm": "ragrecall_core.judges.minilm:judge"}


def judge_target(spec: str) -> str:
    """``spec`` as ``module:name``: a short name of :data:`NAMED_JUDGES` stands for its own."""
    return NAMED_JUDGES.get(spec.strip(), spec)


def parse_judge_spec(spec: str) -> tuple[str, str]:
    """``"package.module:function"`` (or a short name, :func:`judge_target`) -> its two
    parts."""
    return parse_spec(judge_target(spec), "--judge", "myjudge:grade")


def load_judge(spec: str) -> Callable:
    """Import ``module:name`` (from the current folder too; or a short name,
    :func:`judge_target`) and return the callable."""
    target = import_target(judge_target(spec), "--judge", "myjudge:grade")
    check_judge(target, spec)
    return target


def judge_config(judge: Any) -> dict:
    """What a judge says it is (its ``config()``, a dict: model, thresholds, endpoint), to be
    stored with its grades; nothing when it says nothing or fails to."""
    described = getattr(judge, "config", None)
    if not callable(described):
        return {}
    try:
        found = described()
    except Exception:  # noqa: BLE001 (the user's code: a failing description is left out)
        return {}
    return found if isinstance(found, dict) else {}


def check_judge(judge: Any, shown: str = "") -> None:
    if judge is None or inspect.isclass(judge) or not callable(judge):
        expected = "a callable judge(query_text, chunk_text) returning a grade 0, 1 or 2"
        shown = redact_text(shown) or type(judge).__name__
        raise InputError([Problem("--judge", None, shown, expected)])


def judge_annotator(name: str) -> str:
    """``judge:NAME`` for a judge's name (one printable line, at most 80 characters)."""
    text = name.strip() if isinstance(name, str) else ""
    text = text.removeprefix(store.JUDGE_PREFIX)
    if not text or len(text) > MAX_NAME or not text.isprintable():
        raise InputError([Problem("--name", None, repr(name), "one printable line of 1-80 chars")])
    return store.JUDGE_PREFIX + text


# --- what a judge returns ------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    grade: int
    harmful: bool = False
    reason: str = ""


def read_verdict(value: Any) -> Verdict:
    """A judge's answer as a :class:`Verdict`; :class:`QueryFailed` naming what is wrong."""
    if isinstance(value, dict):
        unknown = sorted(map(str, set(value) - VERDICT_KEYS))
        if unknown or "grade" not in value:
            said = f"unknown keys {unknown}" if unknown else "no 'grade'"
            raise QueryFailed(f"a dict with grade, harmful, reason; got {said[:100]}")
        return verdict_of(value["grade"], value.get("harmful", False), value.get("reason", ""))
    if isinstance(value, tuple | list) and 1 <= len(value) <= 3:
        return verdict_of(*value)
    return verdict_of(value)


def verdict_of(grade: Any, harmful: Any = False, reason: Any = "") -> Verdict:
    is_whole = isinstance(grade, numbers.Integral) and not isinstance(grade, bool | np.bool_)
    if not (is_whole and int(grade) in (0, 1, 2)):
        raise QueryFailed(f"a grade of 0, 1 or 2 (a whole number); got {shown_value(grade)}")
    if not isinstance(harmful, bool | np.bool_):
        raise QueryFailed(f"harmful as true or false; got {shown_value(harmful)}")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise QueryFailed(f"a reason as text; got {shown_value(reason)}")
    return Verdict(int(grade), bool(harmful), reason_kept(reason))


def shown_value(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:  # a hostile __repr__
        text = type(value).__name__
    if isinstance(value, float) and math.isnan(value):
        text = "NaN"
    return f"{text[:60]} ({type(value).__name__})"


def reason_kept(reason: str) -> str:
    """One line of at most :data:`MAX_REASON` characters, redacted whole before it is cut (a
    secret cut in two first leaves a head no redaction rule knows)."""
    line = " ".join(redact_text(reason).split())
    return line[:MAX_REASON] + ("…" if len(line) > MAX_REASON else "")


# --- grading -------------------------------------------------------------------------------


@dataclass
class Grading:
    """How each pair is called and where its grade goes."""

    workspace: Workspace
    target: Target
    annotator: str
    judge_run: int
    timeout: float | None
    result: JudgeResult
    bar: Progress
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, query_id: str, chunk_id: str, outcome: Verdict | str) -> None:
        """Store a grade now (or count the failure); called from the worker threads."""
        with self.lock:
            if isinstance(outcome, Verdict):
                store.submit_judge_grade(
                    self.workspace,
                    query_id,
                    chunk_id,
                    outcome.grade,
                    self.annotator,
                    self.judge_run,
                    outcome.harmful,
                    outcome.reason,
                )
                self.result.graded += 1
                self.result.grades[outcome.grade] += 1
            else:
                self.result.errors[(query_id, chunk_id)] = outcome
            self.bar.advance()


class JudgeProgress(Progress):
    """Capture's progress bar, saying "judging"."""

    def advance(self) -> None:
        self.done += 1
        if self.shown:
            filled = 30 * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (30 - filled)
            end = "\n" if self.done == self.total else ""
            try:
                self.stream.write(f"\rjudging [{bar}] {self.done}/{self.total}{end}")
                self.stream.flush()
            except (OSError, ValueError):
                self.shown = False


def grade_pool(
    workspace: Workspace,
    judge: Callable | str,
    name: str | None = None,
    runs: Sequence[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    query_ids: Sequence[str] | None = None,
    include_judged: bool = False,
    concurrency: int = 1,
    timeout: float | None = None,
    allow_errors: int | float | str = 0,
    config: dict | None = None,
    progress_stream: TextIO | None = None,
) -> JudgeResult:
    """Have ``judge`` (a callable or ``"module:name"``) grade the pool of ``workspace``
    and store each grade as annotator ``judge:NAME`` (default NAME: the callable's module
    and name). Raises :class:`JudgeFailed` when more pairs failed than ``allow_errors``
    (a count, or a share as a float or ``"5%"``); the grades made are stored either way."""
    problems: list[Problem] = []
    if not (isinstance(concurrency, int) and concurrency >= 1):
        problems.append(Problem("--concurrency", None, str(concurrency), "a whole number >= 1"))
    allowance = None
    try:
        allowance = parse_allowance(allow_errors)
    except InputError as error:
        problems += error.problems
    raise_if_any(problems)
    target = load_judge(judge) if isinstance(judge, str) else judge
    check_judge(target)
    label = judge if isinstance(judge, str) else retriever_name(target)
    annotator = judge_annotator(name or label)
    require_corpus(workspace)
    store.open_store(workspace)  # the humans' stored grades leave the pool, the judge's resume
    pool = build_pool(workspace, runs, depth, query_ids, k=1, include_judged=include_judged)
    done = store.judge_grades(workspace, annotator)
    graded = set(zip(done.query_id, done.chunk_id, strict=True))
    todo = [
        row for row in pool.itertuples(index=False) if (row.query_id, row.chunk_id) not in graded
    ]
    result = JudgeResult(annotator, len(pool), len(pool) - len(todo))
    result.include_judged = include_judged
    package, version = retriever_version(target)
    settings = {
        **(config or {}),
        **judge_config(target),
        "judge": label,
        "runs": list(runs or workspace.run_names),
        "depth": depth,
        "include_judged": include_judged,
        "timeout": timeout,
    }
    run_id = store.record_judge_run(
        workspace,
        annotator,
        label,
        json.dumps(redact(settings), ensure_ascii=False),
        package,
        version,
    )
    bar = JudgeProgress(len(pool), result.graded_before, progress_stream)
    call = Target(judge_call(target), is_coroutine_call(target), None, ())
    grading = Grading(workspace, call, annotator, run_id, timeout, result, bar)
    # what the judge prints goes to stderr: stdout carries the result (JSON for programs)
    with process_state_kept(), contextlib.redirect_stdout(sys.stderr):
        run_pairs(grading, todo, concurrency)
    if not allowed(allowance, len(result.errors), max(len(todo), 1)):
        raise JudgeFailed(result)
    return result


def require_corpus(workspace: Workspace) -> None:
    """A judge reads each chunk's text: a workspace without a corpus is refused."""
    if workspace.cursor().execute("SELECT count(*) FROM corpus").fetchone()[0] == 0:
        expected = "a corpus with each chunk's text, for the judge to read"
        raise InputError([Problem("corpus", None, "no corpus", expected)])


def judge_call(judge: Callable) -> Callable:
    """The judge called as capture calls a retriever: one text first, the rest by name."""
    if is_coroutine_call(judge):

        async def call_async_judge(query_text: str, chunk: str) -> Any:
            return await judge(query_text, chunk)

        return call_async_judge

    def call_judge(query_text: str, chunk: str) -> Any:
        return judge(query_text, chunk)

    return call_judge


def missing_text(row: Any) -> str | None:
    if not isinstance(row.query, str) or not row.query.strip():
        return "the query has no text in the gold set"
    if not isinstance(row.text, str):
        return "the chunk has no text in the corpus"
    return None


def run_pairs(grading: Grading, todo: list, concurrency: int) -> None:
    """Every pair of ``todo`` graded: awaited on one event loop (``concurrency`` at once)
    or called in as many threads."""
    if grading.target.is_async:

        async def main() -> None:
            limit = asyncio.Semaphore(concurrency)

            async def one(row: Any) -> None:
                async with limit:
                    grading.keep(row.query_id, row.chunk_id, await grade_one_async(grading, row))

            await asyncio.gather(*(one(row) for row in todo))

        run_loop(main)
        return

    def one(row: Any) -> None:
        grading.keep(row.query_id, row.chunk_id, grade_one(grading, row))

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, todo))


def grade_one(grading: Grading, row: Any) -> Verdict | str:
    """The pair's verdict, or why there is none."""
    missing = missing_text(row)
    if missing:
        return missing
    try:
        answer = call_sync(grading.target, row.query, {"chunk": row.text}, grading.timeout)
        return read_verdict(answer)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the user's code, SystemExit too: one failed pair
        return describe(error)


async def grade_one_async(grading: Grading, row: Any) -> Verdict | str:
    missing = missing_text(row)
    if missing:
        return missing
    try:
        call = call_async(grading.target, row.query, {"chunk": row.text}, grading.timeout, 1)
        return read_verdict(await call)
    except KeyboardInterrupt:
        raise
    except asyncio.CancelledError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # the grading itself is stopping
            raise
        return describe(error)
    except BaseException as error:  # the user's code, SystemExit too: one failed pair
        return describe(error)


def export_judge_grades(workspace: Workspace, path: Path, annotator: str | None = None) -> int:
    """Write every judge's latest grades (``annotator``'s only, if given) as a grades file
    (``.jsonl`` or ``.csv``, formula cells neutralised); return how many. Loaded again
    with ``--grades``, they are judge grades still (annotator ``judge:NAME``): counted only
    with ``evaluate --judge-grades count``."""
    from ragrecall_core.analysis.judge_session import grades_csv, grades_jsonl
    from ragrecall_core.analysis.output_targets import overwrite_problems

    path = Path(path)
    if path.suffix.lower() not in EXPORT_SUFFIXES:
        raise InputError(
            [Problem("--export", None, redact_path(path), "a file ending in .jsonl or .csv")]
        )
    if path.is_dir() or not path.parent.is_dir():
        raise InputError(
            [Problem("--export", None, redact_path(path), "a file in an existing folder")]
        )
    raise_if_any(overwrite_problems(workspace, {"--export": path}))
    store.open_store(workspace)
    grades = store.judge_grades(workspace, annotator)
    text = grades_csv(grades) if path.suffix.lower() == ".csv" else grades_jsonl(grades)
    path.write_text(text, encoding="utf-8")
    return len(grades)
