"""The ``ragrecall`` command line: a thin layer over the package's public functions.

Exit codes: 0 success, 1 a release gate failed, 2 invalid input (problems on stderr).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import InputError, Problem, gather, raise_if_any
from .evaluate import default_measures, evaluate
from .measures import parse_cutoff, parse_requests
from .policy import Policy
from .render import FORMATS, render
from .workspace import Workspace

APP = Path(__file__).resolve().parent.parent / "app.py"
# a calm blue: the default red reads as "error" on a shared screen
THEME_PRIMARY = "#1f5fa8"
DEFAULT_WORKSPACE = Path(__file__).resolve().parent.parent / "data_samples"


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors are invalid input: exit 2, no traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def add_policy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grades",
        action="append",
        default=[],
        metavar="FILE",
        help="manual grades (JSONL/CSV); may repeat",
    )
    parser.add_argument("--corpus", metavar="FILE", help="corpus (chunk_id, doc_id, section, text)")
    parser.add_argument(
        "--unit",
        choices=("chunk", "doc"),
        default="chunk",
        help="evaluate chunks, or documents (a document counts once)",
    )
    parser.add_argument(
        "--rel-level", default="1", metavar="N", help="a grade >= N is relevant (default 1)"
    )
    parser.add_argument(
        "--compat", choices=("trec_eval",), help="average exactly as trec_eval does"
    )
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="with --compat trec_eval: like its -c, every judged query counts",
    )
    parser.add_argument(
        "--partial",
        choices=("not_relevant", "relevant"),
        default="not_relevant",
        help="how a reviewer's partial grade (1) counts",
    )
    parser.add_argument(
        "--harmful",
        choices=("not_relevant", "as_graded"),
        default="not_relevant",
        help="how a chunk flagged harmful counts",
    )


def policy_from(args: argparse.Namespace) -> Policy:
    level = parse_cutoff(args.rel_level, "--rel-level") if args.rel_level != "0" else 0
    return Policy(
        rel_level=level,
        unit=args.unit,
        compat=args.compat,
        complete=args.complete,
        partial=args.partial,
        harmful=args.harmful,
    )


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="ragrecall", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)

    ev = sub.add_parser("evaluate", help="measure runs against a gold set")
    ev.add_argument("gold", type=Path)
    ev.add_argument("runs", type=Path, nargs="+")
    ev.add_argument(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="e.g. Recall@5, MRR@10, P(rel=2)@3; may repeat",
    )
    ev.add_argument(
        "-k",
        action="append",
        default=[],
        metavar="K",
        help="add the default measures at cutoff K; may repeat",
    )
    add_policy_options(ev)
    ev.add_argument("--per-query", action="store_true", help="also print every query's values")
    ev.add_argument("--format", choices=FORMATS, default="table")
    ev.set_defaults(handler=cmd_evaluate)

    cmp = sub.add_parser("compare", help="compare a candidate run against a baseline")
    cmp.add_argument("gold", type=Path)
    cmp.add_argument("baseline", type=Path)
    cmp.add_argument("candidate", type=Path)
    cmp.add_argument("-k", default="5", metavar="K")
    cmp.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE")
    cmp.add_argument("--split", help="only the queries of this split")
    add_policy_options(cmp)
    cmp.add_argument("--format", choices=("table", "json"), default="table")
    cmp.set_defaults(handler=cmd_compare)

    chk = sub.add_parser("check", help="release gate: exit 1 when a requirement fails")
    chk.add_argument("gold", type=Path)
    chk.add_argument("run", type=Path)
    chk.add_argument("--baseline", type=Path)
    chk.add_argument("--require", action="append", default=[], metavar="MEASURE>=VALUE")
    chk.add_argument("--max-regressions", type=int, metavar="N")
    chk.add_argument("--split", help="default: 'test' when the gold set has it")
    chk.add_argument("-k", default="5", metavar="K", help="cutoff for regressions")
    add_policy_options(chk)
    chk.add_argument("--format", choices=("table", "json"), default="table")
    chk.set_defaults(handler=cmd_check)

    na = sub.add_parser("no-answer", help="how confidently runs answer the unanswerable")
    na.add_argument("gold", type=Path)
    na.add_argument("runs", type=Path, nargs="+")
    na.add_argument("-k", default="5", metavar="K")
    na.add_argument(
        "--max-false-confidence",
        type=float,
        default=0.1,
        metavar="SHARE",
        help="the trade-off that picks a threshold (default 0.1)",
    )
    na.add_argument("--split")
    add_policy_options(na)
    na.add_argument("--format", choices=("table", "json"), default="table")
    na.set_defaults(handler=cmd_no_answer)

    pool = sub.add_parser("pool", help="write the blind pool of chunks to judge")
    pool.add_argument("gold", type=Path)
    pool.add_argument("runs", type=Path, nargs="+")
    pool.add_argument("--depth", default="10", metavar="D", help="top-d of each run (default 10)")
    pool.add_argument("-k", default="5", metavar="K", help="the cutoff reported on (d >= k)")
    pool.add_argument("--grades", action="append", default=[], type=Path)
    pool.add_argument("--corpus", type=Path)
    pool.add_argument("--split")
    pool.add_argument("-o", "--output", type=Path, required=True)
    pool.set_defaults(handler=cmd_pool)

    agr = sub.add_parser("agreement", help="agreement between annotators and disagreements")
    agr.add_argument("grades", type=Path, nargs="+")
    agr.add_argument("--format", choices=("table", "json"), default="table")
    agr.set_defaults(handler=cmd_agreement)

    rep = sub.add_parser("report", help="write the reproducible report (.html, .md or .csv)")
    rep.add_argument("workspace", type=Path)
    rep.add_argument("-o", "--output", type=Path, required=True)
    rep.add_argument("-k", default="5", metavar="K")
    rep.add_argument("--split", help="default: 'test' when the gold set has it")
    rep.set_defaults(handler=cmd_report)

    ui = sub.add_parser("ui", help="open the dashboard (default: the sample workspace)")
    ui.add_argument("workspace", nargs="?", type=Path)
    ui.add_argument("--gold", type=Path)
    ui.add_argument("--run", action="append", default=[], type=Path)
    ui.add_argument("--grades", action="append", default=[], type=Path)
    ui.add_argument("--corpus", type=Path)
    ui.add_argument("--port", type=int, default=8501)
    ui.set_defaults(handler=cmd_ui)
    return parser


def cmd_evaluate(args: argparse.Namespace) -> int:
    measures = measures_from(args.measure, args.k)
    policy = policy_from(args)
    workspace = Workspace.from_files(args.gold, args.runs, args.grades, args.corpus)
    evaluation = evaluate(workspace, measures, policy=policy)
    sys.stdout.write(render(evaluation, args.format, per_query=args.per_query))
    return 0


def measures_from(names: list[str], cutoffs: list[str]) -> list[str]:
    """``-m`` names plus the default set at each ``-k``; every bad one reported at once."""
    ks, problems = gather(cutoffs, parse_cutoff)
    measures = list(dict.fromkeys(list(names) + (default_measures(ks) if ks else [])))
    problems += gather([measures], parse_requests)[1]
    raise_if_any(problems)
    return measures or default_measures()


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import compare
    from .selection import query_ids

    k = parse_cutoff(args.k)
    measures = measures_from(args.measure, []) if args.measure else None
    workspace = Workspace.from_files(
        args.gold, [args.baseline, args.candidate], args.grades, args.corpus
    )
    baseline, candidate = workspace.run_names
    ids = query_ids(workspace, split=args.split)
    comparison = compare(
        workspace,
        baseline,
        candidate,
        k=k,
        measures=measures,
        policy=policy_from(args),
        query_ids=ids,
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(comparison.to_dict(), indent=2, default=str) + "\n")
    else:
        sys.stdout.write(comparison.to_text())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .gate import check_gate, parse_requirement

    k = parse_cutoff(args.k)
    raise_if_any(gather(args.require, parse_requirement)[1])
    runs = [args.run] + ([args.baseline] if args.baseline else [])
    workspace = Workspace.from_files(args.gold, runs, args.grades, args.corpus)
    names = workspace.run_names
    result = check_gate(
        workspace,
        names[0],
        args.require,
        baseline=names[1] if args.baseline else None,
        max_regressions=args.max_regressions,
        split=args.split,
        k=k,
        policy=policy_from(args),
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
    else:
        sys.stdout.write(result.to_text())
    return 0 if result.passed else 1


def cmd_no_answer(args: argparse.Namespace) -> int:
    from .no_answer import no_answer_report
    from .selection import query_ids

    k = parse_cutoff(args.k)
    workspace = Workspace.from_files(args.gold, args.runs, args.grades, args.corpus)
    report = no_answer_report(
        workspace, k=k, policy=policy_from(args), query_ids=query_ids(workspace, split=args.split)
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_dict(args.max_false_confidence), indent=2) + "\n")
    else:
        sys.stdout.write(report.to_text(args.max_false_confidence))
    return 0


def cmd_pool(args: argparse.Namespace) -> int:
    from .pooling import build_pool, pool_coverage, write_pool
    from .selection import query_ids

    depth, k = parse_cutoff(args.depth, "--depth"), parse_cutoff(args.k)
    workspace = Workspace.from_files(args.gold, args.runs, args.grades, args.corpus)
    ids = query_ids(workspace, split=args.split)
    pool = build_pool(workspace, depth=depth, query_ids=ids, k=k)
    written = write_pool(pool, args.output)
    coverage = pool_coverage(workspace, depth=depth, k=k, query_ids=ids)
    sys.stdout.write(f"{written} (query, chunk) pairs to judge written to {args.output}\n")
    sys.stdout.write(f"judged share of each run's top {k}, before and after judging the pool:\n")
    sys.stdout.write(coverage.to_string(index=False, float_format=lambda v: f"{v:.3f}") + "\n")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    from .agreement import agreement_of_files

    result = agreement_of_files(args.grades)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    else:
        sys.stdout.write(result.to_text())
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import build_report, output_suffix

    k = parse_cutoff(args.k)
    output_suffix(args.output)  # before the work, not after it
    report = build_report(Workspace.open(args.workspace), k=k, split=args.split)
    report.write(args.output)
    sys.stdout.write(f"report written to {args.output} ({report.scope})\n")
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    app_args: list[str] = []
    if args.gold:
        app_args += ["--gold", str(args.gold.resolve())]
        for run in args.run:
            app_args += ["--run", str(run.resolve())]
        for grades in args.grades:
            app_args += ["--grades", str(grades.resolve())]
        if args.corpus:
            app_args += ["--corpus", str(args.corpus.resolve())]
    else:
        folder = (args.workspace or DEFAULT_WORKSPACE).resolve()
        if not folder.is_dir():
            raise InputError([Problem(str(folder), None, str(folder), "a workspace folder")])
        app_args += ["--workspace", str(folder)]
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.address",
        "localhost",
        "--server.port",
        str(args.port),
        "--browser.gatherUsageStats",
        "false",
        "--theme.primaryColor",
        THEME_PRIMARY,
        "--",
        *app_args,
    ]
    return subprocess.call(command)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        sys.stderr.write(f"ragrecall: invalid input\n{error}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
