"""Coded actions: validated programs that run as budgeted generators over Views."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.envs.base import ACTION_NAMES, View, World
from rlgpt_tui.skills.api import PROVIDED_NAMES, SkillContext
from rlgpt_tui.skills.sandbox import (
    BudgetExceeded,
    CodeValidationError,
    CompiledProgram,
    budget,
    compile_untrusted,
    describe_error,
)

RECORDED_VIEWS = ASSETS_DIR / "views" / "recorded_views.json"
DRY_RUN_STEPS = 24


@dataclass(frozen=True)
class CodedActionLimits:
    """Budgets of one call of a coded action."""

    max_steps: int = 64  # primitive actions per call
    seconds: float = 0.5  # wall-clock spent inside the code per call
    # loop iterations and function calls of the code between two actions (the work of the
    # skill API it calls, e.g. a BFS over the View, is trusted code and not counted)
    ticks_per_step: int = 20_000


@dataclass
class CodedAction:
    """A validated coded action: ``act(ctx)`` from ``source``, with its budgets."""

    name: str
    source: str
    description: str = ""
    limits: CodedActionLimits = field(default_factory=CodedActionLimits)
    program: CompiledProgram | None = None
    version: int | None = None  # the store's code version id (which code ran)

    @classmethod
    def from_source(
        cls,
        name: str,
        source: str,
        description: str = "",
        limits: CodedActionLimits | None = None,
        dry_run: bool = True,
        version: int | None = None,
    ) -> CodedAction:
        """Validate (parse, allow-list, dry run on recorded Views) and build a coded action."""
        if not name.isidentifier():
            raise CodeValidationError(f"coded action name {name!r} must be a Python identifier")
        program = compile_untrusted(
            source, name, PROVIDED_NAMES, "act", must_be_generator=True, arity=1
        )
        action = cls(name, source, description, limits or CodedActionLimits(), program, version)
        if dry_run:
            action.dry_run(recorded_views())
        return action

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> CodedAction:
        """Load a coded action from a ``.py`` file; its name is the file's stem."""
        path = Path(path)
        try:
            source = path.read_text()
        except OSError as error:
            raise CodeValidationError(
                f"cannot read coded action {str(path)!r}: {error.strerror}"
            ) from None
        doc = source.split('"""')[1].strip() if source.lstrip().startswith('"""') else ""
        return cls.from_source(path.stem, source, description=doc, **kwargs)

    def start(self, view: View, memory: dict, rng: random.Random) -> CodedCall:
        """Begin one call of this action from ``view``."""
        return CodedCall(self, SkillContext(view, memory, rng))

    def dry_run(self, views: list[View], steps: int = DRY_RUN_STEPS) -> None:
        """Run on recorded Views (the same View fed back each step); raise on any failure."""
        for index, view in enumerate(views):
            call = self.start(view, {}, random.Random(index))
            for _ in range(steps):
                if call.next_action(view) is None:
                    break
            if call.end_reason and call.end_reason.split(":")[0] in CodedCall.FAILURES:
                raise CodeValidationError(
                    f"coded action {self.name!r} failed its dry run on recorded view {index}: "
                    f"{call.end_reason}; fix the code"
                )


class CodedCall:
    """One running call of a coded action. Feed Views, get primitive action indices."""

    FAILURES = frozenset({"error", "time budget", "loop budget", "invalid action"})

    def __init__(self, action: CodedAction, ctx: SkillContext):
        self.action = action
        self.ctx = ctx
        self.steps = 0
        self.seconds = 0.0
        self.end_reason: str | None = None
        self._generator = action.program.function("act")(ctx)
        self._started = False

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    def next_action(self, view: View) -> int | None:
        """The next primitive action given the current View, or None when the call ended."""
        if self.end_reason is not None:
            return None
        limits = self.action.limits
        if self.steps >= limits.max_steps:
            return self._end("step budget")
        self.ctx.view = view
        started = time.perf_counter()
        try:
            with budget(limits.ticks_per_step, max(0.0, limits.seconds - self.seconds)):
                value = next(self._generator)
        except StopIteration:
            return self._end("returned")
        except BudgetExceeded as error:
            reason = "time budget" if "time" in str(error) else "loop budget"
            return self._end(reason)
        except Exception as error:  # noqa: BLE001 - untrusted code: every failure is contained
            return self._end(f"error: {describe_error(error)}")
        finally:
            self.seconds += time.perf_counter() - started
        if self.seconds > limits.seconds:
            return self._end("time budget")
        index = _action_index(value)
        if index is None:
            return self._end(f"invalid action: {value!r:.60}")
        self.steps += 1
        return index

    def stop(self, reason: str) -> None:
        """End the call from outside (e.g. the episode ended)."""
        if self.end_reason is None:
            self._end(reason)

    def _end(self, reason: str) -> None:
        self.end_reason = reason
        if reason != "returned":
            with contextlib.suppress(BaseException):  # a bad generator must not escape
                self._generator.close()


def _action_index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value < len(ACTION_NAMES):
        return int(value)
    if isinstance(value, str):
        name = value.lower()
        for candidate in (name, f"move_{name}"):
            if candidate in ACTION_NAMES:
                return ACTION_NAMES.index(candidate)
    return None


def run_one_call_each(
    world: World, action: CodedAction, seed: int = 0
) -> tuple[list[View], list[View], list[CodedCall]]:
    """Run one call of ``action`` in every env of ``world`` (from its current state).

    Envs whose call ended wait while the others go on. Returns the Views before and after,
    and the finished calls (steps taken, end reasons).
    """
    before = world.views()
    calls = [action.start(v, {}, random.Random(seed + i)) for i, v in enumerate(before)]
    active = np.ones(world.num_envs, dtype=bool)
    while active.any():
        views = world.views()
        actions = np.zeros(world.num_envs, dtype=np.int32)
        for i in np.flatnonzero(active):
            step = calls[i].next_action(views[i])
            if step is None:
                active[i] = False
            else:
                actions[i] = step
        if active.any():
            world.step(actions, active)
    return before, world.views(), calls


@dataclass
class CodedActionStats:
    """Usage of one coded action: calls, primitive steps, why calls ended, and calls per
    code version (which code ran)."""

    calls: int = 0
    steps: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    versions: Counter = field(default_factory=Counter)

    @property
    def mean_length(self) -> float:
        return self.steps / self.calls if self.calls else 0.0

    def record(self, call: CodedCall) -> None:
        self.calls += 1
        self.steps += call.steps
        self.versions[call.action.version] += 1
        reason = call.end_reason or "unfinished"
        self.end_reasons[reason if len(reason) <= 80 else reason[:77] + "..."] += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "steps": self.steps,
            "mean_length": round(self.mean_length, 2),
            "end_reasons": dict(self.end_reasons.most_common(8)),
            "versions": dict(self.versions),
        }


@cache
def _recorded_view_dicts() -> tuple[str, ...]:
    return tuple(json.dumps(v) for v in json.loads(RECORDED_VIEWS.read_text()))


def recorded_views() -> list[View]:
    """Views recorded from real Craftax-Classic episodes, used for dry runs."""
    return [View.from_dict(json.loads(v)) for v in _recorded_view_dicts()]


__all__ = [
    "CodeValidationError",
    "CodedAction",
    "CodedActionLimits",
    "CodedActionStats",
    "CodedCall",
    "recorded_views",
    "run_one_call_each",
]
