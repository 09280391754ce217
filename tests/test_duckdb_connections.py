"""Tests ran queries on duckdb's module-level connection (stop 49), which every test of an
xdist worker shares: a result one leaves open there fails another's query."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def module_connection_calls(path: Path) -> list[str]:
    """The calls in ``path`` that go through duckdb's module-level connection
    (``duckdb.sql(...)``, ``duckdb.execute(...)``: any lowercase function of the module but
    ``connect``), each as ``file:line``."""
    tree = ast.parse(path.read_text("utf-8"))
    return [
        f"{path.relative_to(TESTS)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "duckdb"
        and node.func.attr[:1].islower()
        and node.func.attr != "connect"
    ]


def test_no_test_uses_duckdb_s_module_level_connection():
    """That connection is the whole xdist worker's: a result one test leaves open on it
    fails another test's query ('connection has an unfinished result', 4254d3c). Each test
    opens a connection of its own."""
    found = [call for path in sorted(TESTS.rglob("*.py")) for call in module_connection_calls(path)]
    assert found == []
