"""Chain several coded actions into one: ``act`` runs each one's ``act`` in order."""

from __future__ import annotations

import ast


def compose_sources(parts: list[tuple[str, str]]) -> str:
    """See :func:`_compose`; code too deep for the parser here is a validation failure."""
    from rlgpt_tui.skills.sandbox import CodeValidationError

    try:
        return _compose(parts)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        names = ", ".join(name for name, _ in parts)
        raise CodeValidationError(
            f"coded actions {names} cannot be chained ({type(error).__name__}): simplify their code"
        ) from None


def _compose(parts: list[tuple[str, str]]) -> str:
    """One source whose ``act(ctx)`` runs each part's ``act(ctx)`` in turn.

    Each part's top-level functions are renamed ``<part>_<function>`` (references too),
    so helpers with the same name in two parts do not collide. The result is validated
    like any other coded action before use.
    """
    bodies: list[str] = []
    calls: list[str] = []
    for name, source in parts:
        tree = ast.parse(source)
        top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in top:
                node.name = f"{name}_{node.name}"
            elif isinstance(node, ast.Name) and node.id in top:
                node.id = f"{name}_{node.id}"
        bodies.append(ast.unparse(tree))
        calls.append(f"    yield from {name}_act(ctx)")
    return "\n\n\n".join(bodies) + "\n\n\ndef act(ctx):\n" + "\n".join(calls) + "\n"
