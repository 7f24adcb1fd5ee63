"""Typed events the engine emits; the store and the TUI consume them (no Textual here)."""

from __future__ import annotations

import copy
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine.chosen import CandidateRecord, ChosenSolution, MeasuredCandidate
from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.rl.progress import TrainingEpisodes, TrainingMetrics
from rlgpt_tui.rl.summary import EvaluationSummary

if TYPE_CHECKING:
    from rlgpt_tui.llm.client import LLMCall


@dataclass
class Event:
    """Base event: which iteration, which agent produced it (``builtin`` or ``llm:MODEL``)."""

    # stamped by the engine as it sends the event (the call site names only what happened)
    iteration: int = field(default=0, kw_only=True)
    agent: str = field(default="", kw_only=True)
    time: float = field(default_factory=time.time, kw_only=True)
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The event as recorded (a typed payload as it writes itself)."""
        payloads = PAYLOAD_FIELDS.get(self.kind, {})
        data: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = _write(value) if f.name in payloads else copy.deepcopy(value)
        return data


@dataclass
class SessionStarted(Event):
    task: str
    env: str
    settings: dict[str, Any]
    kind: ClassVar[str] = "session_started"


@dataclass
class TaskPlanProposed(Event):
    task: str
    subtasks: list[str]
    kind: ClassVar[str] = "task_plan_proposed"


@dataclass
class PlanProposed(Event):
    plan: Plan  # recorded as its model_dump(); read back unchecked (Plan.recorded)
    source: str = "agent"  # or "human" for an edited plan
    kind: ClassVar[str] = "plan_proposed"


@dataclass
class CodeWritten(Event):
    """A code version of a sub-action (its id is the store's sequence number)."""

    subaction: str
    code: str
    attempt: int
    source: str = "agent"
    kind: ClassVar[str] = "code_written"


@dataclass
class CodeValidationFailed(Event):
    """Code for a sub-action failed validation (marks that code version invalid)."""

    subaction: str
    error: str
    attempt: int
    kind: ClassVar[str] = "validation_failed"


@dataclass
class RLConfigValidationFailed(Event):
    """An agent's RL configuration failed validation; the defaults were used instead.
    (It never touches code versions.)"""

    subaction: str
    error: str
    kind: ClassVar[str] = "rl_config_validation_failed"


@dataclass
class TrainingStarted(Event):
    subaction: str
    config: dict[str, Any]  # for display: coded actions by name
    rl_config: dict[str, Any] = field(default_factory=dict)  # the whole RLConfig (resume)
    checkpoint_dir: str | None = None
    kind: ClassVar[str] = "training_started"


@dataclass
class PolicyTrained(Event):
    """A training's policy, evaluated, for the skill library: the configuration it was
    trained with, the file of its weights (:mod:`rlgpt_tui.rl.weights`), the samples it has
    been trained on in all (a library policy's earlier ones included), its evaluation
    summary, and how it acts (``deterministic``; None: evaluate()'s default)."""

    subaction: str
    rl_config: dict[str, Any]
    weights: str
    samples: int
    result: EvaluationSummary
    deterministic: bool | None = None
    kind: ClassVar[str] = "policy_trained"


@dataclass
class PolicyReused(Event):
    """The library's trained policy taken for ``subaction``'s RL (its own coded actions);
    ``note`` says whose it is, how much it trained and what it measured."""

    subaction: str
    coded_actions: list[str]
    note: str
    samples: int = 0  # what the policy was trained on before (a resumed training adds to it)
    kind: ClassVar[str] = "policy_reused"


@dataclass
class TrainingProgress(Event):
    subaction: str
    metrics: TrainingMetrics
    total_samples: int | None = None  # the session's samples so far, this run's included
    kind: ClassVar[str] = "training_progress"


@dataclass
class PhaseStarted(Event):
    """The engine began a phase: ``planning``, ``coding``, ``validating``, ``critic runs``
    (a coded action's sample executions), ``world`` (building a training's world),
    ``training``, ``evaluating``, ``critic`` or ``final evaluation``; ``detail``: what it
    works on (a sub-action), ``total``: the phase's units where it has some (samples to
    train, episodes to evaluate). :mod:`rlgpt_tui.engine.phases` sums their wall times.

    A phase lasts until the next ``PhaseStarted`` or ``SessionFinished`` (paused spans
    inside it are the ``control`` events paused..resumed), so phase wall times follow
    from the recorded events."""

    phase: str
    detail: str = ""
    total: int | None = None
    kind: ClassVar[str] = "phase_started"


@dataclass
class PhaseProgress(Event):
    """``done`` of the current phase's ``total`` units (evaluation: episodes ended)."""

    phase: str
    done: int
    total: int
    kind: ClassVar[str] = "phase_progress"


@dataclass
class ApprovalGiven(Event):
    """Approval mode: a person's answer to an agent proposal (``what``: plan or code;
    ``answer``: approved, approved with edits, rejected, or covered by the plan's
    approval), or a change of the mode itself (``what``: mode; ``answer``: on or off)."""

    what: str
    target: str
    answer: str
    kind: ClassVar[str] = "approval"


@dataclass
class EvaluationDone(Event):
    subject: str
    result: EvaluationSummary
    kind: ClassVar[str] = "evaluation"


@dataclass
class VerdictGiven(Event):
    subaction: str
    success: bool
    reason: str
    suggestion: str
    kind: ClassVar[str] = "verdict"


@dataclass
class IterationDone(Event):
    """An iteration's result in the task's measure (``value``: a success rate, or Crafter's
    score), its final evaluation summary and, for scored tasks, what its training's
    episodes unlocked (``training``; None, recorded ``{}``: not a scored task's RL)."""

    plan: str
    value: float
    samples: int
    total_samples: int
    tokens: int
    measure: str = "success_rate"
    evaluation: EvaluationSummary = field(default_factory=EvaluationSummary)
    training: TrainingEpisodes | None = None
    kind: ClassVar[str] = "iteration_done"


@dataclass
class EngineError(Event):
    message: str
    kind: ClassVar[str] = "error"


@dataclass
class ControlChanged(Event):
    state: str  # paused, resumed, stopping
    kind: ClassVar[str] = "control"


@dataclass
class EditQueued(Event):
    """A person's edit waits for the engine's next safe point."""

    edit_id: int
    what: str  # plan, code, rl_config
    target: str
    summary: str
    origin: str = "app"  # app, file (saved in an editor), api
    content: str = ""  # the edit itself (plan JSON, code, RLConfig changes JSON): resume
    kind: ClassVar[str] = "edit_queued"


@dataclass
class EditApplied(Event):
    """A person's edit is in use from ``at`` (rollout and samples: between PPO rollouts)."""

    what: str
    target: str
    before: str
    after: str
    edit_id: int | None = None
    at: str = ""
    rollout: int | None = None
    samples: int | None = None
    version: int | None = None  # the code version it became
    kind: ClassVar[str] = "edit_applied"


@dataclass
class EditRefused(Event):
    """A person's edit was not used: ``reason`` says why."""

    edit_id: int
    what: str
    target: str
    reason: str
    kind: ClassVar[str] = "edit_refused"

    @classmethod
    def of(cls, edit: Any, reason: str) -> EditRefused:
        """The event for ``edit`` (an engine.control edit: ``id``, ``what``, ``target``)."""
        return cls(edit_id=edit.id, what=edit.what, target=edit.target, reason=reason)


@dataclass
class EditDiscarded(Event):
    """A queued edit was never used: replaced by a newer one, or the session ended."""

    edit_id: int
    what: str
    target: str
    reason: str
    kind: ClassVar[str] = "edit_discarded"

    @classmethod
    def of(cls, edit: Any, reason: str) -> EditDiscarded:
        """The event for ``edit`` (an engine.control edit: ``id``, ``what``, ``target``)."""
        return cls(edit_id=edit.id, what=edit.what, target=edit.target, reason=reason)


@dataclass
class SessionFinished(Event):
    """How a session ended; ``best``: the best iteration's value of the task's measure;
    ``run``: for scored tasks, the measure over every training episode of the session
    (Crafter's own definition of its score), a Measurement's summary; ``total_samples``:
    every sample trained, an interrupted iteration's included."""

    reason: str  # RunEnd.text: "target reached", "error: ..."
    best: float
    total_samples: int
    tokens: int
    measure: str = "success_rate"
    run: EvaluationSummary = field(default_factory=EvaluationSummary)
    # the result: the chosen solution's fresh evaluation (SolutionChosen.result); None
    # (recorded {}): none was chosen
    result: ChosenSolution | None = None
    end: str = ""  # EndKind's value ('' in sessions recorded before it: read ``reason``)
    stop_requested: bool = False  # a person asked to stop (the run may have ended first)
    evaluated: bool = True  # False: it ended before any evaluation (``best`` means nothing)
    kind: ClassVar[str] = "session_finished"

    @property
    def run_end(self) -> RunEnd:
        """How the run ended (older records: parsed from ``reason``)."""
        if self.end == EndKind.ERROR.value:
            return RunEnd.parse(self.reason)
        return RunEnd(EndKind(self.end)) if self.end else RunEnd.parse(self.reason)


@dataclass
class CandidateOffered(Event):
    """A solution of this iteration offered for the run's final choice (``candidate``:
    :meth:`~rlgpt_tui.engine.choice.Candidate.record`), so that a resumed run chooses among
    every iteration's candidates, not only those made after the resume."""

    candidate: CandidateRecord
    kind: ClassVar[str] = "candidate_offered"


@dataclass
class SolutionChosen(Event):
    """The run's candidates (code alone, RL + code, RL) evaluated again on fresh worlds no
    decision used; ``result`` is the chosen one's measurement (with its ``kind``,
    ``iteration`` and ``stop_value``, the run's own evaluation of it)."""

    candidates: list[MeasuredCandidate]
    result: ChosenSolution
    kind: ClassVar[str] = "solution_chosen"


@dataclass
class SubActionDone(Event):
    """A sub-action's inner loop ended: its accepted code ('' if none) and verdict."""

    subaction: str
    mode: str
    code: str
    success: bool
    reason: str
    suggestion: str
    kind: ClassVar[str] = "subaction_done"


@dataclass
class LLMCalled(Event):
    """One LLM request and answer (never the key): role, model, tokens, latency."""

    role: str
    model: str
    prompt: list[dict[str, str]]
    answer: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int
    ok: bool  # the endpoint answered
    error: str | None
    validated: bool | None = None  # the answer passed its schema (None: none was asked)
    repair_round: int = 0  # 0: first ask; n: the n-th repair request
    mode: str = "plain"  # json_schema: the schema went as response_format
    kind: ClassVar[str] = "llm_call"

    @classmethod
    def of(cls, call: LLMCall) -> LLMCalled:
        """The event of one recorded call (the client's record, field by field)."""
        return cls(
            role=call.role,
            model=call.model,
            prompt=call.prompt,
            answer=call.answer,
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            latency_s=call.latency_s,
            attempts=call.attempts,
            ok=call.ok,
            error=call.error,
            validated=call.validated,
            repair_round=call.repair_round,
            mode=call.mode,
        )


@dataclass
class SessionResumed(Event):
    """The engine continues a recorded session from ``iteration``; ``ended``: how its last
    recorded iteration had already ended the run (``EndKind``'s value; '': it had not), so
    that only the final choice is left."""

    total_samples: int
    training_samples_done: int
    edits_carried: list[int] = field(default_factory=list)  # pending when it was cut off
    ended: str = ""
    kind: ClassVar[str] = "session_resumed"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in Event.__subclasses__()  # every kind, for replaying stored events
}


