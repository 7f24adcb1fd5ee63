"""The validation service: a coded action's source is checked once, and what passed travels.

:func:`validate` checks a source in the app (name, size), then compiles it against the
allow-lists and dry-runs it on recorded Views in the validation worker (one round trip,
counted in :data:`rlgpt_tui.sandbox.validation_round_trips`). It returns a
:class:`ValidatedAction`: the source, its budgets, its code version and the record of
that validation. Training, evaluation, the critic's sample runs and a person's edits take
that object; nothing re-validates what it was handed (a new code version is the same
validated source under another version id: :meth:`ValidatedAction.with_version`).

Validation blocks while the worker works (up to seconds): callers on a UI thread run it in a
worker thread.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from rlgpt_tui.sandbox import validate_code
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.policy import PolicySkill
from rlgpt_tui.skills.runtime import (
    CodedAction,
    CodedActionLimits,
    check_name,
    check_source,
    recorded_views,
)


@dataclass(frozen=True)
class ValidationRecord:
    """How a source passed validation."""

    dry_run: bool  # dry-run on recorded Views (False: compiled and allow-listed only)
    views: int  # recorded Views it was dry-run on
    seconds: float  # the round trip's wall-clock time
    at: float  # when (time.time())


@dataclass
class ValidatedAction(CodedAction):
    """A coded action whose source passed :func:`validate` (see the module's docstring)."""

    validation: ValidationRecord = field(kw_only=True)

    def with_version(self, version: int | None) -> ValidatedAction:
        """The same validated source recorded as code version ``version``."""
        return dataclasses.replace(self, version=version)

    def with_limits(self, limits: CodedActionLimits) -> ValidatedAction:
        """The same validated source under other call budgets (the dry run used its own)."""
        return dataclasses.replace(self, limits=limits)


def validate(
    name: str,
    source: str,
    description: str = "",
    limits: CodedActionLimits | None = None,
    version: int | None = None,
    dry_run: bool = True,
    policies: tuple[PolicySkill, ...] = (),
) -> ValidatedAction:
    """Validate ``source`` as coded action ``name``: checks here, then one round trip to
    the validation worker (compile, allow-lists, and a dry run on recorded Views unless
    ``dry_run`` is False). ``policies``: the library's trained policies its
    ``ctx.skill("name")`` calls run (they travel with it, dry run included). Raises
    :class:`CodeValidationError` naming the fix."""
    check_name(name)
    check_source(f"coded action {name!r}", source)
    limits = limits or CodedActionLimits()
    started = time.perf_counter()
    action = CodedAction(name, source, description, limits, version, tuple(policies))
    validate_code([action], dry_run=dry_run)
    record = ValidationRecord(
        dry_run=dry_run,
        views=len(recorded_views()) if dry_run else 0,
        seconds=round(time.perf_counter() - started, 4),
        at=time.time(),
    )
    return ValidatedAction(
        name, source, description, limits, version, tuple(policies), validation=record
    )


__all__ = [
    "CodeValidationError",
    "ValidatedAction",
    "ValidationRecord",
    "validate",
]
