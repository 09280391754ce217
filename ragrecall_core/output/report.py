"""The reproducible report: per-query table, run configs,
k, measure definitions and policy, tool version and the sha256 of every input, so that
another person can recompute every number without secrets. A run config is hashed as the
redacted config the report shows, never as its file (see :func:`input_hashes`).

Rendered as one self-contained HTML file (plots embedded, prints cleanly), Markdown or
CSV, chosen by the output file's extension.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import html
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from ragrecall_core.analysis.pass_rule import DEFAULT_RULE, pass_measure, rule_line
from ragrecall_core.analysis.query_table import (
    display_frame,
    failing_first,
    failing_runs,
    filter_table,
    query_table,
)
from ragrecall_core.analysis.run_choice import cutoff_problems, run_depths, run_problems
from ragrecall_core.analysis.selection import default_split, query_ids, require_split
from ragrecall_core.errors import InputError, Problem, one_line, raise_if_any
from ragrecall_core.inputs.configs import config_path_for
from ragrecall_core.inputs.readers import sha256_of
from ragrecall_core.inputs.secrets import redact_path
from ragrecall_core.inputs.store import open_store, store_path
from ragrecall_core.inputs.workspace import Workspace
from ragrecall_core.measures import parse_measure
from ragrecall_core.output.literal import PLOTLY_CONFIG, md_text, plot_literal
from ragrecall_core.output.text import neutralise, no_answer_text, plural
from ragrecall_core.scoring.evaluate import DistanceWarning, evaluate, without_depth
from ragrecall_core.scoring.policy import Policy, listed_items
from ragrecall_core.version import __version__

NO_VERDICTS = "No meeting verdicts recorded."
NO_WARNINGS = "No warnings: evaluate found nothing to flag in these runs."
NO_NO_ANSWER = "No no-answer query (relevant_ids: []) among the reported queries."
REPORT_MEASURES = (
    "Recall@{k}",
    "Hit@{k}",
    "MRR@{k}",
    "P@{k}",
    "nDCG@{k}",
    "Judged@{k}",
    "Harm@{k}",
)


# the run and query ids of report.csv's table, shown escaped as in every CSV output; the
# texts (query, section, reasons) are data and stay as written
ID_COLUMNS = ("run", "query_id", "expected")
CHART_ID = "ragrecall-chart"

RENDERERS = {".html": "to_html", ".htm": "to_html", ".md": "to_markdown", ".csv": "to_csv"}


def output_suffix(path: Path) -> str:
    """The report format a file name asks for; an input error for any other ending."""
    suffix = Path(path).suffix.lower()
    if suffix not in RENDERERS:
        raise InputError(
            [Problem("-o", None, redact_path(path), "a file ending in .html, .md or .csv")]
        )
    return suffix


@dataclass(frozen=True)
class ReportView:
    """The dashboard view an in-app report reproduces (issue 29): the sidebar's runs, split,
    query type, section and failures-only switch. Unlike the command, which reports the
    held-out split by default, no split here means every query, as on screen; the queries
    are chosen by :func:`ragrecall_core.analysis.selection.query_ids`, as the screen's."""

    runs: tuple[str, ...] = ()  # empty: every run
    split: str | None = None
    query_type: str | None = None
    section: str | None = None
    failing_only: bool = False  # the per-query tables list failing queries only

    def query_ids(self, workspace: Workspace) -> list[str] | None:
        return query_ids(
            workspace,
            split=self.split or None,
            query_types=[self.query_type] if self.query_type else None,
            sections=[self.section] if self.section else None,
        )

    def filters(self) -> list[str]:
        """The query filters as the scope line names them (``split = dev``)."""
        named = (("split", self.split), ("type", self.query_type), ("section", self.section))
        return [f"{name} = {value}" for name, value in named if value]

    def describe(self, queries: int) -> str:
        """The queries the report covers, as its header's ``queries`` line says it."""
        chosen = " · ".join(self.filters()) or "all queries, every split"
        return f"{chosen} ({plural(queries, 'query', 'queries')}; the dashboard's view)"


