"""Code run side by side on the same evaluation worlds, and each against the script: the
comparison the probe rule_headroom and script_edits.py report."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.results import Measurement


def difference(rule: Measurement, script: Measurement) -> dict[str, Any]:
    """The rule's success rate minus the script's, with a normal 95% interval."""
    a, b = rule.value, script.value
    se = math.sqrt(a * (1 - a) / rule.episodes + b * (1 - b) / script.episodes)
    return {
        "value": round(a - b, 4),
        "ci95": [round(a - b - 1.96 * se, 4), round(a - b + 1.96 * se, 4)],
    }


def side_by_side(
    config: RLConfig,
    task: Task,
    choosers: Callable[[Any], dict[str, dict[str, Any]]],
    eval_seeds: list[int],
    episodes: int,
) -> tuple[dict[str, Measurement], dict[str, list[dict[str, Any]]]]:
    """Every chooser on the same worlds: for each seed one env, and ``choosers(env)`` maps a
    label to :func:`evaluate`'s keywords (``model`` or ``only_coded``). Returns each label's
    measure pooled over the seeds and its figures (with episode ends) per seed."""
    tallies: dict[str, EpisodeTally] = {}
    per_seed: dict[str, list[dict[str, Any]]] = {}
    for seed in eval_seeds:
        env = build_env(config, num_envs=episodes, seed=seed)
        try:
            for label, chooser in choosers(env).items():
                result = evaluate(config, episodes=episodes, seed=seed, env=env, **chooser)
                tally = result.tally
                assert tally is not None  # evaluate() keeps every episode's tally
                tallies.setdefault(label, EpisodeTally()).extend(tally)
                m = result.measurement
                ends = Counter(tally.ends)
                per_seed.setdefault(label, []).append({"seed": seed, **m.as_dict(), "ends": ends})
                print(f"{label} / seed {seed}: {task.measure.show(m.value)} {m.ci95}", flush=True)
        finally:
            env.close()
    return {label: tally.measure(task) for label, tally in tallies.items()}, per_seed


def against_script(
    task: Task, pooled: dict[str, Measurement], per_seed: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """Each label's pooled and per-seed figures, and for success rates its difference to the
    label ``script``; prints each against the script's."""
    results: dict[str, Any] = {
        label: {"pooled": m.as_dict(), "per_seed": per_seed[label]} for label, m in pooled.items()
    }
    for label, m in pooled.items():
        if label == "script":
            continue
        if not task.scored:
            results[label]["minus_script"] = difference(m, pooled["script"])
        print(f"{label}: {m.value:.3f} against the script's {pooled['script'].value:.3f}")
    return results
