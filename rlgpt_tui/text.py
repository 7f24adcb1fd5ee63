"""Text from outside (LLM answers, edited files) made safe to keep, parse and show.

``safe_text`` is applied before text is stored or shown: lone surrogates (which UTF-8 and
SQLite refuse) become U+FFFD, NUL characters are removed, and the length is bounded.
``json_depth`` measures the nesting of a JSON text without parsing it, so a hostile answer
nested 100,000 deep is refused before ``json.loads`` recurses. ``short_name`` checks that a
name is a short identifier before it becomes part of a file name.
"""

from __future__ import annotations

import re
from typing import Any

MAX_TEXT = 200_000  # characters kept of any one text
MAX_NAME = 48  # characters of a sub-action name (it becomes a file name)
_SURROGATES = re.compile("[\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def safe_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` with surrogates replaced, NUL removed and at most ``limit`` characters."""
    if not isinstance(text, str):
        text = str(text)
    text = _SURROGATES.sub("\ufffd", text).replace("\x00", "")
    if len(text) > limit:
        text = text[:limit] + f" [... {len(text) - limit} characters cut]"
    return text


def clipped(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, a cut marked with "..."."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def safe_data(value: Any, limit: int = MAX_TEXT) -> Any:
    """``safe_text`` applied to every string inside dicts, lists and tuples."""
    if isinstance(value, str):
        return safe_text(value, limit)
    if isinstance(value, dict):
        return {safe_data(k, limit): safe_data(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [safe_data(v, limit) for v in value]
    return value


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in ``text``, brackets inside strings ignored."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


def short_name(name: str, limit: int = MAX_NAME) -> bool:
    """Is ``name`` an ASCII identifier of at most ``limit`` characters (safe as a file name)?"""
    return isinstance(name, str) and len(name) <= limit and _NAME.fullmatch(name) is not None