#: the payload types events hold, and how each is read from its record (a plan unchecked)
_READERS: dict[type, Callable[[Any], Any]] = {
    Plan: Plan.recorded,
    EvaluationSummary: EvaluationSummary.from_dict,
    TrainingMetrics: TrainingMetrics.from_dict,
    TrainingEpisodes: TrainingEpisodes.from_dict,
    CandidateRecord: CandidateRecord.from_dict,
    MeasuredCandidate: MeasuredCandidate.from_dict,
    ChosenSolution: ChosenSolution.from_dict,
}


def _payload(hint: Any) -> tuple[type, str] | None:
    """A field's payload type and its shape (``one``; ``optional``, None recorded as
    ``{}``; ``list``), or None for a field of JSON's own types."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = next(a for a in args if a is not type(None))
        return (inner, "optional") if inner in _READERS else None
    if origin is list and args and args[0] in _READERS:
        return args[0], "list"
    return (hint, "one") if hint in _READERS else None


#: each kind's fields that hold a typed payload: its type and shape
PAYLOAD_FIELDS: dict[str, dict[str, tuple[type, str]]] = {
    kind: found
    for kind, cls in EVENT_TYPES.items()
    if (
        found := {
            name: payload
            for name, hint in typing.get_type_hints(cls).items()
            if (payload := _payload(hint)) is not None
        }
    )
}


def _write(value: Any) -> Any:
    """A payload as recorded (None: ``{}``)."""
    if value is None:
        return {}
    if isinstance(value, list):
        return [_write(item) for item in value]
    return value.model_dump() if isinstance(value, Plan) else value.to_dict()


def _read(payload: tuple[type, str], value: Any) -> Any:
    """A recorded payload as its type (an optional one's ``{}``: None)."""
    kind, shape = payload
    read = _READERS[kind]
    if shape == "list":
        return [read(item) for item in value]
    return None if shape == "optional" and not value else read(value)


# fields renamed since sessions were first recorded: old name -> new name
RENAMED = {"success_rate": "value", "best_success": "best"}


def event_from_dict(data: dict) -> Event:
    """Rebuild an event from ``Event.to_dict()`` output (extra keys such as ``seq`` ignored;
    fields recorded under an older name are read under the new one)."""
    cls = EVENT_TYPES[data["kind"]]
    names = {f.name for f in fields(cls)}  # ClassVars (kind) are not fields
    data = {RENAMED.get(k, k) if RENAMED.get(k) in names else k: v for k, v in data.items()}
    data |= {
        name: _read(payload, data[name])
        for name, payload in PAYLOAD_FIELDS.get(cls.kind, {}).items()
        if isinstance(data.get(name), list if payload[1] == "list" else dict)
    }
    return cls(**{k: v for k, v in data.items() if k in names})


#: a session's events as the store gives them (``Event.to_dict()`` records), or typed
Records = list[dict[str, Any]] | list[Event]


def events_from_records(records: Records) -> list[Event]:
    """Stored events (``Event.to_dict()`` records) as typed ones; kinds this version does
    not know are left out; typed events pass through."""
    return [
        r if isinstance(r, Event) else event_from_dict(r)
        for r in records
        if isinstance(r, Event) or r.get("kind") in EVENT_TYPES
    ]
