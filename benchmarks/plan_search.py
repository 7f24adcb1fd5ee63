"""Compose a task's plan from a skill library, choosing each step's skill by measurement.

`rlgpt-tui skills export DIR --plan TASK` picks each step's skill by its record on the
step's own task. A record on a task alone can mislead in a longer plan: a 1.5B model's
collect_drink v3 drank, then made a wood pickaxe and sword with the wood the plan had
gathered for its table (0.62 on collect_drink; the crafter_score plan with it fell from
19.0 to 7.9 on the selection worlds). This script starts from that choice and, step by
step in the plan's order, tries each other candidate for the step (every version of the
skill named like it, and of the skills measured on the step's task, that never failed
there; or no skill at all), keeping a change when code alone measures higher on the
*selection* worlds (evaluation seeds ``--selection-seed`` + 0, 1, ...): never the worlds a
report uses (table2.py's ``--eval-seed 60000``). Every coded action stays the library's
code as its author wrote it; the composition and the choice are rlgpt's.

Writes ``--out``: every skill version of the library (as `skills export`) and the chosen
``plan``; prints a line per evaluation and one JSON line at the end.

    python benchmarks/plan_search.py --sessions-dir DIR --task crafter_score --out FOLDER
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
from rlgpt_tui.library.record import may_do
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.storage import LibrarySkill
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tasks.catalog import Task, get_task

Choice = list[tuple[str, LibrarySkill | None]]  # each step, and the skill that does it


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("plan_search", __doc__)
    add_options(parser, "sessions_dir", "task", "env", "episodes", required=("sessions_dir",))
    parser.add_argument("--out", required=True, type=Path, help="the folder to write")
    parser.add_argument("--selection-seed", type=int, default=70_000, help="first world seed")
    parser.add_argument(
        "--selection-worlds",
        type=int,
        default=2,
        help="selection world seeds, from --selection-seed",
    )
    parser.add_argument(
        "--passes", type=int, default=2, help="passes over the steps (stops when one changes none)"
    )
    return parser


def candidates(step: str, skills: list[LibrarySkill], steps: list[str]) -> list[LibrarySkill]:
    """The skill versions that may do ``step``: every version of the skill named like it,
    and of each skill named like no step that was measured on the task of that name; never
    one that saw that task fail in every episode it served."""
    return [s for s in skills if may_do(step, s.name, s.record, steps)]


def plan_source(choice: Choice, world: str, keeper: LibrarySkill | None = None) -> str:
    recipes = world_info(world).documentation().recipes
    first = (keeper.name, keeper.source) if keeper else None
    parts = [(step, s.source) for step, s in choice if s is not None]
    return compose_sources(parts, recipes, keeper=first)


def measure(source: str, task: Task, args: argparse.Namespace) -> float:
    """The mean over the selection seeds of what code alone measures (a score or a rate)."""
    values = []
    for n in range(args.selection_worlds):
        spec = CodedActionSpec(name=COMPOSED_PLAN, source=source)
        config = RLConfig(
            task=task.name, env=args.env, num_envs=args.episodes, coded_actions=[spec]
        )
        seed = args.selection_seed + n
        result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=args.episodes, seed=seed)
        values.append(result.value)
    return sum(values) / len(values)


def label(skill: LibrarySkill | None) -> str:
    return "left out" if skill is None else skill.label


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    task = get_task(args.task)
    store = SessionStore(args.sessions_dir)
    library = SkillLibrary(store)
    skills = [s for s in store.skills(args.env) if s.name != COMPOSED_PLAN]
    steps = [s.name for s in task.steps(world_info(args.env).documentation())]
    start = dict(library.plan_steps(task, args.env, policies=False))  # code alone
    keeper = library.keeper(args.env, policies=False)
    choice: Choice = [(step, start.get(step)) for step in steps]
    start_source = plan_source(choice, args.env, keeper)
    best = first = measure(start_source, task, args)
    trace = [{"step": None, "skill": "the records' choice", "value": round(best, 2)}]
    print(f"the records' choice: {best:.2f}", flush=True)
    tried_plans = {start_source}
    for _ in range(args.passes):  # a later step's fix can change what suits an earlier one
        changed = False
        for index, step in enumerate(steps):
            for option in [*candidates(step, skills, steps), None]:
                tried = choice[:index] + [(step, option)] + choice[index + 1 :]
                source = plan_source(tried, args.env, keeper) if any(s for _, s in tried) else ""
                if not source or source in tried_plans:
                    continue
                tried_plans.add(source)
                value = measure(source, task, args)
                trace.append({"step": step, "skill": label(option), "value": round(value, 2)})
                kept = value > best
                print(f"{step}: {label(option)} {value:.2f} ({'kept' if kept else 'not kept'})")
                if kept:
                    best, choice, changed = value, tried, True
        if not changed:
            break
    chosen = [(step, s) for step, s in choice if s is not None]
    library.export_folder(args.out, args.env)
    seeds = f"{args.selection_seed}-{args.selection_seed + args.selection_worlds - 1}"
    how = (
        f"; each step's skill chosen by benchmarks/plan_search.py on selection worlds "
        f"{seeds} ({args.episodes} episodes each): {first:.1f} -> {best:.1f}"
    )
    path = library.write_plan(args.out, task, args.env, chosen, how)
    print(f"wrote {path}")
    report = {
        "benchmark": "plan_search",
        "command": "python benchmarks/plan_search.py " + " ".join(sys.argv[1:]),
        "task": task.name,
        "selection_worlds": seeds,
        "episodes_per_seed": args.episodes,
        "records_choice": round(first, 2),
        "chosen": round(best, 2),
        "steps": {step: label(s) for step, s in choice},
        "evaluations": trace,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
