"""Curriculum agents: what to learn next, and why.

:class:`BuiltinCurriculum` follows deterministic rules over a :class:`CurriculumState`:
deaths that end an eighth or more of the recent evaluation episodes propose the tasks that
answer them (zombies: defeat_zombie; hunger: eat_cow; thirst: collect_drink; exhaustion:
wake_up; the survival task last); otherwise the cheapest open task never tried (its
prerequisites reached, fewest steps), then the next task of the tech tree not yet reached;
a task whose prerequisites are weak proposes those first; a failed task comes back once
something new was reached, and not after ``max_tries`` tries while other tasks are open.
:class:`LLMCurriculum` asks a model (prompt: ``assets/prompts/curriculum.md``) to choose at
the frontier, validates its structured answer, and falls back to the builtin choice, with
the reason recorded, when the answer cannot be used or chooses a task held back (over its
cap, or failed while open tasks never tried wait).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from string import Template
from typing import ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.curriculum.frontier import CurriculumState, death_tasks, prerequisites
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.llm.settings import LLMError
from rlgpt_tui.tasks.catalog import load_catalog
from rlgpt_tui.text import clipped

PROMPT_FILE = ASSETS_DIR / "prompts" / "curriculum.md"
BUILTIN = "builtin"
PERSON = "person"


@dataclass(frozen=True)
class Proposal:
    """The next task, why, who chose it; ``fallback``: why a model's answer was not used."""

    task: str
    reason: str
    chooser: str
    fallback: str = ""
    tokens: int = 0
    seconds: float = 0.0


class CurriculumAgent(Protocol):
    """Proposes the next task from a state (None: nothing left to propose)."""

    label: str

    def propose(self, state: CurriculumState) -> Proposal | None: ...


class BuiltinCurriculum:
    """Deterministic rules over the tech tree, the measured records and recent deaths."""

    label = BUILTIN

    def propose(self, state: CurriculumState) -> Proposal | None:
        return self.for_deaths(state) or self.cheapest_untried(state) or self.next_in_tree(state)

    def cheapest_untried(self, state: CurriculumState) -> Proposal | None:
        """The cheapest open task never tried whose prerequisites are reached (a model left
        to choose may leave such tasks, a step or two past what it reached, unproposed while
        it retries a failing one)."""
        untried = state.untried()
        if not untried:
            return None
        task = untried[0]
        needs = ", ".join(prerequisites(task)) or "none needed"
        return Proposal(
            task,
            f"{task}: never tried, its prerequisites reached ({needs}), {state.cost(task)} "
            "steps: the cheapest open task",
            BUILTIN,
        )

    def for_deaths(self, state: CurriculumState) -> Proposal | None:
        """A task that answers the commonest way recent episodes ended, if one is open."""
        total = sum(state.recent_ends.values())
        for end, count in state.tree.common_deaths(dict(state.recent_ends), total):
            _, advice = state.tree.deaths[end]
            why = f"{count}/{total} recent evaluation episodes ended {end} ({advice})"
            for task in death_tasks(state.tree, end):
                if not state.eligible(task) or state.held_back(task):
                    continue
                first = self._prerequisite_first(state, task, why)
                if first is not None:
                    return first
                if state.weak(task):  # its weak prerequisites wait: it would mostly fail
                    continue
                return Proposal(task, f"{why}: {task} answers it ({state.figure(task)})", BUILTIN)
        return None

    def next_in_tree(self, state: CurriculumState) -> Proposal | None:
        """The first open task of the tech tree whose prerequisites are reached, or an open
        weak prerequisite of one; else any open task."""
        for task in state.tasks:
            if not state.eligible(task) or state.held_back(task):
                continue
            first = self._prerequisite_first(state, task, f"next in the tech tree: {task}")
            if first is not None:
                return first
            if not state.weak(task):
                return Proposal(task, self._why(state, task), BUILTIN)
        for task in state.candidates():  # its weak prerequisites all wait: try it anyway
            weak = ", ".join(state.weak(task))
            return Proposal(
                task,
                f"{self._why(state, task)}; its prerequisites {weak} are still weak and wait "
                "for something new, nothing else is open",
                BUILTIN,
            )
        return None

    def _prerequisite_first(self, state: CurriculumState, task: str, why: str) -> Proposal | None:
        weak = state.weak(task)
        # a prerequisite whose own prerequisites are reached: never one that would mostly fail
        open_ = [
            p for p in weak if state.eligible(p) and not state.held_back(p) and not state.weak(p)
        ]
        if not open_:
            return None
        shown = ", ".join(f"{p} ({state.figure(p)})" for p in weak)
        return Proposal(
            open_[0],
            f"{why}, but its prerequisites are weak ({shown} < {state.threshold:g}): "
            f"{open_[0]} first",
            BUILTIN,
        )

    @staticmethod
    def _why(state: CurriculumState, task: str) -> str:
        row = state.rows.get(task)
        if row is None or not row.tries:
            return f"next in the tech tree: {task}, not tried yet"
        since = state.learned_since(task)
        news = f"; reached since its last try: {', '.join(since)}" if since else ""
        return f"{task} again: {state.figure(task)} < {state.threshold:g}{news}"


