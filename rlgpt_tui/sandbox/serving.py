"""What a sandbox worker does with each request (runs inside the confined worker only).

The worker holds the compiled coded actions (by slot), the reward code, every env's call in
progress, and every env's ``ctx.memory`` for the episode (per action name, or per shared
memory key). The app never runs any of this in its own process.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.envs.base import View, decode_views
from rlgpt_tui.sandbox.protocol import (
    SLOT,
    ActionProgram,
    CallEnded,
    Load,
    Loaded,
    Reply,
    Request,
    RewardProgram,
    Rewards,
    RewardValues,
    Step,
    Stepped,
)
from rlgpt_tui.skills.api import PROVIDED_NAMES, EpisodeMemory, SkillContext
from rlgpt_tui.skills.checker import (
    BudgetExceeded,
    CodeValidationError,
    budget,
    compile_untrusted,
    describe_error,
)
from rlgpt_tui.skills.outcomes import CallEnd, safe_text
from rlgpt_tui.skills.policy import PolicySkill, policy_table
from rlgpt_tui.skills.runtime import (
    DRY_RUN_STEPS,
    CodedActionLimits,
    CodedCall,
    recorded_views,
)

MAX_ABS_REWARD = 10.0
NO_REWARD = "no reward code is loaded in this worker"  # a Rewards request's failure then


@dataclass
class _Loaded:
    name: str
    act: Callable[[SkillContext], Any]
    limits: CodedActionLimits
    memory_key: str
    policies: dict[str, PolicySkill] = field(default_factory=dict)  # what its ctx.skill runs


@dataclass
class _Reward:
    function: Callable[[View, View], Any]
    ticks: int
    seconds: float


class WorkerState:
    """Programs, calls in progress and episode memories of one worker."""

    def __init__(self, slot: Any, clock: Callable[[], float]):
        self.slot = slot
        self.clock = clock
        self.programs: dict[int, _Loaded] = {}
        self.reward: _Reward | None = None
        self.calls: dict[int, CodedCall] = {}
        self.parked: dict[tuple[int, int], CodedCall] = {}  # (env, slot) -> a parked call
        self.memories: dict[int, dict[str, EpisodeMemory]] = {}
        self.rngs: dict[int, random.Random] = {}
        self.seed = 0

    def handle(self, request: Request) -> Reply:
        match request:
            case Load():
                return self._load(request)
            case Step():
                return self._step(request)
            case Rewards():
                return self._rewards(request)
        raise TypeError(f"unknown request {type(request).__name__}")

    # -- load ------------------------------------------------------------------------------
    def _mark(self, env: int) -> None:
        SLOT.pack_into(self.slot, 0, float(env), self.clock(), time.process_time())

    def _load(self, request: Load) -> Loaded:
        if request.seed is not None:
            self.seed = request.seed
        answers: dict[int, str | None] = {}
        for spec in request.actions:
            self._mark(-2)  # loading: the app's request deadline applies
            try:
                loaded = self._compile_action(spec)
            except CodeValidationError as error:
                answers[spec.slot] = safe_text(str(error), 2000)
                continue
            except MemoryError:
                answers[spec.slot] = f"coded action {spec.name!r} ran out of memory"
                continue
            answers[spec.slot] = None
            self.programs[spec.slot] = loaded
            for key in [k for k in self.parked if k[1] == spec.slot]:  # new code: no resume
                self._close(key[0], self.parked.pop(key))
        reward_answer = None
        if request.reward is not None:
            try:
                self.reward = self._compile_reward(request.reward)
            except CodeValidationError as error:
                reward_answer = safe_text(str(error), 2000)
            except MemoryError:
                reward_answer = "reward code ran out of memory"
        self._mark(-1)
        return Loaded(answers, reward_answer)

    def _compile_action(self, spec: ActionProgram) -> _Loaded:
        program = compile_untrusted(
            spec.source, spec.name, PROVIDED_NAMES, "act", must_be_generator=True, arity=1
        )
        loaded = _Loaded(
            spec.name,
            program.function("act"),
            spec.limits,
            spec.memory_key or spec.name,
            policy_table(spec.policies),
        )
        if spec.dry_run:
            self._dry_run(loaded)
        return loaded

    def _dry_run(self, loaded: _Loaded) -> None:
        """Run on recorded Views; each step gets a fresh copy of the View, as in a world."""
        for index, view in enumerate(recorded_views()):
            memory = EpisodeMemory()
            call = CodedCall(
                loaded.act, loaded.limits, memory, random.Random(index), loaded.policies
            )
            self._mark(index)  # the app watches each dry-run call's wall clock too
            for _ in range(DRY_RUN_STEPS):
                if call.next_action(View.from_dict(view.to_dict())) is None:
                    break
            call.close()
            self._mark(-2)
            if call.end is not None and call.end.failure:
                raise CodeValidationError(
                    f"coded action {loaded.name!r} failed its dry run on recorded view "
                    f"{index}: {call.describe_end()}; fix the code"
                )

    def _compile_reward(self, spec: RewardProgram) -> _Reward:
        program = compile_untrusted(spec.source, "reward", {}, "reward", arity=2)
        reward = _Reward(program.function("reward"), spec.ticks, spec.seconds)
        if spec.dry_run:
            views = recorded_views()
            for index, (prev, now) in enumerate(zip(views, views[1:], strict=False)):
                self._mark(index)
                value, failure = self._reward_once(reward, prev, now)
                self._mark(-2)
                if failure is not None:
                    raise CodeValidationError(f"reward code failed its dry run: {failure}; fix it")
        return reward

    # -- coded-action calls ------------------------------------------------------------------
    def _close(self, env: int, call: CodedCall) -> None:
        self._mark(env)  # its `finally:` runs now, under the same watch
        call.close()
        self._mark(-1)

    def _step(self, request: Step) -> Stepped:
        for env in request.stop:
            call = self.calls.pop(env, None)
            if call is not None:
                self._close(env, call)
        for env, slot in request.park:
            call = self.calls.pop(env, None)
            if call is not None:
                earlier = self.parked.pop((env, slot), None)
                if earlier is not None:
                    self._close(env, earlier)
                self.parked[(env, slot)] = call
        for env in request.reset:
            self.memories.pop(env, None)
            for key in [k for k in self.parked if k[0] == env]:
                self._close(env, self.parked.pop(key))
        for env, slot in request.start:
            loaded = self.programs[slot]
            memories = self.memories.setdefault(env, {})
            memory = memories.setdefault(loaded.memory_key, EpisodeMemory())
            rng = self.rngs.get(env)
            if rng is None:
                rng = self.rngs[env] = random.Random(self.seed * 100_003 + env)
            old = self.calls.pop(env, None)
            if old is not None:
                self._close(env, old)
            parked = self.parked.pop((env, slot), None)  # resumed with the budget it had left
            self.calls[env] = parked or CodedCall(
                loaded.act, loaded.limits, memory, rng, loaded.policies
            )
        asked = request.ask
        views = decode_views(request.rows, request.light) if asked else []
        actions: list[int] = []
        ends: list[CallEnded] = []
        begun: list[tuple[int, list[str]]] = []
        for env, view in zip(asked, views, strict=True):
            call = self.calls.get(env)
            if call is None:
                actions.append(-1)
                lost = "no call in progress in this worker"
                ends.append(CallEnded(env, CallEnd.LOST.value, lost))
                continue
            self._mark(env)
            before = len(call.ctx.begun) if call.ctx is not None else 0
            action = call.next_action(view)
            self._mark(-1)
            if call.ctx is not None and len(call.ctx.begun) > before:
                begun.append((env, list(call.ctx.begun[before:])))
            if action is None:
                assert call.end is not None  # next_action returns None once the call ended
                actions.append(-1)
                ends.append(CallEnded(env, call.end.value, call.detail))
                del self.calls[env]
                if call.end is CallEnd.MEMORY:  # what it grew this episode goes too
                    self.memories.pop(env, None)
            else:
                actions.append(action)
        return Stepped(actions, ends, begun)

    # -- reward code -------------------------------------------------------------------------
    def _rewards(self, request: Rewards) -> RewardValues:
        prev = decode_views(*request.prev)
        now = decode_views(*request.now)
        values: list[float] = []
        failures: Counter = Counter()
        reward = self.reward
        if reward is None:  # its code did not load here: every env's reward fails, by name
            return RewardValues([0.0] * len(request.envs), {NO_REWARD: len(request.envs)})
        for env, before, after in zip(request.envs, prev, now, strict=True):
            self._mark(env)
            value, failure = self._reward_once(reward, before, after)
            self._mark(-1)
            if failure is not None:
                failures[failure] += 1
            values.append(value)
        return RewardValues(values, dict(failures))

    @staticmethod
    def _reward_once(reward: _Reward, prev: View, now: View) -> tuple[float, str | None]:
        try:
            with budget(reward.ticks, reward.seconds):
                returned = reward.function(prev, now)
            # a number, never a text: float() of a text of a million digits would parse it
            # outside the call's budget
            if not isinstance(returned, int | float):
                raise TypeError(f"reward returned a {type(returned).__name__}, not a number")
            value = float(returned)
            if not math.isfinite(value):
                raise ValueError(f"reward is {value}")
        except BudgetExceeded as error:
            return 0.0, safe_text(str(error), 120)
        except MemoryError:
            return 0.0, "MemoryError"
        except Exception as error:  # noqa: BLE001 - untrusted code: contained
            return 0.0, safe_text(describe_error(error), 120)
        return max(-MAX_ABS_REWARD, min(MAX_ABS_REWARD, value)), None
