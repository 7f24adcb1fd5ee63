"""Structured answers: a model's text parsed as bounded JSON and validated against a role's
pydantic schema, the strict JSON Schema sent as ``response_format``, and what a repair round
sends back (the one error and a short example, never the whole schema, sampled hotter)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlgpt_tui.text import json_depth, safe_data, safe_text

T = TypeVar("T", bound=BaseModel)

MAX_ANSWER_CHARS = 100_000  # an answer's text, before it is parsed
MAX_JSON_DEPTH = 32  # nesting of an answer's JSON (and of the response body)
REPAIR_HEAT = 0.4  # added to the temperature per repair round


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a ```json fence, or {...}."""
    text = text.strip()
    if not text:
        raise ValueError("the answer was empty")
    if len(text) > MAX_ANSWER_CHARS:
        raise ValueError(f"the answer is longer than {MAX_ANSWER_CHARS:,} characters")
    if json_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(f"the answer's JSON is nested deeper than {MAX_JSON_DEPTH} levels")
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidates = [text]
    if fence:
        candidates.insert(0, fence.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as error:
            last_error = error
    if start >= 0:  # the first whole object, when more text or a second object follows
        try:
            return json.JSONDecoder().raw_decode(text[start:])[0]
        except json.JSONDecodeError:
            pass
    raise ValueError(f"answer is not JSON ({last_error})")


def parsed_answer(text: str, schema: type[T]) -> T:
    """``text`` as an answer of ``schema``; raises ValueError or ValidationError (what a
    repair round quotes, through :func:`short_error`)."""
    data = safe_data(extract_json(text))  # JSON escapes may hold lone surrogates
    if _is_echoed_schema(data):
        raise ValueError("the answer is the JSON Schema itself, not an answer: fill in values")
    return schema.model_validate(data)


def _is_echoed_schema(data: Any) -> bool:
    return isinstance(data, dict) and (
        "$defs" in data or ("properties" in data and data.get("type") == "object")
    )


def json_schema_format(
    schema: type[BaseModel], choices: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """The ``response_format`` of a structured request: ``schema`` as strict JSON Schema."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": response_schema(schema, choices),
            "strict": True,
        },
    }


def response_schema(
    schema: type[BaseModel], choices: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """``schema`` as a strict JSON Schema for ``response_format``: every object closed and
    every property required (optional values are nullable, never absent). ``choices``: the
    names a top-level string property (or a list property's items) may take, so that a
    grammar-constrained server cannot answer another name."""

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            node.pop("default", None)
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    document = schema.model_json_schema()
    close(document)
    for key, names in (choices or {}).items():
        _narrow(document["properties"][key], list(names))
    return document


def _narrow(node: dict[str, Any], names: list[str]) -> None:
    """Restrict the string values of a property node (``str``, ``list[str]``, nullable or
    not) to ``names``; with none, a list must be empty and a nullable string null (a
    string that must be given keeps any value: the answer's check refuses it)."""
    branches = node.get("anyOf", [node])
    for branch in branches:
        if branch.get("type") == "string" and names:
            branch["enum"] = names
        elif branch.get("type") == "array":
            branch["items"] = {"type": "string", "enum": names} if names else {"type": "string"}
            if not names:
                branch["maxItems"] = 0
    if not names and "anyOf" in node and any(b.get("type") == "null" for b in branches):
        node["anyOf"] = [b for b in branches if b.get("type") != "string"]


def repair_temperature(temperature: float, repair_round: int) -> float:
    """The sampling temperature of a repair round: hotter each round, up to 1.0 (or the
    setting, where it is higher): at a low temperature a model tends to answer the same
    refused code in each repair round."""
    return round(max(temperature, min(1.0, temperature + REPAIR_HEAT * repair_round)), 3)


def repair_messages(text: str, problem: str, example: str) -> list[dict[str, str]]:
    """What a repair round adds to the conversation: the refused answer, then the one
    problem and the answer's form (``example``, where one is shown)."""
    shape = (
        f"with the same keys as this example (your own values, for this task):\n{example}"
        if example
        else "(your own values, for this task)"
    )
    return [
        {"role": "assistant", "content": text[:4000]},
        {
            "role": "user",
            "content": (
                f"Your answer could not be used: {problem}. Answer again with only "
                f"one JSON object {shape}"
            ),
        },
    ]


def short_error(error: Exception) -> str:
    """The first few problems of an answer, one line (what a repair prompt quotes)."""
    if isinstance(error, ValidationError):
        problems = []
        ordered = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        for item in ordered[:3]:
            where = ".".join(str(p) for p in item["loc"]) or "answer"
            message = item["msg"].removeprefix("Value error, ")
            if item["type"] == "extra_forbidden":
                message = "this key is not allowed"
            elif item["type"] == "missing":
                message = "this key is missing"
            problems.append(f"{where}: {message}")
        more = error.error_count() - len(problems)
        return safe_text("; ".join(problems) + (f" (+{more} more)" if more > 0 else ""), 400)
    return safe_text(str(error), 300)
