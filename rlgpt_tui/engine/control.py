"""The control plane of a run: pause, stop, and the queues of human edits.

One ``ControlPlane`` belongs to a run (a session, every stage of a chain) and is held once
by whoever drives it (the app, a test). Any thread may pause, stop or queue an edit; the
engine takes them at its safe points. Every edit ends in exactly one recorded outcome:

- ``applied`` (where: before a plan, before a sub-action's code, between PPO rollouts),
- ``refused`` (why: invalid code, an RL configuration that does not validate...),
- ``discarded`` (why: replaced by a newer edit, or the session ended first).

Edits are checked when they are made where that can be known at once (code is parsed,
allow-listed and dry-run; RL-configuration changes are validated against the sub-action's
current configuration), so a bad edit is refused before it is queued.
It never imports Textual.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from pydantic import ValidationError

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.rl.config import FLAT_FIELDS, RLConfig, group_flat_fields
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.validation import ValidatedAction, validate

EventSink = Callable[[ev.Event], Any]


class StopRequested(Exception):
    """Raised at a safe point after stop() was called."""


class EditRefused(ValueError):
    """An edit that cannot be used; the message is one line saying why."""


@dataclass
class Edit:
    """One human edit waiting for a safe point (see the subclasses for what it holds)."""

    id: int
    target: str  # the sub-action ('' for the plan)
    origin: str  # app, file, api
    what: ClassVar[str] = ""  # as recorded in edit events: plan, code, rl_config

    @property
    def summary(self) -> str:
        raise NotImplementedError

    @property
    def content(self) -> str:
        """The edit as text (recorded, so that a resumed session can carry it)."""
        raise NotImplementedError


@dataclass
class PlanEdit(Edit):
    """Use this plan instead of asking the slow agent."""

    plan: Plan = field(kw_only=True)
    what: ClassVar[str] = "plan"

    @property
    def summary(self) -> str:
        return self.plan.summary()

    @property
    def content(self) -> str:
        return self.plan.model_dump_json()


@dataclass
class CodeEdit(Edit):
    """Use this code (validated when the edit was made) for the sub-action ``target``."""

    action: ValidatedAction = field(kw_only=True)
    what: ClassVar[str] = "code"

    @property
    def code(self) -> str:
        return self.action.source

    @property
    def summary(self) -> str:
        return f"{len(self.code.splitlines())} lines"

    @property
    def content(self) -> str:
        return self.code


@dataclass
class RLConfigEdit(Edit):
    """Override these RLConfig fields of ``target``'s next training run."""

    changes: dict[str, Any] = field(kw_only=True)
    what: ClassVar[str] = "rl_config"

    @property
    def summary(self) -> str:
        return json.dumps(self.changes)

    @property
    def content(self) -> str:
        return json.dumps(self.changes)


E = TypeVar("E", bound=Edit)


def check_code(subaction: str, code: str, library: SkillShelf | None = None) -> ValidatedAction:
    """Validate code for ``subaction`` as agent code is (one round trip to the validation
    worker: blocks, so a UI calls it off its own thread); raise EditRefused with the error.
    ``library``: the session's shelf, whose best-proven version of each name ``yield from
    ctx.skill("name")`` runs: code is appended to the person's before validation, as for
    an LLM's; a trained policy is validated and run with it."""
    policies: tuple = ()
    if library is not None:
        try:
            code, policies = library.link(code, leave_out=subaction)
        except ValueError as error:  # an unknown skill (the message lists the library's)
            raise EditRefused(str(error)) from None
        except SyntaxError:
            pass  # validation names the syntax error
    try:
        return validate(subaction, code, policies=policies)
    except CodeValidationError as error:
        raise EditRefused(str(error).splitlines()[0]) from None