class CurriculumAnswer(BaseModel):
    """What a model answers: the next task (one of the open ones) and why."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=64)
    reason: str = Field(min_length=1, max_length=1000)

    # a made-up world's task: copying it is never right
    EXAMPLE: ClassVar[str] = (
        '{"task": "collect_clay", "reason": "<why this task now, from the table and the deaths>"}'
    )


class LLMCurriculum:
    """A model proposes; a bad answer falls back to :class:`BuiltinCurriculum`'s choice."""

    def __init__(self, client) -> None:
        """``client``: an :class:`~rlgpt_tui.llm.client.LLMClient`."""
        self.client = client
        self.label = client.settings.agent_label
        self.builtin = BuiltinCurriculum()

    def propose(self, state: CurriculumState) -> Proposal | None:
        fallback = self.builtin.propose(state)
        if fallback is None:
            return None
        open_tasks = offered_tasks(state, fallback)
        tokens_before = self.client.tokens
        started = time.perf_counter()

        held = held_back(state)

        def check(answer: CurriculumAnswer) -> None:
            if answer.task not in open_tasks and answer.task not in held:
                raise ValueError(
                    f"task {answer.task!r} is not open now: choose one of {', '.join(open_tasks)}"
                )

        try:
            answer = self.client.structured(
                "curriculum",
                curriculum_messages(state, fallback, open_tasks, held),
                CurriculumAnswer,
                check,
                choices={"task": open_tasks},
            )
        except LLMError as error:
            return Proposal(
                fallback.task,
                fallback.reason,
                BUILTIN,
                fallback=f"the model's answer was not used ({error}): the builtin choice",
                tokens=self.client.tokens - tokens_before,
                seconds=time.perf_counter() - started,
            )
        if answer.task in held:  # over its cap, or failed while untried tasks wait
            return Proposal(
                fallback.task,
                fallback.reason,
                BUILTIN,
                fallback=f"the model chose {answer.task} ({clipped(answer.reason.strip(), 200)})"
                f", overridden: {held[answer.task]}: the builtin choice",
                tokens=self.client.tokens - tokens_before,
                seconds=time.perf_counter() - started,
            )
        return Proposal(
            answer.task,
            answer.reason.strip(),
            self.label,
            tokens=self.client.tokens - tokens_before,
            seconds=time.perf_counter() - started,
        )


def held_back(state: CurriculumState) -> dict[str, str]:
    """The open tasks not to be chosen now, each with why (over the cap on tries, or failed
    while open tasks never tried wait): a model that chooses one is overridden."""
    return {t: why for t in state.tasks if state.is_open(t) and (why := state.held_back(t))}


def offered_tasks(state: CurriculumState, suggestion: Proposal) -> list[str]:
    """What the model may choose: the frontier (open tasks whose prerequisites are
    reached) and the rules' suggestion; every open task when the frontier is empty. Offered
    every open task, a model may choose one far beyond what it has reached."""
    ready = state.ready() or state.candidates()
    offered = [t for t in ready if not state.held_back(t)] or ready
    return offered if suggestion.task in offered else [*offered, suggestion.task]


def curriculum_messages(
    state: CurriculumState,
    suggestion: Proposal,
    offered: list[str] | None = None,
    held: dict[str, str] | None = None,
) -> list[dict[str, str]]:
    """The curriculum prompt: the world and its tasks first, unchanged from call to call
    (a server's prompt cache reuses it), then the frontier, the deaths and the choices."""
    catalog = load_catalog()
    task_lines = []
    for task in state.tasks:
        needs = ", ".join(prerequisites(task)) or "nothing"
        task_lines.append(f"- {task}: {catalog[task].description} (needs first: {needs})")
    frontier = [
        f"- {row.task}: {row.status}; best fresh success {row.figure}; tries {row.tries}"
        for row in state.rows.values()
    ]
    ends = ", ".join(f"{end} {n}" for end, n in state.recent_ends.most_common()) or "none yet"
    history = [
        f"- {c.position}. {c.task}: {c.status}"
        + (f" ({c.result:.2f})" if c.result is not None else "")
        for c in state.choices[-12:]
    ] or ["- none yet"]
    waiting = [t for t in state.tasks if state.waiting(t)]
    values = {
        "world": world_info(state.env).documentation().text(),
        "tasks": "\n".join(task_lines),
        "threshold": f"{state.threshold:g}",
        "frontier": "\n".join(frontier),
        "ends": ends,
        "history": "\n".join(history),
        "open": ", ".join(offered if offered is not None else offered_tasks(state, suggestion)),
        "waiting": ", ".join(waiting) or "none",
        "held": "; ".join((held if held is not None else held_back(state)).values()) or "none",
        "max_tries": str(state.max_tries),
        "suggestion": f"{suggestion.task} ({suggestion.reason})",
        "example": CurriculumAnswer.EXAMPLE,
        "shape": json.dumps({"task": "string", "reason": "string"}),
    }
    text = Template(PROMPT_FILE.read_text()).safe_substitute(values)
    return [
        {"role": "system", "content": "You are part of RL-GPT, acting as the curriculum agent."},
        {"role": "user", "content": text},
    ]
