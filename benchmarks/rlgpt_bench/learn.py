"""A learn record's frontier as result rows: one per task it tried that has a fresh figure."""

from __future__ import annotations

from typing import Any

from rlgpt_tui.labels import agent_labels

GROUP = "Lifelong learning (rlgpt-tui learn)"


def learn_command(data: dict[str, Any]) -> str:
    """The ``rlgpt-tui learn`` command a record's settings and budgets amount to."""
    words = ["rlgpt-tui learn", f"--env {data['env']}", f"--library {data['library']}"]
    words += [f"--threshold {data['threshold']:g}"]
    for name, value in sorted((data.get("budgets") or {}).items()):
        if value is not None:
            words.append(f"--{name.replace('_', '-')} {value:g}")
    for name, value in sorted((data.get("settings") or {}).items()):
        if value is not None and name != "seed":
            words.append(f"--{name.replace('_', '-')} {value}")
    if data["curriculum"].startswith("llm:"):
        words.append("--llm-base-url URL --llm-model MODEL")
    return " ".join(words)


def learn_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for :func:`~rlgpt_bench.results.write_run` from
    :func:`~rlgpt_tui.curriculum.loop.frontier`'s object: each tried task's best fresh
    figure with its interval, samples as the budget, and its status, tries, tokens and wall
    time in the note. Who wrote the code is the best session's author(s)."""
    wall: dict[str, float] = {}
    for choice in data["choices"]:
        wall[choice["task"]] = wall.get(choice["task"], 0.0) + (choice["wall_s"] or 0.0)
    rows = []
    for row in data["frontier"]:
        if row["best"] is None:
            continue
        low, high = row["ci95"] if row["ci95"] else (None, None)
        scored = row["task"] == "crafter_score"
        rows.append(
            {
                "task": row["task"],
                "metric": "crafter_score" if scored else "success_rate",
                "value": row["best"],
                "low": low,
                "high": high,
                "method": "agent",
                "code_author": ", ".join(agent_labels(row["authors"])) or "none",
                "budget": row["samples"],
                "note": (
                    f"{row['status']}; {row['kind']}; {row['tries']} tries, "
                    f"{row['tokens']:,} tokens, {wall.get(row['task'], 0.0) / 60:.0f} min; "
                    f"session {row['best_session']}"
                ),
            }
        )
    return rows
