"""Coded-action calls (and reward code) for a batch of envs, run in sandbox workers.

:class:`CallScheduler` spreads the envs over several workers
(:class:`~rlgpt_tui.sandbox.pool.Worker`; env ``i`` lives in worker ``i % workers``): one
request per worker per exchange carries
every call's start, stop, episode-memory reset and the Views of the envs asked. A worker
that dies ends its running call (``timeout``, ``crashed``, ``memory``) and the others it
held (``lost``); a fresh worker takes over with the same programs. An action that got its
worker killed :data:`MAX_KILLS` times is disabled for the run.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rlgpt_tui.envs.base import ACTION_NAMES
from rlgpt_tui.sandbox.boundary import (
    Confinement,
)
from rlgpt_tui.sandbox.pool import (
    GRACE_SECONDS,
    SandboxUnavailable,
    Worker,
    WorkerDied,
    action_program,
    default_workers,
)
from rlgpt_tui.sandbox.protocol import (
    MAX_STEPS_BEGUN,
    CallEnded,
    Load,
    Loaded,
    ProtocolError,
    RewardProgram,
    Rewards,
    RewardValues,
    Step,
    Stepped,
)
from rlgpt_tui.skills.outcomes import CallEnd, safe_text
from rlgpt_tui.skills.runtime import (
    CallRecord,
    CodedAction,
    CodedActionStats,
)

MAX_KILLS = 3  # an action that got its worker killed this often is disabled for the run
MAX_REWARD_FAILURES = 1000


@dataclass
class RewardSpec:
    """Reward code for the workers: ``def reward(prev, now)`` and its budgets per call."""

    source: str
    ticks: int = 5_000
    seconds: float = 0.05


@dataclass
class _Active:
    slot: int
    version: int | None  # the code version the call runs (edits swap code between calls)
    steps: int = 0
    begun: list[str] = field(default_factory=list)  # a composed plan's steps it began


@dataclass
class _Pending:
    """What a worker is told with its next request."""

    stop: list[int] = field(default_factory=list)
    reset: list[int] = field(default_factory=list)
    start: list[tuple[int, int]] = field(default_factory=list)
    park: list[tuple[int, int]] = field(default_factory=list)


class CallScheduler:
    """Coded-action calls (and reward code) for ``num_envs`` envs, run in sandbox workers.

    Slots are the indices of ``actions``; ``memory_keys`` (default: each action's name)
    say which ``ctx.memory`` a slot's calls share within an episode.
    """

    def __init__(
        self,
        actions: list[CodedAction],
        num_envs: int,
        seed: int = 0,
        reward: RewardSpec | None = None,
        workers: int | None = None,
        memory_keys: list[str] | None = None,
        confinement: Confinement | None = None,
    ):
        self.actions = list(actions)
        self.memory_keys: list[str | None] = (
            list(memory_keys) if memory_keys else [None] * len(self.actions)
        )
        self.num_envs = num_envs
        self.seed = seed
        self.reward = reward
        self.confinement = confinement
        count = workers if workers is not None else default_workers()
        self.workers: list[Worker | None] = [None] * max(1, min(count, num_envs))
        self.active: dict[int, _Active] = {}
        self.pending = [_Pending() for _ in self.workers]
        self.stats = {a.name: CodedActionStats() for a in self.actions}
        self.kills: Counter = Counter()  # slot -> workers it got killed
        self.disabled: dict[int, str] = {}
        self.reward_failures: Counter = Counter()
        self.reward_disabled = False
        self.restarts = 0
        if self.actions or reward is not None:
            self.workers = [Worker(confinement) for _ in self.workers]  # they boot together
            for w in range(len(self.workers)):
                self._load(w)

    # -- workers -----------------------------------------------------------------------------
    def _worker(self, w: int) -> Worker:
        """Worker ``w``, started afresh (with every program loaded) if it is not alive."""
        worker = self.workers[w]
        if worker is None or not worker.alive:
            if worker is not None:
                worker.kill()
                self._forget_pending(w)
            worker = Worker(self.confinement)
            self.workers[w] = worker
            self._load(w)
        return worker

    def _load(self, w: int) -> None:
        """Load every program into worker ``w`` (calls queued for it since it was started
        are kept: they go with its first request)."""
        worker = self.workers[w]
        assert worker is not None  # started before it is loaded
        specs = [
            action_program(slot, a, False, self.memory_keys[slot])
            for slot, a in enumerate(self.actions)
        ]
        reward = None
        if self.reward is not None:
            r = self.reward
            reward = RewardProgram(r.source, r.ticks, r.seconds)
        payload = Load(specs, reward, seed=self.seed)
        try:
            reply = Loaded.parse(worker.request(payload, 30.0 + 5.0 * len(specs)))
        except (WorkerDied, ProtocolError) as died:
            worker.kill()
            detail = died.detail if isinstance(died, WorkerDied) else str(died)
            raise SandboxUnavailable(f"a sandbox worker died loading the code ({detail})") from None
        for slot, error in reply.errors.items():
            self.disabled[slot] = f"it no longer compiles: {safe_text(error, 200)}"

    def _of(self, env: int) -> int:
        return env % len(self.workers)

    def close(self) -> None:
        """Kill every worker (calls in progress are dropped)."""
        for w, worker in enumerate(self.workers):
            if worker is not None:
                worker.kill()
                self.workers[w] = None

    def replace(self, name: str, action: CodedAction) -> None:
        """Swap the code of coded action ``name`` (validated) in every worker; calls that
        start afterwards run the new code, calls in progress finish with the old."""
        slot = next((i for i, a in enumerate(self.actions) if a.name == name), None)
        if slot is None:
            raise KeyError(f"no coded action named {name!r} in this action table")
        self.actions[slot] = action
        self.disabled.pop(slot, None)
        self.kills.pop(slot, None)
        for w, worker in enumerate(self.workers):
            if worker is None or not worker.alive:
                continue
            spec = action_program(slot, action, False, self.memory_keys[slot])
            try:
                worker.request(Load([spec]), 30.0)
            except WorkerDied:
                self.workers[w] = None
                self._forget_pending(w)

    # -- calls ---------------------------------------------------------------------------------
    def start(self, envs: list[int], slots: list[int]) -> None:
        """Begin calls (of action ``slots[k]`` in env ``envs[k]``); ask them next."""
        for env, slot in zip(envs, slots, strict=True):
            if env in self.active:
                raise RuntimeError(f"env {env} started a call while one was in progress")
            self.active[env] = _Active(slot, self.actions[slot].version)
            self.pending[self._of(env)].start.append((env, slot))

    def stop(self, envs: list[int], end: CallEnd, park: bool = False) -> list[CallRecord]:
        """End the calls in progress in ``envs`` from outside; their records. ``park``: the
        workers keep them, and the next call of the same action in that env resumes one
        where it yielded (:class:`~rlgpt_tui.sandbox.protocol.Step`)."""
        records = []
        for env in envs:
            active = self.active.pop(env, None)
            if active is not None:
                pending = self.pending[self._of(env)]
                if park:
                    pending.park.append((env, active.slot))
                else:
                    pending.stop.append(env)
                records.append(self._record(env, active, end, ""))
        return records

    def reset_memory(self, envs: list[int]) -> None:
        """A new episode began in ``envs``: their ``ctx.memory`` starts empty."""
        for env in envs:
            self.pending[self._of(env)].reset.append(env)

    def ask(
        self, envs: list[int], rows: np.ndarray, light: np.ndarray
    ) -> tuple[np.ndarray, list[CallRecord]]:
        """Each env's running call picks its next primitive from its View (encoded).

        Returns the actions (-1 where the call ended) and the records of ended calls.
        """
        actions = np.full(len(envs), -1, dtype=np.int64)
        ended: list[CallRecord] = []
        by_worker: dict[int, list[int]] = {}
        for k, env in enumerate(envs):
            active = self.active[env]
            if active.slot in self.disabled:
                del self.active[env]
                reason = self.disabled[active.slot]
                ended.append(self._record(env, active, CallEnd.DISABLED, reason))
                self.pending[self._of(env)].stop.append(env)
                continue
            by_worker.setdefault(self._of(env), []).append(k)
        sent: list[tuple[int, list[int], Worker]] = []
        for w, positions in by_worker.items():
            worker = self._worker(w)
            pending, self.pending[w] = self.pending[w], _Pending()
            asked = [envs[k] for k in positions]
            payload = Step(
                pending.stop,
                pending.reset,
                pending.start,
                asked,
                rows[positions],
                light[positions],
                pending.park,
            )
            try:
                worker.send(payload, time.monotonic() + 10.0)
            except WorkerDied as died:
                worker.kill()
                ended.extend(self._died(w, asked, died))
                continue
            sent.append((w, positions, worker))
        for w, positions, worker in sent:
            asked = [envs[k] for k in positions]
            try:
                reply = self._reply(worker, asked)
            except WorkerDied as died:
                worker.kill()
                ended.extend(self._died(w, asked, died))
                continue
            ends = {e.env: e for e in reply.ends}
            for env, steps in reply.begun:
                if env in self.active:
                    self.active[env].begun.extend(steps[:MAX_STEPS_BEGUN])
            for k, env, action in zip(positions, asked, reply.next, strict=True):
                active = self.active[env]
                if action >= 0:
                    active.steps += 1
                    actions[k] = action
                    continue
                end = ends.get(env) or CallEnded(env, CallEnd.LOST.value, "no reason given")
                del self.active[env]
                ended.append(self._record(env, active, _end_of(end.reason), end.detail))
        return actions, ended

    def _reply(self, worker: Worker, asked: list[int]) -> Stepped:
        slots = {self.active[e].slot for e in asked}
        call_seconds = max(self.actions[s].limits.seconds for s in slots) + GRACE_SECONDS
        reply = worker.receive(time.monotonic() + 10.0 + call_seconds * len(asked), call_seconds)
        try:
            return Stepped.parse(reply, len(asked), len(ACTION_NAMES))
        except ProtocolError:
            raise WorkerDied(CallEnd.CRASHED, None, "its reply broke the protocol") from None

    def _died(self, w: int, asked: list[int], died: WorkerDied) -> list[CallRecord]:
        """The worker ``w`` is dead: the asked calls end (the one to blame with the
        reason, the others ``lost``); the next request starts a fresh worker."""
        self.restarts += 1
        self.workers[w] = None
        records = []
        for env in asked:
            active = self.active.pop(env, None)
            if active is None:
                continue
            if env == died.env or (died.env is None and len(asked) == 1):
                self.kills[active.slot] += 1
                if self.kills[active.slot] >= MAX_KILLS:
                    self.disabled[active.slot] = (
                        f"its calls got the worker killed {self.kills[active.slot]} times "
                        f"(last: {died.end.value})"
                    )
                records.append(self._record(env, active, died.end, died.detail))
            else:
                records.append(self._record(env, active, CallEnd.LOST, "another call overran"))
        self._forget_pending(w)
        return records

    def _forget_pending(self, w: int) -> None:
        """Worker ``w`` died with its calls' generators and memories: what it was still to
        be told is void; its other calls end ``lost`` when next asked."""
        self.pending[w] = _Pending()

    def _record(self, env: int, active: _Active, end: CallEnd, detail: str) -> CallRecord:
        name = self.actions[active.slot].name
        record = CallRecord(
            env, name, active.version, active.steps, end, safe_text(detail), tuple(active.begun)
        )
        self.stats[name].record(record)
        return record

    # -- reward code ---------------------------------------------------------------------------
    def rewards(
        self,
        envs: list[int],
        prev: tuple[np.ndarray, np.ndarray],
        now: tuple[np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """Shaping rewards of the reward code for ``envs`` (0 where it failed)."""
        values = np.zeros(len(envs))
        if self.reward is None or self.reward_disabled or not envs:
            return values
        by_worker: dict[int, list[int]] = {}
        for k, env in enumerate(envs):
            by_worker.setdefault(self._of(env), []).append(k)
        for w, positions in by_worker.items():
            worker = self._worker(w)
            payload = Rewards(
                [envs[k] for k in positions],
                (prev[0][positions], prev[1][positions]),
                (now[0][positions], now[1][positions]),
            )
            call_seconds = self.reward.seconds + GRACE_SECONDS
            try:
                data = worker.request(payload, 10.0 + call_seconds * len(positions), call_seconds)
                reply = RewardValues.parse(data, len(positions))
                got = np.asarray(reply.values, dtype=np.float64)
                values[positions] = np.nan_to_num(got).clip(-10, 10)
                for message, count in reply.failures.items():
                    self.reward_failures[safe_text(message, 120)] += count
            except (WorkerDied, ProtocolError) as died:
                worker.kill()
                self.workers[w] = None
                self._forget_pending(w)
                detail = died.detail if isinstance(died, WorkerDied) else "bad reply"
                self.reward_failures[f"{CallEnd.CRASHED.value}: {safe_text(detail, 100)}"] += 1
        if sum(self.reward_failures.values()) >= MAX_REWARD_FAILURES:
            self.reward_disabled = True
        return values


def _end_of(reason: Any) -> CallEnd:
    try:
        return CallEnd(reason)
    except ValueError:
        return CallEnd.CRASHED
