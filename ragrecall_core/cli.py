"""The ``ragrecall`` command line: a thin layer over the package's public functions.

Exit codes: 0 success, 1 a release gate failed, 2 invalid input (problems on stderr).

Every command first parses all its options and reports every bad one at once, before
reading any input file; then it loads the inputs (whose loaders report their own
problems) and checks what depends on them (the split).

Each command imports what it needs when it runs (pandas, DuckDB, scipy, plotly): parsing
the options, ``--help`` and a usage error cost only this module and the light ones below.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ragrecall_core.analysis import capture_defaults
from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs.secrets import redact_path, redact_text
from ragrecall_core.measures import (
    MeasureRequest,
    parse_cutoff,
    parse_level,
    parse_measure,
    parse_requests,
)
from ragrecall_core.output.text import FORMATS, NOTES_SHOWN
from ragrecall_core.scoring.policy import Policy

if TYPE_CHECKING:
    from ragrecall_core.inputs.workspace import Workspace

# a calm blue: the default red reads as "error" on a shared screen
THEME_PRIMARY = "#1f5fa8"
DEFAULT_WORKSPACE = Path(__file__).resolve().parent.parent / "data_samples"
DEFAULT_PORT = 8501
INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C

T = TypeVar("T")


# what `ragrecall --help` says (the module's docstring is for its readers, not its users)
DESCRIPTION = (
    "Evaluate the retrieval layer of a RAG system against a labelled query set: "
    "Recall@k, Hit@k, MRR@k, precision with unjudged chunks shown, no-answer queries, "
    "pooling and judging, variant comparison and a release gate."
)
EXIT_CODES = "exit codes: 0 success, 1 a release gate failed, 2 invalid input (problems on stderr)"


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors are invalid input: exit 2, no traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {redact_text(message)}\n")

    def parse_known_args(self, args=None, namespace=None):
        """As argparse parses, but the word after an option that takes a value is its value
        also when it starts with ``-`` (``--memory-limit -1GB``, ``-k -x``), as getopt reads
        it: argparse alone takes it for another option and stops with its usage text, so
        such a value never reached the option's own one-line problem (exit 2, the value
        and what was expected), which every other bad value gets. Each subcommand's parser
        attaches its own options' values (``--opt=VALUE``, ``-kVALUE``)."""
        words = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(attach_values(words, self._takes_value), namespace)

    def _takes_value(self, word: str) -> str | None:
        """The option ``word`` names (exactly, or as argparse's unique abbreviation of a
        long option) when it takes exactly one value; else ``None``."""
        actions = self._option_string_actions
        if word.startswith("--") and word not in actions:
            named = [option for option in actions if option.startswith(word)]
            word = named[0] if len(named) == 1 else word
        action = actions.get(word)
        return word if action is not None and action.nargs is None else None


def attach_values(words: list[str], takes_value: Callable[[str], str | None]) -> list[str]:
    """``words`` with each value starting with ``-`` joined to the option before it that
    takes one value (``takes_value`` names it); nothing after a ``--`` (only positionals)."""
    joined: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            return joined + words[at:]
        option = takes_value(word)
        value = words[at + 1] if option and at + 1 < len(words) else None
        if value is not None and value.startswith("-"):
            joined.append(f"{option}={value}" if option.startswith("--") else option + value)
            at += 2
            continue
        joined.append(word)
        at += 1
    return joined


def take(problems: list[Problem], parse: Callable[..., T], *args) -> T | None:
    """``parse(*args)``, or ``None`` with its problems added to ``problems``: one option's
    error does not hide the next one's."""
    try:
        return parse(*args)
    except InputError as error:
        problems += error.problems
        return None


Option = tuple[tuple[str, ...], dict]


def arg(*names: str, **kwargs) -> Option:
    """One option, as ``add_argument`` takes it: its names, then its keywords."""
    return names, kwargs


# every option more than one command takes, declared once; a command may change its help
OPTIONS: dict[str, Option] = {
    "gold": arg("gold", type=Path, help="the gold set"),
    "runs": arg("runs", type=Path, nargs="+", help="runs to measure (JSONL, TREC, CSV, Parquet)"),
    "workspace": arg("workspace", type=Path, help="a workspace folder (gold, runs/, grades/)"),
    "measure": arg(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="e.g. Recall@5, MRR@10, P(rel=2)@3; may repeat",
    ),
    "k": arg("-k", default="5", metavar="K", help="the cutoff (default 5)"),
    "split": arg(
        "--split", metavar="NAME", help="only this split's queries (default: all queries)"
    ),
    "pass-rule": arg(
        "--pass-rule",
        default="capped",
        metavar="{capped,recall,hit}",
        help="a query passes when RecallCap@k = 1 (capped, the default: all it could in the "
        "top k), Recall@k = 1 (recall) or Hit@k = 1 (hit)",
    ),
    "grades": arg(
        "--grades",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="reviewers' grades (JSONL/CSV) judging chunks the gold set lacks; may repeat",
    ),
    "corpus": arg(
        "--corpus", type=Path, metavar="FILE", help="corpus (chunk_id, doc_id, section, text)"
    ),
    "unit": arg(
        "--unit",
        choices=("chunk", "doc"),
        default="chunk",
        help="evaluate chunks, or documents (a document counts once, at its first chunk)",
    ),
    "rel-level": arg(
        "--rel-level", default="1", metavar="N", help="a grade >= N is relevant (default 1)"
    ),
    "compat": arg("--compat", choices=("trec_eval",), help="average exactly as trec_eval does"),
    "complete": arg(
        "-c",
        "--complete",
        action="store_true",
        help="with --compat trec_eval: like its -c, every judged query counts",
    ),
    "partial": arg(
        "--partial",
        choices=("not_relevant", "relevant"),
        default="not_relevant",
        help="how a reviewer's partial grade (1) counts (default not_relevant)",
    ),
    "harmful": arg(
        "--harmful",
        choices=("not_relevant", "as_graded"),
        default="not_relevant",
        help="how a chunk flagged harmful counts (default not_relevant)",
    ),
    "memory-limit": arg(
        "--memory-limit",
        metavar="SIZE",
        help="memory DuckDB may use, e.g. 4GB or 512MiB; beyond it work spills to a temporary "
        "folder (default: $RAGRECALL_MEMORY_LIMIT, else DuckDB's default, 80%% of RAM)",
    ),
    "cache": arg(
        "--cache",
        action="store_true",
        help="keep the loaded, checked inputs in $RAGRECALL_HOME/cache, keyed by their "
        "content, so the next run on the same files reads one file instead "
        "($RAGRECALL_CACHE=off turns it off)",
    ),
    "format": arg(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table for people, json for programs (default table)",
    ),
    "output": arg("-o", "--output", type=Path, required=True, metavar="FILE", help="the output"),
    # capture and judge call the user's code: these options are theirs
    "config": arg(
        "--config",
        type=Path,
        metavar="FILE",
        help="a JSON object, saved (redacted) with the output",
    ),
    "concurrency": arg(
        "--concurrency", default="1", metavar="N", help="calls in flight at once (default 1)"
    ),
    "timeout": arg("--timeout", metavar="S", help="seconds one call may take"),
    "allow-errors": arg(
        "--allow-errors",
        default="0",
        metavar="N|SHARE",
        help="failed calls allowed before the command fails (exit 1): a number, or a share like "
        "0.05 or 5%% (default 0)",
    ),
    "depth": arg("--depth", default="10", metavar="D", help="top-d of each run (default 10)"),
    "export": arg("--export", type=Path, metavar="FILE", help="write what is stored to FILE"),
}
POLICY = ("grades", "corpus", "unit", "rel-level", "compat", "complete", "partial", "harmful")
LOADING = ("memory-limit", "cache")  # the options of every command that loads gold and runs


