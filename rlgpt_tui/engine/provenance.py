"""Who wrote a solution's coded actions, from the events a run recorded.

A coded action's author is that of the code version in force (the library's rule,
:func:`~rlgpt_tui.library.provenance.code_author`: ``person`` for a human edit, ``builtin
library`` for the builtin agent's templates, else the agent that wrote it, ``llm:MODEL``).
A solution's provenance names the author of each coded action it runs, the
library skills its code runs through ``ctx.skill`` (linked in: the author's code calls
them, so its calls count as the author's and the skills are named beside it), and the share
of its coded-action calls that ran LLM-written code (an RL policy: the calls of its training
run; code alone: every call is that code's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.chosen import ChosenSolution
from rlgpt_tui.library.compose import composed_steps, linked_skills
from rlgpt_tui.library.provenance import (
    BUILTIN,
    PERSON,
    code_author,
    composed_author,
    reused_from_library,
)

#: the kinds of event a solution's provenance is read from (views keep only these)
PROVENANCE_EVENTS = (
    ev.SessionStarted,
    ev.PlanProposed,
    ev.CodeWritten,
    ev.CodeValidationFailed,
    ev.EditApplied,
    ev.TrainingStarted,
    ev.EvaluationDone,
)


def written_by(source: str | None, agent: str | None) -> str:
    """How a code version is introduced: ``by AUTHOR``, and for a library skill reused as
    it is, ``by AUTHOR, reused from the library``."""
    reused = ", reused from the library" if reused_from_library(source) else ""
    return f"by {code_author(source, agent)}{reused}"


def planned_by(source: str | None, agent: str | None) -> str:
    """Who made a plan: a person (an edit), the world's recipes (the slow agent's first
    answers all failed), or the agent (also for its previous plan kept)."""
    if source == "human":
        return "a person"
    if source == "recipes":
        return "the world's recipes (the slow agent's plans failed)"
    return str(agent)


def is_llm(author: str) -> bool:
    return author.startswith("llm:")


@dataclass
class Provenance:
    """The coded actions of a solution: who wrote each, and its calls (None: not counted).
    ``code_alone``: the solution is code run alone (every call runs it); ``links``: the
    library skills each coded action runs through ``ctx.skill``."""

    subject: str
    authors: dict[str, str] = field(default_factory=dict)
    calls: dict[str, int | None] = field(default_factory=dict)
    code_alone: bool = False
    links: dict[str, list[str]] = field(default_factory=dict)
    composed: dict[str, list[str]] = field(default_factory=dict)  # a plan's steps, by rlgpt

    @property
    def llm_share(self) -> float | None:
        """The share of the solution's coded-action calls that ran LLM-written code (None:
        no calls counted, e.g. a plan of LLM and other authors recorded before its steps'
        calls were). Code alone whose routines are all LLM-written (or none): every call
        ran LLM-written code (or none did); a plan of several authors: the calls that
        began each step, by the step's author."""
        written = {is_llm(author) for author in self.authors.values()}
        if self.code_alone and len(written) == 1:
            return 1.0 if written.pop() else 0.0
        counted = {n: c for n, c in self.calls.items() if c is not None}
        total = sum(counted.values())
        if not total:
            return None
        return sum(c for n, c in counted.items() if is_llm(self.authors.get(n, ""))) / total

    def lines(self) -> list[str]:
        """``go_to_tree: written by llm:qwen (120 calls)`` per coded action (``, running
        library skills a, b`` where it links some), then the LLM share."""
        if not self.authors:
            return ["no coded action: a policy over primitive actions (no code written)"]
        lines = []
        for name, author in self.authors.items():
            calls = self.calls.get(name)
            linked = self.links.get(name)
            steps = self.composed.get(name)
            lines.append(
                f"{name}: "
                + (f"{', '.join(steps)} composed by rlgpt, " if steps else "")
                + f"written by {author}"
                + (f" ({calls:,} calls)" if calls is not None else "")
                + (f", running library skills {', '.join(linked)}" if linked else "")
            )
        share = self.llm_share
        lines.append(
            "LLM-written code: "
            + ("calls not counted" if share is None else f"{share:.0%} of the coded-action calls")
            + (
                " (a call of code that links library skills counts as its writer's)"
                if self.links
                else ""
            )
        )
        return lines


