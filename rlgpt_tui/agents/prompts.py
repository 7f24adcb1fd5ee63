"""The LLM roles' prompts: each role's file under ``assets/prompts/`` with its placeholders
filled, the shape of the answer it asks for, and an evaluation summary as prompt lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from string import Template
from typing import Any

from rlgpt_tui import ASSETS_DIR, read_asset
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.text import clipped

PROMPTS = ASSETS_DIR / "prompts"


def open_ended_text(role: str, task: Task) -> str:
    """The scored-task section of ``role``'s prompt (``<role>_scored.md``) for a scored task
    (open-ended play: a library of skills, Crafter's score); empty otherwise."""
    return read_asset(PROMPTS / f"{role}_scored.md") if task.scored else ""


def render(role: str, **values: Any) -> list[dict[str, str]]:
    """The prompt file of ``role`` with ``$placeholders`` filled, as chat messages
    (``open_ended`` defaults to empty: only scored tasks fill it)."""
    values.setdefault("open_ended", "")
    text = Template(read_asset(PROMPTS / f"{role}.md")).safe_substitute(values)
    text = text.replace("\x00", "")
    return [
        {"role": "system", "content": f"You are part of RL-GPT, acting as the {role} agent."},
        {"role": "user", "content": text},
    ]


def answer_shape(schema) -> str:
    """The keys and value types of ``schema``'s answer as one compact JSON-like line (what
    the prompt asks for; the full JSON Schema goes as response_format, never in the text)."""
    document = schema.model_json_schema()
    defs = document.get("$defs", {})

    def shape(node: dict[str, Any]) -> str:
        if "$ref" in node:
            return shape(defs[node["$ref"].split("/")[-1]])
        if "anyOf" in node:
            return " | ".join(shape(n) for n in node["anyOf"])
        if "enum" in node:
            return " | ".join(json.dumps(v) for v in node["enum"])
        if "const" in node:
            return json.dumps(node["const"])
        kind = node.get("type")
        if kind == "object":
            props = node.get("properties", {})
            return "{" + ", ".join(f'"{k}": {shape(v)}' for k, v in props.items()) + "}"
        if kind == "array":
            return "[" + shape(node.get("items", {})) + ", ...]"
        return {"integer": "int", "number": "number", "boolean": "true | false"}.get(
            str(kind), str(kind)
        )

    return shape(document)


def ends_text(ends: Mapping[str, int]) -> str:
    """How episodes ended, commonest first: ``killed_by_zombie 30/64, success 20/64``."""
    total = sum(ends.values())
    ordered = sorted(ends.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{end} {n}/{total}" for end, n in ordered)


def earlier_ends_text(ends: Mapping[str, int] | None) -> str:
    """How the evaluation episodes of earlier sessions (a learn record's latest, other
    tasks) ended, as one prompt line; empty when none are known."""
    if not ends:
        return ""
    return (
        "Earlier sessions (other tasks) ended their evaluation episodes "
        f"{ends_text(ends)}: where deaths are common, a step that keeps the player alive "
        "belongs in the plan."
    )


def evaluation_lines(evaluation: EvaluationSummary, measure: Measure) -> list[str]:
    """An evaluation summary as prompt lines: for scored tasks, achievements by success
    rate; for every task, how episodes ended, their mean length and how often each coded
    action was chosen."""
    lines = []
    rates = evaluation.achievement_rates or {}
    if measure is Measure.CRAFTER_SCORE and rates:
        ordered = sorted(rates.items(), key=lambda kv: -kv[1])
        lines.append(
            "- achievements (success rate per episode): "
            + ", ".join(f"{k} {v:.2f}" for k, v in ordered)
        )
    ends = evaluation.episode_ends or {}
    if ends:  # a plan whose failures die of thirst needs a step that drinks, not a rewrite
        lines.append(f"- how episodes ended: {ends_text(ends)}")
    if evaluation.mean_length is not None:
        lines.append(f"- mean episode length {evaluation.mean_length:.0f} steps")
    calls = {
        name: stats.get("calls", 0) for name, stats in (evaluation.coded_actions or {}).items()
    }
    if calls:
        lines.append(
            "- coded action calls in training: "
            + ", ".join(f"{k} {n}" for k, n in sorted(calls.items(), key=lambda kv: -kv[1]))
        )
    for name, notes in (evaluation.coded_notes or {}).items():
        said = "; ".join(f"{clipped(note, 120)} ({n} calls)" for note, n in notes.items())
        lines.append(f"- {name} logged: {said}")
    return lines