def shared(name: str, **changes) -> Option:
    """The shared option ``name``, with ``changes`` to its keywords (most often its help)."""
    names, kwargs = OPTIONS[name]
    return names, {**kwargs, **changes}


TEST_SPLIT = shared(
    "split", help="only this split's queries (default: 'test' when the gold set has it)"
)


def add_options(parser: argparse.ArgumentParser, options: Sequence[str | Option]) -> None:
    """Add ``options`` in order: a shared option's name, or an option of this command's own."""
    for option in options:
        names, kwargs = shared(option) if isinstance(option, str) else option
        parser.add_argument(*names, **kwargs)


def cache_folder(args: argparse.Namespace) -> Path | None:
    """The load cache's folder when ``--cache`` is given, else None (no cache)."""
    if not args.cache:
        return None
    from ragrecall_core.inputs.load_cache import default_folder

    return default_folder()


def memory_limit_from(args: argparse.Namespace, problems: list[Problem]) -> None:
    """Check ``--memory-limit`` (else ``$RAGRECALL_MEMORY_LIMIT``) with the other options,
    and keep it on ``args`` as DuckDB spells it."""
    from ragrecall_core.inputs.db import memory_limit_or_default

    args.memory_limit = take(problems, memory_limit_or_default, args.memory_limit)


def policy_from(args: argparse.Namespace, problems: list[Problem]) -> Policy:
    level = take(problems, parse_level, args.rel_level)
    return Policy(
        rel_level=level if level is not None else 1,
        unit=args.unit,
        compat=args.compat,
        complete=args.complete,
        partial=args.partial,
        harmful=args.harmful,
    )


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="ragrecall", description=DESCRIPTION, epilog=EXIT_CODES)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    for name, help, handler, options in commands():
        command = sub.add_parser(name, help=help)
        add_options(command, options)
        command.set_defaults(handler=handler)
    return parser


