"""The skill library: every coded action that validated and ran, its versions and records.

Protocol (:class:`SkillLibrary`, over a :class:`~rlgpt_tui.library.storage.SkillStorage`):

- **add** versions (:meth:`SkillLibrary.add`): a new source for a known name is the next
  version, never an overwrite; each keeps its author and measured record. Sessions add
  theirs as they record events (the store's projection of them);
  :meth:`SkillLibrary.import_folder` adds a folder's, checked first, all or none.
- **best**: of each name, the version a session reuses, the best proven one
  (:func:`~rlgpt_tui.library.record.version_to_reuse`).
- **offer**: what a session starts from (``--library``): a
  :class:`~rlgpt_tui.library.shelf.SkillShelf`, whose listing the slow agent sees and whose
  code the fast agent reuses.
- **policies**: the trained policies, by task.
- **compose**: the task's steps, each done by a library skill, as one coded action.
- **export** and **import** folders of skill files (:mod:`~rlgpt_tui.library.skillfile`) and
  trained policies (:mod:`~rlgpt_tui.rl.policyfile`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from pathlib import Path

from rlgpt_tui.envs.registry import WORLDS, world_info
from rlgpt_tui.labels import agent_label
from rlgpt_tui.library.compose import (
    COMPOSED_PLAN,
    compose_sources,
    link_skills,
    policy_call,
    skill_calls,
)
from rlgpt_tui.library.record import reused_versions, skills_for_steps
from rlgpt_tui.library.shelf import (
    BUILTIN,
    EMPTY,
    OWN,
    USER,
    ShelfSkill,
    SkillShelf,
    builtin_shelf,
    folder_shelf,
    merged,
    reused,
)
from rlgpt_tui.library.skillfile import (
    SkillFile,
    SkillFileError,
    format_skill_file,
    parse_skill_file,
    skill_paths,
)
from rlgpt_tui.library.storage import (
    LibraryError,
    LibraryPolicy,
    LibrarySkill,
    SkillStorage,
    digest,
    digest_bytes,
)
from rlgpt_tui.rl.policyfile import (
    POLICY_FOLDER,
    PolicyFileError,
    SavedPolicy,
    read_policies,
    write_policy,
)
from rlgpt_tui.rl.policyskill import check_policy, policy_skill, proven
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.guard import SURVIVAL_GUARD
from rlgpt_tui.skills.policy import PolicySkill, PolicySkillError
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import Task

NOTHING = "; nothing was imported"

#: what does a step of a composed plan: a library code version or a trained policy
PlanStep = LibrarySkill | PolicySkill


def _step_source(skill: PlanStep) -> str:
    """A plan step's code: the skill's source, or the call of a policy skill."""
    return policy_call(skill.name) if isinstance(skill, PolicySkill) else skill.source


def _keeper_source(skill: PlanStep) -> str | None:
    """The keeper's code for :func:`compose_sources` (None: a policy skill, called)."""
    return None if isinstance(skill, PolicySkill) else skill.source


def _author(skill: PlanStep) -> str:
    """Who made a plan step: the code's author, or PPO for a trained policy."""
    return "PPO (trained policy)" if isinstance(skill, PolicySkill) else agent_label(skill.author)


