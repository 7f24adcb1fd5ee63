"""Where does the code die? Code alone on fresh evaluation episodes, every step watched.

    python benchmarks/run.py death_probe --task crafter_score [--episodes 32] \
        [--eval-seed 60000] [--seed 0] [--keep 12] [--dump deaths.json] \
        [--skills FOLDER [--script NAME]]

For every episode that ends in death: its cause, the step, the last 12 steps' health, food,
drink, energy, daylight, sleeping, the nearest zombie's distance (Manhattan; None: none in
sight), whether the player was walled in, how long the coded call it died in had run and
how far the nearest zombie was when that call started; and of the steps that cost health
awake beside a zombie, how many came facing it (fighting), walking, or standing facing
away. Prints counts, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, deque
from pathlib import Path

import numpy as np

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_bench.skills import FolderSkills, coded_specs, script_skill
from rlgpt_tui.envs.base import View
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.environment import build_env
from rlgpt_tui.rl.episodes import code_alone, run_episodes
from rlgpt_tui.rl.evaluation import tally_of
from rlgpt_tui.tasks.catalog import get_task


def zombie_distance(view: View) -> int | None:
    x, y = view.position
    d = [abs(mx - x) + abs(my - y) for name, mx, my in view.mobs if name == "zombie"]
    return min(d) if d else None


def zombie_hit(view: View, before: dict) -> str:
    """What the player was doing at a step that cost health beside a zombie: facing it
    (fighting), walking (it moved), or standing and facing elsewhere."""
    facing = view.mob_at(*view.facing_position) == "zombie"
    if facing:
        return "facing it"
    return "walking" if list(view.position) != before["position"] else "standing, facing away"


def walled_in(view: View) -> bool:
    """No walkable tile next to the player."""
    x, y = view.position
    sides = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    return not any(view.block_at(*s) in ("grass", "sand", "path") for s in sides)


def build_parser() -> argparse.ArgumentParser:
    p = options.parser("death_probe", __doc__)
    add_options(p, "task", "episodes", "eval_seed", "seed", "skills", "script")
    # its older name for --script
    p.add_argument("--skill", dest="script", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--keep", type=int, default=12, help="steps kept before each death")
    p.add_argument("--show", type=int, default=6, help="steps shown of the first 8 deaths")
    p.add_argument("--dump", default=None, help="write every death's kept steps to this JSON file")
    return p


def main(argv: list[str] | None = None) -> None:
    a = build_parser().parse_args(argv)
    task = get_task(a.task)
    if a.skills is not None:
        folder = FolderSkills(a.skills, a.script)
        skill = folder.script(task)
        specs = folder.specs([skill])
    else:
        skill = a.script or script_skill(task)
        specs = coded_specs([skill])
    config = RLConfig(task=a.task, coded_actions=specs, num_envs=a.episodes)
    env = build_env(config, num_envs=a.episodes, seed=a.eval_seed + a.seed)
    runner = env.runner
    n = a.episodes
    history: list[deque] = [deque(maxlen=a.keep) for _ in range(n)]
    call_len = np.zeros(n, dtype=int)
    call_start_zombie: list[int | None] = [None] * n
    was_busy = np.zeros(n, dtype=bool)
    deaths: dict[int, dict] = {}
    damage = Counter()  # health lost, by situation
    beside = Counter()  # steps that cost health awake beside a zombie, by what the player did

    def after_step(r) -> None:
        views = r.world.views()
        for i, v in enumerate(views):
            if not was_busy[i] or call_len[i] == 0:
                call_start_zombie[i] = zombie_distance(v)
            call_len[i] += 1
            prev = history[i][-1] if history[i] else None
            if prev is not None and (v.step == prev["step"] or prev["health"] <= 0):
                continue  # its episode is over (no reset)
            if prev is not None and v.health < prev["health"]:
                z = zombie_distance(v)
                key = (
                    "sleeping" if prev["sleeping"] else "awake",
                    "zombie<=1" if z is not None and z <= 1 else "no zombie adjacent",
                    "dark" if v.daylight < 0.5 else "day",
                )
                damage[" / ".join(key)] += prev["health"] - v.health
                if key[:2] == ("awake", "zombie<=1"):
                    beside[zombie_hit(v, prev)] += 1
            history[i].append(
                {
                    "step": v.step,
                    "position": list(v.position),
                    "inventory": {k: n for k, n in v.inventory.items() if n},
                    "health": v.health,
                    "food": v.food,
                    "drink": v.drink,
                    "energy": v.energy,
                    "daylight": round(v.daylight, 2),
                    "sleeping": v.sleeping,
                    "zombie": zombie_distance(v),
                    "zombies<=4": sum(
                        abs(mx - v.position[0]) + abs(my - v.position[1]) <= 4
                        for name, mx, my in v.mobs
                        if name == "zombie"
                    ),
                    "sword": max(
                        (
                            k
                            for k, t in enumerate(("wood", "stone", "iron"), 1)
                            if v.inventory.get(f"{t}_sword", 0)
                        ),
                        default=0,
                    ),
                    "walled": walled_in(v),
                    "call_steps": int(call_len[i]),
                    "call_start_zombie": call_start_zombie[i],
                    "achievements": len(v.achievements),
                }
            )
        finished = ~r.busy
        call_len[finished] = 0
        was_busy[:] = r.busy

    choose = code_alone(runner, skill)
    began = time.perf_counter()
    runner.reset_ended = False
    outcomes = run_episodes(runner, choose, a.eval_seed + a.seed, after_step=after_step)
    wall = time.perf_counter() - began
    ends = Counter(str(o.end) for o in outcomes)
    for o in outcomes:
        if o.game_over and not o.success:
            deaths[o.env] = {"end": str(o.end), "length": o.length, "last": list(history[o.env])}
    env.close()
    summary = Counter()
    for d in deaths.values():
        last = d["last"][-2] if len(d["last"]) > 1 else d["last"][-1]
        first = d["last"][-12] if len(d["last"]) >= 12 else d["last"][0]
        summary["sleeping at death" if last["sleeping"] else "awake at death"] += 1
        summary["dark (daylight<0.5)" if last["daylight"] < 0.5 else "day"] += 1
        summary["walled in"] += last["walled"]
        for stat in ("food", "drink", "energy"):
            summary[f"{stat}==0"] += last[stat] == 0
        summary[f"health 12 steps before: {first['health']}"] += 1
        z = last["call_start_zombie"]
        summary[
            "call started: zombie "
            + ("none in sight" if z is None else "<=2" if z <= 2 else "3-5" if z <= 5 else ">5")
        ] += 1
        summary[
            "call had run "
            + ("<=8" if last["call_steps"] <= 8 else "9-32" if last["call_steps"] <= 32 else ">32")
            + " steps"
        ] += 1
    measured = tally_of(outcomes).measure(task, seed=a.eval_seed + a.seed)
    lo, hi = measured.ci95
    print(
        f"{a.task} {skill}: {n} episodes, {measured.value:.3f} [{lo:.2f}-{hi:.2f}], "
        f"ends {dict(ends)}"
    )
    print(f"deaths {len(deaths)}: " + ", ".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    print("health lost by situation: " + ", ".join(f"{k}: {v}" for k, v in damage.most_common()))
    print("hits awake beside a zombie: " + ", ".join(f"{k}: {v}" for k, v in beside.most_common()))
    for i, d in sorted(deaths.items())[:8]:
        print(f"env {i} {d['end']} at {d['length']}:")
        for h in d["last"][-a.show :]:
            print("   ", h)
    out = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()},
        "wall_s": round(wall, 1),
        "value": measured.value,
        "ci95": list(measured.ci95),
        "ends": dict(ends),
        "deaths": len(deaths),
        "summary": dict(summary),
        "damage": dict(damage),
        "hits_beside_zombie": dict(beside),
    }
    if a.dump:
        Path(a.dump).write_text(json.dumps(deaths))
    print(json.dumps(out))