def commands() -> list[tuple[str, str, Callable[[argparse.Namespace], int], list]]:
    """Every command: its name, its help, its handler and its options in the order shown."""
    return [
        (
            "evaluate",
            "measure runs against a gold set",
            cmd_evaluate,
            [
                shared("gold", help="the gold set (JSONL, TREC qrels, CSV, Parquet)"),
                "runs",
                "measure",
                shared(
                    "k",
                    action="append",
                    default=[],
                    help="add the default measures at cutoff K; may repeat (default: k = 5 "
                    "without -m)",
                ),
                "split",
                *POLICY,
                *LOADING,
                arg("--per-query", action="store_true", help="also print every query's values"),
                arg(
                    "--judge-grades",
                    choices=("show", "count"),
                    default="show",
                    help="a model judge's grades (a --grades file whose annotator is "
                    "judge:NAME): shown, not counted (default), or counted where no one else "
                    "judged, each mean then with its prediction-powered 95%% interval",
                ),
                shared("format", choices=FORMATS),
            ],
        ),
        (
            "compare",
            "compare a candidate run against a baseline",
            cmd_compare,
            [
                "gold",
                arg("baseline", type=Path, help="the run compared against"),
                arg("candidate", type=Path, help="the run that may replace it"),
                shared("k", help="cutoff of the default measures and of regressions (default 5)"),
                shared(
                    "measure", help="compare these measures instead of the default set; may repeat"
                ),
                "split",
                "pass-rule",
                *POLICY,
                *LOADING,
                "format",
            ],
        ),
        (
            "check",
            "release gate: exit 1 when a requirement fails",
            cmd_check,
            [
                "gold",
                arg("run", type=Path, help="the run to release"),
                arg(
                    "--baseline",
                    type=Path,
                    metavar="RUN",
                    help="count regressions against this run",
                ),
                arg(
                    "--require",
                    action="append",
                    default=[],
                    metavar="MEASURE>=VALUE",
                    help='a requirement like "Recall@5>=0.8" (>=, >, <=, <, ==); may repeat',
                ),
                arg(
                    "--max-regressions",
                    metavar="N",
                    help="regressed queries allowed against --baseline (default 0)",
                ),
                arg(
                    "--allow-missing",
                    action="store_true",
                    help="a gold query the run or --baseline lacks (or lists empty) is reported "
                    "but does not fail the gate (by default it does: it scores 0 and can hide a "
                    "regression)",
                ),
                TEST_SPLIT,
                shared(
                    "k",
                    help="cutoff of the pass rule's measure that defines a regression (default 5)",
                ),
                "pass-rule",
                *POLICY,
                *LOADING,
                "format",
                arg(
                    "--summary",
                    type=Path,
                    metavar="FILE",
                    help="also write a Markdown summary here (default: append to "
                    "$GITHUB_STEP_SUMMARY if set)",
                ),
                arg(
                    "--junit",
                    type=Path,
                    metavar="FILE",
                    help="also write JUnit XML: one test case per requirement and per regressed "
                    "query",
                ),
            ],
        ),
        (
            "capture",
            "call a Python retriever for every gold query",
            cmd_capture,
            [
                shared("gold", help="the gold set, with each query's text"),
                arg(
                    "--retriever",
                    required=True,
                    metavar="MODULE:NAME",
                    help="the function or retriever object to call with each query text, e.g. "
                    "myretriever:search or myretriever:retriever (LangChain, LlamaIndex, ...)",
                ),
                shared("k", default="20", help="how many results to keep per query (default 20)"),
                shared(
                    "output",
                    help="the run to write (.jsonl); its config goes beside it as NAME.config.json",
                ),
                shared(
                    "config",
                    help="a JSON object describing the retriever, saved (redacted) with the run",
                ),
                shared("concurrency", help="queries in flight at once (default 1)"),
                shared(
                    "timeout",
                    default=f"{capture_defaults.TIMEOUT:g}",
                    metavar="S",
                    help="seconds one query may take before it is a failed query, timed out "
                    "(default %(default)s)",
                ),
                arg(
                    "--id-key",
                    metavar="KEY",
                    help="the metadata key of a returned document's chunk id (default chunk_id, "
                    "then id)",
                ),
                shared(
                    "allow-errors",
                    help="failed queries allowed before the capture fails (exit 1): a number, or "
                    "a share like 0.05 or 5%% (default 0)",
                ),
                shared(
                    "corpus",
                    help="warn about retrieved ids absent from this corpus (default: the corpus "
                    "beside the gold file, if any)",
                ),
            ],
        ),
        (
            "no-answer",
            "how confidently runs answer the unanswerable",
            cmd_no_answer,
            [
                shared("gold", help="the gold set (no-answer queries: no relevant id)"),
                shared("runs", help="runs to examine, each on its own"),
                shared(
                    "k",
                    help="a relevant chunk in the top K makes an answerable query covered "
                    "(default 5)",
                ),
                arg(
                    "--max-false-confidence",
                    default="0.1",
                    metavar="SHARE",
                    help="the trade-off that picks a threshold: a share between 0 and 1 "
                    "(default 0.1)",
                ),
                "split",
                *POLICY,
                *LOADING,
                "format",
            ],
        ),
        (
            "pool",
            "write the blind pool of chunks to judge",
            cmd_pool,
            [
                "gold",
                shared("runs", help="runs whose top chunks are pooled"),
                "depth",
                shared(
                    "k",
                    default=None,
                    help="the cutoff the judged shares are reported at (default: the depth)",
                ),
                shared(
                    "grades",
                    help="grades already made: their chunks are left out of the pool; may repeat",
                ),
                shared("corpus", help="corpus, to put each chunk's text in the pool"),
                "split",
                shared("output", help="the pool file: .jsonl (JSON lines) or .csv"),
                *LOADING,
            ],
        ),
        (
            "judge",
            "have a model judge grade the blind pool (stored as judge:NAME, not counted)",
            cmd_judge,
            [
                "workspace",
                arg(
                    "--judge",
                    metavar="MODULE:NAME",
                    help="the callable judge(query_text, chunk_text) returning a grade 0/1/2 "
                    "(or a dict / tuple with grade, harmful, reason); openai: the built-in "
                    "judge for an OpenAI-compatible chat endpoint; minilm: the local MiniLM "
                    "judge (the optional samples extra)",
                ),
                arg(
                    "--base-url",
                    metavar="URL",
                    help="with --judge openai: the endpoint's base URL, e.g. "
                    "https://api.openai.com/v1 or http://localhost:11434/v1",
                ),
                arg("--model", metavar="NAME", help="with --judge openai: the model to ask"),
                arg(
                    "--api-key-env",
                    metavar="VAR",
                    help="with --judge openai: the environment variable holding the API key "
                    "(default OPENAI_API_KEY; '' sends none); the key is never stored or shown",
                ),
                arg(
                    "--prompt",
                    type=Path,
                    metavar="FILE",
                    help="with --judge openai: a prompt replacing the built-in one, holding "
                    "{query} and {passage}",
                ),
                arg(
                    "--runs",
                    nargs="+",
                    metavar="RUN",
                    help="the runs whose top chunks are pooled (default: every run)",
                ),
                "depth",
                "split",
                arg(
                    "--include-judged",
                    action="store_true",
                    help="grade the whole pool, chunks the gold set or a human judged too (to "
                    "measure the judge against them)",
                ),
                arg(
                    "--name",
                    metavar="NAME",
                    help="the judge's name: its grades are stored as annotator judge:NAME "
                    "(default: MODULE:NAME)",
                ),
                shared(
                    "config",
                    help="a JSON object describing the judge, stored (redacted) with its grades",
                ),
                shared("concurrency", help="pairs in flight at once (default 1)"),
                shared(
                    "timeout",
                    default=f"{capture_defaults.TIMEOUT:g}",
                    help="seconds one pair may take before it is a failed pair (default "
                    "%(default)s)",
                ),
                shared(
                    "allow-errors",
                    help="failed pairs allowed before the command fails (exit 1): a number, or "
                    "a share like 0.05 or 5%% (default 0)",
                ),
                shared(
                    "export",
                    help="instead of grading: write the judges' stored grades (all, or --name's) "
                    "to FILE (.jsonl or .csv), for evaluate --grades FILE --judge-grades count",
                ),
                *LOADING,
                "format",
            ],
        ),
        (
            "agreement",
            "agreement between annotators and disagreements; judges against the humans",
            cmd_agreement,
            [
                arg(
                    "grades",
                    type=Path,
                    nargs="+",
                    help="grades files (JSONL/CSV), or one workspace folder: its stored grades "
                    "too, and each model judge against the humans",
                ),
                "format",
            ],
        ),
        (
            "report",
            "write the reproducible report (.html, .md or .csv)",
            cmd_report,
            [
                "workspace",
                shared("output", help="the report: .html, .md or .csv, into an existing folder"),
                shared("k", help="the cutoff of the report's measures (default 5)"),
                TEST_SPLIT,
                "pass-rule",
                *LOADING,
            ],
        ),
        (
            "verdicts",
            "the review meeting's verdicts: list, export, import",
            cmd_verdicts,
            [
                shared("workspace", help="a workspace folder (its judgments.duckdb)"),
                shared(
                    "export",
                    help="write every recorded verdict (the whole history) to FILE: .jsonl or .csv",
                ),
                arg(
                    "--import",
                    dest="import_file",
                    type=Path,
                    metavar="FILE",
                    help="add the verdicts of FILE (.jsonl or .csv) the store does not hold yet",
                ),
                "format",
            ],
        ),
        (
            "ui",
            "open the dashboard (default: the sample workspace)",
            cmd_ui,
            [
                shared(
                    "workspace",
                    nargs="?",
                    help="a workspace folder (default: data_samples/), or a BEIR folder: the "
                    "gold, beside --run files",
                ),
                arg(
                    "--gold", type=Path, metavar="FILE", help="a gold file, instead of a workspace"
                ),
                arg(
                    "--run",
                    action="append",
                    default=[],
                    type=Path,
                    metavar="FILE",
                    help="with --gold or a BEIR folder: a run file; may repeat",
                ),
                shared("grades", help="with --gold or a BEIR folder: a grades file; may repeat"),
                shared("corpus", help="with --gold or a BEIR folder: the corpus"),
                arg(
                    "--port",
                    default=str(DEFAULT_PORT),
                    metavar="N",
                    help=f"the local port to serve on (default {DEFAULT_PORT})",
                ),
            ],
        ),
    ]


