"""What a session starts from: a shelf of skills its agents may reuse (``--library``).

``empty``: nothing. ``builtin``: the builtin agent's hand-written templates (labelled
``builtin library``). ``user`` (the default): the user's library (the sessions database's,
built by the session layer) with the builtin templates for the names it lacks. ``own``: the
user's library alone (a curriculum of sessions that builds on what they wrote, with no
hand-written skill). A folder: the skill files in it (``skills export`` writes them).

The slow agent sees the shelf's skills most relevant to the task (names, docstrings,
measured records; bounded), and the fast agent answers a coded sub-action named like a shelf
skill with that skill's code, without asking the LLM: reuse first. If that code then fails,
the usual repair asks the LLM for new code, which the library keeps as a new version.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rlgpt_tui.envs.knowledge import crafter_tech_tree
from rlgpt_tui.library.compose import link_skills, skill_calls
from rlgpt_tui.library.record import SkillRecord, reused_versions
from rlgpt_tui.library.skillfile import parse_skill_file, skill_paths
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.policyfile import SavedPolicy, read_policies
from rlgpt_tui.rl.policyskill import policy_skill
from rlgpt_tui.rl.policyskill import proven as policy_proven
from rlgpt_tui.skills.policy import PolicySkill, PolicySkillError
from rlgpt_tui.tasks.catalog import Task

EMPTY, BUILTIN = "empty", "builtin"
USER = "user"  # the user's library (the sessions database's), then the builtin templates
OWN = "own"  # the user's library alone: what the LLM sessions of this database wrote
NAMED = (EMPTY, BUILTIN, USER, OWN)  # the choices that are no folder
PROMPT_SKILLS = 16  # skills shown to the slow agent at most
PROMPT_CHARS = 3_000  # and characters of the shelf's section at most
EXAMPLE_CHARS = 700  # a shelf skill shown as the fast agent's example is at most this long
OTHERS = (  # heads the shelf's skills that do no step of the goal
    "Other skills, none of them a step of this goal (a plan follows the goal's steps; "
    "these may only be high-level actions of an RL sub-action):"
)


@dataclass(frozen=True)
class ShelfSkill:
    """A skill a session may reuse."""

    name: str
    docstring: str
    source: str
    author: str
    record: str = ""  # its measured record, e.g. "collect_wood 0.91 [0.83-0.95]; 120 calls"
    served: tuple[str, ...] = ()  # the tasks its record measured it in (collect_drink, ...)
    proven: float = 0.0  # the lower end of its success's 95% interval on its own task

    @property
    def origin(self) -> str:
        """The code version's source as recorded: ``library:<author>``."""
        return f"library:{self.author}"


