"""The release gate's result for CI: a Markdown job summary and JUnit XML.

Run names, query ids and requirement texts come from files and options, so they are
untrusted: each goes through :func:`one_line` (a control, bidi or line-separator
character shown as its escape, as in every text output), then in Markdown through
:func:`md_literal` (shown as written, never as a link, image or HTML) and in XML through
ElementTree (which escapes markup; XML 1.0 cannot hold most control characters at all,
even escaped, and a CI system refuses a report that holds one).

Both also carry evaluate's warnings of the runs the gate read (check's ``warnings``: ties
across a cutoff, a run read backwards, queries the gold set lacks), redacted first as every
output of a warning is (:func:`warning_texts`): a warning quotes ids from files.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Protocol

from ragrecall_core.errors import one_line
from ragrecall_core.output.literal import md_literal
from ragrecall_core.output.text import MISSING, cell_text

# run -> evaluate's warnings of it, as check computes them for stderr and JSON
Warnings = Mapping[str, Sequence[str]]


class GateResult(Protocol):
    """What the summaries read of :class:`ragrecall_core.analysis.gate.GateResult`, named
    here because gate.py imports this module (for ``to_markdown`` / ``to_junit``)."""

    run: str
    scope: str
    checks: Sequence[dict]
    baseline: str | None
    regressions: Sequence[str]
    max_regressions: int | None
    rule_line: str
    coverage: Sequence[dict]
    notes: Sequence[str]

    @property
    def budget_exceeded(self) -> bool: ...

    @property
    def passed(self) -> bool: ...


def coverage_line(entry: dict) -> str:
    """One run's coverage of the gold set, as every format states it."""
    count = entry["missing"]
    noun = "gold query" if count == 1 else "gold queries"
    allowed = " (allowed)" if count and entry["ok"] else ""
    named = f": {', '.join(entry['examples'])}" if entry["examples"] else ""
    return f"coverage of {entry['run']}: {count} {noun} missing or empty{allowed}{named}"


def value_text(check: dict) -> str:
    """A requirement's value as every format shows it: to 4 decimals, unless that reads as
    its threshold while the value is not it (0.79996 shown as 0.8000 beside a FAIL of
    ">=0.8"): then to 10 significant digits, where a float sum's error no longer shows.
    A missing value says why."""
    value, threshold = check["value"], check.get("threshold")
    if value is None or math.isnan(value):  # e.g. Recall on no-answer queries only
        return f"{MISSING} (no query in scope has a value for it: the requirement fails)"
    shown = cell_text(value)
    if threshold is None or shown != cell_text(threshold):
        return shown
    full = f"{value:.10g}"
    return shown if full == f"{threshold:.10g}" else full


def md(text) -> str:
    """File text for the Markdown summary: escaped as in every text output, then as Markdown."""
    return md_literal(one_line(text))


def warning_texts(warnings: Warnings | None) -> list[str]:
    """Each warning as ``RUN: text`` (the text redacted where evaluate makes it,
    collect_warnings), not yet escaped: each format escapes as it writes.

    >>> warning_texts({"bm25": ["2 queries have tied scores at ranks 5 and 6"], "e5": []})
    ['bm25: 2 queries have tied scores at ranks 5 and 6']
    """
    return [f"{run}: {text}" for run, texts in (warnings or {}).items() for text in texts]


def regression_line(result: GateResult) -> str:
    allowed = "" if result.max_regressions is None else f" (allowed: {result.max_regressions})"
    return f"regressions against {result.baseline}: {len(result.regressions)}{allowed}"


