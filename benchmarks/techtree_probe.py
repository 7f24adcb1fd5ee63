"""How far the builtin agent's tech-tree code gets toward a diamond, and how episodes end.

Runs the builtin fast agent's code for a task (default collect_diamond: the whole tech tree)
alone, restarted whenever a call returns, in N Craftax envs until each episode ends (death,
the horizon, or the goal). Reports how many episodes unlocked each tech-tree achievement,
and for episodes that died: when, and the player's health, food, drink, energy and daylight
just before. Ends with one JSON line.

    python benchmarks/techtree_probe.py [--task collect_diamond] [--envs 32] [--seed 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

import numpy as np

from rlgpt_tui.agents.builtin import template_code
from rlgpt_tui.envs import ACHIEVEMENTS, make_world
from rlgpt_tui.skills.runtime import CodedAction, CodedActionLimits
from rlgpt_tui.tasks import get_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="collect_diamond")
    parser.add_argument("--envs", type=int, default=32)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--horizon", type=int, default=3000)
    args = parser.parse_args()
    limits = CodedActionLimits(max_steps=args.horizon, seconds=600)
    action = CodedAction.from_source(args.task, template_code(args.task), "", limits)
    world = make_world("craftax", args.envs, seed=args.seed)
    world.reset(args.seed)
    goal = ACHIEVEMENTS.index(args.task) if args.task in ACHIEVEMENTS else None
    views = world.views()
    calls = [action.start(v, {}, random.Random(i)) for i, v in enumerate(views)]
    running = np.ones(args.envs, dtype=bool)
    steps = np.zeros(args.envs, dtype=np.int64)
    unlocked = np.zeros((args.envs, len(ACHIEVEMENTS)), dtype=bool)
    deaths = []
    while running.any():
        views = world.views()
        actions = np.zeros(args.envs, dtype=np.int32)
        for i in np.flatnonzero(running):
            step = calls[i].next_action(views[i])
            if step is None:  # the routine returned: call it again
                calls[i] = action.start(views[i], {}, random.Random(int(i + 1000 * steps[i])))
                step = calls[i].next_action(views[i]) or 0
            actions[i] = step
        result = world.step(actions, running)
        steps[running] += 1
        unlocked |= result.achievements
        reached = result.achievements[:, goal] if goal is not None else False
        for i in np.flatnonzero(running & (result.game_over | reached | (steps >= args.horizon))):
            running[i] = False
            if result.game_over[i]:
                v = views[i]
                deaths.append(
                    {
                        "step": int(steps[i]),
                        "health": v.health,
                        "food": v.food,
                        "drink": v.drink,
                        "energy": v.energy,
                        "daylight": round(v.daylight, 2),
                    }
                )
    world.close()
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


if __name__ == "__main__":
    main()