@dataclass
class SkillShelf:
    """The skills a session starts from (``origin`` says which: empty, builtin, a folder, or
    the user's library)."""

    origin: str = EMPTY
    skills: list[ShelfSkill] = field(default_factory=list)
    policies: list[SavedPolicy] = field(default_factory=list)  # trained ones, by task
    _callable: tuple[tuple[int, ...], dict[str, PolicySkill]] | None = field(
        default=None, repr=False, compare=False
    )

    def policy_skills(self) -> dict[str, PolicySkill]:
        """Every trained policy of the shelf that can be called as a skill, by its
        reference (:func:`policy_ref`); the others are PPO starts only."""
        key = tuple(id(p) for p in self.policies)
        if self._callable is not None and self._callable[0] == key:
            return self._callable[1]
        found: dict[str, PolicySkill] = {}
        for policy in self.policies:
            ref = policy_ref(policy)
            number = getattr(policy, "id", 0)
            label = f"{policy.task} policy #{number}" if number else f"{policy.task} policy"
            try:
                found[ref] = policy_skill(policy, label, ref=ref)
            except PolicySkillError:
                continue  # coded actions in its action space, a goal no View shows, ...
        self._callable = (key, found)
        return found

    def callable_skills(self) -> tuple[dict[str, str], dict[str, PolicySkill]]:
        """What ``yield from ctx.skill("name")`` runs: of each name, the shelf's code
        (name: source) or its best-proven trained policy, whichever measured better on the
        skill's task (the lower ends of their success rates' 95% intervals; code on a
        tie), as :meth:`SkillLibrary.callable_skills` chooses."""
        code = {s.name: s.source for s in self.skills}
        measured = {policy_ref(p): policy_proven(p) for p in self.policies}
        best: dict[str, tuple[PolicySkill, float]] = {}
        for ref, skill in self.policy_skills().items():
            held = best.get(skill.name)
            if held is None or measured[ref] > held[1]:
                best[skill.name] = (skill, measured[ref])
        chosen: dict[str, PolicySkill] = {}
        for name, (skill, value) in best.items():
            mine = self.find(name)
            if mine is None or value > mine.proven:
                code.pop(name, None)
                chosen[name] = skill
        return code, chosen

    def link(self, source: str, leave_out: str = "") -> tuple[str, tuple[PolicySkill, ...]]:
        """``source`` with the shelf's code skills it calls linked in (but ``leave_out``,
        the sub-action's own name), and the policy skills it calls, to validate and run it
        with. ValueError naming the shelf's skills for an unknown name; SyntaxError when it
        does not parse."""
        code, policies = self.callable_skills()
        code.pop(leave_out, None)
        linked = link_skills(source, code, set(policies))
        return linked, self.policies_called(linked)

    def policies_called(
        self, source: str, refs: Mapping[str, str] | None = None
    ) -> tuple[PolicySkill, ...]:
        """The policy skills linked ``source`` calls (its ``ctx.skill("name")`` calls
        left after linking): of each name the one ``refs`` names (name: reference, as a
        recorded coded action keeps them) while the shelf holds it, else the shelf's
        choice. A name the shelf has no policy for is left out (validation names it)."""
        try:
            called = {c.name for c in skill_calls(source)}
        except (SyntaxError, ValueError):
            return ()
        _, chosen = self.callable_skills()
        every = self.policy_skills()
        found = []
        for name in sorted(called):
            ref = (refs or {}).get(name)
            skill = every.get(ref) if ref else None
            if skill is None or skill.name != name:
                skill = chosen.get(name) or next(
                    (p for p in every.values() if p.name == name), None
                )
            if skill is not None:
                found.append(skill)
        return tuple(found)

    def find(self, name: str) -> ShelfSkill | None:
        return next((s for s in self.skills if s.name == name), None)

    def policy_for(self, task: str, primitives_only: bool = False) -> SavedPolicy | None:
        """The trained policy for ``task`` that measured best (None: none, or none that
        ever succeeded: a policy measured at 0 is no better a start than the code); with
        ``primitives_only``, of those without coded actions."""
        mine = [
            p
            for p in self.policies
            if p.task == task and (p.value or 0.0) > 0.0 and not (primitives_only and p.actions)
        ]
        return max(mine, key=lambda p: p.value or 0.0, default=None)

    def doing(self, jobs: Collection[str]) -> list[ShelfSkill]:
        """The skills that do one of ``jobs`` (skill or task names such as
        ``collect_drink``): named like one, or measured serving one as a task (a model's
        ``go_to_water`` served collect_drink), in shelf order."""
        return [s for s in self.skills if s.name in jobs or set(s.served) & set(jobs)]

    def code_example(self, name: str, limit: int = EXAMPLE_CHARS) -> str | None:
        """A short validated skill of the shelf (not ``name`` itself) as a code answer's
        example, so the fast agent sees real code of this world rather than one fixed
        example: a skill of the same kind (``collect_``, ``place_``, ``make_``, ...) where
        there is one; else, except for a place or make step, any but a place skill (a
        copied place skill's "nothing held? return" makes a collect step return at once);
        ``None`` when no skill fits (a place or make step then gets the made-up world's
        example of its kind: given a walk and three `do`s, the model's make steps hit the
        table)."""
        kind = name.split("_")[0] + "_"
        others = [s for s in self.skills if s.name != name and len(s.source) <= limit]
        short = [s for s in others if s.name.startswith(kind)]
        if not short and kind not in ("place_", "make_"):
            short = [s for s in others if not s.name.startswith("place_")]
        if not short:
            return None
        skill = min(short, key=lambda s: (len(s.source), s.name))
        return json.dumps({"code": skill.source, "explanation": skill.docstring[:200]})

    def relevant(
        self, task: Task, limit: int = PROMPT_SKILLS, first: Collection[str] = ()
    ) -> list[ShelfSkill]:
        """The skills named in ``first`` (e.g. the goal's steps), then those that share
        most words with the task (its name, description and prerequisites), measured
        ones first among equals."""
        words = _words(" ".join([task.name, task.description, *task.prerequisites]))

        def score(skill: ShelfSkill) -> tuple[int, int, int]:
            shared = len(words & _words(f"{skill.name} {skill.docstring}"))
            return (0 if skill.name in first else 1, -shared, 0 if skill.record else 1)

        return sorted(self.skills, key=score)[:limit]

    def prompt_text(
        self, task: Task, limit_chars: int = PROMPT_CHARS, first: Collection[str] = ()
    ) -> str:
        """The slow agent's view of the shelf, bounded: a line per relevant skill. Where
        ``first`` names the goal's steps, the skills that do them come first with their
        measured records, and the others after a line that says they are no step of this
        goal, without records (another task's skill shown with its figures beside the
        steps is planned in place of one of them)."""
        if not self.skills:
            return "None: every coded sub-action gets new code."
        shown = self.relevant(task, first=first)
        lines: list[str] = []
        used = 0
        for skill in shown:
            step = not first or skill.name in first
            if not step and OTHERS not in lines:
                lines.append(OTHERS)
            line = f"- {skill.name} ({skill.author}"
            line += f"; {skill.record})" if skill.record and step else ")"
            line += f": {skill.docstring.splitlines()[0] if skill.docstring else 'no docstring'}"
            line = line[:300]
            if used + len(line) > limit_chars:
                break
            lines.append(line)
            used += len(line) + 1
        if lines and lines[-1] == OTHERS:
            lines.pop()
        hidden = len(self.skills) - sum(line.startswith("- ") for line in lines)
        if hidden:
            lines.append(f"({hidden} more not shown)")
        return "\n".join(lines)


