"""The packages import in one direction only: no cycles, nothing upward (CONTRIBUTING.md).

Every import counts: at module top, inside a function and under ``TYPE_CHECKING``. A cycle
hidden in a function body is still a cycle a reader has to hold in their head, and a type
import under ``TYPE_CHECKING`` still says which module depends on which.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ragrecall_core", "ragrecall", "ragrecall_app")

# CONTRIBUTING.md's layer map, lowest first. A module may import its own layer or a lower one.
LAYERS = [
    ("errors", ["ragrecall_core.errors", "ragrecall_core.version"]),
    # plain-text formatting and escaping that every layer uses to phrase what it says
    ("text", ["ragrecall_core.output.text", "ragrecall_core.output.literal"]),
    ("inputs", ["ragrecall_core.inputs"]),
    ("measures", ["ragrecall_core.measures"]),
    ("scoring", ["ragrecall_core.scoring"]),
    ("analysis", ["ragrecall_core.analysis"]),
    ("output", ["ragrecall_core.output"]),
    ("views", ["ragrecall_core.views"]),
    # the public API (``ragrecall_core``'s and ``ragrecall``'s package files) and the command
    ("api", ["ragrecall_core", "ragrecall", "ragrecall_core.cli", "ragrecall_core.__main__"]),
    ("app", ["ragrecall_app"]),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` names, or its closest enclosing module; None if external."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imported_names(module: str, path: Path) -> list[tuple[str, int]]:
    """Every (dotted name, line) the file imports, wherever the import statement sits."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from pkg import mod`` imports the module pkg.mod when there is one
            names += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return names


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported project module: first line}, self-imports left out."""
    modules = sources()
    graph: dict[str, dict[str, int]] = {m: {} for m in modules}
    for module, path in modules.items():
        for name, line in imported_names(module, path):
            target = resolve(name, modules)
            if target is not None and target != module:
                graph[module].setdefault(target, line)
    return graph


def layer_of(module: str) -> int:
    best, rank = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank is not None, f"{module} is in no layer of CONTRIBUTING.md's map"
    return rank


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The shortest cycle through each module of each strongly connected component (Tarjan),
    each once, as a chain closing on its start: one tangle can hold several cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found = []
    for component in components:
        for start in sorted(component):
            loop = chain(graph, set(component), start)
            turn = loop.index(min(loop[:-1]))
            loop = loop[turn:-1] + loop[:turn] + [loop[turn]]  # each cycle once, from its least
            if loop not in found:
                found.append(loop)
    return found


def chain(graph: dict[str, dict[str, int]], component: set[str], start: str) -> list[str]:
    """A shortest path from ``start`` back to itself within its component, as a chain."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return paths[node] + [start]
                if nxt in component and nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start}")


def test_the_walk_sees_imports_in_functions_and_under_type_checking(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ragrecall_core.scoring import evaluate\n"
        "def f():\n    from ..analysis import gate\n    import ragrecall_core.errors\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source, "utf-8")
    names = {n for n, _ in imported_names("ragrecall_core.output.text", path)}
    modules = sources()
    assert {resolve(n, modules) for n in names} >= {
        "ragrecall_core.scoring.evaluate",
        "ragrecall_core.analysis.gate",
        "ragrecall_core.errors",
    }


def test_the_cycle_finder_reports_a_chain():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(graph) == [["a", "b", "c", "a"]]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_every_module_is_in_a_layer():
    for module in import_graph():
        layer_of(module)


def test_no_module_imports_a_later_layer():
    graph = import_graph()
    upward = [
        f"{sources()[m].relative_to(ROOT)}:{line}: {m} ({LAYERS[layer_of(m)][0]}) imports "
        f"{target} ({LAYERS[layer_of(target)][0]})"
        for m, targets in sorted(graph.items())
        for target, line in sorted(targets.items())
        if layer_of(target) > layer_of(m)
    ]
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_the_longest_prefix_names_the_layer():
    order = [
        "ragrecall_core.version",
        "ragrecall_core.output.text",
        "ragrecall_core.inputs.store",
        "ragrecall_core.measures.sql",
        "ragrecall_core.scoring.evaluate",
        "ragrecall_core.analysis.verdicts",
        "ragrecall_core.output.report",
        "ragrecall_core.views.overview",
        "ragrecall_core.cli",
        "ragrecall_app.context",
    ]
    assert [layer_of(m) for m in order] == sorted(layer_of(m) for m in order)
    assert layer_of("ragrecall_core.output.report") > layer_of("ragrecall_core.analysis.verdicts")