def print_result(fmt: str, as_dict: Callable[[], dict], as_text: Callable[[], str]) -> None:
    """The one tail of every command: JSON for programs (exact values), or text for people,
    where each renderer escaped the ids and names it shows and, should one have missed
    any, no control, bidi or separator character but the text's own line breaks and tabs
    reaches the terminal."""
    from ragrecall_core.output.text import json_text

    sys.stdout.write(json_text(as_dict()) if fmt == "json" else one_line(as_text(), "\n\t"))


def print_warned(
    fmt: str,
    as_dict: Callable[[], dict],
    as_text: Callable[[], str],
    warnings: dict[str, list[str]],
) -> None:
    """:func:`print_result`, then evaluate's ``warnings`` of the runs a command read beside
    its own result (check, compare): a JSON ``warnings`` key (run -> texts, as evaluate's
    JSON names them), or for people evaluate's lines on stderr (stdout keeps the result);
    redacted where evaluate makes them (collect_warnings)."""
    from ragrecall_core.output.text import warning_lines

    if fmt == "json":
        print_result(fmt, lambda: {**as_dict(), "warnings": warnings}, as_text)
        return
    print_result(fmt, as_dict, as_text)
    lines = [line for run, texts in warnings.items() for line in warning_lines(run, texts)]
    sys.stderr.write("".join(line + "\n" for line in lines))


def warnings_of(
    workspace: Workspace,
    policy: Policy,
    runs: list[str],
    query_ids: list[str] | None,
    cutoffs: set[int | None],
    noted: set[int],
) -> dict[str, list[str]]:
    """Evaluate's warnings of ``runs`` (each, in order; none: an empty list) on the queries
    a command measured, at its ``cutoffs``; a depth at one of the ``noted`` cutoffs is the
    command's own note, not said twice."""
    from ragrecall_core.scoring.evaluate import run_warnings

    ks = sorted(k for k in cutoffs if k is not None)
    found = run_warnings(workspace, policy, ks, runs, query_ids, noted)
    return {run: found.get(run, []) for run in runs}


def output_problems(path: Path) -> list[Problem]:
    """An output path must name a file in a folder that exists: found before the work."""
    if path.is_dir():
        return [Problem("-o", None, redact_path(path), "a file name, not a folder")]
    if not path.parent.is_dir():
        return [Problem("-o", None, redact_path(path.parent), "an existing folder to write into")]
    return []


def said_mappings(workspace: Workspace, fmt: str, as_dict: Callable[[], dict]):
    """Say which columns of CSV / Parquet inputs were read under other tools' names: one
    line per file on stderr for people (stdout carries the result), or a ``column_mapping``
    key for JSON; nothing when every file uses ragrecall's names."""
    mappings = workspace.column_mappings()
    if not mappings:
        return as_dict
    if fmt == "json":
        return lambda: {**as_dict(), "column_mapping": mappings}
    for path, columns in mappings.items():
        read = ", ".join(f"{column} as {role}" for column, role in columns.items())
        sys.stderr.write(one_line(f"{path}: read {read}") + "\n")
    return as_dict


def load(args: argparse.Namespace, runs: list[Path], cache: Path | None = None) -> Workspace:
    """The command's files as a workspace, with its ``--split`` checked against the gold;
    ``cache``: the load cache's folder, if any."""
    from ragrecall_core.analysis.selection import require_split
    from ragrecall_core.inputs.workspace import Workspace

    workspace = Workspace.from_files(
        args.gold, runs, args.grades, args.corpus, memory_limit=args.memory_limit, cache=cache
    )
    require_split(workspace, args.split)
    return workspace


def evaluate(*args, **kwargs):
    """:func:`ragrecall_core.scoring.evaluate.evaluate`, imported on the first call."""
    from ragrecall_core.scoring.evaluate import evaluate as evaluate_now

    return evaluate_now(*args, **kwargs)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.selection import query_ids
    from ragrecall_core.output.text import render

    problems: list[Problem] = []
    measures = take(problems, measures_from, args.measure, args.k)
    policy = policy_from(args, problems)
    memory_limit_from(args, problems)
    if args.judge_grades == "count" and args.format not in ("table", "json"):
        expected = "--format table or json with --judge-grades count (they say it is counted)"
        problems.append(Problem("--format", None, args.format, expected))
    raise_if_any(problems)
    workspace = load(args, args.runs, cache_folder(args))
    selected = query_ids(workspace, split=args.split)
    if args.judge_grades == "count":
        return print_judge_counted(args, workspace, measures, policy, selected)
    shown, per_query = args.format in NOTES_SHOWN, args.per_query
    evaluation = evaluate(
        workspace, measures, policy, query_ids=selected, notes_now=shown, query_values=per_query
    )
    as_dict = said_mappings(workspace, args.format, lambda: evaluation.to_dict(per_query))
    print_result(args.format, as_dict, lambda: render(evaluation, args.format, per_query))
    return 0


