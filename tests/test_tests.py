"""The tests themselves: every test checks something (issue 59)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent

#: pytest's own ways to check: ``pytest.raises(...)``, ``pytest.fail(...)``, ...
PYTEST_CHECKS = {"raises", "fail", "warns", "deprecated_call"}


def _checks_here(node: ast.AST) -> bool:
    """Does ``node`` (a function, nested functions included) assert on its own?"""
    for child in ast.walk(node):
        if isinstance(child, ast.Assert):
            return True
        if isinstance(child, ast.Raise) and child.exc is not None:
            exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
            if isinstance(exc, ast.Name) and exc.id == "AssertionError":
                return True
        if (  # np.testing.assert_allclose, self.assertEqual, ...
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and child.func.attr.startswith("assert")
        ):
            return True
        if (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and isinstance(child.func.value, ast.Name)
            and child.func.value.id == "pytest"
            and child.func.attr in PYTEST_CHECKS
        ):
            return True
    return False


def _called_names(node: ast.AST) -> set[str]:
    """The plain names a function calls (``f(...)``; not methods: ``store.record`` is not a
    helper ``record``)."""
    return {
        child.func.id
        for child in ast.walk(node)
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name)
    }


def _functions() -> dict[tuple[str, str], ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every module-level function and method in tests/ (helpers included), by (file, name)."""
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault((str(path.relative_to(TESTS)), node.name), node)
    return found


def silent_tests() -> list[str]:
    """Test functions with no ``assert``, no ``pytest.raises``/``fail`` and no call to a
    helper in tests/ that asserts (transitively: ``until``, ``wait_for``, ``run_screen``)."""
    functions = _functions()
    checking = {name for (_, name), node in functions.items() if _checks_here(node)}
    while True:  # a helper that calls a checking helper checks too
        more = {
            name
            for (_, name), node in functions.items()
            if name not in checking and _called_names(node) & checking
        }
        if not more:
            break
        checking |= more
    return [
        f"{file}::{name}"
        for (file, name), node in functions.items()
        if name.startswith("test_")
        and file.startswith("test_")
        and not _checks_here(node)
        and not _called_names(node) & checking
    ]


def test_every_test_asserts_something() -> None:
    assert silent_tests() == []


def test_the_scan_finds_a_test_that_asserts_nothing() -> None:
    silent = ast.parse("def test_x():\n    x = 1 + 1\n").body[0]
    loud = ast.parse("def test_y():\n    assert 1 + 1 == 2\n").body[0]
    raising = ast.parse("def test_z():\n    with pytest.raises(ValueError):\n        int('a')\n")
    close = ast.parse("def test_w():\n    np.testing.assert_allclose(1.0, 1.0)\n").body[0]
    assert not _checks_here(silent)
    assert _checks_here(loud) and _checks_here(raising.body[0]) and _checks_here(close)