@dataclass
class Report:
    k: int
    scope: str
    policy: Policy
    aggregate: pd.DataFrame
    per_query: pd.DataFrame
    configs: dict[str, dict]
    hashes: list[dict[str, str]]
    definitions: pd.DataFrame
    generated: str
    stored_judgments: str
    rule: str = DEFAULT_RULE
    # the meeting's latest verdict per (run, query) (ragrecall_core.analysis.verdicts)
    verdicts: pd.DataFrame | None = None
    verdicts_elsewhere: int = 0  # current verdicts on queries outside this report's split
    # the runs reported (every run unless a dashboard view chose some)
    runs: tuple[str, ...] = ()
    view: ReportView | None = None  # the dashboard view an in-app report reproduces
    gold_judgments: int = 0  # the gold's own judgments (qrels)
    file_grades: int = 0  # reviewers' grades read from grade files
    # what the numbers need said beside them: a k past every list of a run
    notes: tuple[str, ...] = ()
    # per run, what evaluate warns of (missing and ignored queries, skipped ranks, ties
    # across k, ...): a filed report's numbers are read with them
    warnings: dict[str, list[str]] = field(default_factory=dict)
    # per run, evaluate's no-answer summary (queries, with_results, mean_top_score)
    no_answer: dict[str, dict] = field(default_factory=dict)
    # what reviewers put into the numbers (scoring.prepared.reviewed): the policy line's
    # "used", "used (resolutions only)" or "used (none loaded)", as evaluate says it
    reviewed: bool | str = True

    def scope_line(self) -> str:
        """The report's scope in the words of the dashboard's scope line (issue 29), but for
        the pass rule, which the header states on its own line."""
        runs = ("run " if len(self.runs) == 1 else "runs ") + ", ".join(self.runs)
        filters = (self.view.filters() or ["all queries"]) if self.view else [self.scope]
        only_failing = self.view is not None and self.view.failing_only
        failing = ["per-query tables: failures only"] if only_failing else []
        # the pass rule has its own header line (stated once)
        return "Scope: " + " · ".join([runs, f"k = {self.k}", *filters, *failing])

    def grades_line(self) -> str:
        """Which grades the numbers include: the files' and the reviewers' stored ones."""
        return (
            f"{plural(self.gold_judgments, 'judgment')} in the gold, "
            f"{plural(self.file_grades, 'reviewer grade')} from grade files, and the "
            "reviewers' stored judgments (next line)"
        )

    def verdicts_line(self) -> str:
        """How many of the meeting's current verdicts the report lists, and how many not."""
        listed = 0 if self.verdicts is None else len(self.verdicts)
        line = f"{plural(listed, 'current meeting verdict')} listed"
        if self.verdicts_elsewhere:
            line += f"; {self.verdicts_elsewhere} on queries outside this scope not listed"
        return line

    def header(self) -> dict:
        return {
            "tool": f"ragrecall {__version__}",
            "generated": self.generated,
            "scope": self.scope_line(),
            "k": self.k,
            "queries": self.scope,
            "policy": self.policy.describe(self.reviewed),
            # the key names it: the line without its own "Pass rule: " (issue 29)
            "pass rule": rule_line(self.rule, self.k).removeprefix("Pass rule: "),
            "grades": self.grades_line(),
            "stored judgments": self.stored_judgments,
            "verdicts": self.verdicts_line(),
            **({"notes": " · ".join(self.notes)} if self.notes else {}),
        }

    def to_markdown(self) -> str:
        parts = ["# ragrecall retrieval report", ""]
        parts += [f"- **{key}**: {md_text(value)}" for key, value in self.header().items()]
        parts += ["", "## Results (macro mean over queries)", "", _md(self.aggregate_table())]
        parts += ["", "## No-answer queries", ""]
        no_answer = self.no_answer_lines()
        for run, numbers, said in no_answer:
            parts += [f"- **{md_text(run)}**: {md_text(numbers)}"]
            parts += [f"  - warning: {md_text(text)}" for text in said]
        parts += [] if no_answer else [NO_NO_ANSWER]
        parts += ["", "## Warnings", ""]
        parts += [f"- **{md_text(run)}**: {md_text(text)}" for run, text in self.warning_lines()]
        parts += [] if self.warnings else [NO_WARNINGS]
        parts += ["", "## Meeting verdicts", ""]
        if self.has_verdicts():
            parts += [_md(self.verdict_counts()), "", _md(self.verdict_list())]
        if self.verdicts_elsewhere:
            parts += [""] * self.has_verdicts() + [md_text(self.elsewhere_note())]
        elif not self.has_verdicts():
            parts += [NO_VERDICTS]
        parts += ["", "## Measure definitions", "", _md(self.definitions)]
        parts += ["", "## Run configs (secrets redacted)", ""]
        for run, config in self.configs.items():
            parts += [f"### {md_text(run)}", "", *_fenced_json(config), ""]
        parts += ["## Input files", "", _md(pd.DataFrame(self.hashes)), ""]
        for run, rows in self.per_query.groupby("run", sort=False):
            parts += [f"## Per query: {md_text(run)}", "", _md(rows.drop(columns="run")), ""]
        return "\n".join(parts)

    def to_csv(self) -> str:
        """The per-query table after ``#`` comment lines. Each comment is one cell on one
        line (quoted when it holds a comma or a quote), so no text in it starts a cell
        a spreadsheet would evaluate."""
        comments = [f"{key}: {value}" for key, value in self.header().items()]
        comments += [_hash_comment(h) for h in self.hashes]
        comments += [f"config {run}: {json.dumps(config)}" for run, config in self.configs.items()]
        for run, numbers, said in self.no_answer_lines():
            comments += [f"no-answer {run}: {numbers}"]
            comments += [f"no-answer {run} warning: {text}" for text in said]
        comments += [f"warning {run}: {text}" for run, text in self.warning_lines()]
        comments += self.verdict_comments()
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerows([["# " + one_line(_one_line(line))] for line in comments])
        ids = {c: self.per_query[c].map(one_line) for c in ID_COLUMNS if c in self.per_query}
        self.per_query.assign(**ids).map(neutralise).to_csv(
            buffer, index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC
        )
        return buffer.getvalue()

    def to_html(self) -> str:
        # a fixed div id: plotly's default is a random one, and the same inputs must give
        # the same bytes (apart from the stated "generated" time)
        chart = self.chart().to_html(
            full_html=False, include_plotlyjs=True, config=PLOTLY_CONFIG, div_id=CHART_ID
        )
        configs = "".join(
            f"<h3>{_html_text(run)}</h3><pre>{html.escape(json.dumps(cfg, indent=2))}</pre>"
            for run, cfg in self.configs.items()
        )
        per_query = "".join(
            f"<h2>Per query: {_html_text(run)}</h2>" + _html_table(rows.drop(columns="run"))
            for run, rows in self.per_query.groupby("run", sort=False)
        )
        header = "".join(
            f"<li><b>{_html_text(k)}</b>: {_html_text(v)}</li>" for k, v in self.header().items()
        )
        verdicts = (
            _html_table(self.verdict_counts()) + _html_table(self.verdict_list())
            if self.has_verdicts()
            else ""
            if self.verdicts_elsewhere
            else f"<p>{html.escape(NO_VERDICTS)}</p>"
        ) + (f"<p>{html.escape(self.elsewhere_note())}</p>" if self.verdicts_elsewhere else "")
        warnings = (
            "<ul>"
            + "".join(
                f"<li><b>{_html_text(run)}</b>: {_html_text(text)}</li>"
                for run, text in self.warning_lines()
            )
            + "</ul>"
            if self.warnings
            else f"<p>{html.escape(NO_WARNINGS)}</p>"
        )
        lines = self.no_answer_lines()
        no_answer = (
            "<ul>"
            + "".join(
                f"<li><b>{_html_text(run)}</b>: {_html_text(numbers)}"
                + "".join(f"<ul><li>warning: {_html_text(text)}</li></ul>" for text in said)
                + "</li>"
                for run, numbers, said in lines
            )
            + "</ul>"
            if lines
            else f"<p>{html.escape(NO_NO_ANSWER)}</p>"
        )
        return HTML.format(
            header=header,
            no_answer=no_answer,
            warnings=warnings,
            chart=chart,
            verdicts=verdicts,
            results=_html_table(self.aggregate_table()),
            definitions=_html_table(self.definitions),
            configs=configs,
            hashes=_html_table(pd.DataFrame(self.hashes)),
            per_query=per_query,
        )

    def warning_lines(self) -> list[tuple[str, str]]:
        """(run, warning) for every warning, run by run."""
        return [(run, text) for run, texts in self.warnings.items() for text in texts]

    def no_answer_lines(self) -> list[tuple[str, str, list[str]]]:
        """Per run with a no-answer query: its numbers as evaluate says them, and beside
        them the warning that the run's scores may be distances read backwards (its top
        score, the one a threshold reads, is then its worst item)."""
        return [
            (run, no_answer_text(numbers), self.distance_warnings(run))
            for run, numbers in self.no_answer.items()
            if numbers["queries"]
        ]

    def distance_warnings(self, run: str) -> list[str]:
        """Of ``run``'s warnings, evaluate's that its scores rise as given (distances)."""
        return [w for w in self.warnings.get(run, []) if isinstance(w, DistanceWarning)]

    def has_verdicts(self) -> bool:
        return self.verdicts is not None and not self.verdicts.empty

    def elsewhere_note(self) -> str:
        """Verdicts the report's scope leaves out are counted, not silently dropped."""
        widen = (
            "clear the dashboard's filters to list them"
            if self.view
            else "--split NAME reports another split"
        )
        return (
            f"{plural(self.verdicts_elsewhere, 'verdict')} on queries outside this report "
            f"({self.scope}) {'is' if self.verdicts_elsewhere == 1 else 'are'} not listed: " + widen
        )

    def verdict_counts(self) -> pd.DataFrame:
        """How many queries of each run the meeting gave each reason."""
        counts = self.verdicts.groupby(["run", "reason"], sort=True).size()
        return counts.rename("queries").reset_index()

    def verdict_list(self) -> pd.DataFrame:
        """Every current verdict: run, query, reason, owner, note."""
        return self.verdicts[["run", "query_id", "reason", "owner", "note"]].rename(
            columns={"query_id": "query"}
        )

    def verdict_comments(self) -> list[str]:
        """The verdicts as CSV comment lines (each one cell starting ``#``: never a formula)."""
        elsewhere = [self.elsewhere_note()] if self.verdicts_elsewhere else []
        if not self.has_verdicts():
            return [f"meeting verdicts: {elsewhere[0] if elsewhere else NO_VERDICTS}"]
        counts = [
            f"meeting verdicts {run}: "
            + ", ".join(f"{r.reason} {r.queries}" for r in rows.itertuples(index=False))
            for run, rows in self.verdict_counts().groupby("run", sort=True)
        ]
        return [
            *counts,
            *(
                f"verdict {r.run} {r.query}: {r.reason}; owner: {r.owner or '-'}; note: {r.note}"
                for r in self.verdict_list().itertuples(index=False)
            ),
            *elsewhere,
        ]

    def aggregate_table(self) -> pd.DataFrame:
        table = self.aggregate.pivot(index="run", columns="measure", values="value")
        order = list(dict.fromkeys(self.aggregate.measure))
        table = table[order].reset_index()
        table.columns.name = None  # else HTML shows an empty "measure" header column
        return table

    def chart(self) -> go.Figure:
        figure = go.Figure()
        for run, rows in self.aggregate.groupby("run", sort=False):
            figure.add_bar(name=plot_literal(one_line(run)), x=rows.measure, y=rows.value)
        figure.update_layout(
            barmode="group",
            title=f"Measures at k = {self.k}",
            yaxis={"range": [0, 1], "title": "mean over queries"},
            font={"size": 14},
            height=420,
            margin={"t": 60},
        )
        return figure

    def write(self, path: Path) -> None:
        render = getattr(self, RENDERERS[output_suffix(path)])
        Path(path).write_text(render(), encoding="utf-8")


