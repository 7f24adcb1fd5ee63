"""Questions an evaluation answers, and when its episodes so far already answer them.

An evaluation plans ``n`` episodes, one per env, all started together; episodes that end
early are not a fair sample (on a collect task successes end first, failures run to the
horizon). So the answer is read from the *range* of the full evaluation's result: with
``s`` successes and ``f`` failures ended, the success rate of all ``n`` will be between
``s / n`` (every episode still running fails) and ``(s + u) / n`` (every one succeeds,
``u = n - s - f``). Once that whole range answers the question, the remaining episodes
cannot change the answer and the evaluation stops: it decides as the full one would.
Its recorded measure is then over the episodes that ended (their count recorded), which
stays on the same side of the question (``s / (s + f)`` lies in the range's side).

Only success rates are decided early; a Crafter score (over 22 achievements, with a
bootstrap interval) is always measured over every planned episode.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    """What the episodes answered, and how many of the planned ones it took."""

    answer: str  # e.g. "at or above the target 0.90"
    episodes: int  # episodes that had ended
    planned: int

    def as_dict(self) -> dict[str, object]:
        return {"decision": self.answer, "episodes_used": self.episodes, "planned": self.planned}


@dataclass(frozen=True)
class Question:
    """Base: a question about the success rate of ``planned`` episodes."""

    def answer(self, low: float, high: float) -> str | None:
        """The answer when every rate in [low, high] gives the same one, else None."""
        raise NotImplementedError

    def decided(self, successes: int, ended: int, planned: int) -> Decision | None:
        """The answer once ``ended`` episodes of ``planned`` ended, ``successes`` of them
        successes; None while the episodes still running could change it."""
        if planned <= 0:
            return None
        unknown = planned - ended
        answer = self.answer(successes / planned, (successes + unknown) / planned)
        return Decision(answer, ended, planned) if answer else None


@dataclass(frozen=True)
class AgainstTarget(Question):
    """Is the success rate at or above ``target`` (the run's stopping rule)? An iteration's
    figure also says whether it is the best of its kind so far, so "below" stops early
    only once it is below ``best`` too (the best of its kind; None: none yet, and a figure
    below the target is measured in full)."""

    target: float
    best: float | None = None

    def answer(self, low: float, high: float) -> str | None:
        if low >= self.target:
            return f"at or above the target {self.target:.2f}"
        if high < self.target and self.best is not None and high < self.best:
            return f"below the target {self.target:.2f} and the best so far ({self.best:.2f})"
        return None


@dataclass(frozen=True)
class AgainstBest(Question):
    """Can this candidate still beat ``best`` (another candidate's rate on the same worlds)?
    Only "worse" stops early: a candidate that may be the best needs its whole figure."""

    best: float
    other: str = "the best candidate so far"

    def answer(self, low: float, high: float) -> str | None:
        if high < self.best:
            return f"worse than {self.other} ({self.best:.2f})"
        return None