def merge_rl_changes(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` on top; nested fields (ppo) are merged, not replaced, and a
    flat name (``start_share``) is its group's field (``start.share``), so that the later
    of two edits of one field wins whichever way each named it."""
    merged = dict(group_flat_fields(base))
    for key, value in group_flat_fields(changes).items():
        both_dicts = isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = merged[key] | value if both_dicts else value
    return merged


def check_rl_changes(changes: Any, base: dict[str, Any]):
    """The RLConfig that ``changes`` make of ``base``; raise EditRefused (one line) if none."""
    if not isinstance(changes, dict) or not changes:
        raise EditRefused('write a JSON object of RLConfig fields, e.g. {"samples": 50000}')
    unknown = sorted(set(changes) - set(RLConfig.model_fields) - set(FLAT_FIELDS))
    if unknown:
        raise EditRefused(f"unknown RLConfig field(s) {', '.join(unknown)}")
    try:
        return RLConfig.model_validate(merge_rl_changes(base, changes))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        raise EditRefused(f"{where}: {first['msg']}") from None


class ControlPlane:
    """Pause, stop and human edits of one run; thread-safe; records every outcome."""

    def __init__(self, task: str = "") -> None:
        self.task = task  # the run's task, the base of RL-config edits not yet trained
        self._running = threading.Event()
        self._running.set()
        self._stop = False
        self._closed = ""  # why no more edits are taken ('' while open)
        self._lock = threading.RLock()
        self._pending: list[Edit] = []
        self._next_id = 1
        self._sink: EventSink = lambda event: None
        self._where: Callable[[], tuple[int, str]] = lambda: (0, "")
        self.rl_bases: dict[str, dict[str, Any]] = {}  # latest RLConfig per learned sub-action
        # would_apply(what, target): why such an edit made now could never take effect (the
        # run's last iteration is past the point that uses it), or None; set by the engine
        self.would_apply: Callable[[str, str], str | None] = lambda what, target: None
        # the session's shelf: what ctx.skill("name") in a person's code runs (code or policy)
        self.library: SkillShelf | None = None

    def attach(self, sink: EventSink, where: Callable[[], tuple[int, str]]) -> None:
        """Send outcome events to ``sink``; ``where()`` gives (iteration, agent) for them."""
        self._sink, self._where = sink, where

    def _emit(self, event: ev.Event) -> Any:
        event.iteration, event.agent = self._where()
        return self._sink(event)

    # -- pause and stop ---------------------------------------------------------------------
    def pause(self) -> None:
        """Hold at the next safe point (a ``pausing`` event now, ``paused`` once held)."""
        self._running.clear()
        self._emit(ev.ControlChanged(state="pausing"))

    def resume(self) -> None:
        self._running.set()
        self._emit(ev.ControlChanged(state="resumed"))

    def stop(self) -> None:
        """End at the next safe point (the session stays resumable); once."""
        if self._stop:
            return
        self._stop = True
        self._running.set()
        self._emit(ev.ControlChanged(state="stopping"))

    def approval(self, what: str, target: str, answer: str) -> None:
        """Record a person's answer to an agent proposal (``what``: plan or code), or
        (``what`` mode, ``answer`` on or off) a change of approval mode."""
        self._emit(ev.ApprovalGiven(what=what, target=target, answer=answer))

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def stop_requested(self) -> bool:
        """Did a person ask to stop (the run may have ended on its own first)?"""
        return self._stop

    def safe_point(self) -> None:
        """Engine thread: wait while paused; raise StopRequested after stop()."""
        if not self._running.is_set():
            self._emit(ev.ControlChanged(state="paused"))
            self._running.wait()
        if self._stop:
            raise StopRequested

    # -- making edits (any thread) -------------------------------------------------------------
    def edit_plan(self, plan: Plan, origin: str = "app") -> Edit:
        """Use ``plan`` instead of asking the slow agent, for the next iteration."""
        try:
            self._check_open("plan", "")
        except EditRefused as why:
            self._refuse_now("plan", "", str(why), origin)
            raise
        return self._queue(PlanEdit(0, "", origin, plan=plan))

    def edit_code(
        self, subaction: str, code: str | ValidatedAction, origin: str = "app"
    ) -> CodeEdit:
        """Use ``code`` for ``subaction`` from the next safe point (also between PPO
        rollouts). Source text is validated here (blocking: see :func:`check_code`); a
        :class:`ValidatedAction` of ``subaction`` is taken as it is. Invalid code is refused
        at once (recorded, EditRefused raised)."""
        try:
            self._check_open("code", subaction)
            if isinstance(code, str):
                action = check_code(subaction, code, self.library)
            elif code.name != subaction:
                raise EditRefused(f"the code was validated as {code.name!r}, not {subaction!r}")
            else:
                action = code
        except EditRefused as why:
            self._refuse_now("code", subaction, str(why), origin)
            raise
        return self._queue(CodeEdit(0, subaction, origin, action=action))

    def rl_base(self, subaction: str) -> dict[str, Any]:
        """The configuration an RL edit of ``subaction`` changes (its latest, or defaults)."""
        return self.rl_bases.get(subaction) or {"task": self.task or "collect_wood"}

    def edit_rl_config(self, subaction: str, changes: dict[str, Any], origin: str = "app") -> Edit:
        """Override RLConfig fields for ``subaction``'s next training run. Validated now
        against its current configuration: a bad edit is refused (EditRefused), not queued.
        A second edit before that training merges into the first."""
        try:
            self._check_open("rl_config", subaction)
            check_rl_changes(changes, self.rl_base(subaction))
        except EditRefused as why:
            self._refuse_now("rl_config", subaction, str(why), origin)
            raise
        with self._lock:
            earlier = [
                e for e in self._pending if isinstance(e, RLConfigEdit) and e.target == subaction
            ]
            merged = merge_rl_changes(earlier[-1].changes, changes) if earlier else changes
            return self._queue(RLConfigEdit(0, subaction, origin, changes=merged))

    def _check_open(self, what: str = "", target: str = "") -> None:
        """Raise EditRefused if the run takes no more edits, or (``what`` given) if this
        one could no longer take effect."""
        if self._closed:
            raise EditRefused(self._closed)
        why = self.would_apply(what, target) if what else None
        if why:
            raise EditRefused(why)

    def _refuse_now(self, what: str, target: str, why: str, origin: str) -> None:
        with self._lock:
            edit_id, self._next_id = self._next_id, self._next_id + 1
        self._emit(ev.EditRefused(edit_id=edit_id, what=what, target=target, reason=why))

    def _queue(self, edit: E) -> E:
        """Number ``edit`` and queue it (an earlier one of the same kind and target is
        discarded)."""
        with self._lock:
            self._check_open()
            edit.id = self._next_id
            self._next_id += 1
            replaced = [
                e for e in self._pending if type(e) is type(edit) and e.target == edit.target
            ]
            self._pending = [e for e in self._pending if e not in replaced]
            self._pending.append(edit)
            for old in replaced:
                self._emit(ev.EditDiscarded.of(old, f"replaced by edit {edit.id}"))
            self._emit(
                ev.EditQueued(
                    edit_id=edit.id,
                    what=edit.what,
                    target=edit.target,
                    summary=edit.summary,
                    origin=edit.origin,
                    content=edit.content,
                ),
            )
        return edit

    # -- taking edits (engine thread) -----------------------------------------------------------
    def pending(self) -> list[Edit]:
        with self._lock:
            return list(self._pending)

    def take(self, kind: type[E], target: str = "") -> E | None:
        """The pending edit of type ``kind`` for ``target``, removed from the queue."""
        with self._lock:
            for edit in self._pending:
                if isinstance(edit, kind) and edit.target == target:
                    self._pending.remove(edit)
                    return edit
        return None

    def take_code_for(self, names: set[str] | list[str]) -> list[CodeEdit]:
        """Pending code edits of any of ``names``, removed from the queue."""
        with self._lock:
            taken = [e for e in self._pending if isinstance(e, CodeEdit) and e.target in names]
            self._pending = [e for e in self._pending if e not in taken]
        return taken

    def applied(
        self,
        edit: Edit,
        at: str,
        before: str,
        after: str,
        rollout: int | None = None,
        samples: int | None = None,
        version: int | None = None,
    ) -> None:
        self._emit(
            ev.EditApplied(
                edit_id=edit.id,
                what=edit.what,
                target=edit.target,
                before=before,
                after=after,
                at=at,
                rollout=rollout,
                samples=samples,
                version=version,
            )
        )

    def refused(self, edit: Edit, why: str) -> None:
        self._emit(ev.EditRefused.of(edit, why))

    def close(self, why: str, keep_pending: bool = False) -> None:
        """The run ended: new edits are refused; pending ones are discarded with ``why``,
        or with ``keep_pending`` (a stopped run, which can be resumed) left without an
        outcome, for :meth:`restore` to carry into the resumed run."""
        with self._lock:
            self._closed = why
            left, self._pending = self._pending, []
        if not keep_pending:
            for edit in left:
                self._emit(ev.EditDiscarded.of(edit, why))

    def follow(self, event: ev.Event) -> None:
        """Keep what the control plane knows of the run from one of its events: a
        training's configuration becomes the base of RL edits of its sub-action."""
        if isinstance(event, ev.TrainingStarted) and event.rl_config:
            self.rl_bases[event.subaction] = event.rl_config

    def restore(self, recorded: list[ev.Event]) -> list[int]:
        """The control state of a recorded run, rebuilt from its events in one pass (on
        resume): new edits are numbered after its edits, each learned sub-action's latest
        configuration is the base of RL edits (:meth:`follow`), and the edits it left
        pending (queued, no outcome) are queued again under their ids; code is validated
        again here (this is a new process). Returns the ids carried. Edits recorded before
        their content was (older sessions) are discarded."""
        ended: set[int] = set()
        queued_edits: list[ev.EditQueued] = []
        last_id = 0
        for event in recorded:
            self.follow(event)
            edit_id = getattr(event, "edit_id", None)
            if edit_id is not None:
                last_id = max(last_id, edit_id)
            if isinstance(event, ev.EditApplied | ev.EditRefused | ev.EditDiscarded):
                if event.edit_id is not None:  # None: a person's edit, never queued
                    ended.add(event.edit_id)
            elif isinstance(event, ev.EditQueued):
                queued_edits.append(event)
        self._next_id = last_id + 1
        carried = []
        for queued in queued_edits:
            if queued.edit_id in ended:
                continue
            try:
                edit = self._rebuild(queued)
            except EditRefused as why:
                self._emit(
                    ev.EditRefused(
                        edit_id=queued.edit_id,
                        what=queued.what,
                        target=queued.target,
                        reason=f"not carried over the resume: {why}",
                    ),
                )
                continue
            with self._lock:
                same = [
                    e for e in self._pending if type(e) is type(edit) and e.target == edit.target
                ]
                self._pending = [e for e in self._pending if e not in same]
                self._pending.append(edit)
            carried.append(edit.id)
        return carried

    def _rebuild(self, queued: ev.EditQueued) -> Edit:
        """The edit a recorded ``edit_queued`` event describes (EditRefused if it cannot)."""
        if not queued.content:
            raise EditRefused("recorded without its content (an older session)")
        base = (queued.edit_id, queued.target, queued.origin)
        if queued.what == PlanEdit.what:
            try:
                return PlanEdit(*base, plan=Plan.model_validate_json(queued.content))
            except ValidationError as error:
                why = error.errors()[0]["msg"]
                raise EditRefused(f"the plan no longer validates: {why}") from None
        if queued.what == CodeEdit.what:
            action = check_code(queued.target, queued.content, self.library)
            return CodeEdit(*base, action=action)
        if queued.what == RLConfigEdit.what:
            return RLConfigEdit(*base, changes=json.loads(queued.content))
        raise EditRefused(f"unknown kind of edit {queued.what!r}")
