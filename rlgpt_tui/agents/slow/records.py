"""What earlier sessions measured of each sub-action (the sessions on the task of its name:
tries and best fresh figure, by code and by RL), and the rule the slow agents follow with it:
where code has fallen short, the sub-action is learned with RL.

The builtin slow agent follows the rule when it plans; the LLM one sees the records in its
prompt, and :func:`rl_where_code_failed` applies it to the plan, with the reason in the
plan's notes: the session's task goes to RL over primitive actions; a step that is a task of
its own (collect_wood in place_table's plan) is learned as its own skill (its policy trained
on that task and called by the plan's code); any other step goes to the plan's RL sub-action.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from rlgpt_tui.agents.schemas import Plan, SubAction
from rlgpt_tui.tasks.catalog import load_catalog

#: code tries below the threshold after which a sub-action is learned with RL; the
#: session's own task goes to RL after one (a task failed by code is next tried with RL)
CODE_TRIES_BEFORE_RL = 2
#: how a reason that the records assigned a sub-action to RL begins (:meth:`MeasuredRecords.
#: code_failed`); :func:`learned_as_skill` reads it
CODE_FELL_SHORT = "code fell short at "
#: how a coded step's reason ends when it is learned as its own skill (:func:`own_skill`)
OWN_SKILL = ": learned with RL as its own skill, a policy this code calls"


@dataclass(frozen=True)
class SubActionRecord:
    """Earlier sessions on the task named ``name``: tries and best fresh figure, by code
    (their chosen solution was code) and by RL (RL, or RL that started from code)."""

    name: str
    code_tries: int = 0
    code_best: float | None = None
    rl_tries: int = 0
    rl_best: float | None = None

    def text(self) -> str:
        """``by code 2 tries, best 0.38; by RL 0 tries``."""

        def part(kind: str, tries: int, best: float | None) -> str:
            figure = f", best {best:.2f}" if best is not None else ""
            return f"by {kind} {tries} tr{'y' if tries == 1 else 'ies'}{figure}"

        return "; ".join(
            [part("code", self.code_tries, self.code_best), part("RL", self.rl_tries, self.rl_best)]
        )


@dataclass
class MeasuredRecords:
    """The records a session's slow agent plans with, and the threshold they are read at."""

    threshold: float = 0.9
    subactions: dict[str, SubActionRecord] = field(default_factory=dict)

    def code_failed(self, name: str, task: str) -> str:
        """Why ``name`` is to be learned with RL ('' when code may still do it): code tried
        it :data:`CODE_TRIES_BEFORE_RL` times (once, for the session's ``task``) and never
        reached the threshold."""
        record = self.subactions.get(name)
        if record is None:
            return ""
        tries = 1 if name == task else CODE_TRIES_BEFORE_RL
        best = record.code_best
        if record.code_tries < tries or (best is not None and best >= self.threshold):
            return ""
        figure = "no fresh result" if best is None else f"best {best:.2f}"
        return (
            f"{CODE_FELL_SHORT}{name} ({record.code_tries}x by code, {figure} < {self.threshold:g})"
        )

    def prompt_text(self, names: list[str]) -> str:
        """One line per sub-action name in ``names`` with a record ('' for none)."""
        lines = [
            f"- {name}: {self.subactions[name].text()}"
            for name in dict.fromkeys(names)
            if name in self.subactions
        ]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "subactions": {n: asdict(r) for n, r in self.subactions.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> MeasuredRecords | None:
        if not data:
            return None
        subactions = {
            str(n): SubActionRecord(**r) for n, r in (data.get("subactions") or {}).items()
        }
        return cls(float(data.get("threshold", 0.9)), subactions)


def rl_where_code_failed(plan: Plan, task: str, records: MeasuredRecords | None) -> Plan:
    """``plan`` with each coded sub-action the records rule out for code learned with RL:
    a step that is a task of its own stays a step, learned as its own skill (:func:`own_skill`:
    the engine trains its policy first, and the step's code calls it); the session's task is
    learned over primitive actions (:func:`rl_skill_subaction`); another step becomes the
    plan's RL sub-action (the other coded ones its high-level actions) when it has none,
    otherwise the RL sub-action learns it (the coded one is dropped). Each change is said in
    the plan's notes."""
    if records is None:
        return plan
    subs = list(plan.subactions)
    notes: list[str] = []
    for sub in plan.coded():
        why = records.code_failed(sub.name, task)
        if not why or own_skill(sub):
            continue
        learned = [s for s in subs if s.mode == "rl"]
        if sub.name != task and skill_task(sub.name):
            # a task of its own: its policy, trained on that task, is the skill the step calls
            own = sub.model_copy(update={"reason": f"{why}{OWN_SKILL}"})
            subs = [own if s.name == sub.name else s for s in subs]
            notes.append(f"guard: {sub.name} learned with RL as its own skill, {why}")
        elif not learned and sub.name == task:
            # the task itself: learned over primitive actions, so that its policy is a skill
            # code calls (the other coded steps would be no action of it: dropped)
            dropped = [s.name for s in subs if s.name != sub.name]
            subs = [rl_skill_subaction(sub.name, sub.description, why)]
            notes.append(
                f"guard: {sub.name} turned to RL over primitive actions (a skill code calls), "
                f"{why}" + (f"; dropped {', '.join(dropped)}" if dropped else "")
            )
        elif not learned:
            others = [s.name for s in subs if s.mode == "code" and s.name != sub.name]
            turned = SubAction(
                name=sub.name,
                description=sub.description,
                mode="rl",
                reason=f"{why}: learned with RL",
                high_level_actions=others,
            )
            subs = [turned if s.name == sub.name else s for s in subs]
            notes.append(f"guard: {sub.name} turned to RL, {why}")
        elif len(subs) > 1:
            subs = [s for s in subs if s.name != sub.name]
            rl = learned[0]
            kept = [a for a in rl.high_level_actions if a != sub.name]
            subs = [
                s.model_copy(update={"high_level_actions": kept}) if s is rl else s for s in subs
            ]
            notes.append(f"guard: {sub.name} left to the RL sub-action {rl.name}, {why}")
    if not notes:
        return plan
    text = "; ".join(filter(None, [plan.notes, *notes]))[:4000]
    return Plan(subactions=subs, notes=text)


def learned_as_skill(sub: SubAction, task: str) -> bool:
    """Is ``sub`` the session's ``task``, assigned to RL because code fell short at it (the
    records' reason, :meth:`MeasuredRecords.code_failed`, begins its reason)? Its RL is
    then trained over primitive actions only, so that the policy, measured fresh, is a
    skill code calls by the task's name (``ctx.skill(task)``)."""
    return (
        sub.mode == "rl" and sub.name == task and sub.reason.startswith(f"{CODE_FELL_SHORT}{task} ")
    )


def skill_task(name: str) -> bool:
    """Is ``name`` a task of the catalog whose goal a policy skill can meet (an achievement
    or items)? Such a step, code fell short at, is learned as its own skill."""
    task = load_catalog().get(name)
    return task is not None and (task.goal.achievement is not None or bool(task.goal.inventory))


def own_skill(sub: SubAction) -> bool:
    """Is the coded step ``sub`` to be learned as its own skill (:func:`rl_where_code_failed`
    said so in its reason)? The engine trains its policy on the task of its name, over
    primitive actions, before the step's code is written: the code then calls that policy
    where it measured better than code (``ctx.skill(name)``)."""
    reason = sub.reason
    return (
        sub.mode == "code"
        and reason.startswith(f"{CODE_FELL_SHORT}{sub.name} ")
        and reason.endswith(OWN_SKILL)
    )


def rl_skill_subaction(task: str, description: str, why: str) -> SubAction:
    """The session's ``task`` learned with RL over primitive actions because code fell
    short at it (``why``: :meth:`MeasuredRecords.code_failed`): its trained policy is a
    skill code calls (:func:`learned_as_skill`)."""
    return SubAction(
        name=task,
        description=description,
        mode="rl",
        reason=f"{why}: learned with RL over primitive actions, a skill code calls",
        high_level_actions=[],
    )
