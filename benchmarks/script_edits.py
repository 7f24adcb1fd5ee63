"""Would a better hand-written script survive more? Edits to the tech-tree script, code alone.

    python benchmarks/script_edits.py --task make_iron_pickaxe \
        --variant flee --variant wood_sword+guard [--episodes 64] [--eval-seeds 90000 91000 92000]

Each variant is the builtin agent's script for the task (``assets/skills/templates/
techtree.py`` with its ``act``) with the named edits of :data:`EDITS` applied in order
(``+`` joins them). The script and every variant run alone on the same evaluation worlds,
each called again whenever it returns, as table2.py's ``code`` runs. Prints each one's
measure per seed and pooled with its 95% interval, and for success rates its difference
to the script with an approximate 95% interval; then one JSON line. An edit that no
longer applies (techtree.py changed) is a one-line error naming it.

The edits are the ones the issue's diagnosis pointed at (README, Benchmarks: "Where the
code dies"): zombies cost about 2 health an encounter, health comes back 1 per 26 steps
while fed, and the code works on at 1-3 health.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from rlgpt_bench import options
from rlgpt_bench.compare import against_script, side_by_side
from rlgpt_bench.options import add_options
from rlgpt_bench.results import HAND_WRITTEN, RESULTS_DIR, machine, write_run
from rlgpt_bench.skills import BUILTIN_LIBRARY, script_skill
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.tasks.catalog import get_task

SURVIVE_NEEDS = "    if ctx.view.drink <= 5 or ("  # survive(): drinking and eating come next
FIND = "def find(ctx, name, tries=8):"
EXPLORE_ARGS = (
    '            8, dig=name in ("iron", "diamond", "coal") and ctx.has("wood_pickaxe")\n'
)
LOW_HEALTH = "LOW_HEALTH = 3  # one zombie's strike (2) from death\n\n\n"

# name -> (what it does, [(text in the script, its replacement), ...])
EDITS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "wood_sword": (
        "a wood sword right after the wood pickaxe (zombies fall in 3 hits, not 5)",
        [
            (
                "def make_stone_pickaxe(ctx):\n"
                "    if not (yield from make_wood_pickaxe(ctx)):\n"
                "        return False\n",
                "def make_stone_pickaxe(ctx):\n"
                "    if not (yield from make_wood_pickaxe(ctx)):\n"
                "        return False\n"
                '    if not ctx.has("wood_sword") and not ctx.has("stone_sword"):\n'
                '        yield from make(ctx, "wood_sword", [("tree", "wood")])\n',
            )
        ],
    ),
    "recover": (
        "survive() walls in and heals (recover) when health is 4 or less",
        [
            (
                SURVIVE_NEEDS,
                "    if ctx.view.health <= 4:\n        yield from recover(ctx)\n" + SURVIVE_NEEDS,
            )
        ],
    ),
    "guard": (
        "find() stops walking when health falls to 3, and survive() then heals (recover)",
        [
            (
                FIND,
                LOW_HEALTH + "def guarded(ctx, steps):\n"
                "    for action in steps:\n"
                "        if ctx.view.health <= LOW_HEALTH and not ctx.view.sleeping:\n"
                "            steps.close()\n"
                "            return False\n"
                "        yield action\n"
                "    return True\n\n\n" + FIND,
            ),
            (
                '            yield from ctx.go_to(seen, max_steps=40, dig=ctx.has("wood_pickaxe"))',
                "            yield from guarded(\n"
                '                ctx, ctx.go_to(seen, max_steps=40, dig=ctx.has("wood_pickaxe"))\n'
                "            )",
            ),
            (
                "        yield from ctx.explore(\n" + EXPLORE_ARGS + "        )",
                "        yield from guarded(ctx, ctx.explore(\n" + EXPLORE_ARGS + "        ))",
            ),
            (
                SURVIVE_NEEDS,
                "    if ctx.view.health <= LOW_HEALTH:\n        yield from recover(ctx)\n"
                + SURVIVE_NEEDS,
            ),
        ],
    ),
    "flee": (
        "at health 3 or less, survive() walks away from zombies within 6 steps before it "
        "fights (a zombie strikes only when next to the player after the player's move)",
        [
            (
                FIND,
                LOW_HEALTH + "def flee(ctx, steps=24):\n"
                "    moves = ((-1, 0, Action.MOVE_LEFT), (1, 0, Action.MOVE_RIGHT),\n"
                "             (0, -1, Action.MOVE_UP), (0, 1, Action.MOVE_DOWN))\n"
                "    for _ in range(steps):\n"
                "        v = ctx.view\n"
                "        px, py = v.position\n"
                '        near = [(x, y) for name, x, y in v.mobs if name == "zombie"\n'
                "                and abs(x - px) + abs(y - py) <= 6]\n"
                "        if not near or v.sleeping:\n"
                "            return True\n"
                "        best, best_key = None, None\n"
                "        for dx, dy, action in moves:\n"
                "            x, y = px + dx, py + dy\n"
                '            open_ = ("grass", "sand", "path")\n'
                "            if v.block_at(x, y) not in open_ or v.mob_at(x, y) is not None:\n"
                "                continue\n"
                "            gap = min(abs(zx - x) + abs(zy - y) for zx, zy in near)\n"
                "            room = sum(v.block_at(x + dx * k, y + dy * k) in open_\n"
                "                       for k in (1, 2, 3))\n"
                "            if best_key is None or (gap, room) > best_key:\n"
                "                best, best_key = action, (gap, room)\n"
                "        if best is None:\n"
                "            return False\n"
                "        yield best\n"
                "    return False\n\n\n" + FIND,
            ),
            (
                '    ctx.recall("water")  # keeps the map of everything seen from now on\n',
                '    ctx.recall("water")  # keeps the map of everything seen from now on\n'
                "    if ctx.view.health <= LOW_HEALTH:\n"
                "        yield from flee(ctx)\n",
            ),
        ],
    ),
    "dusk": (
        "drink and eat before walling in for the night, and leave the shelter (rest, "
        "recover) when food or drink falls to 1",
        [
            (
                "    yield from rest(ctx)\n",
                "    v = ctx.view\n"
                "    if not v.sleeping and v.daylight <= 0.6 and not ctx.enclosed():\n"
                "        if v.drink <= 7:\n"
                "            yield from drink(ctx)\n"
                "        if ctx.view.food <= 6:\n"
                "            yield from eat(ctx)\n"
                "    yield from rest(ctx)\n",
            ),
            (
                "    for _ in range(400):\n        v = ctx.view\n",
                "    for _ in range(400):\n"
                "        v = ctx.view\n"
                "        if min(v.drink, v.food) <= 1 and not v.sleeping:\n"
                "            return False\n",
            ),
            (
                "    for _ in range(300):\n        v = ctx.view\n",
                "    for _ in range(300):\n"
                "        v = ctx.view\n"
                "        if min(v.drink, v.food) <= 1 and not v.sleeping:\n"
                "            return False\n",
            ),
        ],
    ),
    "iron_sword": (
        "collect_diamond makes an iron sword after the iron pickaxe (zombies fall in 1 hit)",
        [
            (
                "    if not (yield from make_iron_pickaxe(ctx)):\n"
                "        return False\n"
                '    return (yield from gather(ctx, "diamond"',
                "    if not (yield from make_iron_pickaxe(ctx)):\n"
                "        return False\n"
                "    yield from make_iron_sword(ctx)\n"
                '    return (yield from gather(ctx, "diamond"',
            )
        ],
    ),
}


def edited(source: str, variant: str) -> str:
    """``source`` with the edits ``variant`` names (joined by ``+``) applied in order."""
    for name in variant.split("+"):
        if name not in EDITS:
            raise ValueError(f"--variant {variant!r}: no edit {name!r} (edits: {sorted(EDITS)})")
        for old, new in EDITS[name][1]:
            if old not in source:
                raise ValueError(f"edit {name!r} no longer applies to techtree.py: update EDITS")
            source = source.replace(old, new, 1)
    return source


def build_parser() -> argparse.ArgumentParser:
    p = options.parser("script_edits", __doc__)
    add_options(p, "task", "episodes", "eval_seeds", "record", "results_dir", script="script_edits")
    p.add_argument("--variant", action="append", required=True, dest="variants")
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    p = build_parser()
    a = p.parse_args(argv)
    if a.record is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", a.record):
        p.error(f"--record {a.record!r}: use a plain name such as script-edits")
    try:
        task = get_task(a.task)
        script = script_skill(task)
        source = template_code(script)
        if source is None:
            raise ValueError(f"--task {a.task}: the builtin library has no script for it")
        labels = {"script": script} | {v: v.replace("+", "_") for v in a.variants}
        specs = [CodedActionSpec(name=script, source=source)] + [
            CodedActionSpec(name=labels[v], source=edited(source, v)) for v in a.variants
        ]
        config = RLConfig(task=a.task, coded_actions=specs)
    except ValueError as error:
        p.error(str(error).splitlines()[0])
    started = time.perf_counter()
    choosers = {label: {"only_coded": name} for label, name in labels.items()}
    pooled, per_seed = side_by_side(config, task, lambda env: choosers, a.eval_seeds, a.episodes)
    out: dict[str, Any] = {
        "benchmark": "script_edits",
        "machine": machine(),
        "command": "python benchmarks/script_edits.py " + " ".join(argv),
        "task": a.task,
        "script": script,
        "edits": {name: EDITS[name][0] for v in a.variants for name in v.split("+")},
        "eval_seeds": a.eval_seeds,
        "episodes_per_seed": a.episodes,
        "results": against_script(task, pooled, per_seed),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if a.record:
        path = record(a.record, out, labels, a.results_dir or RESULTS_DIR)
        print(f"recorded {path}: `python benchmarks/render.py` shows it", file=sys.stderr)
    print(json.dumps(out, default=str))


def record(name: str, out: dict[str, Any], labels: dict[str, str], folder: Path) -> Path:
    """The script's and each variant's pooled figure as rows of benchmarks/results."""
    rows = []
    for variant in labels:
        pooled = out["results"][variant]["pooled"]
        edit = None if variant == "script" else f"script with edit `{variant}`"
        notes = [f"the script `{out['script']}`" if edit is None else edit]
        if "minus_script" in out["results"][variant]:
            diff = out["results"][variant]["minus_script"]
            low, high = diff["ci95"]
            notes.append(f"minus the script {diff['value']:+.2f} [{low:+.2f}, {high:+.2f}]")
        ends = pooled.get("episode_ends") or {}
        if ends:
            notes.append("ends " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
        rows.append(
            {
                "task": out["task"],
                "metric": pooled["measure"],
                "value": pooled["value"],
                "low": pooled["ci95"][0],
                "high": pooled["ci95"][1],
                "episodes": pooled["episodes"],
                "library": BUILTIN_LIBRARY
                if edit is None
                else f"builtin library, script with edit `{variant}`",
                "note": "; ".join(notes),
            }
        )
    return write_run(
        name,
        rows,
        command=out["command"],
        source="recorded by benchmarks/script_edits.py --record",
        folder=folder,
        group="The hand-written script and hand edits to it, code alone",
        method="code",
        agent="builtin",
        code_author=HAND_WRITTEN,
        world="craftax",
        budget=0,
        eval_seeds=out["eval_seeds"],
        details={k: v for k, v in out.items() if k != "results"},
    )


if __name__ == "__main__":
    main()