def solution_provenance(events: list[ev.Event], chosen: ChosenSolution) -> Provenance:
    """The provenance of the solution a ``SolutionChosen.result`` (``chosen``) describes;
    ``events``: the run's events up to that choice (a chain's earlier stages ignored)."""
    starts = [i for i, e in enumerate(events) if isinstance(e, ev.SessionStarted)]
    events = events[starts[-1] :] if starts else events
    iteration = chosen.iteration
    events = events[: _end_of_iteration(events, iteration)]
    in_force = code_in_force(events)
    authors = {name: author for name, (author, _) in in_force.items()}
    sources = {name: source for name, (_, source) in in_force.items()}
    result = Provenance(subject=chosen.subject)
    only = chosen.only_coded
    if chosen.kind == "code" and only:
        names: list[str] = [only]
        if only not in authors:  # a plan's routines composed into one: its coded sub-actions
            plans = [e for e in events if isinstance(e, ev.PlanProposed)]
            subs = plans[-1].plan.subactions if plans else []
            names = [s.name for s in subs if s.mode == "code" and s.name in authors]
        result.code_alone = True
        # the fresh evaluation's calls; a composed plan's: the calls that began each step
        ran = (chosen.evaluation.coded_calls or {}).get(only) or {}
        begun = ran.get("begun")
        for name in names:
            result.authors[name] = authors[name]
            if isinstance(begun, dict):
                result.calls[name] = int(begun.get(name, 0))
            else:
                result.calls[name] = ran.get("calls") if name == only else None
        _add_links(result, sources)
        return result
    usage: dict = {}
    names = []
    sources_trained: dict[str, str] = {}
    for event in events:
        if isinstance(event, ev.TrainingStarted) and event.iteration == iteration:
            names = list(event.config.get("coded_actions", []))
            specs = event.rl_config.get("coded_actions") or []
            sources_trained = {c["name"]: c.get("source", "") for c in specs if "name" in c}
        if (
            isinstance(event, ev.EvaluationDone)
            and event.iteration == iteration
            and event.result.coded_actions is not None  # a trained policy's (its usage)
        ):
            usage = event.result.coded_actions
    for name in names or list(usage):
        result.authors[name] = authors.get(name) or _composer(
            result, name, sources_trained.get(name, ""), authors
        )
        stats = usage.get(name)
        result.calls[name] = stats.get("calls") if isinstance(stats, dict) else None
    _add_links(result, sources)
    return result


def _composer(result: Provenance, name: str, source: str, authors: dict[str, str]) -> str:
    """The author of a coded action no code version recorded: a plan's steps composed
    by rlgpt into one routine (RL started from it) is :func:`composed_author` (its steps
    noted in ``result.composed``); anything else is the builtin library's."""
    steps = composed_steps(source)
    author = composed_author(steps, authors)
    if author is None:
        return BUILTIN
    result.composed[name] = steps
    return author


def _add_links(result: Provenance, sources: dict[str, str]) -> None:
    for name in result.authors:
        linked = linked_skills(sources.get(name, ""))
        if linked:
            result.links[name] = linked


def code_in_force(events: list[ev.Event]) -> dict[str, tuple[str, str]]:
    """Each coded action's (author, source) of its last code version that did not fail
    validation; a person's applied edit makes ``person`` the author."""
    history: dict[str, list[tuple[str, tuple[int, int] | None, str]]] = {}
    for event in events:
        match event:
            case ev.CodeWritten():
                key = (event.iteration, event.attempt)
                history.setdefault(event.subaction, []).append(
                    (code_author(event.source, event.agent), key, event.code)
                )
            case ev.CodeValidationFailed() if history.get(event.subaction):
                # only a failure of the code just written takes it out of force
                if history[event.subaction][-1][1] == (event.iteration, event.attempt):
                    history[event.subaction].pop()
            case ev.EditApplied(what="code"):
                versions = history.setdefault(event.target, [])
                versions.append((PERSON, None, versions[-1][2] if versions else ""))
    return {name: (v[-1][0], v[-1][2]) for name, v in history.items() if v}


def _end_of_iteration(events: list[ev.Event], iteration: int | None) -> int:
    """The index just past the last event of ``iteration`` (all events when unknown)."""
    if iteration is None:
        return len(events)
    for index, event in enumerate(events):
        if event.iteration > iteration and not isinstance(
            event, ev.SolutionChosen | ev.SessionFinished
        ):
            return index
    return len(events)
