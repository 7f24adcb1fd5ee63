"""The package's shape: no import cycles (imports inside functions and TYPE_CHECKING blocks
counted), SQL only in the store, the engine free of Textual, each of the paper's parts in a
folder of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rlgpt_tui"


def module_name(path: Path) -> str:
    parts = path.with_suffix("").relative_to(PACKAGE.parent).parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for path in PACKAGE.rglob("*.py")
        if "assets" not in path.relative_to(PACKAGE).parts
    }


def imported(name: str, path: Path, tree: ast.AST) -> set[str]:
    """Every module ``name`` imports anywhere in its file (lazy imports too)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph = {}
    for name, path in mods.items():
        targets = imported(name, path, ast.parse(path.read_text()))
        graph[name] = {t for t in targets if t in mods and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                component.append(top)
            if component:
                found.append(sorted([node, *component]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


@pytest.mark.parametrize(
    ("outside", "forbidden", "allowed_in"),
    [
        ("rlgpt_tui", {"sqlite3", "sqlite_utils"}, "rlgpt_tui.store"),
        ("rlgpt_tui.engine", {"textual"}, None),
    ],
)
def test_layers(outside: str, forbidden: set[str], allowed_in: str | None) -> None:
    offenders = []
    for name, path in modules().items():
        if not name.startswith(outside) or (allowed_in and name.startswith(allowed_in)):
            continue
        roots = {t.split(".")[0] for t in imported(name, path, ast.parse(path.read_text()))}
        if roots & forbidden:
            offenders.append(name)
    assert offenders == []


def test_only_the_sandbox_imports_its_internals() -> None:
    """Code outside ``rlgpt_tui/sandbox/`` (the package, benchmarks, scripts) imports the
    sandbox through ``rlgpt_tui.sandbox`` only, never ``rlgpt_tui.sandbox.<submodule>``."""
    internals = {name for name in modules() if name.startswith("rlgpt_tui.sandbox.")}
    assert "rlgpt_tui.sandbox.pool" in internals  # the check sees the submodules
    root = PACKAGE.parent
    outside = {
        name: path for name, path in modules().items() if not name.startswith("rlgpt_tui.sandbox")
    }
    for folder in ("benchmarks", "scripts"):
        outside.update({module_name(path): path for path in (root / folder).rglob("*.py")})
    offenders = {
        name: sorted(targets & internals)
        for name, path in outside.items()
        if (targets := imported(name, path, ast.parse(path.read_text()))) & internals
    }
    assert offenders == {}


def test_the_sandbox_sits_between_the_skill_api_and_rl() -> None:
    """Everything the sandbox imports, step by step, is worlds, the skill API it serves
    (ctx, the code checker, coded actions) or helpers; nothing from RL or above."""
    graph = import_graph()
    reached: set[str] = set()
    todo = [name for name in graph if name.startswith("rlgpt_tui.sandbox")]
    while todo:
        for other in graph[todo.pop()] - reached:
            reached.add(other)
            todo.append(other)
    assert {"rlgpt_tui.skills.api", "rlgpt_tui.skills.checker"} <= reached
    above = ("rl", "agents", "library", "engine", "store", "tui", "cli", "session", "llm")
    assert sorted(n for n in reached if n.partition(".")[2].split(".")[0] in above) == []


def test_the_library_sits_below_the_agents_and_the_store() -> None:
    """Everything the skill library imports, step by step, is below it (worlds, the skill
    API, the sandbox, RL, helpers): the store implements its storage protocol, agents and
    the engine are handed what it offers, and it imports none of them."""
    graph = import_graph()
    reached: set[str] = set()
    todo = [name for name in graph if name.startswith("rlgpt_tui.library")]
    while todo:
        for other in graph[todo.pop()] - reached:
            reached.add(other)
            todo.append(other)
    assert {"rlgpt_tui.rl.policyfile", "rlgpt_tui.skills.validation"} <= reached
    above = ("agents", "engine", "store", "tui", "cli", "session", "llm", "curriculum")
    assert sorted(n for n in reached if n.partition(".")[2].split(".")[0] in above) == []


#: RL-GPT's parts, each the folder a newcomer would open for it
PAPER_NOUNS = {
    "slow agent": "agents/slow",
    "fast agent": "agents/fast",
    "critic": "agents/critic",
    "task planner": "agents/planner",
    "skill library": "library",
    "sandbox": "sandbox",
    "PPO with coded actions": "rl",
    "two loops": "engine",
}


@pytest.mark.parametrize(("noun", "folder"), PAPER_NOUNS.items())
def test_each_paper_noun_has_its_folder(noun: str, folder: str) -> None:
    """Each of the paper's parts is one package whose docstring names it."""
    init = PACKAGE / folder / "__init__.py"
    assert init.is_file(), f"{noun}: no package rlgpt_tui/{folder}"
    docstring = ast.get_docstring(ast.parse(init.read_text())) or ""
    assert noun.lower() in docstring.lower(), f"rlgpt_tui/{folder}'s docstring names no {noun}"
