"""Coded actions: the app's record of them, and the budgeted call that runs one in a worker.

:class:`CodedAction` is what the app holds (source, budgets, code version); it is validated
in a sandbox worker and never runs in the app's process. :class:`CodedCall` is one call of
the compiled code, inside a worker (:mod:`rlgpt_tui.sandbox.serving`).
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rlgpt_tui import ASSETS_DIR, read_asset
from rlgpt_tui.envs.base import ACTION_NAMES, View
from rlgpt_tui.skills.api import MAX_STEPS_BEGUN, EpisodeMemory, SkillContext
from rlgpt_tui.skills.checker import BudgetExceeded, CodeValidationError, budget, describe_error
from rlgpt_tui.skills.outcomes import CallEnd, safe_text
from rlgpt_tui.skills.policy import PolicySkill

RECORDED_VIEWS = ASSETS_DIR / "views" / "recorded_views.json"
DRY_RUN_STEPS = 24
MAX_SOURCE_CHARS = 60_000
MAX_NAME_CHARS = 64


@dataclass(frozen=True)
class CodedActionLimits:
    """Budgets of one call of a coded action."""

    max_steps: int = 64  # primitive actions per call
    # CPU time spent inside the code per call (its thread's, helpers included): time the
    # worker waits for a busy machine's cores does not count, so a figure does not depend on
    # what else the machine runs
    seconds: float = 0.5
    # loop iterations and function calls of the code between two actions (the work of the
    # skill API it calls, e.g. a BFS over the View, is trusted code and not counted)
    ticks_per_step: int = 20_000


@dataclass
class CodedAction:
    """A coded action as the app holds it: source and budgets, validated, never run here.

    Its code runs only in sandbox workers (:mod:`rlgpt_tui.sandbox`). ``version`` is the
    store's code version id when known, so that every recorded call names the code that ran.
    Sources from an LLM or a person become one through
    :func:`rlgpt_tui.skills.validation.validate` (a :class:`ValidatedAction`).
    """

    name: str
    source: str
    description: str = ""
    limits: CodedActionLimits = field(default_factory=CodedActionLimits)
    version: int | None = None
    # the library's trained policies its ``ctx.skill("name")`` calls run (data, not code)
    policies: tuple[PolicySkill, ...] = ()


def check_name(name: str) -> None:
    """A coded action's name must be a short ASCII identifier (it becomes a file name)."""
    if not (isinstance(name, str) and name.isidentifier() and name.isascii()):
        raise CodeValidationError(
            f"coded action name {safe_text(repr(name), 80)} must be a Python identifier "
            "(ASCII letters, digits, underscores)"
        )
    if len(name) > MAX_NAME_CHARS:
        raise CodeValidationError(
            f"coded action name {name[:20]!r}... has {len(name)} characters: use at most "
            f"{MAX_NAME_CHARS}"
        )


def check_source(label: str, source: str) -> None:
    """Bounds checked in the app before any source goes to a worker."""
    if not isinstance(source, str):
        raise CodeValidationError(f"{label}: the code must be text")
    if len(source) > MAX_SOURCE_CHARS:
        raise CodeValidationError(
            f"{label}: {len(source):,} characters of code exceed {MAX_SOURCE_CHARS:,}; "
            "write a shorter routine"
        )
    if "\x00" in source:
        raise CodeValidationError(f"{label}: the code contains a NUL character; remove it")


class CodedCall:
    """One running call of a coded action, inside a sandbox worker. Feed Views, get
    primitive action indices; ``end`` says why it ended."""

    def __init__(
        self,
        act: Any,
        limits: CodedActionLimits,
        memory: EpisodeMemory,
        rng: random.Random,
        policies: dict[str, PolicySkill] | None = None,
    ):
        self.act = act
        self.policies = policies
        self.limits = limits
        self.memory = memory
        self.rng = rng
        self.ctx: SkillContext | None = None
        self.steps = 0
        self.seconds = 0.0
        self.end: CallEnd | None = None
        self.detail = ""
        self._generator: Any = None

    def describe_end(self) -> str:
        """``reason`` or ``reason: detail``."""
        if self.end is None:
            return "unfinished"
        return f"{self.end.value}: {self.detail}" if self.detail else self.end.value

    def next_action(self, view: View) -> int | None:
        """The next primitive action given the current View, or None when the call ended."""
        if self.end is not None:
            return None
        limits = self.limits
        if self.steps >= limits.max_steps:
            self._end(CallEnd.STEP_BUDGET)
            return None
        started = time.thread_time()
        try:
            with budget(limits.ticks_per_step, max(0.0, limits.seconds - self.seconds)):
                if self.ctx is None:
                    memory = self.memory
                    self.ctx = SkillContext(
                        view, memory.public, self.rng, memory.seen, self.policies
                    )
                    self._generator = self.act(self.ctx)
                else:
                    self.ctx.view = view
                value = next(self._generator)
        except StopIteration:
            self._end(CallEnd.RETURNED)
            return None
        except BudgetExceeded as error:
            end = CallEnd.TIMEOUT if error.timed_out else CallEnd.LOOP_BUDGET
            self._end(end, str(error))
            return None
        except MemoryError:
            self._end(CallEnd.MEMORY, "MemoryError")
            return None
        except BaseException as error:  # noqa: BLE001 - untrusted code: every failure contained
            self._end(CallEnd.ERROR, describe_error(error))
            return None
        finally:
            self.seconds += time.thread_time() - started
        if self.seconds > limits.seconds:
            self._end(CallEnd.TIMEOUT, f"time budget of {limits.seconds} s exceeded")
            return None
        index = _action_index(value)
        if index is None:
            self._end(CallEnd.INVALID, f"yielded {_short_repr(value)}, not an action")
            return None
        self.steps += 1
        return index

    def close(self) -> None:
        """Drop the call (its generator is closed under a small budget)."""
        if self.end is None:
            self._end(CallEnd.ABANDONED)

    def _end(self, reason: CallEnd, detail: str = "") -> None:
        self.end = reason
        notes = self.ctx.notes if self.ctx is not None else ()
        self.detail = safe_text("; ".join(filter(None, [detail, *notes])))  # ctx.log's notes
        generator, self._generator = self._generator, None
        if reason is not CallEnd.RETURNED and generator is not None:
            # a `finally:` in the code runs now: a small budget, its failures swallowed
            with contextlib.suppress(BaseException), budget(1_000, 0.05):
                generator.close()


