"""The coded skills benchmarks run: the builtin agent's hand-written templates, or a folder
of skill files (an LLM's, or a person's); the fixed script of the pure-code method, and the
skills offered to RL (shared by table2.py and the probes built on it)."""

from __future__ import annotations

from pathlib import Path

from rlgpt_tui.agents.slow import BuiltinSlowAgent, IterationFeedback
from rlgpt_tui.agents.slow.builtin import SCRIPT_SKILL, library_for, own_code_name
from rlgpt_tui.library.compose import skill_calls
from rlgpt_tui.library.record import SkillRecord, reused_versions
from rlgpt_tui.library.shelf import ShelfSkill, SkillShelf
from rlgpt_tui.library.skillfile import HEADER_START, parse_skill_file, skill_paths, validate_file
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.config import CodedActionSpec
from rlgpt_tui.rl.policyfile import read_policies
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import Task

BUILTIN_LIBRARY = "builtin library (assets/skills/templates)"


def coded_specs(names: list[str]) -> list[CodedActionSpec]:
    """Coded actions from the builtin agent's templates."""
    specs = []
    for name in names:
        source = template_code(name)
        if source is None:
            raise ValueError(f"no skill template for {name!r}")
        specs.append(CodedActionSpec(name=name, source=source))
    return specs


class FolderSkills:
    """Coded skills from a folder of skill files (or plain ``.py`` files named after their
    action): who wrote them is in each file's header. A folder that `rlgpt-tui skills
    export` wrote holds every version of a name: of those, the one a session reuses
    (:func:`~rlgpt_tui.library.record.version_to_reuse`) is used, as ``--library FOLDER``
    does. A skill's ``ctx.skill("name")`` calls run what they run in a session on that
    folder: the folder's code, or its trained policy (``policies/``, for ``world``) where
    that measured better (`skills export --code-only` writes a folder of code alone)."""

    def __init__(self, folder: Path, script: str | None = None, world: str = "craftax") -> None:
        files = skill_paths(Path(folder))
        if not files:
            raise ValueError(f"--skills {folder}: no .py skill files there")
        self.folder = folder
        self.sources: dict[str, str] = {}
        self.authors: dict[str, str] = {}
        self.versions: dict[str, int] = {}  # the version used, where files give one
        self.proven: dict[str, float] = {}  # how far each is proven on its own task
        found: list[tuple[str, int, SkillRecord, tuple[int, str, str, float]]] = []
        seen: set[tuple[str, int]] = set()  # (name, version) of the files read
        for path in files:
            version, record, author = 1, SkillRecord(), "person"  # a plain file
            name, source = path.stem, path.read_text()
            if source.startswith(HEADER_START):
                shared = parse_skill_file(path)
                name, source, version, author = (
                    shared.name,
                    shared.source,
                    shared.version,
                    shared.author,
                )
                record = SkillRecord.from_dict(shared.record)
            if not skill_calls(source):  # one that calls skills is validated linked: spec()
                validate_file(path)
            if (name, version) in seen:
                raise ValueError(f"--skills {folder}: two files define {name!r} v{version}")
            seen.add((name, version))
            found.append((name, version, record, (version, source, author, record.proven(name))))
        for name, (version, source, author, proven) in reused_versions(found).items():
            self.sources[name], self.authors[name], self.versions[name] = source, author, version
            self.proven[name] = proven
        self.policies = read_policies(Path(folder), world)
        self._linked: dict[str, CodedActionSpec] = {}  # by name, linked and validated
        if script is not None and script not in self.sources:
            raise ValueError(f"--script {script}: not a skill of {folder}")
        self.script_name = script

    def script(self, task: Task) -> str:
        if self.script_name:
            return self.script_name
        name = "plan" if "plan" in self.sources else task.name
        if name not in self.sources:
            raise ValueError(f"no script for {task.name} in {self.folder}: pass --script NAME")
        return name

    def offered(self, task: Task) -> list[str]:
        script = self.script(task)
        return [name for name in self.sources if name != script]

    def specs(self, names: list[str]) -> list[CodedActionSpec]:
        """The coded actions ``names``, each linked with the skills it calls."""
        return [self.spec(name) for name in names]

    def spec(self, name: str) -> CodedActionSpec:
        """``name``'s coded action; one that calls skills is linked and validated once."""
        source = self.sources[name]
        if not skill_calls(source):
            return CodedActionSpec(name=name, source=source)
        if name not in self._linked:
            self._linked[name] = self._link(name, source)
        return self._linked[name]

    def _link(self, name: str, source: str) -> CodedActionSpec:
        shelf = SkillShelf(
            str(self.folder),
            [
                ShelfSkill(n, "", s, self.authors[n], proven=self.proven.get(n, 0.0))
                for n, s in self.sources.items()
            ],
            list(self.policies),
        )
        linked, called = shelf.link(source, leave_out=name)
        return CodedActionSpec.of(validate(name, linked, policies=called))

    def policies_called(self, name: str) -> list[str]:
        """The trained policies ``name``'s calls run (their labels)."""
        if not skill_calls(self.sources[name]):
            return []
        return [p.label for p in self.spec(name).validated().policies]


def script_skill(task: Task) -> str:
    """The fixed script of the pure-code method: the task's own skill, or the library's."""
    return SCRIPT_SKILL if task.scored else task.name


def rl_skills(task: Task) -> list[str]:
    """The coded skills offered to PPO: the library for a scored task, else the coded
    actions of the builtin agent's 'RL with coded actions' plan (its iteration 1)."""
    if task.scored:
        return library_for(task)
    agent = BuiltinSlowAgent()
    first = IterationFeedback(0, agent.plan(task, []), {}, 0.0, 0)
    plan = agent.plan(task, [first])
    learned = plan.learned()
    own = own_code_name(task)  # the task's own code, which rl_from_code offers as its script
    return [n for n in learned[0].high_level_actions if n != own] if learned else []
