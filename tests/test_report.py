"""The reproducible report (SPEC "What the user does with it", 8, and "Non-negotiables").

``ragrecall report WORKSPACE -o out.{html,md,csv}`` on the regressions fixture, whose
candidate config holds every kind of secret and whose query texts hold markup and
spreadsheet formulas.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re

import pandas as pd
import pytest
from fixtures_regressions import (
    APOSTROPHE_TEXT,
    CR_TEXT,
    FORMULA_STARTS,
    FORMULA_TEXT,
    HARMFUL_REASON,
    PIPE_TEXT,
    SCRIPT_TEXT,
    SECRET_VALUES,
    TEST_IDS,
    paths,
    write_workspace,
)
from helpers import HtmlCells

from ragrecall_core.cli import main
from ragrecall_core.inputs.configs import redact
from ragrecall_core.output.text import neutralise

FORMATS = ("html", "md", "csv")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_workspace(tmp_path_factory.mktemp("report") / "ws")


@pytest.fixture(scope="module")
def reports(folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    written = {}
    for fmt in FORMATS:
        path = out / f"report.{fmt}"
        assert main(["report", str(folder), "-o", str(path)]) == 0
        written[fmt] = path
    return written


def input_files(folder):
    files = [
        folder / "gold.jsonl",
        folder / "runs" / "baseline.jsonl",
        folder / "runs" / "candidate.jsonl",
        folder / "runs" / "baseline.config.json",
        folder / "runs" / "candidate.config.json",
        folder / "grades" / "anna.jsonl",
        folder / "corpus.jsonl",
    ]
    assert all(f.is_file() for f in files)
    return files


def comment_lines(text: str) -> list[str]:
    """The report.csv's ``#`` comments: the leading rows, each one cell on one line."""
    comments = []
    for line in text.split("\n"):
        cells = next(csv.reader([line]), [""])
        if len(cells) != 1 or not cells[0].startswith("#"):
            break
        comments.append(cells[0])
    return comments


def csv_frame(path) -> pd.DataFrame:
    text = path.read_bytes().decode("utf-8")  # no newline translation: read what was written
    header = len(comment_lines(text))
    return pd.read_csv(io.StringIO(text), skiprows=header, comment=None, keep_default_na=False)


def test_each_format_is_written(reports, capsys):
    for fmt in FORMATS:
        assert reports[fmt].is_file() and reports[fmt].stat().st_size > 0, fmt