def _cell_text(value) -> str:
    """A cell as the reader sees it: missing values empty, numbers to 4 decimals, text with
    its control, bidi and line-separator characters escaped (:func:`one_line`: a browser
    would show ``q\u202e13`` as "q31" and ``q\n2`` as "q 2")."""
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return one_line(value)


def _html_text(value) -> str:
    """File text for the HTML report outside a table: escaped as a cell, then as HTML."""
    return html.escape(one_line(value))


def _one_line(text: str) -> str:
    return re.sub(r"[\r\n\u2028\u2029\x0b\x0c\x85]+", " ", text)


def _md(frame: pd.DataFrame) -> str:
    """A Markdown table whose cells show their text as written (see :func:`md_text`)."""

    def row(values) -> str:
        cells = [md_text(v) if isinstance(v, str) else _cell_text(v) for v in values]
        return "| " + " | ".join(cells) + " |"

    lines = [row(frame.columns), "|" + "---|" * len(frame.columns)]
    lines += [row(values) for values in frame.itertuples(False)]
    return "\n".join(lines)


def _fenced_json(value) -> list[str]:
    """``value`` as a JSON code block whose fence no backtick run in the text can close."""
    text = json.dumps(value, indent=2)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "json", text, fence]


def _html_table(frame: pd.DataFrame) -> str:
    """An escaped HTML table with the cells as :func:`_cell_text` shows them."""
    return frame.map(_cell_text).to_html(index=False, escape=True)


