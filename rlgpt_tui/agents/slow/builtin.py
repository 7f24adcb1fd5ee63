"""The builtin slow agent (no LLM): plans from the world's tech tree.

It follows the paper's pattern: iteration 0 learns the whole task with RL; when that falls
short, navigation is coded and given to RL as a high-level action (with coded
prerequisites); if RL still falls short on a collecting task, the task itself is coded.

Scored tasks (open-ended play, judged by Crafter's score) get a library of coded skills,
one per achievement plus survival and search helpers, all offered to one PPO policy that
learns when to run which; each later iteration revises the library from the evaluation's
per-achievement rates and how episodes ended. ``SCRIPT_SKILL`` runs the same library by a
fixed rule: the pure-code baseline.
"""

from __future__ import annotations

from rlgpt_tui.agents.schemas import MAX_SUBACTIONS, Plan, SubAction
from rlgpt_tui.agents.slow.base import IterationFeedback, SlowAgent
from rlgpt_tui.agents.slow.records import MeasuredRecords, rl_skill_subaction
from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.knowledge import TechTree, crafter_tech_tree
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.tasks.catalog import Task

# -- the library of coded skills for scored tasks (code in templates/techtree.py) ------------
# What each skill does, what searches for what and what answers each death is the world's tech
# tree (its documentation: rlgpt_tui.envs.knowledge); only the agent's own script is here.
SCRIPT_SKILL = "play"  # the fixed script over the library: the pure-code baseline
SCRIPT_DESCRIPTION = "the library run by a fixed rule: survive, then the next achievement"


def _tree(tree: TechTree | None) -> TechTree:
    """The tech tree given, else Crafter's (the builtin templates are written for it)."""
    return tree if tree is not None else crafter_tech_tree()


def target_of(task: Task, tree: TechTree | None = None) -> str | None:
    """The block or creature a task is about, when the tech tree names one."""
    return _tree(tree).targets.get(task.goal.achievement or "")


def own_code_name(task: Task) -> str:
    """The name of a task's own code when it joins the RL action space beside the learned
    sub-action (which carries the task's name): ``code_<task>``."""
    return f"code_{task.name}"


def library_for(task: Task, tree: TechTree | None = None) -> list[str]:
    """The coded skills of ``task``: for a scored task the whole library (one skill per
    achievement, then the helpers); otherwise the task's tech-tree chain."""
    if task.scored:
        return list(ACHIEVEMENTS) + list(_tree(tree).helpers)
    chain = [*task.prerequisites, task.name]
    return [name for name in chain if template_code(name) is not None]


def first_library(task: Task) -> list[str]:
    """Iteration 0's library: a skill per achievement and ``survive``; the search helpers
    come when the evaluation asks for them."""
    return list(ACHIEVEMENTS) + ["survive"]


def skill_subaction(name: str, reason: str, tree: TechTree | None = None) -> SubAction:
    descriptions = _tree(tree).skills | {SCRIPT_SKILL: SCRIPT_DESCRIPTION}
    return SubAction(
        name=name,
        description=descriptions.get(name, name.replace("_", " ")),
        mode="code",
        reason=reason,
    )


def library_plan(
    task: Task, skills: dict[str, str], notes: str, tree: TechTree | None = None
) -> Plan:
    """The coded skills (name -> reason), the script over them (``SCRIPT_SKILL``, which the
    policy starts as), and one RL sub-action that gets all of them."""
    skills = skills | {SCRIPT_SKILL: "the script over the library: the policy starts as it"}
    coded = [skill_subaction(name, reason, tree) for name, reason in skills.items()]
    learner = SubAction(
        name=task.name,
        description=task.description,
        mode="rl",
        reason="PPO learns when to run which skill; the primitives stay available",
        high_level_actions=[c.name for c in coded],
    )
    return Plan(subactions=coded + [learner], notes=notes)