def test_the_cli_says_where_and_on_which_queries(folder, tmp_path, capsys):
    out = tmp_path / "r.md"
    assert main(["report", str(folder), "-o", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"report written to {out} (split 'test' (the held-out split, used by default))\n"
    )


def test_an_unknown_extension_is_invalid_input(folder, tmp_path, capsys):
    assert main(["report", str(folder), "-o", str(tmp_path / "r.pdf")]) == 2
    assert "r.pdf" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()


def expected_sha256(path) -> str:
    """A data file's own sha256; for a run config, the sha256 of the redacted config as
    canonical JSON (keys sorted, no spaces, UTF-8): the raw file's hash could be attacked
    offline to recover a weak password it holds."""
    if not path.name.endswith(".config.json"):
        return hashlib.sha256(path.read_bytes()).hexdigest()
    redacted = redact(json.loads(path.read_text("utf-8")))
    canonical = json.dumps(redacted, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_input_file_sha256_is_printed_and_correct(folder, reports, fmt):
    text = reports[fmt].read_text("utf-8")
    for path in input_files(folder):
        assert expected_sha256(path) in text, (fmt, path.name)
    assert "sha256 of the redacted config" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_raw_config_file_hash_is_printed(folder, reports, fmt):
    text = reports[fmt].read_text("utf-8")
    for config in (folder / "runs").glob("*.config.json"):
        assert hashlib.sha256(config.read_bytes()).hexdigest() not in text, (fmt, config.name)
        assert expected_sha256(config) != hashlib.sha256(config.read_bytes()).hexdigest()


def test_csv_hash_lines_pair_each_path_with_its_own_hash(folder, reports):
    lines = [
        line
        for line in comment_lines(reports["csv"].read_text("utf-8"))
        if line.startswith("# sha256 ")
    ]
    printed = {}
    for line in lines:
        digest, rest = line[len("# sha256 ") :].split(" ", 1)
        printed[rest.rsplit(" ", 1)[-1]] = digest
    assert printed == {str(p): expected_sha256(p) for p in input_files(folder)}


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_secret_appears_in_any_report(reports, fmt):
    text = reports[fmt].read_text("utf-8")
    assert [s for s in SECRET_VALUES if s in text] == []
    assert "[redacted]" in text  # the config is shown, redacted
    assert "bge-reranker-base" in text  # and its other values are kept


def test_no_secret_appears_in_compare_check_or_evaluate_output(folder, capsys):
    p = paths(folder)
    gold, base, cand = str(p["gold"]), str(p["baseline"]), str(p["candidate"])
    commands = [
        ["compare", gold, base, cand, "--format", "json"],
        ["compare", gold, base, cand],
        ["check", gold, cand, "--baseline", base, "--require", "Recall@5>=0", "--format", "json"],
        ["check", gold, cand, "--baseline", base, "--require", "Recall@5>=0"],
        ["evaluate", gold, base, cand, "--format", "json", "--per-query"],
        ["evaluate", gold, base, cand],
    ]
    for argv in commands:
        code = main(argv)
        captured = capsys.readouterr()
        assert code in (0, 1), argv
        leaked = [s for s in SECRET_VALUES if s in captured.out + captured.err]
        assert leaked == [], argv


def test_html_is_self_contained(reports):
    text = reports["html"].read_text("utf-8")
    assert re.findall(r"<script[^>]*\bsrc\s*=", text, flags=re.I) == []
    assert re.findall(r"<link[^>]*\bhref\s*=\s*[\"']?(https?:)?//", text, flags=re.I) == []
    assert "plotly.js v" in text or "Plotly" in text  # the bundle itself, inline
    assert len(text) > 1_000_000  # plotly.min.js alone is several megabytes
    assert 'class="plotly-graph-div"' in text


def test_html_charts_cannot_send_their_data_to_plotly_cloud(reports):
    # plotly.js 4 shows a "Share chart..." button by default that uploads the chart's data
    # (query text, run names) to cloud.plotly.com; a report never offers it
    text = reports["html"].read_text("utf-8")
    configs = re.findall(r"Plotly\.newPlot\([^;]*?(\{\s*\"displaylogo\".*?\})\s*\)", text, re.S)
    assert configs
    for config in configs:
        assert json.loads(config)["showSendToCloud"] is False


def test_html_escapes_query_text(reports):
    text = reports["html"].read_text("utf-8")
    assert SCRIPT_TEXT not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_html_per_query_tables_cover_the_test_split_only(reports):
    text = reports["html"].read_text("utf-8")
    assert "Per query: baseline" in text and "Per query: candidate" in text
    assert "how to rotate keys" not in text  # d01 is in the dev split


def csv_queries(path) -> dict[str, str]:
    frame = csv_frame(path)
    return dict(zip(frame.query_id + "/" + frame.run, frame["query"], strict=True))


def test_csv_neutralises_a_hyperlink_formula(reports):
    queries = csv_queries(reports["csv"])
    assert queries["t05/candidate"] == '\'=HYPERLINK("http://x")'
    assert queries["t05/baseline"] == "'" + FORMULA_TEXT


@pytest.mark.parametrize("qid", sorted(FORMULA_STARTS))
def test_csv_neutralises_every_formula_start(reports, qid):
    queries = csv_queries(reports["csv"])
    for run in ("baseline", "candidate"):
        assert queries[f"{qid}/{run}"] == "'" + FORMULA_STARTS[qid], run


def test_csv_keeps_text_that_is_no_formula(reports):
    queries = csv_queries(reports["csv"])
    assert queries["t04/candidate"] == SCRIPT_TEXT  # CSV is data: no HTML escaping
    assert queries["t06/candidate"] == PIPE_TEXT
    assert queries["t09/candidate"] == APOSTROPHE_TEXT


@pytest.fixture(scope="module")
def cr_reports(tmp_path_factory):
    """The fixture with t08's text starting with a carriage return, as CSV and Markdown."""
    root = tmp_path_factory.mktemp("cr")
    folder = write_workspace(root / "ws", query_texts={"t08": CR_TEXT})
    written = {}
    for fmt in ("csv", "md"):
        written[fmt] = root / f"report.{fmt}"
        assert main(["report", str(folder), "-o", str(written[fmt])]) == 0
    return written


def test_csv_neutralises_a_carriage_return_start_and_keeps_the_row_whole(cr_reports):
    # a bare CR is a line break to Excel, pandas and Python's csv module alike: the cell
    # must be quoted (or the CR removed), else the row splits in two
    frame = csv_frame(cr_reports["csv"])
    assert len(frame) == 2 * len(TEST_IDS)
    queries = dict(zip(frame.query_id + "/" + frame.run, frame["query"], strict=True))
    assert queries["t08/candidate"] == "'" + CR_TEXT


def test_markdown_keeps_a_carriage_return_inside_its_cell(cr_reports):
    # CommonMark ends a line at a bare CR, so an unescaped CR splits the table row
    text = cr_reports["md"].read_bytes().decode("utf-8")
    lines = text.splitlines()  # splits at \r as a Markdown reader does
    header = next(line for line in lines if line.startswith("| status |"))
    pipes = len(re.findall(r"(?<!\\)\|", header))  # 14 columns -> 15 pipes
    rows = [line for line in lines if "| t08 |" in line]
    assert len(rows) == 2, rows  # one per run
    assert [len(re.findall(r"(?<!\\)\|", row)) for row in rows] == [pipes, pipes], rows


def test_csv_neutralises_reviewer_reasons(reports):
    frame = csv_frame(reports["csv"])
    row = frame[(frame.run == "candidate") & (frame.query_id == "t01")].iloc[0]
    assert row["reviewer reason"] == "'" + HARMFUL_REASON


def test_csv_rows_cover_the_test_split_for_both_runs(reports):
    frame = csv_frame(reports["csv"])
    assert sorted(frame.query_id.unique()) == list(TEST_IDS)
    assert sorted(frame.run.unique()) == ["baseline", "candidate"]
    assert len(frame) == 2 * len(TEST_IDS)
    recall = frame.set_index(["run", "query_id"])["Recall@5"]
    assert float(recall["candidate", "t01"]) == 0.0  # a regression
    assert float(recall["baseline", "t01"]) == 1.0


def test_csv_header_states_k_policy_and_version(reports):
    header = comment_lines(reports["csv"].read_text("utf-8"))
    joined = "\n".join(header)
    assert "# k: 5" in joined
    assert "# tool: ragrecall " in joined
    assert "# policy: ragrecall averaging" in joined
    configs = [line for line in header if line.startswith("# config candidate: ")]
    config = json.loads(configs[0][len("# config candidate: ") :])
    assert config["api_key"] == "[redacted]" and config["top_k"] == 10


def test_markdown_escapes_pipes_and_markup(reports):
    text = reports["md"].read_bytes().decode("utf-8")
    assert PIPE_TEXT.replace("|", "\\|") in text
    # markup is backslash-escaped: no bare "<script" a Markdown reader would pass on as HTML
    assert SCRIPT_TEXT not in text and re.search(r"(?<!\\)<script", text) is None
    # every row of a table has as many unescaped pipes as the table's header row
    blocks, block = [], []
    for line in text.split("\n") + [""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    assert len(blocks) >= 5  # results, definitions, input files, two per-query tables
    for rows in blocks:
        counts = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(counts) == 1, rows[0]


def test_markdown_states_definitions_policy_and_configs(reports):
    text = reports["md"].read_text("utf-8")
    assert "## Measure definitions" in text
    assert "Harm@5" in text and "Judged@5" in text
    assert "**policy**: ragrecall averaging" in text
    assert "### candidate" in text and '"reranker": "bge-reranker-base"' in text


@pytest.mark.parametrize(
    "value, expected",
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("ok", "ok"),
        ("", ""),
        (-0.5, -0.5),
        (None, None),
    ],
)
def test_neutralise(value, expected):
    assert neutralise(value) == expected


@pytest.fixture(scope="module")
def rendered_md_queries(reports) -> dict[str, str]:
    """query_id -> the query cell as a reader sees the Markdown (GFM tables, CommonMark)."""
    from markdown_it import MarkdownIt  # installed with streamlit (via rich)

    html_text = MarkdownIt("commonmark").enable("table").render(reports["md"].read_text("utf-8"))
    parser = HtmlCells()
    parser.feed(html_text)
    cells = {}
    for row in parser.rows:
        if len(row) > 2 and re.fullmatch(r"[td]\d\d", row[1]):
            cells[row[1]] = row[2]
    return cells


@pytest.mark.parametrize(
    "qid, text",
    [
        ("t04", SCRIPT_TEXT),
        ("t05", FORMULA_TEXT),
        ("t06", PIPE_TEXT),
        ("t01", FORMULA_STARTS["t01"]),
        ("t09", APOSTROPHE_TEXT),
    ],
)
def test_markdown_renders_query_text_exactly_as_written(rendered_md_queries, qid, text):
    assert rendered_md_queries[qid] == text
