"""The sandbox worker's wire protocol: frames, the shared slot, typed requests and replies.

Shared by the app's side (:mod:`rlgpt_tui.sandbox.pool`, :mod:`rlgpt_tui.sandbox.scheduler`),
the worker process (:mod:`rlgpt_tui.sandbox.worker`) and what the worker does with each
request (:mod:`rlgpt_tui.sandbox.serving`); it imports none of them.

Frames are a 4-byte little-endian length and a payload. Requests are pickles of the
dataclasses below (the app is trusted; the worker unpickles them). Replies are JSON (the
app never unpickles what untrusted code could have written), at most :data:`MAX_REPLY`
bytes, read back into typed replies by their ``parse`` methods, which check every field's
shape and raise :class:`ProtocolError` on anything else.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.skills.api import MAX_STEP_NAME, MAX_STEPS_BEGUN

HEADER = struct.Struct("<I")
# the env being called (-1: none), when its call started (time.monotonic) and the worker's
# CPU time then (time.process_time)
SLOT = struct.Struct("<ddd")
SLOT_SIZE = SLOT.size
MAX_REPLY = 8 << 20
MAX_REQUEST = 256 << 20
DEBUG_ENV = "RLGPT_WORKER_DEBUG"  # 1: a worker's own errors go to the app's stderr


class ProtocolError(Exception):
    """A frame was cut off, too large or not what the protocol says."""


# -- frames --------------------------------------------------------------------------------------
def write_frame(fd: int, payload: bytes) -> None:
    data = HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_exact(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int) -> bytes:
    (size,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if size > limit:
        raise ProtocolError(f"a frame of {size:,} bytes exceeds {limit:,}")
    return read_exact(fd, size)


# -- requests (app -> worker, pickled) -----------------------------------------------------------
@dataclass
class Hello:
    """The first request: how the worker confines itself. Reply: :class:`Ready`."""

    confinement: Any  # rlgpt_tui.sandbox.boundary.Confinement
    filtered: bool


@dataclass
class ActionProgram:
    """A coded action to compile into ``slot`` (and dry-run on recorded Views if asked)."""

    slot: int
    name: str
    source: str
    limits: Any  # rlgpt_tui.skills.runtime.CodedActionLimits
    dry_run: bool = False
    memory_key: str | None = None  # which ctx.memory its calls share (default: its name)
    policies: tuple = ()  # rlgpt_tui.skills.policy.PolicySkill: what its ctx.skill runs


@dataclass
class RewardProgram:
    """Reward code ``def reward(prev, now)`` and its budgets per call."""

    source: str
    ticks: int
    seconds: float
    dry_run: bool = False


@dataclass
class Load:
    """Compile programs. Reply: :class:`Loaded`."""

    actions: list[ActionProgram] = field(default_factory=list)
    reward: RewardProgram | None = None
    seed: int | None = None  # seeds each env's rng (None: keep the worker's)


@dataclass
class Step:
    """Stop or park calls, reset episode memories, start calls (env, slot), then ask envs
    for their next primitive given their encoded Views. Reply: :class:`Stepped`.

    A parked call is kept, not closed: the next start of the same slot in that env resumes
    it where it yielded, with what was left of its step and time budget (until the env's
    memory is reset or the slot's code is loaded again)."""

    stop: list[int]
    reset: list[int]
    start: list[tuple[int, int]]
    ask: list[int]
    rows: Any  # np.ndarray (rlgpt_tui.envs.base.encode_views)
    light: Any
    park: list[tuple[int, int]] = field(default_factory=list)  # (env, slot of its call)


@dataclass
class Rewards:
    """Shaping rewards ``reward(prev, now)`` for ``envs`` (Views encoded). Reply:
    :class:`RewardValues`."""

    envs: list[int]
    prev: tuple[Any, Any]
    now: tuple[Any, Any]


Request = Load | Step | Rewards


# -- replies (worker -> app, JSON) ---------------------------------------------------------------
def _dict(data: Any, *keys: str) -> dict[str, Any]:
    if not isinstance(data, dict) or any(k not in data for k in keys):
        raise ProtocolError(f"a reply without {', '.join(keys)}")
    return data


def _text(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ProtocolError("an error that is not text")
    return value


@dataclass
class Ready:
    pid: int

    @classmethod
    def parse(cls, data: Any) -> Ready:
        pid = _dict(data, "ready")["ready"]
        if type(pid) is not int:
            raise ProtocolError("a start answered with nonsense")
        return cls(pid)

    def to_json(self) -> dict[str, Any]:
        return {"ready": self.pid}


@dataclass
class Loaded:
    """Per slot, the compile or dry-run error (None: loaded); the reward code's error."""

    actions: dict[int, str | None] = field(default_factory=dict)
    reward: str | None = None

    @classmethod
    def parse(cls, data: Any) -> Loaded:
        data = _dict(data, "actions", "reward")
        actions = data["actions"]
        if not isinstance(actions, dict):
            raise ProtocolError("a load reply without a table of actions")
        try:
            errors = {int(k): _text(v) for k, v in actions.items()}
        except ValueError:
            raise ProtocolError("a load reply with a slot that is not a number") from None
        return cls(errors, _text(data["reward"]))

    def to_json(self) -> dict[str, Any]:
        return {"actions": {str(k): v for k, v in self.actions.items()}, "reward": self.reward}

    @property
    def errors(self) -> dict[int, str]:
        return {slot: error for slot, error in self.actions.items() if error}


@dataclass
class CallEnded:
    env: int
    reason: str  # a CallEnd value
    detail: str


@dataclass
class Stepped:
    """Each asked env's next primitive (-1: its call ended), the calls that ended, and the
    plan steps that calls began during this request (``ctx.begin_step``)."""

    next: list[int]
    ends: list[CallEnded]
    begun: list[tuple[int, list[str]]] = field(default_factory=list)

    @classmethod
    def parse(cls, data: Any, asked: int, actions: int) -> Stepped:
        """Check the shape: ``asked`` actions in ``[-1, actions)``, ends [env, reason,
        detail], begun [env, [step, ...]] (at most MAX_STEPS_BEGUN short names an env)."""
        data = _dict(data, "next", "ends", "begun")
        chosen, ends, begun = data["next"], data["ends"], data["begun"]
        if not (isinstance(chosen, list) and len(chosen) == asked and isinstance(ends, list)):
            raise ProtocolError("a step reply of the wrong length")
        if not all(type(a) is int and -1 <= a < actions for a in chosen):
            raise ProtocolError("a step reply with an action out of range")
        ok = all(
            isinstance(e, list)
            and len(e) == 3
            and type(e[0]) is int
            and isinstance(e[1], str)
            and isinstance(e[2], str)
            for e in ends
        )
        if not ok:
            raise ProtocolError("a step reply with a malformed end")
        ok = isinstance(begun, list) and all(
            isinstance(b, list) and len(b) == 2 and type(b[0]) is int and _steps_begun(b[1])
            for b in begun
        )
        if not ok:
            raise ProtocolError("a step reply with malformed steps begun")
        return cls(chosen, [CallEnded(*e) for e in ends], [(b[0], b[1]) for b in begun])

    def to_json(self) -> dict[str, Any]:
        ends = [[e.env, e.reason, e.detail] for e in self.ends]
        return {"next": self.next, "ends": ends, "begun": [[e, b] for e, b in self.begun]}


def _steps_begun(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) <= MAX_STEPS_BEGUN
        and all(isinstance(v, str) and len(v) <= MAX_STEP_NAME for v in value)
    )


@dataclass
class RewardValues:
    values: list[float]
    failures: dict[str, int]

    @classmethod
    def parse(cls, data: Any, asked: int) -> RewardValues:
        data = _dict(data, "values", "failures")
        values, failures = data["values"], data["failures"]
        if not (isinstance(values, list) and len(values) == asked):
            raise ProtocolError("a reward reply of the wrong length")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            raise ProtocolError("a reward reply with a value that is not a number")
        if not isinstance(failures, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in failures.items()
        ):
            raise ProtocolError("a reward reply with malformed failures")
        return cls(values, failures)

    def to_json(self) -> dict[str, Any]:
        return {"values": self.values, "failures": self.failures}


Reply = Loaded | Stepped | RewardValues
