"""``rlgpt-tui skills list | show | export | import``: the skill library."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from rlgpt_tui.cli.common import UsageError
from rlgpt_tui.envs.registry import WORLDS
from rlgpt_tui.library.compose import COMPOSED_PLAN
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.storage import COLUMNS, POLICY_AUTHOR, POLICY_COLUMNS, where_made
from rlgpt_tui.report.skill_markdown import skill_markdown
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tasks.catalog import get_task


def cmd_skills(args: argparse.Namespace) -> int:
    """List, show, export or import the skill library's skills and trained policies."""
    store = SessionStore(args.sessions_dir)
    console = Console(width=max(Console().width, 140))
    library = SkillLibrary(store)
    if getattr(args, "world", None) and args.world not in WORLDS:
        raise UsageError(f"unknown --world {args.world!r}: use one of {', '.join(WORLDS)}")
    if args.action == "list":
        table = Table(title=f"Skill library in {store.path}")
        for column in (COLUMNS[0], "kind", *COLUMNS[1:], "docstring"):
            table.add_column(column)
        skills = library.skills(args.world)
        for skill in skills:
            first_line = skill.docstring.splitlines()[0] if skill.docstring else ""
            label, *rest = skill.cells()
            table.add_row(label, "code", *rest, first_line)
        policies = library.policies(args.world)
        for world in sorted({p.world for p in policies}):
            for name, (called, _) in library.policy_skills(world).items():
                entry = next(p for p in policies if called.label.endswith(f"#{p.id}"))
                table.add_row(
                    name,
                    "policy",
                    world,
                    POLICY_AUTHOR,
                    where_made(entry.made_in, entry.origin),
                    f"{entry.calls:,}",
                    entry.figure,
                    f"{entry.task}'s trained policy (#{entry.id}, {entry.samples:,} samples): "
                    f"acts until {entry.task}, at most {called.max_steps} steps",
                )
        console.print(table)
        if not skills and not policies:
            where = f" for {args.world}" if args.world else ""
            console.print(
                f"The library{where} is empty: every coded action that validated and ran in a "
                "session joins it; `rlgpt-tui skills import FOLDER` adds a shared one."
            )
        if policies:
            table = Table(title="Trained policies (a session on their task starts PPO from them)")
            for column in POLICY_COLUMNS:
                table.add_column(column)
            for policy in policies:
                table.add_row(*policy.cells())
            console.print(table)
    elif args.action == "show":
        skill = library.skill(args.name, args.world, args.version)
        versions = library.skills(skill.world, skill.name)
        console.print(skill_markdown(skill, versions), markup=False, highlight=False)
    elif args.action == "export":
        task = get_task(args.plan) if args.plan else None  # a bad name: one line, no files
        if args.steps_only and task is None:
            raise UsageError("--steps-only composes a plan: give --plan TASK too")
        world = (args.world or _only_world(store)) if task is not None else args.world
        # the composed plan replaces the library's earlier plans (a model's plan for another
        # task, measured there, would be the version reused: table2.py --script plan ran it)
        left_out = [COMPOSED_PLAN] if task is not None else []
        written = library.export_folder(
            args.folder, args.world, leave_out=left_out, policies=not args.code_only
        )
        policy_files = sum(1 for path in written if path.suffix == ".json")
        console.print(
            f"wrote {len(written) - policy_files} skill file(s) and {policy_files} trained "
            f"policy(ies) to {args.folder}"
        )
        if task is not None:
            path, steps = library.export_plan(
                args.folder, task, world, not args.steps_only, policies=not args.code_only
            )
            console.print(f"wrote {path.name}: {steps}", markup=False, highlight=False)
    else:
        added, known, policies_added = library.import_folder(args.folder)
        names = ", ".join(s.label for s in added) or "none"
        console.print(
            f"imported {len(added)} skill(s) from {args.folder} ({names}) and {policies_added} "
            f"trained policy(ies); {known} skill(s) already in the library"
        )
    return 0


def _only_world(store: SessionStore) -> str:
    """The one world the library holds skills of; a UsageError naming the fix otherwise."""
    worlds = sorted({skill.world for skill in store.skills()})
    if not worlds:
        raise UsageError("--plan: the library holds no skills; run sessions first")
    if len(worlds) > 1:
        raise UsageError(f"--plan needs --world: the library holds skills of {', '.join(worlds)}")
    return worlds[0]