def revise_library(task: Task, last: IterationFeedback, tree: TechTree | None = None) -> Plan:
    """The next library from the last iteration's evaluation: skills for achievements still
    at 0 (and the helpers that search for them), skills against the commonest deaths, and
    none of the skills PPO never chose for achievements it reaches anyway."""
    tree = _tree(tree)
    evaluation = last.evaluation
    library = {s.name: s.reason for s in last.plan.coded()}
    rates: dict[str, float] = evaluation.achievement_rates or {}
    ends: dict[str, int] = evaluation.episode_ends or {}
    calls = {
        name: stats.get("calls", 0) for name, stats in (evaluation.coded_actions or {}).items()
    }
    notes: list[str] = []
    if not rates:
        notes.append("no per-achievement rates to revise from: the library is kept")
    zeros = [a for a in ACHIEVEMENTS if a in rates and rates[a] <= 0]
    added: list[str] = []

    def add(name: str, reason: str) -> None:
        if name not in library and template_code(name) is not None:
            library[name] = reason
            added.append(name)

    for achievement in zeros:
        add(achievement, f"{achievement} stayed at 0: a skill that unlocks it")
        helper = tree.search_helpers.get(achievement)
        if helper:
            add(helper, f"{achievement} stayed at 0: {helper} searches for what it needs")
    if zeros:
        notes.append("achievements at 0: " + ", ".join(zeros))
    total = sum(ends.values())
    for end, count in tree.common_deaths(ends, total):
        skills, advice = tree.deaths[end]
        notes.append(f"{count}/{total} episodes ended {end}: {advice}")
        for name in skills:
            add(name, f"{count}/{total} episodes ended {end}: {advice}")
    dropped = [
        name
        for name in library
        if calls
        and calls.get(name, 0) == 0
        and name not in added
        and name in ACHIEVEMENTS
        and rates.get(name, 0) >= 0.9
    ]
    for name in dropped:
        del library[name]
    if dropped:
        notes.append("dropped (never chosen, achievement reached anyway): " + ", ".join(dropped))
    if added:
        notes.append("added: " + ", ".join(added))
    # a plan holds MAX_SUBACTIONS sub-actions, the RL one included
    kept = dict(list(library.items())[: MAX_SUBACTIONS - 1])
    if not kept:
        kept = {name: "the library" for name in first_library(task)}
    return library_plan(task, kept, "builtin: library revised; " + "; ".join(notes), tree)


class BuiltinSlowAgent(SlowAgent):
    """Plans from the world's tech tree (``tree``; Crafter's when none is given) and the
    sub-actions' measured ``records``: a task whose code fell short (once, in an earlier
    session) is learned with RL over primitive actions (its policy a skill code calls), and
    a prerequisite code fell short at twice is not offered as code (RL learns it within the
    task)."""

    def __init__(
        self, tree: TechTree | None = None, records: MeasuredRecords | None = None
    ) -> None:
        self.tree = _tree(tree)
        self.records = records

    def _code_failed(self, name: str, task: Task) -> str:
        return self.records.code_failed(name, task.name) if self.records is not None else ""

    def plan(self, task: Task, history: list[IterationFeedback]) -> Plan:
        if task.scored:
            last = history[-1] if history else None
            if last is None or not isinstance(last, IterationFeedback):
                skills = {
                    name: "a coded skill of the library: PPO decides when it runs"
                    for name in first_library(task)
                }
                return library_plan(
                    task,
                    skills,
                    "builtin: a skill per achievement and survive, offered with the primitives "
                    "to one PPO policy that learns when to use which",
                    self.tree,
                )
            return revise_library(task, last, self.tree)
        stage = len(history)
        failed = self._code_failed(task.name, task)
        if failed:  # RL over primitive actions: its policy is a skill code calls
            return Plan(
                subactions=[rl_skill_subaction(task.name, task.description, failed)],
                notes=f"builtin: {failed}: RL learns it over primitive actions, so that its "
                "policy is a skill code calls",
            )
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
        # iteration 1 also offers the task's own code, which the policy starts as
        own = stage == 1 and template_code(task.name) is not None
        helpers = coded_helpers(task, target_of(task, self.tree), own)
        dropped = [
            h.name
            for h in helpers
            if h.name != own_code_name(task) and self._code_failed(h.name, task)
        ]
        helpers = [h for h in helpers if h.name not in dropped]
        notes = "builtin: coded navigation added to the RL action space"
        if dropped:
            notes += f"; code fell short at {', '.join(dropped)} twice: RL learns them"
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
            notes=notes,
        )


def coded_helpers(task: Task, target: str | None, own: bool) -> list[SubAction]:
    """The coded actions offered to RL: navigation to the task's ``target`` (if it has
    one), the latest prerequisites the tech tree can code and, with ``own``, the task's own
    code (:func:`own_code_name`)."""
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
    room = 7 - len(helpers) - own
    for prerequisite in coded[max(0, len(coded) - room) :]:
        helpers.append(
            SubAction(
                name=prerequisite,
                description=f"obtain what {prerequisite} gives",
                mode="code",
                reason="a prerequisite the tech tree knows how to code",
            )
        )
    if own:
        helpers.append(
            SubAction(
                name=own_code_name(task),
                description=f"code-as-policy for {task.name}: the policy starts as it",
                mode="code",
                reason="RL starts from the code and learns where to do better",
            )
        )
    return helpers
