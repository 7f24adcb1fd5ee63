"""How a run ended: one typed value instead of free text parsed with ``startswith``.

A run ends because its iterations were used up, its target was reached, a budget (samples
or tokens) was spent, a person stopped it, or an error ended it (with the error's text).
Sessions recorded before this type existed stored only the text; :meth:`RunEnd.parse`
reads those.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EndKind(StrEnum):
    """Why a run ended; the value is the text the session records."""

    FINISHED = "iterations used up"
    TARGET = "target reached"
    SAMPLE_BUDGET = "sample budget spent"
    TOKEN_BUDGET = "token budget spent"
    STOPPED = "stopped"
    ERROR = "error"


@dataclass(frozen=True)
class RunEnd:
    """Why a run ended, and for an error, what it was."""

    kind: EndKind
    error: str = ""

    @classmethod
    def failed(cls, error: object) -> RunEnd:
        return cls(EndKind.ERROR, str(error))

    @classmethod
    def parse(cls, text: str) -> RunEnd:
        """Read a recorded reason (``error: ...``, ``stopped``...); unknown text is a
        finished run (older sessions recorded a chain's result as its reason)."""
        if text.startswith("error"):
            return cls(EndKind.ERROR, text.partition(":")[2].strip())
        try:
            return cls(EndKind(text))
        except ValueError:
            return cls(EndKind.FINISHED)

    @property
    def text(self) -> str:
        """The recorded reason: the kind's text, ``error: ...`` for an error."""
        return f"error: {self.error}" if self.kind is EndKind.ERROR else self.kind.value

    @property
    def status(self) -> str:
        """The session's status: ``stopped`` (resumable), ``failed`` or ``finished``."""
        if self.kind is EndKind.STOPPED:
            return "stopped"
        return "failed" if self.kind is EndKind.ERROR else "finished"

    @property
    def ended_on_its_own(self) -> bool:
        """Neither stopped by a person nor ended by an error."""
        return self.kind not in (EndKind.STOPPED, EndKind.ERROR)

    def __str__(self) -> str:
        return self.text