class SkillLibrary:
    """The skill library over ``storage`` (None: no database; only ``empty``, ``builtin``
    and folders can be offered)."""

    def __init__(self, storage: SkillStorage | None):
        self.storage = storage

    @property
    def _kept(self) -> SkillStorage:
        if self.storage is None:
            raise LibraryError("no sessions database: pass --sessions-dir")
        return self.storage

    # -- adding ---------------------------------------------------------------------------------
    def add(self, skill: SkillFile, origin: str = "person") -> LibrarySkill:
        """Add ``skill`` (its author and record with it) after validating its code: the
        version already held when the library has that source under that name, else the
        name's next version (a version is never overwritten). LibraryError naming the fix
        when the code does not validate."""
        try:
            validate(skill.name, skill.source, skill.docstring)
        except CodeValidationError as error:
            raise LibraryError(f"skill {skill.name}: {_first_line(error)}") from None
        held = self.skills(skill.world, skill.name)
        same = next((s for s in held if digest(s.source) == digest(skill.source)), None)
        if same is not None:
            return same
        newest = max((s.version for s in held), default=0)
        version = dataclasses.replace(skill, version=newest + 1)
        (added,) = self._kept.add_skills([version], [], origin=origin)
        return next(s for s in self.skills(skill.world, skill.name) if s.id == added)

    # -- reading --------------------------------------------------------------------------------
    def skills(self, world: str | None = None, name: str | None = None) -> list[LibrarySkill]:
        """Every version (of ``name`` in ``world`` where given), each with its record."""
        return self._kept.skills(world, name)

    def skill(self, name: str, world: str | None = None, version: int | None = None):
        """One skill version (the newest unless ``version``); raises LibraryError naming
        the fix when there is none or the name is in several worlds."""
        found = self.skills(world, name)
        if not found:
            known = ", ".join(sorted({s.name for s in self.skills(world)})) or "none yet"
            raise LibraryError(
                f"no skill {name!r}{f' in {world}' if world else ''} in the library: use one "
                f"of {known} (see `rlgpt-tui skills list`)"
            )
        worlds = sorted({s.world for s in found})
        if len(worlds) > 1:
            raise LibraryError(
                f"skill {name!r} is in several worlds ({', '.join(worlds)}): pass --world"
            )
        if version is None:
            return found[-1]
        for skill in found:
            if skill.version == version:
                return skill
        versions = ", ".join(str(s.version) for s in found)
        raise LibraryError(f"skill {name!r} has no version {version}: use one of {versions}")

    def best(self, world: str, names: str | None = None) -> dict[str, LibrarySkill]:
        """Of each name (or of ``names`` alone), the version a session reuses: the best
        proven one, else the newest."""
        held = self.skills(world, names)
        return reused_versions((s.name, s.version, s.record, s) for s in held)

    def policies(self, world: str | None = None) -> list[LibraryPolicy]:
        """The trained policies (without their weights)."""
        return self._kept.policies(world)

    # -- what code calls ---------------------------------------------------------------------------
    def policy_skills(self, world: str) -> dict[str, tuple[PolicySkill, float]]:
        """Of each task, the trained policy of ``world`` that can be called as a skill
        (:func:`~rlgpt_tui.rl.policyskill.policy_skill`) and is best proven, with how far
        it is proven (the lower end of its success's 95% interval)."""
        found: dict[str, tuple[PolicySkill, float]] = {}
        for policy in self._kept.saved_policies(world):
            label = f"{policy.task} policy #{getattr(policy, 'id', 0)}"
            try:
                skill = policy_skill(policy, label)
            except PolicySkillError:
                continue  # a PPO start only (coded actions in its action space, ...)
            held = found.get(skill.name)
            if held is None or proven(policy) > held[1]:
                found[skill.name] = (skill, proven(policy))
        return found

    def callable_skills(self, world: str) -> tuple[dict[str, str], tuple[PolicySkill, ...]]:
        """What ``yield from ctx.skill("name")`` runs in ``world``: of each name, the
        library's best-proven version, its code (name: source) or its trained policy,
        whichever measured better on the skill's task (the lower ends of their success
        rates' 95% intervals; code on a tie)."""
        code = {
            name: skill.source for name, skill in self.best(world).items() if name != COMPOSED_PLAN
        }
        policies = []
        for name, (skill, measured) in self.policy_skills(world).items():
            held = self.best(world, name).get(name)
            if held is None or measured > held.record.proven(name):
                code.pop(name, None)
                policies.append(skill)
        return code, tuple(policies)

    def link(self, source: str, world: str) -> tuple[str, tuple[PolicySkill, ...]]:
        """``source`` with the library's code skills it calls linked in
        (:func:`~rlgpt_tui.library.compose.link_skills`), and the policy skills it calls,
        to validate and run it with (``validate(..., policies=...)``). LibraryError naming
        the library's skills for an unknown name."""
        code, policies = self.callable_skills(world)
        try:
            linked = link_skills(source, code, {p.name for p in policies})
        except ValueError as error:
            raise LibraryError(str(error)) from None
        called = {c.name for c in skill_calls(linked)}
        return linked, tuple(p for p in policies if p.name in called)

    # -- what a session starts from ---------------------------------------------------------------
    def offer(self, choice: str, world: str) -> SkillShelf:
        """What a session starts from (``--library``): ``empty``; ``builtin`` (the builtin
        templates); ``user`` (this library for ``world``: of each name the best proven
        version, else the newest, with its record; then the builtin templates for names it
        lacks); ``own`` (this library alone); or a folder of skill files. A bad choice
        raises LibraryError naming the fix."""
        if choice == EMPTY:
            return SkillShelf()
        if choice == BUILTIN:
            return _builtin_for(world)
        if choice in (USER, OWN):
            mine = reused(
                (
                    s.version,
                    s.record,
                    ShelfSkill(
                        s.name,
                        s.docstring,
                        s.source,
                        s.author,
                        s.record.prompt_text,
                        tuple(s.record.tasks),
                        s.record.proven(s.name),
                    ),
                )
                for s in self.skills(world)
            )
            policies = self._kept.saved_policies(world)
            if choice == OWN:
                return SkillShelf(OWN, mine, policies)
            return dataclasses.replace(merged(USER, mine, _builtin_for(world)), policies=policies)
        folder = Path(choice)
        if not folder.is_dir():
            raise LibraryError(
                f"--library {choice}: no such folder: use empty, builtin, user, own or a folder "
                "written by `rlgpt-tui skills export`"
            )
        try:
            return folder_shelf(folder, world)
        except (SkillFileError, PolicyFileError) as error:
            raise LibraryError(f"--library {choice}: {error}") from None

    # -- composing ------------------------------------------------------------------------------
    def plan_steps(
        self, task: Task, world: str, policies: bool = True
    ) -> list[tuple[str, PlanStep]]:
        """``task``'s steps (:meth:`Task.steps`, from the world's documentation) in order,
        each with the library skill that does it (:func:`~rlgpt_tui.library.record.
        skills_for_steps`; of each name the version a session reuses), or, with
        ``policies``, the best-proven trained policy of the step's name where it measured
        better on the step's task than that code (the lower ends of their success
        intervals; a step only a policy does too); steps nothing fits are left out. Raises
        LibraryError when none fits."""
        held = [s for s in self.skills(world) if s.name != COMPOSED_PLAN]
        best = reused_versions((s.name, s.version, s.record, s) for s in held)
        records = {name: skill.record for name, skill in best.items()}
        steps = [step.name for step in task.steps(world_info(world).documentation())]
        coded = {step: best[name] for step, name in skills_for_steps(steps, records).items()}
        learned = self.policy_skills(world) if policies else {}
        chosen: list[tuple[str, PlanStep]] = []
        for step in steps:
            code, (policy, measured) = coded.get(step), learned.get(step, (None, 0.0))
            if policy is not None and (code is None or measured > code.record.proven(step)):
                chosen.append((step, policy))
            elif code is not None:
                chosen.append((step, code))
        if not chosen:
            raise LibraryError(
                f"no {world} skill of the library fits a step of {task.name}: run sessions "
                f"on its steps first (`rlgpt-tui run --task ... --library own`)"
            )
        return chosen

    def keeper(self, world: str, policies: bool = True) -> PlanStep | None:
        """The skill for the world's helper that a composed plan runs when survival is due
        (Crafter's ``survive``): the version a session reuses, or (with ``policies``) its
        trained policy where that measured better; None without one."""
        name = world_info(world).documentation().tech_tree.before_each_step
        if not name:
            return None
        learned = {p.name: p for p in self.callable_skills(world)[1]} if policies else {}
        return learned.get(name) or self.best(world, name).get(name)

    def compose(
        self,
        task: Task,
        world: str,
        chosen: list[tuple[str, PlanStep]],
        how: str = "",
        keeper: bool = True,
        policies: bool = True,
    ) -> SkillFile:
        """The ``plan`` skill: ``chosen`` (step, the skill that does it) composed by rlgpt
        into one coded action in that order (no model planned it), the :meth:`keeper`
        before a step where the survival guard holds (:data:`~rlgpt_tui.skills.guard.
        SURVIVAL_GUARD`; ``keeper`` False: without it), its docstring naming each step's
        skill version and author, and ``how`` they were chosen. A step done by a trained
        policy is its call, ``yield from ctx.skill(name)``: the policy skill runs it where
        the plan runs with the library (``--library``, a folder with its ``policies``).
        Its version is above any ``plan`` the library holds, so that a session reusing the
        folder takes it."""
        before = self.keeper(world, policies) if keeper else None
        if before is not None and any(step == before.name for step, _ in chosen):
            before = None  # a step of its own (survive_night's): not run twice in a row
        used = [skill for _, skill in chosen] + ([before] if before else [])
        authors = sorted({_author(skill) for skill in used})  # no local paths
        versions = ", ".join(
            skill.label if skill.name == step else f"{step}: {skill.label}"
            for step, skill in chosen
        )
        due = SURVIVAL_GUARD.condition().replace("ctx.view.", "")
        if before is not None:
            versions = f"{before.label} when survival is due ({due}); {versions}"
        held = [s.version for s in self.skills(world, COMPOSED_PLAN)]
        return SkillFile(
            name=COMPOSED_PLAN,
            world=world,
            source=compose_sources(
                [(step, _step_source(s)) for step, s in chosen],
                world_info(world).documentation().recipes,
                keeper=(before.name, _keeper_source(before)) if before else None,
            ),
            version=max(held, default=0) + 1,
            author=authors[0] if len(authors) == 1 else "several authors",
            docstring=f"{task.name}: the library's skills composed by rlgpt in the steps' "
            f"order ({versions}; by {', '.join(authors)}){how}",
            made_in="composed by rlgpt at export from the library's skills",
            record={},
        )

    def write_plan(
        self,
        folder: Path | str,
        task: Task,
        world: str,
        chosen: list[tuple[str, PlanStep]],
        how: str = "",
        keeper: bool = True,
        policies: bool = True,
    ) -> Path:
        """Write :meth:`compose`'s plan as its skill file in ``folder``."""
        plan = self.compose(task, world, chosen, how, keeper=keeper, policies=policies)
        return _write_skill(_writable(folder), plan)

    def export_plan(
        self,
        folder: Path | str,
        task: Task,
        world: str,
        keeper: bool = True,
        policies: bool = True,
    ) -> tuple[Path, str]:
        """Write ``plan-<world>-v<n>.py``: the library's skills for ``world`` composed into
        one coded action for ``task`` (:meth:`plan_steps`, :meth:`write_plan`; ``keeper``
        False: without the :meth:`keeper`; ``policies`` False: code only). Returns the path
        and a line naming which skill does which step."""
        chosen = self.plan_steps(task, world, policies)
        steps = ", ".join(
            f"{step} by its policy"
            if isinstance(skill, PolicySkill)
            else step
            if skill.name == step
            else f"{step} by {skill.name}"
            for step, skill in chosen
        )
        path = self.write_plan(folder, task, world, chosen, keeper=keeper, policies=policies)
        return path, steps

    # -- sharing --------------------------------------------------------------------------------
    def export_folder(
        self,
        folder: Path | str,
        world: str | None = None,
        leave_out: Collection[str] = (),
        policies: bool = True,
    ) -> list[Path]:
        """Write every skill version as ``<name>-<world>-v<version>.py`` with its header
        (but the names in ``leave_out``), and (with ``policies``) every trained policy as
        ``policies/<task>-<world>-p<n>.json`` with its ``.npz``."""
        folder = _writable(folder)
        worlds = {world} if world else {p.world for p in self.policies()}
        kept = [p for w in sorted(worlds) for p in self._kept.saved_policies(w)] if policies else []
        written = [write_policy(folder, p, n) for n, p in enumerate(kept, 1)]
        return written + [
            _write_skill(
                folder,
                SkillFile(
                    name=skill.name,
                    world=skill.world,
                    source=skill.source,
                    version=skill.version,
                    author=agent_label(skill.author),  # a model by its name, not its path
                    docstring=skill.docstring,
                    made_in=skill.made_in,
                    record=skill.record.as_dict(),
                ),
            )
            for skill in self.skills(world)
            if skill.name not in leave_out
        ]

    def import_folder(self, folder: Path | str) -> tuple[list[LibrarySkill], int, int]:
        """Add a folder of skill files: every file is checked first (header, world, name,
        validation of its code, clashes; a trained policy's header, weights and coded
        actions), then all are added in one transaction; the first bad file raises
        :class:`LibraryError` and nothing is added. Returns the skills added, how many were
        already in the library (same source), and how many trained policies were added."""
        folder = Path(folder)
        if not folder.is_dir():
            raise LibraryError(f"no folder {folder}: pass a folder written by `skills export`")
        try:
            paths = skill_paths(folder)
        except SkillFileError as error:
            raise LibraryError(f"{error}{NOTHING}") from None
        if not paths and not (folder / POLICY_FOLDER).is_dir():
            raise LibraryError(
                f"no .py skill files and no {POLICY_FOLDER}/ in {folder}: pass a folder written "
                "by `skills export`"
            )
        chosen: dict[tuple[str, str, int], tuple[str, Path]] = {}
        new, known = [], 0
        for path in paths:
            try:
                skill = parse_skill_file(path)
                if skill.world not in WORLDS:
                    raise SkillFileError(
                        f"{path}: world {skill.world!r} is unknown: use one of {', '.join(WORLDS)}"
                    )
                validate(skill.name, skill.source, skill.docstring)
            except CodeValidationError as error:
                raise LibraryError(
                    f"{path.name}: {_first_line(error)}; fix the file{NOTHING}"
                ) from None
            except SkillFileError as error:
                raise LibraryError(f"{error}{NOTHING}") from None
            key = digest(skill.source)
            versions = [(s.version, digest(s.source)) for s in self.skills(skill.world, skill.name)]
            if any(d == key for _, d in versions):
                known += 1
                continue
            clash = next((v for v, _ in versions if v == skill.version), None)
            earlier = chosen.get((skill.world, skill.name, skill.version))
            other_file = earlier[1].name if earlier and earlier[0] != key else None
            where = "the library" if clash is not None else other_file
            if where is not None:
                raise LibraryError(
                    f"{path.name}: skill {skill.name} v{skill.version} ({skill.world}) clashes "
                    f"with other code in {where}: rename it (name = in the header) or give it "
                    f"another version number{NOTHING}"
                )
            if earlier:
                known += 1
                continue
            chosen[(skill.world, skill.name, skill.version)] = (key, path)
            new.append(skill)
        policies = self._policies_to_import(folder)
        ids = set(self._kept.add_skills(new, policies, origin=f"import {folder}"))
        added = [s for s in self.skills() if s.id in ids]
        return added, known, len(policies)

    def _policies_to_import(self, folder: Path) -> list[SavedPolicy]:
        """The folder's trained policies the library lacks (same weights), each coded
        action's source validated; LibraryError naming the file otherwise."""
        try:
            found = read_policies(folder)
        except PolicyFileError as error:
            raise LibraryError(f"{error}{NOTHING}") from None
        held = {
            digest_bytes(p.weights)
            for w in {p.world for p in found}
            for p in self._kept.saved_policies(w)
        }
        new = []
        for policy in found:
            if digest_bytes(policy.weights) in held:
                continue
            try:  # its world known here, its weights fit that world's observation and actions
                check_policy(policy)
            except PolicySkillError as error:
                raise LibraryError(f"{error}{NOTHING}") from None
            for spec in policy.rl_config.get("coded_actions", []):
                try:
                    validate(spec["name"], spec["source"], spec.get("description", ""))
                except CodeValidationError as error:
                    raise LibraryError(
                        f"policy for {policy.task}: its coded action {spec['name']}: "
                        f"{_first_line(error)}{NOTHING}"
                    ) from None
            held.add(digest_bytes(policy.weights))
            new.append(policy)
        return new


def _builtin_for(world: str) -> SkillShelf:
    """The builtin templates where they fit ``world`` (a world with Crafter's tech tree);
    an empty shelf elsewhere (MineDojo)."""
    if not world_info(world).documentation().tech_tree.skills:
        return SkillShelf(BUILTIN)
    return builtin_shelf()


def _writable(folder: Path | str) -> Path:
    """``folder``, created where missing; LibraryError naming the fix when it cannot be."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LibraryError(
            f"cannot create {folder}: {error.strerror}; pass a writable folder"
        ) from None
    return folder


def _first_line(error: Exception) -> str:
    """An error's first line (``invalid`` when it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else "invalid"


def _write_skill(folder: Path, skill: SkillFile) -> Path:
    """``skill`` as its file in ``folder``; LibraryError naming the fix when it cannot be."""
    path = folder / skill.file_name
    try:
        path.write_text(format_skill_file(skill))
    except OSError as error:
        raise LibraryError(
            f"cannot write {path}: {error.strerror}; pass a writable folder"
        ) from None
    return path
