"""The module graph of jigcli has no cycle: a reader can follow every dependency one way.

Every import counts, also one inside a function or under `TYPE_CHECKING` (a deferred import
hides a cycle from Python, not from a reader), and importing a module counts as importing the
packages above it (Python runs their `__init__` first), except the importer's own packages,
which Python has entered already.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import jigcli

PACKAGE = Path(jigcli.__file__).parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imported_names(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` is or lives in (`jigcli.verify.context.VerifyContext` → the module)."""
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in modules else None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        entered = _packages_above(name)
        for imported in _imported_names(ast.parse(path.read_text(encoding="utf-8"))):
            target = _owner(imported, modules)
            if target is None or target == name:
                continue
            graph[name] |= ({target} | _packages_above(target)) - entered - {name}
    return graph


def _packages_above(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts))}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_jigcli_imports_itself_back() -> None:
    assert cycles(import_graph()) == []


def test_the_pipelines_see_only_the_verify_context() -> None:
    graph = import_graph()
    for pipeline in ("jigcli.lean.pipeline", "jigcli.certificates.pipeline"):
        verify_modules = {name for name in graph[pipeline] if name.startswith("jigcli.verify")}
        assert verify_modules == {"jigcli.verify", "jigcli.verify.context"}
    assert "jigcli.lean.pipeline" in graph["jigcli.verify.submission"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_a_deferred_import_counts() -> None:
    tree = ast.parse("def f():\n    from jigcli.verify.submission import verify\n")
    assert "jigcli.verify.submission" in set(_imported_names(tree))
