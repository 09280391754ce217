"""The MiniLM judge's shipped grades of data_samples (``grades/judge-minilm.jsonl``) against
anna and boris: ``ragrecall agreement`` prints the figures, and each equals the value
recomputed here from the shipped files by its definition, in plain Python (no ragrecall, no
numpy, no scipy). The README states the same figures. No torch needed."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

from tests.samples import samples_copy, shared_samples
from tests.test_capture import run_cli_in

SAMPLES = shared_samples()
JUDGE = "judge:minilm"
RESOLVED = "humans (resolved)"
DEPTH = 10  # the calibration's default: each run's top 10 for the run ranking


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def graded(name: str) -> dict[tuple[str, str], int]:
    return {(r["query_id"], r["chunk_id"]): r["grade"] for r in lines(SAMPLES / "grades" / name)}


def resolved(anna: dict, boris: dict) -> dict[tuple[str, str], int]:
    """The humans' grade where those who graded the pair agree (data_samples has no
    resolutions)."""
    out = {}
    for pair in anna.keys() | boris.keys():
        grades = {g[pair] for g in (anna, boris) if pair in g}
        if len(grades) == 1:
            out[pair] = grades.pop()
    return out


def kappa(a: list[int], b: list[int], linear: bool = False) -> float:
    """Cohen's kappa by its definition: (p_o - p_e) / (1 - p_e), agreement weighted by
    1 - |i - j| / 2 when linear (else 1 for i == j, 0 otherwise); p_e from the marginals."""
    n = len(a)

    def weight(i: int, j: int) -> float:
        return 1 - abs(i - j) / 2 if linear else float(i == j)

    observed = sum(weight(i, j) for i, j in zip(a, b, strict=True)) / n
    share_a = {g: a.count(g) / n for g in (0, 1, 2)}
    share_b = {g: b.count(g) / n for g in (0, 1, 2)}
    expected = sum(weight(i, j) * share_a[i] * share_b[j] for i in (0, 1, 2) for j in (0, 1, 2))
    return (observed - expected) / (1 - expected)


def tau_b(x: list, y: list) -> float:
    """Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties in x)(n0 - ties in y))."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        ties_x += dx == 0
        ties_y += dy == 0
        if dx * dy > 0:
            concordant += 1
        elif dx * dy < 0:
            discordant += 1
    n0 = len(x) * (len(x) - 1) // 2
    return (concordant - discordant) / math.sqrt((n0 - ties_x) * (n0 - ties_y))


def top_pairs() -> dict[str, set[tuple[str, str]]]:
    """Each run's (query, chunk) pairs at rank <= DEPTH."""
    out = {}
    for path in sorted((SAMPLES / "runs").glob("*.jsonl")):
        out[path.stem] = {
            (row["id"], item["chunk_id"])
            for row in lines(path)
            for item in row["retrieved"]
            if item["rank"] <= DEPTH
        }
    return out


def expected_figures(judge: dict, reference: dict) -> dict:
    both = sorted(judge.keys() & reference.keys())
    j = [judge[p] for p in both]
    r = [reference[p] for p in both]
    hits = sum(1 for a, b in zip(j, r, strict=True) if a >= 1 and b >= 1)
    by_judge, by_reference = [], []
    for pairs in top_pairs().values():
        listed = [p for p in both if p in pairs]
        by_judge.append(Fraction(sum(judge[p] >= 1 for p in listed), len(listed)))
        by_reference.append(Fraction(sum(reference[p] >= 1 for p in listed), len(listed)))
    return {
        "pairs": len(both),
        "kappa": kappa(j, r),
        "kappa_linear": kappa(j, r, linear=True),
        "precision": hits / sum(g >= 1 for g in j),
        "precision_pairs": sum(g >= 1 for g in j),
        "recall": hits / sum(g >= 1 for g in r),
        "recall_pairs": sum(g >= 1 for g in r),
        "tau": tau_b(by_judge, by_reference),
        "runs": len(by_judge),
    }


@pytest.fixture(scope="module")
def expected() -> dict[str, dict]:
    anna, boris = graded("anna.jsonl"), graded("boris.jsonl")
    judge = graded("judge-minilm.jsonl")
    references = {"anna": anna, "boris": boris, RESOLVED: resolved(anna, boris)}
    return {name: expected_figures(judge, ref) for name, ref in references.items()}


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    """data_samples' files in a fresh folder: no judgment store a local session wrote."""
    folder = tmp_path_factory.mktemp("minilm") / "data_samples"
    samples_copy(folder)
    return folder


def test_the_shipped_judge_file_grades_the_pairs_anna_and_boris_graded(expected):
    assert expected["anna"]["pairs"] == expected["boris"]["pairs"] == 578
    assert expected[RESOLVED]["pairs"] == 578 - 51  # the 51 rows anna and boris disagree on


def test_agreement_json_gives_the_figures_recomputed_by_hand(samples, expected):
    code, out, err = run_cli_in(samples, ["agreement", samples, "--format", "json"])
    assert code == 0, err
    rows = {row["reference"]: row for row in json.loads(out)["judges"]["judges"]}
    assert set(rows) == set(expected) and {row["judge"] for row in rows.values()} == {JUDGE}
    for reference, figures in expected.items():
        got = {key: rows[reference][key] for key in figures}
        assert got == pytest.approx(figures, abs=1e-12), reference
        assert rows[reference]["small_sample"] is False


def shown(figures: dict) -> list[str]:
    """The row's figures as the table prints them (3 decimals)."""
    keys = ["pairs", "kappa", "kappa_linear", "precision", "precision_pairs", "recall"]
    keys += ["recall_pairs", "tau", "runs"]
    return [str(figures[k]) if isinstance(figures[k], int) else f"{figures[k]:.3f}" for k in keys]


def test_agreement_prints_the_judge_against_anna_and_boris(samples, expected):
    code, out, err = run_cli_in(samples, ["agreement", samples])
    assert code == 0, err
    table = out.split("judges against the humans")[1]
    for reference in ("anna", "boris", RESOLVED):
        row = next(
            line for line in table.splitlines() if line.split()[:1] == [JUDGE] and reference in line
        )
        assert row.split()[-9:] == shown(expected[reference]), reference


def test_the_readme_states_the_measured_figures(expected):
    readme = (SAMPLES / "README.md").read_text("utf-8")
    for reference in ("anna", "boris", RESOLVED):
        row = "| " + " | ".join([reference, *shown(expected[reference])]) + " |"
        assert row in readme, row
    assert "ragrecall agreement data_samples" in readme
