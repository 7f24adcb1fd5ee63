"""How far the builtin agent's tech-tree code gets toward a diamond, and how episodes end.

Runs the builtin fast agent's code for a task (default collect_diamond: the whole tech tree)
alone, restarted whenever a call returns, in N Craftax envs until each episode ends (death,
the horizon, or the goal). Reports how many episodes unlocked each tech-tree achievement,
and for episodes that died: when, and the player's health, food, drink, energy and daylight
at the end. Ends with one JSON line.

    python benchmarks/run.py techtree_probe [--task collect_diamond] [--envs 32] [--seed 5]
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_tui.envs import ACHIEVEMENTS, make_world
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.episodes import ActionEntry, EpisodeRunner, code_alone, run_episodes
from rlgpt_tui.skills.runtime import CodedActionLimits
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("techtree_probe", __doc__)
    add_options(parser, "task", "seed")
    parser.add_argument("--envs", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=3000)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    limits = CodedActionLimits(max_steps=args.horizon, seconds=600)
    action = validate(args.task, template_code(args.task), "", limits)
    world = make_world("craftax", args.envs, seed=args.seed)
    task = get_task(args.task).model_copy(update={"horizon": args.horizon})
    runner = EpisodeRunner(
        world, task, [ActionEntry(args.task, coded=action)], seed=args.seed, reset_ended=False
    )
    try:
        outcomes = run_episodes(
            runner, code_alone(runner, args.task), args.seed, keep_last_view=True
        )
    finally:
        runner.close()
        world.close()
    unlocked = np.stack([o.achievements for o in outcomes])
    deaths = [
        {
            "step": o.length,
            "health": o.last_view.health,
            "food": o.last_view.food,
            "drink": o.last_view.drink,
            "energy": o.last_view.energy,
            "daylight": round(o.last_view.daylight, 2),
        }
        for o in outcomes
        if o.game_over
    ]
    stages = [*get_task(args.task).prerequisites, args.task]  # the tech tree, in order
    reached = {s: int(unlocked[:, ACHIEVEMENTS.index(s)].sum()) for s in stages}
    night = sum(1 for d in deaths if d["daylight"] < 0.3)
    print(
        json.dumps(
            {
                "benchmark": "techtree_probe",
                "agent": "builtin (tech-tree code alone, no RL)",
                "env": "craftax",
                "task": args.task,
                "episodes": args.envs,
                "seed": args.seed,
                "horizon": args.horizon,
                "episodes_unlocking": reached,
                "deaths": len(deaths),
                "death_step_median": statistics.median(d["step"] for d in deaths)
                if deaths
                else None,
                "deaths_at_night": night,
                "deaths_with_energy_at_most_3": sum(1 for d in deaths if d["energy"] <= 3),
                "deaths_with_drink_0": sum(1 for d in deaths if d["drink"] == 0),
                "deaths_with_food_0": sum(1 for d in deaths if d["food"] == 0),
            }
        )
    )
