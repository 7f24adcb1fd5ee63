"""What the skill library keeps, and the storage it needs (:class:`SkillStorage`).

A library entry is a :class:`LibrarySkill` (one version of a named skill in one world, its
source, author, where it was made, and its measured :class:`~rlgpt_tui.library.record.
SkillRecord`) or a :class:`LibraryPolicy` (a trained policy). The sessions database
(``rlgpt_tui.store``) implements :class:`SkillStorage` with SQL; the library never imports
the store.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rlgpt_tui.library.record import SkillRecord
from rlgpt_tui.library.skillfile import SkillFile
from rlgpt_tui.rl.policyfile import SavedPolicy
from rlgpt_tui.tasks.measure import Measure


class LibraryError(Exception):
    """An import or lookup the library refuses; the message is one line naming the fix."""


def digest(source: str) -> str:
    return digest_bytes(source.encode("utf-8", "surrogatepass"))


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def docstring_of(source: str) -> str:
    """The module's docstring, else ``act``'s, else ''."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    doc = ast.get_docstring(tree)
    if not doc:
        act = next(
            (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "act"), None
        )
        doc = ast.get_docstring(act) if act is not None else None
    return (doc or "").strip()


@dataclass
class LibrarySkill:
    """One version of a skill in the library."""

    id: int
    name: str
    world: str
    version: int
    docstring: str
    source: str
    author: str
    made_session: int | None
    made_iteration: int | None
    code_seq: int | None  # the code version (event sequence) in the session that made it
    made_in: str  # "session 3, iteration 1" (or where an imported one was made)
    origin: str  # "session", "library" (reused as it is in a session) or "import <folder>"
    created_at: float
    record: SkillRecord = field(default_factory=SkillRecord)

    @property
    def label(self) -> str:
        return f"{self.name} v{self.version}"

    def cells(self) -> tuple[str, ...]:
        """Its row in a listing, under :data:`COLUMNS`."""
        return (
            self.label,
            self.world,
            self.author,
            where_made(self.made_in, self.origin),
            f"{self.record.calls:,}",
            self.record.success_text,
        )


def where_made(made_in: str, origin: str) -> str:
    """Where a library entry was made, for a listing: an imported one names its folder, so
    that "session 2" is not read as a session of this database."""
    if origin.startswith("import "):
        folder = Path(origin.removeprefix("import ")).name or origin.removeprefix("import ")
        return f"imported from {folder}/" + (f" (there: {made_in})" if made_in else "")
    return made_in or origin


#: the author of a trained policy, where skills are shown (its session is where it was made)
POLICY_AUTHOR = "PPO (trained by rlgpt)"

#: the columns of a skill listing (``skills list``, the app's library screen)
COLUMNS = ("skill", "world", "author", "made in", "calls", "success")


@dataclass(frozen=True)
class LibraryPolicy(SavedPolicy):
    """A trained policy in the library: its id, where it came from and when (listed
    without its weights, read on demand: :func:`policy_weights`)."""

    id: int = 0
    origin: str = ""  # session, or import <folder>
    created_at: float = 0.0
    calls: int = 0  # calls code made of it as a skill (``ctx.skill``), counted per evaluation

    @property
    def figure(self) -> str:
        """Its evaluation, e.g. ``0.72 [0.60-0.81], 64 episodes``."""
        if self.value is None:
            return "-"
        fmt = Measure(self.measure).show
        interval = f" [{fmt(self.ci95[0])}-{fmt(self.ci95[1])}]" if self.ci95 else ""
        return f"{fmt(self.value)}{interval}, {self.episodes or 0} episodes"

    def cells(self) -> tuple[str, ...]:
        """Its row in a listing, under :data:`POLICY_COLUMNS`."""
        return (
            f"#{self.id}",
            self.world,
            self.task,
            ", ".join(self.actions) or "primitives only",
            f"{self.samples:,}",
            self.figure,
            f"{self.calls:,}",
            where_made(self.made_in, self.origin),
        )


#: the columns of a listing of trained policies
POLICY_COLUMNS = (
    "policy",
    "world",
    "task",
    "coded actions",
    "samples",
    "measured",
    "calls",
    "made in",
)


class SkillStorage(Protocol):
    """Where the library's versions and policies are kept (the sessions database: a
    ``SessionStore``). Versions of a name are numbered from 1 per world; a version is never
    overwritten."""

    def skills(self, world: str | None = None, name: str | None = None) -> list[LibrarySkill]:
        """Every version (of ``name`` in ``world`` where given), by world, name and version,
        each with its record."""
        ...

    def policies(self, world: str | None = None) -> list[LibraryPolicy]:
        """The trained policies, without their weights."""
        ...

    def saved_policies(self, world: str) -> list[SavedPolicy]:
        """The trained policies of ``world``, weights included."""
        ...

    def add_skills(
        self, skills: Sequence[SkillFile], policies: Sequence[SavedPolicy], origin: str
    ) -> list[int]:
        """Add ``skills`` (each at its own version, with its record) and ``policies`` in one
        transaction (all or none); returns the new skills' ids."""
        ...