def print_judge_counted(args, workspace, measures, policy, selected) -> int:
    """``evaluate --judge-grades count``: the evaluation with the judge counted (its policy
    line says so), then each mean's prediction-powered interval."""
    from ragrecall_core.analysis.judge_counting import count_judge
    from ragrecall_core.output.text import render

    counted = count_judge(workspace, measures, policy=policy, query_ids=selected)
    evaluation, per_query = counted.evaluation, args.per_query
    as_dict = said_mappings(
        workspace, args.format, lambda: {**evaluation.to_dict(per_query), **counted.to_dict()}
    )
    print_result(
        args.format,
        as_dict,
        lambda: render(evaluation, args.format, per_query) + "\n" + counted.to_text(),
    )
    return 0


def measures_from(names: list[str], cutoffs: list[str]) -> list[MeasureRequest]:
    """``-m`` names (each measure once: two spellings of one are refused) plus the measures
    of the default set at each ``-k`` not asked for already, under any spelling; parsed
    (once: evaluate takes them so); every bad one reported at once."""
    from ragrecall_core.scoring.evaluate import default_measures

    problems: list[Problem] = []
    ks = [k for k in (take(problems, parse_cutoff, text) for text in cutoffs) if k is not None]
    requests = take(problems, parse_requests, list(names)) or []
    raise_if_any(problems)
    asked = {request.measure for request in requests}
    defaults = parse_requests(default_measures(ks)) if ks else []
    requests += [request for request in defaults if request.measure not in asked]
    return requests or parse_requests(default_measures())


