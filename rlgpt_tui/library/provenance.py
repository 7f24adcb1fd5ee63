"""Where a library entry comes from: who wrote a code version, and what a session's
recorded code and trainings make of it in the library.

Rules over what the store hands them (a session's code versions as it recorded them); the
store runs the SQL, these decide. A code version's author is ``person`` for a human edit,
``builtin library`` for the builtin agent's templates, the skill's author for a library
skill reused as it is (source ``library:<author>``), else the agent that wrote it
(``llm:MODEL``). A skill a session accepted is a new version authored by the code version
that wrote it; a trained policy names the author of each of its coded actions (a plan's
steps composed by rlgpt into one routine: its steps' author).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from rlgpt_tui.labels import several_authors
from rlgpt_tui.library.compose import composed_steps
from rlgpt_tui.library.skillfile import SkillFile
from rlgpt_tui.library.storage import docstring_of
from rlgpt_tui.rl.policyfile import SavedPolicy
from rlgpt_tui.rl.summary import EvaluationSummary

PERSON = "person"
BUILTIN = "builtin library"


def reused_from_library(source: str | None) -> TypeGuard[str]:
    """Is a code version a library skill reused as it is (source ``library:<author>``)?"""
    return source is not None and source.startswith("library:")


def code_author(source: str | None, agent: str | None) -> str:
    """Who wrote a code version: a person's edit, the builtin templates, the agent, or (a
    library skill reused as it is, source ``library:<author>``) the skill's author."""
    if source == "human":
        return PERSON
    if reused_from_library(source):
        return source.removeprefix("library:") or BUILTIN
    if agent in (None, "", "builtin"):
        return BUILTIN
    return agent


def composed_author(steps: list[str], authors: Mapping[str, str]) -> str | None:
    """Who wrote a plan's ``steps`` composed by rlgpt into one routine, by each step's
    author in ``authors``: their author where they share one, else ``several authors
    (...)`` (no LLM's alone). None when there are no steps or a step's author is unknown."""
    if not steps or any(step not in authors for step in steps):
        return None
    return several_authors(authors[step] for step in steps)


@dataclass(frozen=True)
class CodeVersion:
    """A session's recorded code version of a sub-action: its event sequence (None: not
    recorded), how it came (``source``: agent, human, ``library:<author>``), the agent's
    label and the iteration that wrote it."""

    seq: int | None
    source: str | None
    agent: str | None
    iteration: int

    @property
    def author(self) -> str:
        return code_author(self.source, self.agent)


@dataclass(frozen=True)
class SkillEntry:
    """A skill version as the library keeps it (the store numbers it and stamps its time)."""

    name: str
    world: str
    source: str
    docstring: str
    author: str
    origin: str  # session, library (reused as it is in a session), or import <folder>
    made_in: str = ""
    made_session: int | None = None
    made_iteration: int | None = None
    code_seq: int | None = None  # the code version (event sequence) that wrote it


def session_skill(
    name: str,
    world: str,
    source: str,
    session: int,
    written: CodeVersion | None,
    accepted: tuple[str, int],
    description: str,
) -> SkillEntry:
    """``source``, accepted as skill ``name`` in ``session``, as a new library version:
    authored by the code version that ``written`` it and made in its iteration (None:
    none recorded; then by the agent and in the iteration of the event that ``accepted``
    it). Its docstring is the code's own, except for the builtin templates (their module
    docstring is the whole template file's): then the plan's ``description`` of the
    sub-action. A library skill reused as it is was made elsewhere: origin ``library``,
    else ``session``."""
    if written is None:
        agent, iteration = accepted
        written = CodeVersion(None, "agent", agent, iteration)
    author = written.author
    doc = docstring_of(source)
    if author == BUILTIN or not doc:
        doc = description or doc
    made_in = f"session {session}, iteration {written.iteration + 1}"
    origin = "session"
    if reused_from_library(written.source):
        made_in, origin = f"reused from a library in {made_in}", "library"
    return SkillEntry(
        name=name,
        world=world,
        source=source,
        docstring=doc,
        author=author,
        origin=origin,
        made_in=made_in,
        made_session=session,
        made_iteration=written.iteration,
        code_seq=written.seq,
    )


def imported_skill(skill: SkillFile, origin: str) -> SkillEntry:
    """A checked skill file as a library version (its docstring, else its code's)."""
    return SkillEntry(
        name=skill.name,
        world=skill.world,
        source=skill.source,
        docstring=skill.docstring or docstring_of(skill.source),
        author=skill.author,
        origin=origin,
        made_in=skill.made_in,
    )


def action_authors(
    coded_actions: Sequence[Mapping[str, Any]],
    written: Callable[[str, str | None], CodeVersion | None],
) -> dict[str, str]:
    """Who wrote each coded action of a training's configuration (``coded_actions``: its
    specs, name and source): the author of the session's code version with that source
    (``written(name, source)``; None: none recorded); a plan's steps composed by rlgpt
    into one routine: :func:`composed_author` of each step's latest code version
    (``written(step, None)``), the rule a solution's provenance follows; else the builtin
    library."""
    authors = {}
    for spec in coded_actions:
        name, source = spec.get("name", ""), spec.get("source", "")
        version = written(name, source)
        if version is not None:
            authors[name] = version.author
            continue
        steps = composed_steps(source)
        known = {step: v.author for step in steps if (v := written(step, None)) is not None}
        authors[name] = composed_author(steps, known) or BUILTIN
    return authors


def session_policy(
    subaction: str,
    rl_config: dict[str, Any],
    weights: bytes,
    samples: int,
    result: EvaluationSummary,
    deterministic: bool | None,
    authors: dict[str, str],
    world: str,
    made: tuple[int, int],
) -> SavedPolicy:
    """A session's trained policy as the library keeps it: its configuration's task and
    world (``world``: the session's, where the configuration names none), its
    evaluation's figures, the author of each coded action, and where it was made (``made``:
    the session and iteration)."""
    session, iteration = made
    return SavedPolicy(
        task=rl_config.get("task", ""),
        world=rl_config.get("env") or world,
        subaction=subaction,
        rl_config=rl_config,
        authors=authors,
        samples=samples,
        measure=result.measured_in.value,
        value=result.value,
        ci95=result.ci95 if result.ci95 and result.ci95[0] is not None else None,
        episodes=result.episodes,
        deterministic=deterministic,
        made_in=f"session {session}, iteration {iteration + 1}",
        weights=weights,
    )
