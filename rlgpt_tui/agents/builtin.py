"""The builtin agent (no LLM): tech-tree planner, skill templates, rule-based critic.

Everything it produces is labelled ``builtin``. It follows the paper's pattern: iteration 0
learns the whole task with RL; when that falls short, navigation is coded and given to RL
as a high-level action (with coded prerequisites); if RL still falls short on a collecting
task, the task itself is coded.
"""

from __future__ import annotations

from typing import Any

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.agents.base import (
    AgentTeam,
    Critic,
    Execution,
    FastAgent,
    IterationFeedback,
    SlowAgent,
    TaskPlanner,
)
from rlgpt_tui.agents.schemas import Plan, RLAnswer, SubAction, Verdict
from rlgpt_tui.tasks import Task, load_catalog

TEMPLATES = ASSETS_DIR / "skills" / "templates"
# What each collecting achievement harvests (the block or creature to reach).
TARGETS: dict[str, str] = {
    "collect_wood": "tree",
    "collect_stone": "stone",
    "collect_coal": "coal",
    "collect_iron": "iron",
    "collect_diamond": "diamond",
    "collect_drink": "water",
    "eat_cow": "cow",
    "collect_sapling": "grass",
}
LABEL = "builtin"


def target_of(task: Task) -> str | None:
    """The block or creature a task is about, when the tech tree names one."""
    return TARGETS.get(task.goal.achievement or "")


def template_code(name: str) -> str | None:
    """Code for a catalog task (tech-tree skills) or a ``go_to_X``/``collect_X`` name."""
    techtree = (TEMPLATES / "techtree.py").read_text()
    if f"\ndef {name}(ctx):" in techtree:
        return f"{techtree}\n\ndef act(ctx):\n    return (yield from {name}(ctx))\n"
    for prefix, template in (("go_to_", "go_to.py"), ("collect_", "collect.py")):
        if name.startswith(prefix):
            target = name[len(prefix) :]
            return (TEMPLATES / template).read_text().replace("{target}", target)
    return None


class BuiltinSlowAgent(SlowAgent):
    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan:
        stage = len(history)
        target = target_of(task)
        if stage == 0:
            return Plan(
                subactions=[
                    SubAction(
                        name=task.name,
                        description=task.description,
                        mode="rl",
                        reason="first try: learn the whole task with RL",
                    )
                ],
                notes="builtin: iteration 0 learns everything",
            )
        helpers = []
        if target is not None:
            helpers.append(
                SubAction(
                    name=f"go_to_{target}",
                    description=f"walk next to the nearest {target} and face it",
                    mode="code",
                    reason=f"RL rarely reached a {target}: navigation is easy to code",
                )
            )
        coded = [p for p in task.prerequisites if template_code(p) is not None]
        # a plan holds at most 8 sub-actions (the RL one included): keep the latest
        # prerequisites, each of which obtains the earlier ones itself
        for prerequisite in coded[max(0, len(coded) - (7 - len(helpers))) :]:
            helpers.append(
                SubAction(
                    name=prerequisite,
                    description=f"obtain what {prerequisite} gives",
                    mode="code",
                    reason="a prerequisite the tech tree knows how to code",
                )
            )
        if stage >= 2 and template_code(task.name) is not None:
            return Plan(
                subactions=[
                    SubAction(
                        name=task.name,
                        description=task.description,
                        mode="code",
                        reason="RL with coded navigation still fell short: code the task",
                    )
                ],
                notes="builtin: code-as-policy for the whole task",
            )
        return Plan(
            subactions=helpers
            + [
                SubAction(
                    name=task.name,
                    description=task.description,
                    mode="rl",
                    reason="learn the rest with the coded actions as high-level actions",
                    high_level_actions=[h.name for h in helpers],
                )
            ],
            notes="builtin: coded navigation added to the RL action space",
        )


class BuiltinFastAgent(FastAgent):
    def write_code(self, task, sub, previous=None, problem=None) -> str:
        code = template_code(sub.name)
        if code is None:
            raise ValueError(f"builtin agent has no skill template for {sub.name!r}")
        return code

    def write_rl(self, task, sub, coded, env: str = "craftax") -> RLAnswer:
        return RLAnswer(high_level_actions=[n for n in sub.high_level_actions if n in coded])


class BuiltinCritic(Critic):
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict:
        if not runs:
            return Verdict(success=False, reason="no execution to judge")
        failures = [r for r in runs if r.end.failure]
        if failures:
            return Verdict(
                success=False,
                reason=f"{len(failures)}/{len(runs)} runs failed: {failures[0].end_reason}",
                suggestion="fix the code",
            )
        if sub.name.startswith("go_to_"):
            target = sub.name[len("go_to_") :]
            ok = sum(
                r.after.block_at(*r.after.facing_position) == target
                or r.after.mob_at(*r.after.facing_position) == target
                for r in runs
            )
            what = f"ended facing a {target}"
        else:
            ok = sum(
                r.after.inventory != r.before.inventory
                or r.after.achievements != r.before.achievements
                for r in runs
            )
            what = "changed the inventory or achievements"
        rate = ok / len(runs)
        return Verdict(
            success=rate >= 0.5,
            reason=f"{ok}/{len(runs)} runs {what}",
            suggestion="" if rate >= 0.5 else "explore longer before giving up",
        )

    def judge_rl(self, task, sub, evaluation: dict[str, Any], target: float) -> Verdict:
        rate = evaluation["success_rate"]
        usage = evaluation.get("coded_decision_share")
        used = f"; coded actions chosen in {usage:.0%} of decisions" if usage is not None else ""
        if rate >= target:
            return Verdict(success=True, reason=f"success rate {rate:.2f} >= {target}{used}")
        return Verdict(
            success=False,
            reason=f"success rate {rate:.2f} < {target}{used}",
            suggestion="give RL a coded high-level action toward the goal",
        )


class BuiltinPlanner(TaskPlanner):
    def subtasks(self, task: Task) -> list[str]:
        catalog = load_catalog()
        return [p for p in task.prerequisites if p in catalog] + [task.name]


def builtin_team() -> AgentTeam:
    return AgentTeam(
        label=LABEL,
        slow=BuiltinSlowAgent(),
        fast=BuiltinFastAgent(),
        critic=BuiltinCritic(),
        planner=BuiltinPlanner(),
    )