def cmd_compare(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.compare import compare
    from ragrecall_core.analysis.pass_rule import require_rule
    from ragrecall_core.analysis.selection import query_ids

    problems: list[Problem] = []
    k = take(problems, parse_cutoff, args.k)
    take(problems, require_rule, args.pass_rule)
    requests = take(problems, measures_from, args.measure, []) if args.measure else []
    policy = policy_from(args, problems)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = load(args, [args.baseline, args.candidate], cache_folder(args))
    baseline, candidate = workspace.run_names
    ids = query_ids(workspace, split=args.split)
    comparison = compare(
        workspace,
        baseline,
        candidate,
        k=k,
        measures=[r.label for r in requests] or None,
        policy=policy,
        query_ids=ids,
        rule=args.pass_rule,
    )
    # every measure compared is at k (the default set, the pass rule's) or asked for; a
    # depth short of k is compare's own note
    cutoffs = {k, *(r.measure.cutoff for r in requests)}
    warnings = warnings_of(workspace, policy, [baseline, candidate], ids, cutoffs, {k})
    as_dict = said_mappings(workspace, args.format, comparison.to_dict)
    print_warned(args.format, as_dict, comparison.to_text, warnings)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.gate import (
        check_gate,
        gate_problems,
        parse_budget,
        parse_requirement,
    )
    from ragrecall_core.analysis.output_targets import overwrite_problems
    from ragrecall_core.analysis.pass_rule import require_rule
    from ragrecall_core.analysis.selection import default_split, query_ids

    problems: list[Problem] = []
    k = take(problems, parse_cutoff, args.k)
    take(problems, require_rule, args.pass_rule)
    requirements = [take(problems, parse_requirement, r) for r in args.require]
    budget = None
    if args.max_regressions is not None:
        budget = take(problems, parse_budget, args.max_regressions)
    if budget is not None or args.max_regressions is None:
        problems += gate_problems(args.require, args.baseline, budget)
    problems += gate_file_problems(args.summary, args.junit)
    policy = policy_from(args, problems)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    runs = [args.run] + ([args.baseline] if args.baseline else [])
    workspace = load(args, runs, cache_folder(args))
    summary = (
        {"--summary": args.summary} if args.summary else {"GITHUB_STEP_SUMMARY": step_summary()}
    )
    raise_if_any(overwrite_problems(workspace, {**summary, "--junit": args.junit}))
    names = workspace.run_names
    result = check_gate(
        workspace,
        names[0],
        args.require,
        baseline=names[1] if args.baseline else None,
        max_regressions=budget,
        split=args.split,
        k=k,
        policy=policy,
        rule=args.pass_rule,
        allow_missing=args.allow_missing,
    )
    # the gate's queries and cutoffs: its requirements', and its pass rule's with a
    # baseline; a depth short of any of them is the gate's own note
    ids = query_ids(workspace, split=default_split(workspace, args.split)[0])
    cutoffs = {parse_measure(r.measure).cutoff for r in requirements}
    cutoffs |= {k} if args.baseline else set()
    warnings = warnings_of(workspace, policy, names, ids, cutoffs, cutoffs - {None})
    as_dict = said_mappings(workspace, args.format, result.to_dict)
    print_warned(args.format, as_dict, result.to_text, warnings)
    write_gate_files(result, args.summary, args.junit, warnings)
    return 0 if result.passed else 1


def gate_file_problems(summary: Path | None, junit: Path | None) -> list[Problem]:
    """``--summary`` / ``--junit`` (or ``$GITHUB_STEP_SUMMARY``) must name a file in a
    folder that exists: found before the gate runs, not after."""
    files = {"--summary": summary or step_summary(), "--junit": junit}
    problems = []
    for option, path in files.items():
        if path is not None and (path.is_dir() or not path.parent.is_dir()):
            problems.append(
                Problem(option, None, redact_path(path), "a file in an existing folder")
            )
    return problems


def step_summary() -> Path | None:
    """GitHub Actions' job summary file, when running there."""
    import os

    value = os.environ.get("GITHUB_STEP_SUMMARY", "")
    return Path(value) if value.strip() else None


def write_gate_files(
    result, summary: Path | None, junit: Path | None, warnings: dict[str, list[str]]
) -> None:
    """The gate's Markdown summary (``--summary`` replaces the file; the CI's step summary
    is appended to) and its JUnit XML, each with evaluate's ``warnings`` of the runs read
    (the ones check says on stderr or in JSON): a CI page is where a team reads the gate."""
    target, mode = (summary, "w") if summary is not None else (step_summary(), "a")
    if target is not None:
        with target.open(mode, encoding="utf-8") as handle:
            handle.write(result.to_markdown(warnings) + "\n")
    if junit is not None:
        junit.write_text(result.to_junit(warnings), encoding="utf-8")


def cmd_capture(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.capture import (
        CaptureFailed,
        capture,
        corpus_beside,
        earlier_run_line,
        load_retriever,
        output_problems,
        overwrite_problems,
        parse_allowance,
        parse_positive_number,
        parse_retriever_spec,
        read_config,
    )

    problems: list[Problem] = []
    k = take(problems, parse_cutoff, args.k, "-k", "a number of results to keep")
    concurrency = take(
        problems, parse_cutoff, args.concurrency, "--concurrency", "a number of queries"
    )
    timeout = take(problems, parse_positive_number, args.timeout, "--timeout")
    take(problems, parse_retriever_spec, args.retriever)
    problems += output_problems(args.output)
    problems += overwrite_problems(
        args.output,
        {
            "gold": args.gold,
            "config": args.config,
            "corpus": args.corpus or corpus_beside(args.gold),
        },
    )
    config = take(problems, read_config, args.config) if args.config is not None else {}
    take(problems, parse_allowance, args.allow_errors)
    raise_if_any(problems)
    retriever = load_retriever(args.retriever)
    try:
        result = capture(
            args.gold,
            retriever,
            args.output,
            k=k,
            config=config,
            concurrency=concurrency,
            timeout=timeout,
            id_key=args.id_key,
            name=args.retriever,
            allow_errors=args.allow_errors,
            corpus=args.corpus,
        )
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: the same command continues where this one stopped\n")
        if args.output.exists():
            sys.stderr.write(one_line(earlier_run_line(args.output)) + "\n")
        return INTERRUPTED
    except CaptureFailed as failed:
        sys.stderr.write("ragrecall: capture failed\n" + one_line(failed.result.to_text(), "\n\t"))
        return 1
    sys.stdout.write(one_line(result.to_text(), "\n\t"))
    return 0


def cmd_no_answer(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.no_answer import no_answer_report, parse_share
    from ragrecall_core.analysis.selection import query_ids

    problems: list[Problem] = []
    k = take(problems, parse_cutoff, args.k)
    share = take(problems, parse_share, args.max_false_confidence)
    policy = policy_from(args, problems)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = load(args, args.runs, cache_folder(args))
    report = no_answer_report(
        workspace, k=k, policy=policy, query_ids=query_ids(workspace, split=args.split)
    )
    as_dict = said_mappings(workspace, args.format, lambda: report.to_dict(share))
    print_result(args.format, as_dict, lambda: report.to_text(share))
    return 0


def cmd_pool(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.output_targets import overwrite_problems
    from ragrecall_core.analysis.pooling import build_pool, coverage_text, pool_format, write_pool
    from ragrecall_core.analysis.selection import query_ids

    problems: list[Problem] = []
    depth = take(problems, parse_cutoff, args.depth, "--depth", "a pool depth d")
    k = depth if args.k is None else take(problems, parse_cutoff, args.k)
    take(problems, pool_format, args.output)
    problems += output_problems(args.output)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = load(args, args.runs, cache_folder(args))
    raise_if_any(overwrite_problems(workspace, {"-o": args.output}))
    said_mappings(workspace, "table", dict)
    ids = query_ids(workspace, split=args.split)
    pool = build_pool(workspace, depth=depth, query_ids=ids, k=k)
    written = write_pool(pool, args.output)
    pairs = "1 (query, chunk) pair" if written == 1 else f"{written} (query, chunk) pairs"
    sys.stdout.write(f"{pairs} to judge written to {redact_path(args.output)}\n")
    sys.stdout.write(coverage_text(workspace, depth=depth, k=k, query_ids=ids))
    return 0


def cmd_judge(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.capture import parse_allowance, parse_positive_number, read_config
    from ragrecall_core.analysis.judging_assist import (
        JudgeFailed,
        grade_pool,
        judge_annotator,
        load_judge,
        parse_judge_spec,
    )
    from ragrecall_core.analysis.selection import query_ids, require_split
    from ragrecall_core.inputs.workspace import Workspace

    if args.export is not None or args.judge is None:
        return export_judges(args)
    problems: list[Problem] = []
    depth = take(problems, parse_cutoff, args.depth, "--depth", "a pool depth d")
    concurrency = take(problems, parse_cutoff, args.concurrency, "--concurrency", "pairs")
    timeout = None
    if args.timeout is not None:
        timeout = take(problems, parse_positive_number, args.timeout, "--timeout")
    builtin = args.judge.strip() == "openai"
    if not builtin:
        take(problems, parse_judge_spec, args.judge)
    problems += openai_option_problems(args, builtin)
    if args.name is not None:
        take(problems, judge_annotator, args.name)
    config = take(problems, read_config, args.config) if args.config is not None else {}
    take(problems, parse_allowance, args.allow_errors)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = Workspace.open(
        args.workspace, memory_limit=args.memory_limit, cache=cache_folder(args)
    )
    require_split(workspace, args.split)
    judge = openai_judge(args) if builtin else load_judge(args.judge)
    try:
        result = grade_pool(
            workspace,
            judge,
            name=args.name or (f"openai:{judge.model}" if builtin else args.judge),
            runs=args.runs,
            depth=depth,
            query_ids=query_ids(workspace, split=args.split),
            include_judged=args.include_judged,
            concurrency=concurrency,
            timeout=timeout,
            allow_errors=args.allow_errors,
            config={**config, "judge": args.judge},
        )
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: the same command continues where this one stopped\n")
        return INTERRUPTED
    except JudgeFailed as failed:
        sys.stderr.write("ragrecall: judging failed\n")
        print_result(args.format, failed.result.to_dict, failed.result.to_text)
        return 1
    print_result(args.format, result.to_dict, result.to_text)
    return 0


def export_judges(args: argparse.Namespace) -> int:
    """``judge WORKSPACE --export FILE``: the stored judge grades as a grades file."""
    from ragrecall_core.analysis.judging_assist import export_judge_grades, judge_annotator
    from ragrecall_core.inputs.workspace import Workspace

    if args.judge is not None or args.export is None:
        shown = args.judge or "neither"
        raise InputError([Problem("--judge", None, shown, "--judge or --export (one of them)")])
    problems: list[Problem] = []
    name = take(problems, judge_annotator, args.name) if args.name is not None else None
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = Workspace.open(args.workspace, memory_limit=args.memory_limit)
    written = export_judge_grades(workspace, args.export, name)
    sys.stdout.write(f"{written} judge grades written to {one_line(redact_path(args.export))}\n")
    return 0


OPENAI_OPTIONS = {"base_url": "--base-url", "model": "--model", "api_key_env": "--api-key-env"}


def openai_option_problems(args: argparse.Namespace, builtin: bool) -> list[Problem]:
    """``--base-url`` and ``--model`` go with ``--judge openai`` (both needed), and only
    with it, as do ``--api-key-env`` and ``--prompt``."""
    given = {**OPENAI_OPTIONS, "prompt": "--prompt"}
    if builtin:
        return [
            Problem(option, None, "missing", f"{option} with --judge openai")
            for dest, option in OPENAI_OPTIONS.items()
            if dest != "api_key_env" and getattr(args, dest) is None
        ]
    return [
        Problem(
            option,
            None,
            redact_text(str(getattr(args, dest))),
            "--judge openai, which it configures",
        )
        for dest, option in given.items()
        if getattr(args, dest) is not None
    ]


def openai_judge(args: argparse.Namespace):
    from ragrecall_core.analysis.capture import parse_positive_number
    from ragrecall_core.judges.openai_chat import (
        DEFAULT_KEY_ENV,
        DEFAULT_TIMEOUT,
        PROMPT,
        OpenAIChatJudge,
        read_prompt,
    )

    prompt = read_prompt(args.prompt) if args.prompt is not None else PROMPT
    timeout = DEFAULT_TIMEOUT
    if args.timeout is not None:
        timeout = parse_positive_number(args.timeout, "--timeout")
    key_env = DEFAULT_KEY_ENV if args.api_key_env is None else args.api_key_env
    return OpenAIChatJudge(args.base_url, args.model, key_env, prompt, timeout)


def cmd_agreement(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.agreement import agreement, agreement_of_files

    folders = [path for path in args.grades if path.is_dir()]
    if folders and len(args.grades) > 1:
        expected = "grades files, or one workspace folder alone"
        raise InputError(
            [Problem(redact_path(path), None, "a folder", expected) for path in folders]
        )
    if not folders:
        result = agreement_of_files(args.grades)
        print_result(args.format, result.to_dict, result.to_text)
        return 0
    from ragrecall_core.analysis.calibration import calibration
    from ragrecall_core.inputs.store import open_store
    from ragrecall_core.inputs.workspace import Workspace

    workspace = Workspace.open(folders[0])
    open_store(workspace)
    humans, judges = agreement(workspace), calibration(workspace)
    print_result(
        args.format,
        lambda: {**humans.to_dict(), "judges": judges.to_dict()},
        lambda: humans.to_text() + "\n" + judges.to_text(),
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from ragrecall_core.analysis.output_targets import overwrite_problems
    from ragrecall_core.analysis.pass_rule import require_rule
    from ragrecall_core.analysis.selection import require_split
    from ragrecall_core.analysis.verdicts import latest_verdicts
    from ragrecall_core.inputs.workspace import Workspace
    from ragrecall_core.output.report import build_report, output_suffix

    problems: list[Problem] = []
    k = take(problems, parse_cutoff, args.k)
    take(problems, require_rule, args.pass_rule)
    take(problems, output_suffix, args.output)
    problems += output_problems(args.output)
    memory_limit_from(args, problems)
    raise_if_any(problems)
    workspace = Workspace.open(
        args.workspace, memory_limit=args.memory_limit, cache=cache_folder(args)
    )
    said_mappings(workspace, "table", dict)
    raise_if_any(overwrite_problems(workspace, {"-o": args.output}))
    require_split(workspace, args.split)
    report = build_report(
        workspace,
        k=k,
        split=args.split,
        rule=args.pass_rule,
        verdicts=latest_verdicts(workspace),
    )
    report.write(args.output)
    sys.stdout.write(f"report written to {redact_path(args.output)} ({report.scope})\n")
    return 0


def cmd_verdicts(args: argparse.Namespace) -> int:
    """List the latest verdicts, or export / import them (one of the two at a time)."""
    from ragrecall_core.analysis import verdicts
    from ragrecall_core.inputs.workspace import Workspace

    problems: list[Problem] = []
    if args.export and args.import_file:
        problems.append(
            Problem("--import", None, redact_path(args.import_file), "--export or --import")
        )
    if args.export and not args.export.parent.is_dir():
        problems.append(
            Problem("--export", None, redact_path(args.export.parent), "an existing folder")
        )
    raise_if_any(problems)
    workspace = Workspace.open(args.workspace)
    if args.import_file:
        added = verdicts.import_verdicts(workspace, args.import_file)
        sys.stdout.write(f"{verdicts_count(added)} added from {redact_path(args.import_file)}\n")
    elif args.export:
        written = verdicts.export_verdicts(workspace, args.export)
        sys.stdout.write(f"{verdicts_count(written)} written to {redact_path(args.export)}\n")
    else:
        latest = verdicts.latest_verdicts(workspace)
        print_result(
            args.format,
            lambda: {"verdicts": verdicts.verdict_records(latest)},
            lambda: verdicts.verdicts_text(latest),
        )
    return 0


def verdicts_count(count: int) -> str:
    return "1 verdict" if count == 1 else f"{count} verdicts"


def parse_port(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 65535):
        expected = "a port number from 1 to 65535"
        raise InputError([Problem("--port", None, redact_text(text), expected)])
    return int(text)


def ui_arguments(args: argparse.Namespace) -> list[str]:
    """The app's own arguments: loose files, or a workspace folder that exists."""
    from ragrecall_core.inputs.beir import is_beir_folder

    loose = [
        f"--{name}" for name in ("run", "grades", "corpus") if getattr(args, name) not in ([], None)
    ]
    if args.gold and args.workspace:
        raise InputError(
            [
                Problem(
                    "ui",
                    None,
                    redact_path(args.workspace),
                    "a workspace folder or --gold, not both",
                )
            ]
        )
    if loose and not args.gold and args.workspace and is_beir_folder(args.workspace):
        args.gold, args.workspace = args.workspace, None  # a BEIR folder is the gold
    if loose and not args.gold:
        raise InputError([Problem(loose[0], None, " ".join(loose), "--gold FILE beside it")])
    if not args.gold:
        folder = (args.workspace or DEFAULT_WORKSPACE).resolve()
        if not folder.is_dir():
            raise InputError(
                [Problem(redact_path(folder), None, redact_path(folder), "a workspace folder")]
            )
        return ["--workspace", str(folder)]
    app_args = ["--gold", str(args.gold.resolve())]
    for run in args.run:
        app_args += ["--run", str(run.resolve())]
    for grades in args.grades:
        app_args += ["--grades", str(grades.resolve())]
    if args.corpus:
        app_args += ["--corpus", str(args.corpus.resolve())]
    return app_args


def cmd_ui(args: argparse.Namespace) -> int:
    problems: list[Problem] = []
    port = take(problems, parse_port, args.port)
    app_args = take(problems, ui_arguments, args)
    raise_if_any(problems)
    # the launcher: `streamlit run app.py` with streamlit's old pages/-folder mode off
    # from the start (else a fresh server's first deep link shows "Page not found")
    command = [
        sys.executable,
        "-m",
        "ragrecall_app.serve",
        "--server.address",
        "localhost",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--theme.primaryColor",
        THEME_PRIMARY,
        "--client.toolbarMode",
        "minimal",
        # no full garbage collection after each script run: the server's heap made it
        # 0.1-0.2 s of held interpreter lock per click (see .streamlit/config.toml)
        "--runner.postScriptGC",
        "false",
        # the charts' plotly.js bundle is a static file (static/, ragrecall_app/chart.py)
        "--server.enableStaticServing",
        "true",
        "--",
        *app_args,
    ]
    return serve(command)


# what stops `ragrecall ui` stops its server; a server still up this long after is killed
STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
SERVER_STOP_WAIT_S = 10


def serve(command: list[str]) -> int:
    """Run the dashboard server ``command`` in a process group of its own and wait for it.
    SIGINT, SIGTERM and SIGHUP sent to this launcher are passed to that group (the handlers
    are set before it starts, so none is lost); a server still running
    :data:`SERVER_STOP_WAIT_S` after one is killed. The server's exit status is returned
    (128 + N when signal N ended it), never a traceback."""
    import signal
    import subprocess

    received: list[int] = []
    server: list[subprocess.Popen] = []

    def forward(signum: int, _frame) -> None:
        received.append(signum)
        if server:
            _signal_group(server[0].pid, signum)

    signals = [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]
    previous = {signum: signal.signal(signum, forward) for signum in signals}
    try:
        server.append(subprocess.Popen(command, process_group=0, preexec_fn=_die_with_parent()))
        for signum in received:  # arrived while it was being started
            _signal_group(server[0].pid, signum)
        code = _wait_for_server(server[0], received)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 128 - code if code < 0 else code


# prctl(2)'s option that sends a signal to a process when its parent ends
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """A hook run in the server's process before it starts (Linux): the kernel sends it
    SIGTERM when this launcher ends, even by SIGKILL, which no handler can forward. Elsewhere
    (no prctl), None: the server outlives a killed launcher there."""
    import ctypes
    import ctypes.util
    import signal

    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name, use_errno=True) if name else None
    if libc is None or not hasattr(libc, "prctl"):
        return None
    return lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _wait_for_server(server, received: list[int]) -> int:
    """The server's exit code; once a stop signal has come, kill it if it outstays
    :data:`SERVER_STOP_WAIT_S`."""
    import signal
    import subprocess
    import time

    kill_at = None
    while True:
        try:
            return server.wait(timeout=1)  # a signal's arrival is seen within a second
        except subprocess.TimeoutExpired:
            if received and kill_at is None:
                kill_at = time.monotonic() + SERVER_STOP_WAIT_S
            elif kill_at is not None and time.monotonic() > kill_at:
                _signal_group(server.pid, signal.SIGKILL)


def _signal_group(group: int, signum: int) -> None:
    """Send ``signum`` to the server's process group (gone already: nothing to do)."""
    import os

    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        pass


MORE_MEMORY = "a higher --memory-limit (or $RAGRECALL_MEMORY_LIMIT)"


def input_failures() -> tuple[type[Exception], ...]:
    """Failures that only bad input causes but that a loader did not turn into problems
    yet: a file that cannot be opened or written, bytes that are not UTF-8, a file DuckDB
    cannot parse. Anything else is a bug and keeps its traceback."""
    import duckdb  # loaded already by any command that could raise its errors

    return (
        OSError,
        UnicodeDecodeError,
        duckdb.InvalidInputException,
        duckdb.IOException,
        duckdb.OutOfMemoryException,  # inputs too large for the memory limit
    )


def unreadable(error: Exception) -> Problem:
    """One line for an input failure a loader did not report itself."""
    import duckdb

    if isinstance(error, duckdb.OutOfMemoryException):
        return Problem("memory", None, "the inputs need more memory than the limit", MORE_MEMORY)
    if isinstance(error, OSError) and error.filename is not None:
        return Problem(
            redact_path(error.filename),
            None,
            error.strerror or redact_text(str(error)),
            "a usable file",
        )
    message = " ".join(str(error).split()) or type(error).__name__
    message = message.removeprefix("Invalid Input Error: ").removeprefix("IO Error: ")
    # Problem keeps the message's head and tail (MAX_VALUE_CHARS), as for any input value
    return Problem("input", None, message, "a readable UTF-8 or Parquet file")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        return invalid_input(error)
    except Exception as error:
        if isinstance(error, input_failures()):
            return invalid_input(InputError([unreadable(error)]))
        raise


def invalid_input(error: InputError) -> int:
    sys.stderr.write(f"ragrecall: invalid input\n{error}\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