def _short_repr(value: Any) -> str:
    if isinstance(value, str):
        return safe_text(repr(value[:61]), 60)  # sliced first: it may be huge
    if isinstance(value, int | float | bool | type(None)):
        try:
            return safe_text(repr(value), 60)
        except BaseException:  # noqa: BLE001 - e.g. an int too large to print
            pass
    return f"a {type(value).__name__}"


def _action_index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value < len(ACTION_NAMES):
        return int(value)
    if isinstance(value, str) and len(value) < 40:
        name = value.lower()
        for candidate in (name, f"move_{name}"):
            if candidate in ACTION_NAMES:
                return ACTION_NAMES.index(candidate)
    return None


@dataclass(frozen=True)
class CallRecord:
    """One ended call, as the app records it."""

    env: int
    action: str
    version: int | None
    steps: int
    end: CallEnd
    detail: str = ""
    begun: tuple[str, ...] = ()  # a composed plan's steps that this call began


@dataclass
class CodedActionStats:
    """Usage of one coded action: calls, primitive steps, why calls ended, code versions."""

    calls: int = 0
    steps: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    versions: Counter = field(default_factory=Counter)  # code version -> calls
    last_failure: str = ""
    notes: Counter = field(default_factory=Counter)  # a returned call's ctx.log notes -> calls
    begun: Counter = field(default_factory=Counter)  # a composed plan's step -> calls that ran it

    @property
    def mean_length(self) -> float:
        return self.steps / self.calls if self.calls else 0.0

    def record(self, record: CallRecord) -> None:
        self.calls += 1
        self.steps += record.steps
        self.end_reasons[record.end.value] += 1
        self.versions[record.version] += 1
        if record.end.failure and record.detail:
            self.last_failure = f"{record.end.value}: {record.detail}"
        elif record.detail and (record.detail in self.notes or len(self.notes) < MAX_NOTES):
            self.notes[record.detail] += 1
        for step in record.begun:  # bounded: untrusted code may name any steps
            if step in self.begun or len(self.begun) < MAX_STEPS_BEGUN:
                self.begun[step] += 1

    def since(self, before: CodedActionStats) -> CodedActionStats:
        """The usage added after ``before`` (a copy of these stats taken earlier)."""
        return CodedActionStats(
            calls=self.calls - before.calls,
            steps=self.steps - before.steps,
            end_reasons=self.end_reasons - before.end_reasons,
            versions=self.versions - before.versions,
            notes=self.notes - before.notes,
            begun=self.begun - before.begun,
        )

    def totals(self) -> dict[str, Any]:
        """Calls, steps, why calls ended (most frequent first) and, for a composed plan,
        each step's calls."""
        return {
            "calls": self.calls,
            "steps": self.steps,
            "end_reasons": dict(self.end_reasons.most_common()),
        } | ({"begun": dict(self.begun)} if self.begun else {})

    def as_dict(self) -> dict[str, Any]:
        """:meth:`totals`, with the mean call length, code versions, last failure and the
        three most frequent notes."""
        return self.totals() | {
            "mean_length": round(self.mean_length, 2),
            "versions": {str(k): v for k, v in self.versions.items()},
            "last_failure": self.last_failure,
            "notes": dict(self.notes.most_common(3)),
        }


#: the distinct notes a coded action's usage counts (a note naming positions is new each call)
MAX_NOTES = 20


@cache
def _recorded_view_dicts() -> tuple[str, ...]:
    return tuple(json.dumps(v) for v in json.loads(read_asset(RECORDED_VIEWS)))


def recorded_views() -> list[View]:
    """Views recorded from real Craftax-Classic episodes, used for dry runs."""
    return [View.from_dict(json.loads(v)) for v in _recorded_view_dicts()]


__all__ = [
    "CallRecord",
    "CodeValidationError",
    "CodedAction",
    "CodedActionLimits",
    "CodedActionStats",
    "CodedCall",
    "recorded_views",
]