def gate_markdown(result: GateResult, warnings: Warnings | None = None) -> str:
    """A job summary: verdict, one table row per requirement, the regressed queries, then
    evaluate's ``warnings`` of the runs read (none: no section)."""
    verdict = "PASSED" if result.passed else "FAILED"
    lines = [
        f"## Release gate: {verdict}",
        "",
        f"Run {md(result.run)} on {md(result.scope)}.",
        "",
    ]
    if result.checks:
        lines += ["| requirement | value | result |", "|---|---:|---|"]
        for check in result.checks:
            outcome = "pass" if check["ok"] else "**FAIL**"
            lines.append(f"| {md(check['requirement'])} | {md(value_text(check))} | {outcome} |")
        lines.append("")
    for entry in result.coverage:
        outcome = "pass" if entry["ok"] else "**FAIL**"
        lines += [f"{md(coverage_line(entry))}: {outcome}", ""]
    if result.baseline is not None:
        outcome = "**FAIL**" if result.budget_exceeded else "pass"
        lines += [f"{md(regression_line(result))}: {outcome}", ""]
        if result.rule_line:
            lines += [md(result.rule_line), ""]
        lines += [f"- {md(query_id)}" for query_id in result.regressions]
        if result.regressions:
            lines.append("")
    for note in result.notes:
        lines += [f"Note: {md(note)}", ""]
    said = warning_texts(warnings)
    if said:
        lines += ["### Warnings", "", *(f"- {md(text)}" for text in said), ""]
    return "\n".join(lines)


def xml_text(text) -> str:
    return one_line(text)


def gate_junit(result: GateResult, warnings: Warnings | None = None) -> str:
    """JUnit XML: one test case per requirement, one per run that lacks gold queries (a
    failure unless allowed), one for the regression budget, and one per regressed query (a
    failure only when the regressions exceed the budget). Evaluate's ``warnings`` are the
    suite's ``<system-err>``, one ``warning: RUN: text`` line each, as check's stderr says
    them: no test case (they change no verdict, so no count), and a suite log is what
    GitHub's publish-unit-test-result-action shows (``report_suite_logs``); GitLab's
    test report reads neither suite logs nor properties."""
    suite = ET.Element("testsuite", name=xml_text(f"ragrecall check: {result.run}"))
    for check in result.checks:
        case = ET.SubElement(
            suite,
            "testcase",
            classname="ragrecall.requirement",
            name=xml_text(check["requirement"]),
        )
        value = f"{check['measure']} = {value_text(check)}"
        if not check["ok"]:
            failure = ET.SubElement(case, "failure", message=xml_text(value), type="requirement")
            failure.text = xml_text(f"{check['requirement']} does not hold: {value}")
        ET.SubElement(case, "system-out").text = xml_text(value)
    for entry in (e for e in result.coverage if e["missing"]):
        case = ET.SubElement(
            suite,
            "testcase",
            classname="ragrecall.coverage",
            name=xml_text(f"coverage of {entry['run']}"),
        )
        line = xml_text(coverage_line(entry))
        if not entry["ok"]:
            ET.SubElement(case, "failure", message=line, type="coverage")
        ET.SubElement(case, "system-out").text = line
    if result.baseline is not None:
        exceeded = result.budget_exceeded
        case = ET.SubElement(
            suite, "testcase", classname="ragrecall.regressions", name="regression budget"
        )
        if exceeded:
            ET.SubElement(case, "failure", message=xml_text(regression_line(result)))
        explained = f"{regression_line(result)}. {result.rule_line}".rstrip(". ")
        ET.SubElement(case, "system-out").text = xml_text(explained)
        for query_id in result.regressions:
            case = ET.SubElement(
                suite, "testcase", classname="ragrecall.regressed", name=xml_text(query_id)
            )
            message = f"passed in {result.baseline}, fails in {result.run}"
            if exceeded:
                ET.SubElement(case, "failure", message=xml_text(message), type="regression")
            else:
                ET.SubElement(case, "system-out").text = xml_text(message + " (within budget)")
    if result.notes:
        notes = "\n".join(f"note: {xml_text(note)}" for note in result.notes)
        ET.SubElement(suite, "system-out").text = notes
    said = warning_texts(warnings)
    if said:
        ET.SubElement(suite, "system-err").text = "\n".join(
            f"warning: {xml_text(text)}" for text in said
        )
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", "0")
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
