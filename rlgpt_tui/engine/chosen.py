"""What a session records of its final choice (:mod:`rlgpt_tui.engine.choice`): each
candidate as it was offered (to rebuild it on a resume), each as it measured on fresh
worlds, and the one chosen, the run's result."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.recorded import RecordedPayload
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.results import result_text


@dataclass(kw_only=True)
class CandidateRecord(RecordedPayload):
    """A candidate as a ``candidate_offered`` event keeps it: its kind, the value the run's
    own evaluation gave it, the coded action it runs alone, how its policy acts, the
    RLConfig it was trained with (as recorded: it is checked when the candidate is rebuilt)
    and the file of its weights."""

    subject: str
    kind: str
    value: float | None
    only_coded: str | None
    deterministic: bool | None
    rl_config: dict[str, Any]
    weights: str | None


@dataclass(kw_only=True)
class MeasuredCandidate(RecordedPayload):
    """A candidate's fresh evaluation in the final choice (stopped early once its episodes
    showed it could not beat the best one: with that decision)."""

    kind: str
    iteration: int
    subject: str
    stop_value: float | None  # the run's own evaluation of it (None: none alone)
    value: float
    ci95: tuple[float, float]
    episodes: int
    decision: str | None = None
    episodes_used: int | None = None
    planned: int | None = None
    range: tuple[float, float] | None = None

    OMITTED_WHEN_NONE = frozenset({"decision", "episodes_used", "planned", "range"})

    def text(self, measure: Measure) -> str:
        """Its fresh figure in ``measure`` (:func:`~rlgpt_tui.tasks.results.result_text`)."""
        return result_text(self.to_dict() | {"measure": measure.value}, ends=False)


#: the keys of a chosen solution's record that say which candidate it is (the others: its
#: fresh evaluation's); records older than them lack the ones with a default
_CHOICE = ("kind", "iteration", "only_coded", "subject", "stop_value", "seed", "target", "reached")


@dataclass(kw_only=True)
class ChosenSolution:
    """The run's result: the chosen candidate's fresh evaluation (``evaluation``: its
    measurement, a decided score's question, its coded actions' calls) and which candidate
    it is, on which worlds (``seed``), against which ``target``, and whether it reached it.

    Its record is the evaluation's figures, then the candidate's keys, then the calls."""

    evaluation: EvaluationSummary
    kind: str
    iteration: int
    only_coded: str | None = None  # the coded action it runs alone (code alone)
    subject: str
    stop_value: float | None  # the run's own evaluation of it (None: none alone)
    seed: int
    target: float | None = None
    reached: bool | None = None
    # the candidate's keys an older record lacked (written back without them)
    absent: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChosenSolution:
        """A recorded result (any version's)."""
        choice = {k: copy.deepcopy(v) for k, v in data.items() if k in _CHOICE}
        measured = {k: v for k, v in data.items() if k not in _CHOICE}
        return cls(
            evaluation=EvaluationSummary.from_dict(measured),
            **choice,
            absent=frozenset(_CHOICE) - choice.keys(),
        )

    def to_dict(self) -> dict[str, Any]:
        """The result as recorded."""
        measured = self.evaluation.to_dict()
        calls = {"coded_calls": measured.pop("coded_calls")} if "coded_calls" in measured else {}
        choice = {name: getattr(self, name) for name in _CHOICE if name not in self.absent}
        return measured | copy.deepcopy(choice) | calls

    @property
    def value(self) -> float | None:
        """Its fresh figure in the task's measure."""
        return self.evaluation.measured_value

    @property
    def measure(self) -> Measure:
        return self.evaluation.measured_in

    def text(self) -> str:
        """Its fresh figure, one line (:meth:`EvaluationSummary.text`, no episode ends)."""
        return self.evaluation.text(ends=False)
