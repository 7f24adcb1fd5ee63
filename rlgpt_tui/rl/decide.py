"""Questions an evaluation answers, and when its episodes so far already answer them.

An evaluation plans ``n`` episodes, one per env, all started together; episodes that end
early are not a fair sample (on a collect task successes end first, failures run to the
horizon). So the answer is read from the *range* of the full evaluation's result: with
``s`` successes and ``f`` failures ended, the success rate of all ``n`` will be between
``s / n`` (every episode still running fails) and ``(s + u) / n`` (every one succeeds,
``u = n - s - f``). Once that whole range answers the question, the remaining episodes
cannot change the answer and the evaluation stops: it decides as the full one would.
Its recorded value is then the end of that range that proves the answer (at least ``s / n``
for "at or above", at most ``(s + u) / n`` for "below" or "worse"), its interval the range
itself, with the episodes that ended and those planned: a rate over the ended episodes
alone would be biased (on a collect task, toward success).

A Crafter score (over 22 achievements) has no such range: a game still running may
unlock any of them. A scored evaluation is sized from its interval instead: it plays its
planned episodes in rounds of whole episodes (:func:`score_rounds`: at least
:data:`SCORE_FIRST`, then the rest), and after each round the score's bootstrap 95%
interval over the episodes played so far (every one ended: no bias toward short games)
either answers the question (:meth:`Question.settled`) and the evaluation stops, or the
next round is played. It also stops when the planned episodes could not answer it either:
below the target, level with the best so far (:meth:`AgainstTarget.settled`: the interval
of all planned episodes, about ``sqrt(planned / played)`` times narrower, would still hold
the best), so the episodes are sized from the interval the question needs. Its recorded
value is the score of the episodes it played, with their interval.
"""

from __future__ import annotations

from dataclasses import dataclass

#: a scored evaluation's first round of whole episodes (the least it decides on)
SCORE_FIRST = 16


@dataclass(frozen=True)
class Decision:
    """What the episodes answered, and how many of the planned ones it took."""

    answer: str  # e.g. "at or above the target 0.90"
    episodes: int  # episodes that had ended
    planned: int
    low: float  # the full result's range: every episode still running fails ...
    high: float  # ... or succeeds
    above: bool  # the answer says "at or above" (the value is ``low``), else ``high``
    estimate: float | None = None  # scored: the score of the episodes played (all ended)

    @property
    def value(self) -> float:
        """The end of the range that proves the answer (scored: the episodes' score)."""
        if self.estimate is not None:
            return self.estimate
        return self.low if self.above else self.high

    def as_dict(self) -> dict[str, object]:
        return {
            "decision": self.answer,
            "episodes_used": self.episodes,
            "planned": self.planned,
            "range": [round(self.low, 4), round(self.high, 4)],
        }


@dataclass(frozen=True)
class Question:
    """Base: a question about the success rate of ``planned`` episodes."""

    def answer(self, low: float, high: float) -> tuple[str, bool] | None:
        """The answer when every rate in [low, high] gives the same one (and whether it
        says "at or above"), else None."""
        raise NotImplementedError

    def decided(self, successes: int, ended: int, planned: int) -> Decision | None:
        """The answer once ``ended`` episodes of ``planned`` ended, ``successes`` of them
        successes; None while the episodes still running could change it."""
        if planned <= 0:
            return None
        low, high = successes / planned, (successes + planned - ended) / planned
        answer = self.answer(low, high)
        return Decision(answer[0], ended, planned, low, high, answer[1]) if answer else None

    def interval_answer(self, low: float, high: float, episodes: int) -> tuple[str, bool] | None:
        """The answer a 95% interval [low, high] of ``episodes`` whole episodes gives
        (default: the range's answer)."""
        return self.answer(low, high)

    def settled(
        self, value: float, low: float, high: float, episodes: int, planned: int
    ) -> Decision | None:
        """Scored: the answer of ``episodes`` whole episodes (of ``planned``) measured at
        ``value`` with the 95% interval [low, high]; None while the interval straddles."""
        answer = self.interval_answer(low, high, episodes)
        if answer is None:
            return None
        return Decision(answer[0], episodes, planned, low, high, answer[1], estimate=value)


@dataclass(frozen=True)
class AgainstTarget(Question):
    """Is the success rate at or above ``target`` (the run's stopping rule)? An iteration's
    figure also says whether it is the best of its kind so far, so "below" stops early
    only once it is below ``best`` too (the best of its kind; None: none yet, and a figure
    below the target is measured in full)."""

    target: float
    best: float | None = None

    def answer(self, low: float, high: float) -> tuple[str, bool] | None:
        if low >= self.target:
            return f"at or above the target {self.target:.2f}", True
        if high < self.target and self.best is not None and high < self.best:
            best = f"the best so far ({self.best:.2f})"
            return f"below the target {self.target:.2f} and {best}", False
        return None

    def interval_answer(self, low: float, high: float, episodes: int) -> tuple[str, bool] | None:
        """A score's interval also decides "below the target, above the best so far" (the
        recorded value is the measured one, not a bound) and, with no best yet, "below"."""
        answer = self.answer(low, high)
        if answer is not None or high >= self.target:
            return answer
        below = f"below the target {self.target:.2f}"
        if self.best is None:
            return below, False
        if low > self.best:
            return f"{below}, above the best so far ({self.best:.2f})", False
        return None

    def settled(
        self, value: float, low: float, high: float, episodes: int, planned: int
    ) -> Decision | None:
        """As :meth:`Question.settled`; and below the target with an interval that holds
        the best so far, "level with the best" once the planned episodes' interval (this
        one narrowed by ``sqrt(episodes / planned)``, on the best's side) would hold it
        too: more episodes would cost without telling them apart."""
        decided = super().settled(value, low, high, episodes, planned)
        if decided is not None or self.best is None or high >= self.target:
            return decided
        if episodes >= planned or planned <= 0:
            return None
        half = (high - value) if self.best >= value else (value - low)
        if abs(value - self.best) >= half * (episodes / planned) ** 0.5:
            return None  # the planned episodes may tell them apart: play them
        answer = (
            f"below the target {self.target:.2f}, level with the best so far "
            f"({self.best:.2f}): {planned} episodes would not tell them apart"
        )
        return Decision(answer, episodes, planned, low, high, False, estimate=value)


@dataclass(frozen=True)
class AgainstBest(Question):
    """Can this candidate still beat ``best`` (another candidate's rate on the same worlds)?
    Only "worse" stops early: a candidate that may be the best needs its whole figure."""

    best: float
    other: str = "the best candidate so far"
    better_after: int | None = None  # scored: whole episodes before "better" decides

    def answer(self, low: float, high: float) -> tuple[str, bool] | None:
        if high < self.best:
            return f"worse than {self.other} ({self.best:.2f})", False
        return None

    def interval_answer(self, low: float, high: float, episodes: int) -> tuple[str, bool] | None:
        """A score's interval decides "worse" at once and "better" after ``better_after``
        whole episodes (a chosen solution's figure needs that many)."""
        answer = self.answer(low, high)
        if answer is not None:
            return answer
        if self.better_after is not None and episodes >= self.better_after and low > self.best:
            return f"better than {self.other} ({self.best:.2f})", True
        return None


def score_rounds(planned: int, first: int = SCORE_FIRST) -> list[int]:
    """A scored evaluation's rounds: the episodes played when each ends, ``first`` then
    the rest at once (e.g. 16, 64): a round lasts as long as its longest game, and the
    world steps a few envs hardly faster than many, so an undecided evaluation pays for
    one extra round at most."""
    return sorted({max(1, min(first, planned)), planned})
