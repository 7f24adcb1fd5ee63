"""Typed payloads of recorded events: dataclasses read from, and written back as, the JSON
objects sessions record.

A :class:`RecordedPayload` writes its fields in their order, then the keys it did not name
when it was read (``extra``). A record made by an older version may lack keys added since:
those fields keep their defaults and stay out of what is written back (``absent``), so what
:meth:`~RecordedPayload.from_dict` reads, :meth:`~RecordedPayload.to_dict` gives back. A
field named in ``OMITTED_WHEN_NONE`` is written only when it holds a value. Fields are read
by their types: an enum from its value, a tuple from a list, a payload (any type with
``from_dict``) from its record, a list of payloads from a list of records.

The one place that reads values older sessions wrote in other shapes. ``SCHEMA_VERSION`` is
the shape this code writes; the shapes of older versions, each read here:

1. a session's settings named its target ``target_success`` (:func:`current_settings`);
   an evaluation recorded a success rate only, without ``measure`` or ``value``
   (:class:`~rlgpt_tui.rl.summary.EvaluationSummary` reads it, its measured value the rate);
   a chosen solution lacked the candidate's later keys (``target``, ``reached``, ...: read
   as absent, written back without them).
2. the current shape.

Records are read as they were written and never rewritten in the new shape, so a record
carries no version of its own: what it holds tells its shape.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, Self

#: the shape of the records this code writes (the module's docstring lists the older ones)
SCHEMA_VERSION = 2

#: keys older versions wrote, and the key each is now
LEGACY_KEYS: dict[str, str] = {"target_success": "target"}


def current_settings(data: Mapping[str, Any]) -> dict[str, Any]:
    """A session's recorded settings with the current keys (version 1's ``target_success``:
    ``target``; a record holding both keeps ``target``)."""
    settings = dict(data)
    for old, new in LEGACY_KEYS.items():
        if old in settings:
            value = settings.pop(old)
            settings.setdefault(new, value)
    return settings


def recorded_target(settings: Mapping[str, Any]) -> float | None:
    """The target a session's recorded settings name (any version's); None: the task's."""
    return current_settings(settings).get("target")


@dataclass(kw_only=True)
class RecordedPayload:
    """Base: a recorded JSON object as a dataclass (subclasses name its keys as fields)."""

    extra: dict[str, Any] = field(default_factory=dict)  # keys not named, as recorded
    # the fields an older record lacked (written back without them)
    absent: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    #: fields written only when they hold a value
    OMITTED_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """A recorded payload (any version's: keys it lacks keep their fields' defaults)."""
        hints = recorded_fields(cls)
        known = {k: read_value(hints[k], copy.deepcopy(v)) for k, v in data.items() if k in hints}
        extra = {k: copy.deepcopy(v) for k, v in data.items() if k not in hints}
        return cls(**known, extra=extra, absent=frozenset(hints) - known.keys())

    def to_dict(self) -> dict[str, Any]:
        """The payload as recorded: its fields in order (less those absent), then ``extra``."""
        data: dict[str, Any] = {}
        for name in recorded_fields(type(self)):
            value = getattr(self, name)
            if name in self.absent or (value is None and name in self.OMITTED_WHEN_NONE):
                continue
            data[name] = write_value(value)
        return data | copy.deepcopy(self.extra)


_HINTS: dict[type, dict[str, Any]] = {}


def recorded_fields(cls: type[RecordedPayload]) -> dict[str, Any]:
    """The recorded fields' types, in order (``extra`` and ``absent`` are not recorded)."""
    if cls not in _HINTS:
        hints = typing.get_type_hints(cls)
        names = [f.name for f in fields(cls) if f.name not in ("extra", "absent")]
        _HINTS[cls] = {name: hints[name] for name in names}
    return _HINTS[cls]


def read_value(hint: Any, value: Any) -> Any:
    """A recorded JSON value as the type ``hint`` names (None stays None)."""
    if value is None:
        return None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        return read_value(kinds[0], value) if len(kinds) == 1 else value
    if origin is tuple and isinstance(value, list):
        return tuple(value)
    if origin is list and args and hasattr(args[0], "from_dict"):
        return [args[0].from_dict(item) for item in value]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if hasattr(hint, "from_dict") and isinstance(value, Mapping):
        return hint.from_dict(value)
    return value


def write_value(value: Any) -> Any:
    """A field's value as its record holds it (JSON's types)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [write_value(item) for item in value]
    return copy.deepcopy(value)
