"""The reproducible report (seed 000's "minimal readiness"): per-query table, run configs,
k, measure definitions and policy, tool version and the sha256 of every input, so that
another person can recompute every number without secrets.

Rendered as one self-contained HTML file (plots embedded, prints cleanly), Markdown or
CSV, chosen by the output file's extension.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from . import __version__
from .errors import InputError, Problem
from .evaluate import evaluate
from .measures import parse_measure
from .policy import Policy
from .query_table import display_frame, query_table
from .selection import default_split, query_ids
from .workspace import Workspace

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
REPORT_MEASURES = (
    "Recall@{k}",
    "Hit@{k}",
    "MRR@{k}",
    "P@{k}",
    "nDCG@{k}",
    "Judged@{k}",
    "Harm@{k}",
)


def neutralise(value):
    """Prefix a cell a spreadsheet would run as a formula with ``'``.

    >>> neutralise("=HYPERLINK(1)"), neutralise(-0.5), neutralise("ok")
    ("'=HYPERLINK(1)", -0.5, 'ok')
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


RENDERERS = {".html": "to_html", ".htm": "to_html", ".md": "to_markdown", ".csv": "to_csv"}


def output_suffix(path: Path) -> str:
    """The report format a file name asks for; an input error for any other ending."""
    suffix = Path(path).suffix.lower()
    if suffix not in RENDERERS:
        raise InputError([Problem("-o", None, str(path), "a file ending in .html, .md or .csv")])
    return suffix


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

    def header(self) -> dict:
        return {
            "tool": f"ragrecall {__version__}",
            "generated": self.generated,
            "k": self.k,
            "queries": self.scope,
            "policy": self.policy.describe(),
        }

    def to_markdown(self) -> str:
        parts = ["# ragrecall retrieval report", ""]
        parts += [f"- **{key}**: {value}" for key, value in self.header().items()]
        parts += ["", "## Results (macro mean over queries)", "", _md(self.aggregate_table())]
        parts += ["", "## Measure definitions", "", _md(self.definitions)]
        parts += ["", "## Run configs (secrets redacted)", ""]
        for run, config in self.configs.items():
            parts += [f"### {run}", "", "```json", json.dumps(config, indent=2), "```", ""]
        parts += ["## Input files", "", _md(pd.DataFrame(self.hashes)), ""]
        for run, rows in self.per_query.groupby("run", sort=False):
            parts += [f"## Per query: {run}", "", _md(rows.drop(columns="run")), ""]
        return "\n".join(parts)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        for key, value in self.header().items():
            buffer.write(f"# {key}: {value}\n")
        for item in self.hashes:
            buffer.write(f"# sha256 {item['sha256']} {item['role']} {item['path']}\n")
        for run, config in self.configs.items():
            buffer.write(f"# config {run}: {json.dumps(config)}\n")
        self.per_query.map(neutralise).to_csv(
            buffer, index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC
        )
        return buffer.getvalue()

    def to_html(self) -> str:
        chart = self.chart().to_html(
            full_html=False, include_plotlyjs=True, config={"displaylogo": False}
        )
        configs = "".join(
            f"<h3>{html.escape(run)}</h3><pre>{html.escape(json.dumps(cfg, indent=2))}</pre>"
            for run, cfg in self.configs.items()
        )
        per_query = "".join(
            f"<h2>Per query: {html.escape(str(run))}</h2>"
            + rows.drop(columns="run").to_html(
                index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.4f}"
            )
            for run, rows in self.per_query.groupby("run", sort=False)
        )
        header = "".join(
            f"<li><b>{html.escape(k)}</b>: {html.escape(str(v))}</li>"
            for k, v in self.header().items()
        )
        return HTML.format(
            header=header,
            chart=chart,
            results=self.aggregate_table().to_html(
                index=False, escape=True, float_format=lambda v: f"{v:.4f}"
            ),
            definitions=self.definitions.to_html(index=False, escape=True),
            configs=configs,
            hashes=pd.DataFrame(self.hashes).to_html(index=False, escape=True),
            per_query=per_query,
        )

    def aggregate_table(self) -> pd.DataFrame:
        table = self.aggregate.pivot(index="run", columns="measure", values="value")
        order = list(dict.fromkeys(self.aggregate.measure))
        return table[order].reset_index()

    def chart(self) -> go.Figure:
        figure = go.Figure()
        for run, rows in self.aggregate.groupby("run", sort=False):
            figure.add_bar(name=str(run), x=rows.measure, y=rows.value)
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


MARKDOWN_SPECIALS = "\\`*_[]()#<>&|~!"


def _md(frame: pd.DataFrame) -> str:
    """A Markdown table whose cells show their text as written: every character Markdown
    would read as markup (or HTML) is backslash-escaped, line breaks become spaces."""

    def cell(value) -> str:
        if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
            return ""
        if isinstance(value, float):
            return f"{value:.4f}"
        text = re.sub(r"\r\n|\r|\n", " ", str(value))
        return "".join("\\" + ch if ch in MARKDOWN_SPECIALS else ch for ch in text)

    lines = [
        "| " + " | ".join(cell(c) for c in frame.columns) + " |",
        "|" + "---|" * len(frame.columns),
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join(lines)


def build_report(
    workspace: Workspace, k: int = 5, split: str | None = None, policy: Policy | None = None
) -> Report:
    """Everything the report shows, on the held-out split by default."""
    policy = policy or Policy()
    chosen, scope = default_split(workspace, split)
    ids = query_ids(workspace, split=chosen)
    measures = [m.format(k=k) for m in REPORT_MEASURES]
    evaluation = evaluate(workspace, measures, policy, query_ids=ids)
    table = query_table(workspace, k, policy)
    if ids is not None:
        table = table[table.query_id.isin(ids)]
    per_query = pd.concat(
        [display_frame(rows, k).assign(run=run) for run, rows in table.groupby("run", sort=False)],
        ignore_index=True,
    )
    per_query = per_query[["run", *[c for c in per_query.columns if c != "run"]]]
    definitions = pd.DataFrame(
        [{"measure": m, "definition": parse_measure(m).definition.description} for m in measures]
    )
    return Report(
        k=k,
        scope=scope,
        policy=policy,
        aggregate=evaluation.aggregate,
        per_query=per_query,
        configs=workspace.configs(),
        hashes=workspace.file_hashes(),
        definitions=definitions,
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


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
<h2>Measure definitions</h2>
{definitions}
<h2>Run configs (secrets redacted)</h2>
{configs}
<h2>Input files</h2>
{hashes}
{per_query}
</body></html>
"""
