"""The builtin critic (no LLM): rule-based verdicts from the runs and the evaluation."""

from __future__ import annotations

from rlgpt_tui.agents.critic.base import Critic
from rlgpt_tui.agents.runs import Execution
from rlgpt_tui.agents.schemas import SubAction, Verdict
from rlgpt_tui.envs.base import ACHIEVEMENTS, STATS, View
from rlgpt_tui.envs.knowledge import TechTree, crafter_tech_tree
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import Task


class BuiltinCritic(Critic):
    """Rule-based verdicts; what answers each death comes from the world's tech tree
    (``tree``; Crafter's when none is given)."""

    def __init__(self, tree: TechTree | None = None) -> None:
        self.tree = tree if tree is not None else crafter_tech_tree()

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
        if task.scored:
            return judge_skill(sub.name, runs, self.tree)
        if task.goal.survive:  # staying alive changes no inventory: judged by the health left
            ok = sum(r.after.health > 0 for r in runs)
            what = "ended with the player alive"
        elif sub.name.startswith("go_to_"):
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

    def judge_rl(self, task, sub, evaluation: EvaluationSummary, target: float) -> Verdict:
        if task.scored:
            return judge_score(evaluation, target, self.tree)
        rate = evaluation.success_rate or 0.0
        usage = evaluation.coded_decision_share
        used = f"; coded actions chosen in {usage:.0%} of decisions" if usage is not None else ""
        if rate >= target:
            return Verdict(success=True, reason=f"success rate {rate:.2f} >= {target}{used}")
        return Verdict(
            success=False,
            reason=f"success rate {rate:.2f} < {target}{used}",
            suggestion="give RL a coded high-level action toward the goal",
        )


def progressed(name: str, before: View, after: View) -> bool:
    """Did a run of skill ``name`` change what it is for: inventory, achievements, a stat
    going up or sleep, or (explore, tunnel) the player's place?"""
    if after.inventory != before.inventory or after.achievements != before.achievements:
        return True
    if any(getattr(after, s) > getattr(before, s) for s in STATS) or after.sleeping:
        return True
    if name in ("explore", "tunnel_for_ores", "survive") and after.position != before.position:
        return True
    if name in ("defeat_zombie", "defeat_skeleton"):
        mob = name.removeprefix("defeat_")
        return sum(m[0] == mob for m in after.mobs) < sum(m[0] == mob for m in before.mobs)
    return False


def judge_skill(name: str, runs: list[Execution], tree: TechTree) -> Verdict:
    """A library skill passes when half its runs made progress; a situational one (nothing
    to fight, nothing ripe yet) when it ran without errors and progressed once."""
    ok = sum(progressed(name, r.before, r.after) for r in runs)
    rate = ok / len(runs)
    what = f"{ok}/{len(runs)} runs changed the inventory, achievements or stats"
    if rate >= 0.5:
        return Verdict(success=True, reason=what)
    if name in tree.situational and ok:
        return Verdict(success=True, reason=f"{what}; it waits for its moment in the others")
    return Verdict(
        success=False,
        reason=what,
        suggestion="search longer (explore, remembered map) before giving up",
    )


def judge_score(evaluation: EvaluationSummary, target: float, tree: TechTree) -> Verdict:
    """The Crafter score against the target, with the achievements at 0 or low and the
    commonest ways episodes ended as the reasons and suggestions."""
    value = evaluation.value
    if value is None:
        value = evaluation.score or 0.0
    rates: dict[str, float] = evaluation.achievement_rates or {}
    zeros = [a for a in ACHIEVEMENTS if a in rates and rates[a] <= 0]
    low = [a for a in ACHIEVEMENTS if 0 < rates.get(a, 0) < 0.5]
    ends: dict[str, int] = evaluation.episode_ends or {}
    total = sum(ends.values())
    reasons = [f"Crafter score {value:.1f} {'>=' if value >= target else '<'} {target}"]
    if zeros:
        reasons.append("at 0: " + ", ".join(zeros))
    if low:
        reasons.append("low: " + ", ".join(f"{a} {rates[a]:.2f}" for a in low))
    suggestions = []
    for end, count in tree.common_deaths(ends, total):
        reasons.append(f"{count}/{total} episodes ended {end}")
        suggestions.append(f"{count}/{total} episodes ended {end}: {tree.deaths[end][1]}")
    usage = evaluation.coded_decision_share
    if usage is not None:
        reasons.append(f"skills chosen in {usage:.0%} of decisions")
    if zeros:
        suggestions.append("add or fix skills for " + ", ".join(zeros))
    return Verdict(
        success=value >= target,
        reason="; ".join(reasons)[:2000],
        suggestion="; ".join(suggestions)[:2000],
    )
