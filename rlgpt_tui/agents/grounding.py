"""Answers grounded in evidence, what every role's answers share: a check refusing answers
that repeat the prompt's example, checks run together, and the names of things (blocks,
creatures, items) a text or a View shows.

An answer whose decisions repeat the prompt's example (a plan's descriptions, code, a
verdict's reason) is invalid: :func:`example_check` raises the repair line, and the answer
is repaired like any other invalid one; a copied free comment is dropped.

Each role's own checks are in its folder: the slow agent's plan checks
(``agents/slow/checks.py``), the fast agent's code checks (``agents/fast/checks.py``), what
the critic may name (``agents/critic/evidence.py``) and the measured figure's last word over
a critic (``agents/critic/overrule.py``); what runs show is ``agents/runs.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.envs.base import BLOCK_NAMES, INVENTORY_ITEMS, MOB_NAMES, View
from rlgpt_tui.text import clipped

#: things a verdict may name: the world's blocks, creatures and inventory items
_NOT_THINGS = {"unknown", "out_of_bounds"}
MIN_COPY_WORDS = 3  # an example's text shorter than this is a name, not a copied sentence

Check = Callable[[Any], None]


def normalized(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9_]+", " ", text.lower()).split())


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def example_texts(example: str) -> list[str]:
    """The sentences and code of an example answer (JSON), normalized; names left out."""
    texts = {normalized(s) for s in _strings(json.loads(example))}
    return sorted(t for t in texts if len(t.split()) >= MIN_COPY_WORDS)


def _copied(text: str, examples: list[str]) -> str | None:
    said = normalized(text)
    return next((t for t in examples if t in said), None)


def _free_comment(model: BaseModel, key: str) -> bool:
    """Is ``model.key`` a free comment (may be left out) rather than a decision?"""
    return key in ("notes", "explanation", "suggestion") or (
        key == "reason" and isinstance(model, SubAction)
    )


def _scrub(model: BaseModel, examples: list[str]) -> None:
    """Clear free comments that repeat an example; raise for a decision that does."""
    for key, value in list(model):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                _scrub(item, examples)
        if not isinstance(value, str):
            continue
        copied = _copied(value, examples)
        if copied is None:
            continue
        if _free_comment(model, key):
            setattr(model, key, "")  # a copied comment says nothing: dropped
            continue
        raise ValueError(
            f"{key} repeats the prompt's example ({clipped(copied, 80)!r}): the example is "
            "for another task; answer for this task from its own evidence"
        )


def example_check(example: str) -> Check:
    """A check refusing answers whose decisions (a sub-action's description, code, a
    verdict's reason) repeat ``example``; copied free comments (notes, explanations,
    suggestions, a sub-action's reason) are dropped instead."""
    examples = example_texts(example)

    def check(answer: BaseModel) -> None:
        _scrub(answer, examples)

    return check


def both(*checks: Check | None) -> Check:
    """One check running each of ``checks`` in turn."""

    def check(answer: Any) -> None:
        for each in checks:
            if each is not None:
                each(answer)

    return check


def thing_names() -> frozenset[str]:
    """Names of things a verdict's reason can point at (blocks, creatures, items)."""
    return frozenset((set(BLOCK_NAMES) - _NOT_THINGS) | set(MOB_NAMES) | set(INVENTORY_ITEMS))


def things_in(text: str) -> set[str]:
    """The thing names ``text`` mentions as whole words (``stone_pickaxe``, ``wood``)."""
    return set(normalized(text).split()) & thing_names()


def with_parts(names: Iterable[str]) -> set[str]:
    """``names`` and their parts (``stone_pickaxe``: also ``stone`` and ``pickaxe``)."""
    out = set()
    for name in names:
        out |= {name, *name.split("_")}
    return out


def view_things(view: View) -> set[str]:
    """What a View shows: its blocks, creatures, held items and achievements."""
    seen = {block for row in view.grid for block in row}
    seen |= {name for name, _, _ in view.mobs}
    seen |= {item for item, count in view.inventory.items() if count}
    return with_parts(seen | set(view.achievements))
