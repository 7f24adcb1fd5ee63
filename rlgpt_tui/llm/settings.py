"""Where and how to call the model: :class:`LLMSettings`, resolved from flags, the
environment and config files (:mod:`rlgpt_tui.config`), each setting checked for type and
range. Holds the API key's variable name, never the key."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlgpt_tui.config import ConfigError, resolve_llm
from rlgpt_tui.labels import model_label

STRUCTURED_MODES = ("auto", "json_schema", "off")


class LLMError(Exception):
    """The LLM cannot be used (its settings or its endpoint); the message is one line that
    names the fix."""


@dataclass(frozen=True)
class LLMSettings:
    """Where and how to call the model. Holds the key's variable name, never the key."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0  # seconds for a whole request (connect, wait, read)
    max_retries: int = 4  # the openai SDK's HTTP retries (429, 5xx, timeouts, connections)
    temperature: float = 0.2
    max_tokens: int = 2048
    # OpenAI's frequency_penalty (sent when not 0): small models' answers can repeat one
    # line to max_tokens; a penalty stops it
    frequency_penalty: float = 0.0
    repair_rounds: int = 2
    vision: bool = False  # the model accepts images: the critic gets frames too
    structured: str = "auto"  # response_format json_schema: auto (detect), json_schema, off

    @property
    def configured(self) -> bool:
        return bool(self.model)

    @property
    def agent_label(self) -> str:
        """``llm:MODEL``, naming the agent in sessions and results (see :func:`model_label`)."""
        return f"llm:{model_label(self.model or '')}"

    @classmethod
    def resolve(
        cls,
        base_url: str | None = None,
        model: str | None = None,
        config_file: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> LLMSettings:
        """Flags (``base_url``, ``model``, ``overrides``) > the environment > ``config_file``
        (``--llm-config``) > the user config file > defaults (:mod:`rlgpt_tui.config`).
        With ``environ`` given, the user config file is read only where it names one
        (``RLGPT_CONFIG``)."""
        return cls.resolve_sourced(base_url, model, config_file, environ, **overrides)[0]

    @classmethod
    def resolve_sourced(
        cls,
        base_url: str | None = None,
        model: str | None = None,
        config_file: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> tuple[LLMSettings, dict[str, str]]:
        """:meth:`resolve`, with where each setting came from (setting -> source; the
        settings not named were defaults)."""
        user_file = environ is None or bool(environ.get("RLGPT_CONFIG"))
        flags = {"base_url": base_url or None, "model": model or None} | overrides
        # ``backoff``: the SDK now waits between tries (jittered, honouring Retry-After);
        # still accepted so that recorded sessions and older config files load
        flags.pop("backoff", None)
        try:
            sourced = resolve_llm(flags, config_file, environ, user_file=user_file)
        except ConfigError as error:
            raise LLMError(str(error)) from None
        sourced.pop("backoff", None)
        data = {key: item.value for key, item in sourced.items()}
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise LLMError(f"unknown LLM setting(s) {', '.join(unknown)}: use {sorted(known)}")
        settings = cls(**_checked(data))
        return settings, {key: item.source for key, item in sourced.items()}

    @classmethod
    def recorded(cls, record: dict[str, Any], **changes: Any) -> LLMSettings:
        """A session's recorded settings with ``changes`` (None: kept), e.g. a longer
        ``timeout`` for its resume; the environment and the user config file are not read
        again."""
        given = {k: v for k, v in changes.items() if v is not None}
        return cls.resolve(environ={}, **(record | given))

    def describe(self) -> str:
        return f"{self.model} at {self.base_url or 'api.openai.com'}"


# name -> (type(s) accepted, check, what it must be)
_RULES: dict[str, tuple[tuple[type, ...], Callable[[Any], bool], str]] = {
    "base_url": ((str,), lambda v: v.startswith(("http://", "https://")), "an http(s) URL"),
    "model": ((str,), lambda v: bool(v.strip()), "a model name"),
    "api_key_env": ((str,), lambda v: v.isidentifier(), "an environment variable name"),
    "timeout": ((int, float), lambda v: 0 < v <= 3600, "seconds in (0, 3600]"),
    "max_retries": ((int,), lambda v: 0 <= v <= 20, "an integer in [0, 20]"),
    "temperature": ((int, float), lambda v: 0 <= v <= 2, "a number in [0, 2]"),
    "max_tokens": ((int,), lambda v: 1 <= v <= 1_000_000, "a positive integer"),
    "frequency_penalty": ((int, float), lambda v: -2 <= v <= 2, "a number in [-2, 2]"),
    "repair_rounds": ((int,), lambda v: 0 <= v <= 10, "an integer in [0, 10]"),
    "vision": ((bool,), lambda v: True, "true or false"),
    "structured": ((str,), lambda v: v in STRUCTURED_MODES, " or ".join(STRUCTURED_MODES)),
}


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """Each setting of the right type and range, or one line saying what it must be."""
    for name, value in data.items():
        if value is None and name in ("base_url", "model"):
            continue
        types, ok, what = _RULES[name]
        right_type = isinstance(value, types) and not (
            isinstance(value, bool) and bool not in types
        )
        if isinstance(value, float) and not math.isfinite(value):
            right_type = False
        if not right_type or not ok(value):
            raise LLMError(f"LLM setting {name} = {value!r} is invalid: it must be {what}")
    return data
