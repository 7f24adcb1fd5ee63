"""What sampled runs of a coded action show: :class:`Execution` (one run, what the player saw
before and after) and measurements over runs, read by the engine's repair requests and notes
for the slow agent and by the critic: what each run gained, what it lacked of what a step's
recipe uses, the errors they ended with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rlgpt_tui.agents.grounding import view_things
from rlgpt_tui.envs.base import View
from rlgpt_tui.envs.knowledge import Step
from rlgpt_tui.skills.outcomes import CallEnd


@dataclass
class Execution:
    """One sampled execution of a coded sub-action: what the player saw before and after."""

    before: View
    after: View
    steps: int
    end: CallEnd
    detail: str = ""  # the error message of a failure, and what the code logged (ctx.log)
    frames: tuple[Any, Any] | None = None  # RGB arrays before/after, for critics that see
    round: int = 1  # a plan of code alone runs its steps in rounds: the round of this call

    @property
    def end_reason(self) -> str:
        """``reason`` or ``reason: detail``, for prompts and panes."""
        return f"{self.end.value}: {self.detail}" if self.detail else self.end.value


def added_by(run: Execution) -> tuple[dict[str, int], list[str]]:
    """What a run added: each item that grew with its increase, and the new achievements."""
    had = run.before.inventory
    items = {i: n - had.get(i, 0) for i, n in run.after.inventory.items() if n > had.get(i, 0)}
    return items, sorted(set(run.after.achievements) - set(run.before.achievements))


def gains(run: Execution) -> list[str]:
    """What a run added: ``wood +1`` per inventory item that grew, ``achievement X`` per
    achievement unlocked."""
    items, new = added_by(run)
    return [f"{i} +{n}" for i, n in items.items()] + [f"achievement {a}" for a in new]


def changed_runs(runs: list[Execution]) -> int:
    """The runs that added to the inventory or the achievements."""
    return sum(bool(gains(run)) for run in runs)


def run_errors(runs: list[Execution]) -> str:
    """The most common error message of runs that failed with one, as a sentence for a
    repair request (``''`` when none did): the critic may not pass it on."""
    details = Counter(r.detail for r in runs if r.end.failure and r.detail)
    if not details:
        return ""
    detail, n = details.most_common(1)[0]
    return f"{n} of {len(runs)} runs ended with this error: {detail}"


def idle_runs(runs: list[Execution]) -> str:
    """A sentence for a repair request when most runs returned before one action, with
    what their inventory held ('' otherwise): code that checks for the wrong material
    returns at once, and a repair that is not shown what the runs held keeps the check."""
    idle = [r for r in runs if r.end is CallEnd.RETURNED and r.steps == 0]
    if not runs or 2 * len(idle) < len(runs):
        return ""
    held = Counter(
        ", ".join(f"{k} {v}" for k, v in sorted(r.before.inventory.items()) if v) or "nothing"
        for r in idle
    )
    common, n = held.most_common(1)[0]
    return (
        f"{len(idle)} of {len(runs)} runs returned before a single action: a check at the "
        f"start of the code was false there ({n} of them held {common})"
    )


def lacked(run: Execution, step: Step) -> list[str]:
    """The items ``step`` uses (a collect step's tool, a make step's materials) that ``run``
    started with too few of, and a make step's stations (table, furnace) not in its view."""
    short = [item for item, n in step.uses.items() if run.before.inventory.get(item, 0) < n]
    if stations := _stations(step):
        seen = view_things(run.before)
        short += [station for station in stations if station not in seen]
    return short


def _stations(step: Step) -> tuple[str, ...]:
    """The stations a make step is done near (a place step's ``where`` are tiles)."""
    return step.where if step.kind == "make" else ()


def did_step(run: Execution, name: str) -> bool:
    """Whether ``run`` did the step ``name``: gained its item (``collect_stone``: stone) or
    unlocked the achievement of its name."""
    items, new = added_by(run)
    return name.partition("_")[2] in items or name in new


def _lacking(runs: list[Execution], step: Step) -> list[str]:
    """What any of ``runs`` lacked of what ``step`` needs, in order, once each."""
    return list(dict.fromkeys(thing for run in runs for thing in lacked(run, step)))


def needs_text(step: Step, items: Iterable[str] | None = None) -> str:
    """What ``step`` needs (of ``items``; all by default), e.g. "1 wood, a table in view"."""
    wanted = [*step.uses, *_stations(step)] if items is None else items
    return ", ".join(
        f"{step.uses[item]} {item}" if item in step.uses else f"a {item} in view" for item in wanted
    )


def waits_on_earlier(
    runs: list[Execution], name: str, step: Step | None, failed: Sequence[str]
) -> str | None:
    """Why ``name``'s code is neither judged nor repaired (None when it is): more than half
    its runs started without what the world's recipe says the step needs, no run did the
    step, and what they lacked is what an earlier step of the plan that ``failed`` makes.
    No code can show what it does before its table is there: judging and rewriting it
    then spends tokens on code that may be right."""
    if step is None or not runs or not failed:
        return None
    if any(did_step(run, name) for run in runs):
        return None
    short = [run for run in runs if lacked(run, step)]
    if 2 * len(short) <= len(runs):
        return None
    lacking = _lacking(short, step)
    makers = [s for s in failed if s.partition("_")[2] in lacking]
    if not makers:
        return None
    return (
        f"not judged: {len(short)} of {len(runs)} runs started without "
        f"{needs_text(step, lacking)}, made by {', '.join(makers)}, which failed before "
        f"it; {name}'s code is kept as it is until then"
    )


def unmet_needs(name: str, steps: list[Step], runs: list[Execution]) -> str:
    """For a goal step ``name`` whose code failed: a note for the slow agent when most of
    its runs started without what the world's recipes say the step needs, naming the
    goal's earlier steps that provide it ('' otherwise, or for a name not among ``steps``):
    a collect_stone planned alone never holds a pickaxe."""
    step = next((s for s in steps if s.name == name), None)
    if step is None or not runs:
        return ""
    short = [run for run in runs if lacked(run, step)]
    if 2 * len(short) < len(runs):
        return ""
    needs = needs_text(step, _lacking(short, step))
    earlier = [s.name for s in steps[: steps.index(step)]]
    fix = (
        f"the goal's steps before it make that ({', '.join(earlier)}): plan them first, in "
        "order, each coded"
        if earlier
        else "nothing in the goal's steps makes it"
    )
    return (
        f"{name} needs {needs} (the world's recipes), which {len(short)} of its {len(runs)} runs "
        f"started without: {fix}"
    )