def stored_judgments(workspace: Workspace, policy: Policy) -> str:
    """Attach the workspace's judgment store as the dashboard does, and say what it adds.

    The count is what the evaluation uses: each annotator's latest grade of a chunk.
    """
    path = store_path(workspace)
    if not open_store(workspace):
        return f"none ({path.name} not found)"
    used = (
        workspace.cursor()
        .execute("SELECT count(*) FROM all_grades WHERE source = 'judge page'")
        .fetchone()[0]
    )
    if not policy.manual_grades:
        return f"0 used ({used} in {path.name}; the policy ignores reviewers' grades)"
    return f"{used} used from {path.name} (each annotator's latest grade of a chunk)"


OF_FILE = "sha256 of the file"
OF_CONFIG = "sha256 of the redacted config (JSON: keys sorted, no spaces, UTF-8)"


def input_hashes(workspace: Workspace) -> list[dict[str, str]]:
    """The sha256 of every input file, except that a run config is hashed as the redacted
    config this report shows, in canonical JSON: the hash of the file itself could be
    attacked offline to recover a weak password in it, and the redacted one can still be
    recomputed by anyone from the report."""
    configs = workspace.configs()
    run_of_config = {config_path_for(path): run for run, path in workspace.runs.items()}
    rows = []
    for role, path in workspace.input_files():
        run = run_of_config.get(path)
        if run is None:
            digest, of = sha256_of(path), OF_FILE
        else:
            digest, of = redacted_config_sha256(configs.get(run, {})), OF_CONFIG
        rows.append({"role": role, "path": redact_path(path), "sha256": digest, "hashed": of})
    return rows


