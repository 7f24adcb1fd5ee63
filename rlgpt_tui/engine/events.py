"""Typed events the engine emits; the store and the TUI consume them (no Textual here)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, get_type_hints

from rlgpt_tui.engine.ends import EndKind, RunEnd
from rlgpt_tui.rl.summary import EvaluationSummary


@dataclass
class Event:
    """Base event: which iteration, which agent produced it (``builtin`` or ``llm:MODEL``)."""

    iteration: int
    agent: str
    time: float = field(default_factory=time.time, kw_only=True)
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """The event as recorded (an evaluation summary as it writes itself)."""
        data = {"kind": self.kind, **asdict(self)}
        for name in SUMMARY_FIELDS.get(self.kind, ()):
            data[name] = getattr(self, name).to_dict()
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
    plan: dict[str, Any]
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
    metrics: dict[str, Any]
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
    episodes unlocked (``training``: episodes, per-episode achievement bitmasks, ends)."""

    plan: str
    value: float
    samples: int
    total_samples: int
    tokens: int
    measure: str = "success_rate"
    evaluation: EvaluationSummary = field(default_factory=EvaluationSummary)
    training: dict[str, Any] = field(default_factory=dict)
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


@dataclass
class EditDiscarded(Event):
    """A queued edit was never used: replaced by a newer one, or the session ended."""

    edit_id: int
    what: str
    target: str
    reason: str
    kind: ClassVar[str] = "edit_discarded"


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
    # the result: the chosen solution's fresh evaluation (SolutionChosen.result); {}: none
    result: dict[str, Any] = field(default_factory=dict)
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

    candidate: dict[str, Any]
    kind: ClassVar[str] = "candidate_offered"


@dataclass
class SolutionChosen(Event):
    """The run's candidates (code alone, RL + code, RL) evaluated again on fresh worlds no
    decision used; ``result`` is the chosen one's measurement (with its ``kind``,
    ``iteration`` and ``stop_value``, the run's own evaluation of it)."""

    candidates: list[dict[str, Any]]
    result: dict[str, Any]
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


#: each kind's fields that hold an evaluation summary (recorded as its dict)
SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    kind: names
    for kind, cls in EVENT_TYPES.items()
    if (names := tuple(n for n, t in get_type_hints(cls).items() if t is EvaluationSummary))
}


# fields renamed since sessions were first recorded: old name -> new name
RENAMED = {"success_rate": "value", "best_success": "best"}


def event_from_dict(data: dict) -> Event:
    """Rebuild an event from ``Event.to_dict()`` output (extra keys such as ``seq`` ignored;
    fields recorded under an older name are read under the new one)."""
    cls = EVENT_TYPES[data["kind"]]
    names = {f.name for f in fields(cls)}  # ClassVars (kind) are not fields
    data = {RENAMED.get(k, k) if RENAMED.get(k) in names else k: v for k, v in data.items()}
    data |= {
        name: EvaluationSummary.from_dict(data[name])
        for name in SUMMARY_FIELDS.get(cls.kind, ())
        if isinstance(data.get(name), dict)
    }
    return cls(**{k: v for k, v in data.items() if k in names})


def events_from_records(records: list[dict[str, Any]] | list[Event]) -> list[Event]:
    """Stored events (``Event.to_dict()`` records) as typed ones; kinds this version does
    not know are left out; typed events pass through."""
    return [
        r if isinstance(r, Event) else event_from_dict(r)
        for r in records
        if isinstance(r, Event) or r.get("kind") in EVENT_TYPES
    ]