def policy_ref(policy: SavedPolicy) -> str:
    """How a recorded coded action names the trained policy it calls: a digest of its
    weights (the same policy in any library or folder)."""
    return weights_ref(policy.weights)


def weights_ref(weights: bytes) -> str:
    """:func:`policy_ref` of a policy's weights."""
    return hashlib.sha256(weights).hexdigest()[:16]


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) > 2}


def builtin_shelf() -> SkillShelf:
    """The builtin agent's templates: a skill per tech-tree entry, and go_to_<target>."""
    tree = crafter_tech_tree()
    described = dict(tree.skills)
    for target in sorted(set(tree.targets.values())):
        described.setdefault(f"go_to_{target}", f"walk next to the nearest {target} and face it")
    skills = []
    for name, doc in described.items():
        source = template_code(name)
        if source is not None:
            skills.append(ShelfSkill(name, doc, source, "builtin library"))
    return SkillShelf(BUILTIN, skills)


def folder_shelf(folder: Path, world: str) -> SkillShelf:
    """The skill files of ``folder`` for ``world`` (of each name, the version a session
    reuses: :func:`~rlgpt_tui.library.record.version_to_reuse`); a bad file raises
    :class:`~rlgpt_tui.library.skillfile.SkillFileError` naming it. With them the trained
    policies of its ``policies`` subfolder (a bad one raises
    :class:`~rlgpt_tui.rl.policyfile.PolicyFileError`)."""
    found: list[tuple[int, SkillRecord, ShelfSkill]] = []
    for path in skill_paths(folder):
        skill = parse_skill_file(path)
        if skill.world != world:
            continue
        record = SkillRecord.from_dict(skill.record)
        entry = ShelfSkill(
            skill.name,
            skill.docstring,
            skill.source,
            skill.author,
            record.prompt_text,
            tuple(record.tasks),
            record.proven(skill.name),
        )
        found.append((skill.version, record, entry))
    return SkillShelf(str(folder), reused(found), read_policies(folder, world))


def reused(versions: Iterable[tuple[int, SkillRecord, ShelfSkill]]) -> list[ShelfSkill]:
    """Of each name among ``versions`` (number, record, shelf entry), the version a session
    reuses (:func:`~rlgpt_tui.library.record.version_to_reuse`), in first-seen name order."""
    return list(reused_versions((e.name, n, record, e) for n, record, e in versions).values())


def merged(origin: str, first: list[ShelfSkill], then: SkillShelf) -> SkillShelf:
    """``first``, then ``then``'s skills whose names ``first`` lacks."""
    names = {s.name for s in first}
    return SkillShelf(origin, first + [s for s in then.skills if s.name not in names])