def redacted_config_sha256(config: dict) -> str:
    canonical = json.dumps(config, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _hash_comment(row: dict[str, str]) -> str:
    """``sha256 <hash> <role> <path>``; a config's says what was hashed before its path."""
    of = "" if row["hashed"] == OF_FILE else f"({row['hashed']}) "
    return f"sha256 {row['sha256']} {row['role']} {of}{row['path']}"


def build_report(
    workspace: Workspace,
    k: int = 5,
    split: str | None = None,
    policy: Policy | None = None,
    rule: str = DEFAULT_RULE,
    *,
    verdicts: pd.DataFrame,
    view: ReportView | None = None,
) -> Report:
    """Everything the report shows, on the held-out split by default; pass and fail per
    query follow the pass ``rule``, which the header states. ``verdicts`` are the meeting's
    latest verdicts (:func:`ragrecall_core.analysis.verdicts.latest_verdicts`), every query's:
    the report lists those in its scope and counts the rest.

    With a dashboard ``view`` (the in-app report), its runs and query filters replace
    ``split``, so the report's numbers are the screen's; failing queries come first."""
    problems = cutoff_problems(k)
    if view is not None:
        problems += run_problems(workspace, [("--run", run) for run in view.runs])
    raise_if_any(problems)
    require_split(workspace, split if view is None else view.split or None)
    policy = policy or Policy()
    judgments = stored_judgments(workspace, policy)
    if view is None:
        chosen, scope = default_split(workspace, split)
        ids = query_ids(workspace, split=chosen)
    else:
        ids = view.query_ids(workspace)
        scope = view.describe(_count(workspace, "queries") if ids is None else len(ids))
    runs = [r for r in workspace.run_names if view is None or not view.runs or r in view.runs]
    measures = [m.format(k=k) for m in REPORT_MEASURES]
    evaluation = evaluate(workspace, measures, policy, runs=runs, query_ids=ids)
    table = query_table(workspace, k, policy, runs=runs, rule=rule)
    if ids is not None:
        table = table[table.query_id.isin(ids)]
    fails_in = failing_runs(table, runs)
    if view is not None and view.failing_only:
        table = filter_table(table, failing_only=True)
    per_query = pd.concat(
        [
            failing_first(display_frame(rows, k), fails_in).assign(run=run)
            for run, rows in table.groupby("run", sort=False)
        ]
        or [display_frame(table, k).assign(run=None)],
        ignore_index=True,
    )
    per_query = per_query[["run", *[c for c in per_query.columns if c != "run"]]]
    in_scope = verdicts if ids is None else verdicts[verdicts.query_id.isin(ids)]
    shown = in_scope[in_scope.run.isin(runs)]
    definitions = pd.DataFrame(
        [
            {"measure": m, "definition": parse_measure(m).definition.description}
            for m in dict.fromkeys([*measures, pass_measure(rule, k)])
        ]
    )
    return Report(
        k=k,
        scope=scope,
        policy=policy,
        aggregate=evaluation.aggregate,
        per_query=per_query,
        configs={r: c for r, c in workspace.configs().items() if r in runs},
        hashes=input_hashes(workspace),
        definitions=definitions,
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        stored_judgments=judgments,
        rule=rule,
        verdicts=shown,
        verdicts_elsewhere=len(verdicts) - len(shown),
        runs=tuple(runs),
        view=view,
        gold_judgments=_count(workspace, "qrels"),
        file_grades=_count(workspace, "grades"),
        notes=depth_notes(workspace, runs, ids, k, policy),
        warnings=filed_warnings(evaluation.warnings, k),
        no_answer=evaluation.no_answer,
        reviewed=evaluation.reviewed,
    )


def filed_warnings(warnings: dict[str, list[str]], k: int) -> dict[str, list[str]]:
    """Per run, what evaluate warns of but a cutoff past every list, which the report
    states once, as a note beside its k (:func:`depth_notes`); runs left with none dropped
    (redacted where evaluate makes them: collect_warnings)."""
    kept = {run: without_depth(texts, {k}) for run, texts in warnings.items()}
    return {run: texts for run, texts in kept.items() if texts}


def depth_notes(
    workspace: Workspace, runs: list[str], ids: list[str] | None, k: int, policy: Policy
) -> tuple[str, ...]:
    """A note per run none of whose lists (of the reported queries) reaches ``k``: its
    measures at k count only what it lists, as compare and the gate say too. Lists are
    counted in the ``policy``'s unit (documents under ``--unit doc``)."""
    depths, items = run_depths(workspace, runs, ids, policy), listed_items(policy)
    return tuple(
        f"k = {k} goes past every list of {run} (at most {depth} {items} per query): its "
        "measures at k count only those"
        for run, depth in depths.items()
        if depth < k
    )


def _count(workspace: Workspace, table: str) -> int:
    """Rows of one of the workspace's own tables (``table`` is a literal name, never input)."""
    return workspace.cursor().execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608


HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ragrecall report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; color: #1a1a1a; }}
table {{ border-collapse: collapse; font-size: 0.85rem; margin-bottom: 1.5rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left;
          vertical-align: top; }}
th {{ background: #f0f0f0; }}
pre {{ background: #f6f6f6; padding: 0.5rem; white-space: pre-wrap; }}
@media print {{ body {{ margin: 0.5cm; }} h2 {{ break-before: page; }}
               .plotly-graph-div {{ break-inside: avoid; }} }}
</style></head><body>
<h1>ragrecall retrieval report</h1>
<ul>{header}</ul>
<h2>Results (macro mean over queries)</h2>
{results}
{chart}
<h2>No-answer queries</h2>
{no_answer}
<h2>Warnings</h2>
{warnings}
<h2>Meeting verdicts</h2>
{verdicts}
<h2>Measure definitions</h2>
{definitions}
<h2>Run configs (secrets redacted)</h2>
{configs}
<h2>Input files</h2>
{hashes}
{per_query}
</body></html>
"""
