"""Access to any OpenAI-compatible endpoint through the ``openai`` package.

Settings come from flags, environment variables or a config file; the API key comes from
the environment only (the *name* of its variable may be configured) and is never stored in
settings, call records, logs or exports.

Every HTTP request has a total deadline (``timeout`` seconds for the whole request, not per
read: a server that drips one byte at a time cannot hold a call), a cap on the response size,
and checks of the response's content type and shape; what fails gives one line naming the
endpoint. HTTP retries are the openai SDK's own (``max_retries``): on 408, 409, 429, 5xx,
timeouts and dropped connections, waiting as ``Retry-After`` says or with jittered
exponential backoff. The total deadline applies to each try (the SDK's waits between tries
do not count); a try that overruns it (a server dripping bytes) ends the call. Answers that
cannot be used (malformed JSON, a failed check) are asked again here, in repair rounds.

Structured answers: each role's pydantic schema is sent as ``response_format`` (JSON Schema,
strict) when the endpoint accepts it; whether it does is found on the first structured call
and remembered by the client (one client per session, endpoint and model). Otherwise the
prompt carries the answer's shape and an example. Either way the answer is bounded in size
and nesting, parsed, validated, and repaired: the repair prompt quotes the one error and a
short example, never the whole schema.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlgpt_tui.config import ConfigError, resolve_llm
from rlgpt_tui.text import json_depth, safe_data, safe_text

T = TypeVar("T", bound=BaseModel)

ENV_BASE_URL = "RLGPT_LLM_BASE_URL"
ENV_MODEL = "RLGPT_LLM_MODEL"
ENV_KEY_NAME = "RLGPT_LLM_API_KEY_ENV"
ENV_VISION = "RLGPT_LLM_VISION"

MAX_RESPONSE_BYTES = 4_000_000  # one completion; more is a misbehaving server
MAX_ANSWER_CHARS = 100_000  # an answer's text, before it is parsed
MAX_JSON_DEPTH = 32  # nesting of an answer's JSON (and of the response body)
STRUCTURED_MODES = ("auto", "json_schema", "off")


class LLMError(Exception):
    """The endpoint could not be used; the message is one line that names the fix."""


class Unrepairable(ValueError):
    """A check's refusal that repair rounds would not change: the answer fails at once
    (recorded), without asking again. A 1.5B model asked to fix its failing code answered
    it unchanged 51 times in one session, and a repair round changed it once in 20."""


class LLMAnswerError(LLMError):
    """One answer could not be used (it failed validation after its repair rounds, or the
    response was malformed). The session goes on: that sub-action is marked failed.
    ``well_formed``: some round's answer had the schema's form and was refused only by the
    check (e.g. a plan that copies the prompt's example), so the model does answer."""

    def __init__(self, message: str, well_formed: bool = False):
        super().__init__(message)
        self.well_formed = well_formed


class _Deadline(Exception):
    """A request ran past its total deadline."""


class _TooLarge(Exception):
    """A response body passed MAX_RESPONSE_BYTES."""


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
    # OpenAI's frequency_penalty (sent when not 0): a 1.5B model's answers looped on one
    # line (`yield from ctx.go_to(ctx.recall("stone"))`, 40 times) to max_tokens
    frequency_penalty: float = 0.0
    repair_rounds: int = 2
    vision: bool = False  # the model accepts images: the critic gets frames too
    structured: str = "auto"  # response_format json_schema: auto (detect), json_schema, off

    @property
    def configured(self) -> bool:
        return bool(self.model)

    @property
    def agent_label(self) -> str:
        """``llm:MODEL``, naming the agent in sessions and results; a llama.cpp server's
        model id is its GGUF file's path, named here by the file's stem."""
        model = self.model or ""
        if model.lower().endswith(".gguf"):
            model = Path(model).stem
        return f"llm:{model}"

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


@dataclass
class LLMCall:
    """One request/response, as recorded for the session (no key, no headers)."""

    role: str
    prompt: list[dict[str, str]]
    answer: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int
    ok: bool = True  # the endpoint answered (HTTP); see ``validated`` for the answer
    error: str | None = None
    validated: bool | None = None  # the answer passed its schema (None: no schema asked)
    repair_round: int = 0  # 0: the first ask; n: the n-th repair request
    mode: str = "plain"  # json_schema: the schema went as response_format
    started: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a ```json fence, or {...}."""
    text = text.strip()
    if not text:
        raise ValueError("the answer was empty")
    if len(text) > MAX_ANSWER_CHARS:
        raise ValueError(f"the answer is longer than {MAX_ANSWER_CHARS:,} characters")
    if json_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(f"the answer's JSON is nested deeper than {MAX_JSON_DEPTH} levels")
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidates = [text]
    if fence:
        candidates.insert(0, fence.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as error:
            last_error = error
    if start >= 0:  # the first whole object, when more text or a second object follows
        try:
            return json.JSONDecoder().raw_decode(text[start:])[0]
        except json.JSONDecodeError:
            pass
    raise ValueError(f"answer is not JSON ({last_error})")


def response_schema(
    schema: type[BaseModel], choices: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """``schema`` as a strict JSON Schema for ``response_format``: every object closed and
    every property required (optional values are nullable, never absent). ``choices``: the
    names a top-level string property (or a list property's items) may take, so that a
    grammar-constrained server cannot answer another name."""

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            node.pop("default", None)
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    document = schema.model_json_schema()
    close(document)
    for key, names in (choices or {}).items():
        _narrow(document["properties"][key], list(names))
    return document


def _narrow(node: dict[str, Any], names: list[str]) -> None:
    """Restrict the string values of a property node (``str``, ``list[str]``, nullable or
    not) to ``names``; with none, a list must be empty and a nullable string null (a
    string that must be given keeps any value: the answer's check refuses it)."""
    branches = node.get("anyOf", [node])
    for branch in branches:
        if branch.get("type") == "string" and names:
            branch["enum"] = names
        elif branch.get("type") == "array":
            branch["items"] = {"type": "string", "enum": names} if names else {"type": "string"}
            if not names:
                branch["maxItems"] = 0
    if not names and "anyOf" in node and any(b.get("type") == "null" for b in branches):
        node["anyOf"] = [b for b in branches if b.get("type") != "string"]


REPAIR_HEAT = 0.4  # added to the temperature per repair round


def repair_temperature(temperature: float, repair_round: int) -> float:
    """The sampling temperature of a repair round: hotter each round, up to 1.0 (or the
    setting, where it is higher). At 0.2 a 1.5B model answered the same refused code in
    each of its repair rounds (a place_table waiting for stone, told the recipe uses wood)."""
    return round(max(temperature, min(1.0, temperature + REPAIR_HEAT * repair_round)), 3)


def _is_echoed_schema(data: Any) -> bool:
    return isinstance(data, dict) and (
        "$defs" in data or ("properties" in data and data.get("type") == "object")
    )


def _import_httpx():
    # start-up and version: the httpx the installed openai uses, loaded with the first client
    try:
        import httpx2 as httpx  # what newer openai releases use
    except ImportError:  # pragma: no cover - older openai releases
        import httpx
    return httpx


DEADLINE_GRACE = 1.0  # seconds past ``timeout`` before a try is cut (the SDK's timeout first)
RETRIED_STATUSES = (408, 409, 429)  # and 5xx: the statuses the openai SDK tries again


class _TryClock:
    """The HTTP tries of one call: how many, and when the running one started (None while
    none runs, e.g. while the SDK waits to try again)."""

    def __init__(self) -> None:
        self.attempts = 0
        self.started: float | None = None

    def reset(self) -> None:
        self.attempts, self.started = 0, None

    @property
    def tries(self) -> int:
        return max(self.attempts, 1)


def _clocked_transport(httpx: Any, clock: _TryClock) -> Any:
    """An HTTP transport that marks each try on ``clock``: it starts when the request goes
    out and stops on an error or a status the SDK retries (its wait before the next try
    is not the try's time); an answer's body is read on the try's time."""

    class ClockedTransport(httpx.HTTPTransport):
        def handle_request(self, request: Any) -> Any:
            clock.attempts += 1
            clock.started = time.monotonic()
            try:
                response = super().handle_request(request)
            except BaseException:
                clock.started = None
                raise
            if response.status_code in RETRIED_STATUSES or response.status_code >= 500:
                clock.started = None
            return response

    return ClockedTransport()


class LLMClient:
    """Chat and structured calls against one endpoint and model, every call recorded."""

    def __init__(
        self,
        settings: LLMSettings,
        on_call: Callable[[LLMCall], None] | None = None,
    ):
        import openai  # start-up: openai (about 0.3 s) loads with the first client

        if not settings.model:
            raise LLMError("no LLM model set: pass --llm-model NAME or set RLGPT_LLM_MODEL")
        key = os.environ.get(settings.api_key_env)
        if not key:
            if settings.base_url is None:
                raise LLMError(
                    f"missing API key: export {settings.api_key_env}=... (or pass "
                    "--llm-base-url for a local server)"
                )
            key = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept any key
        self.settings = settings
        self.on_call = on_call or (lambda call: None)
        self.calls: list[LLMCall] = []
        self._openai = openai
        self._httpx = _import_httpx()
        self._key = key
        self._client = self._new_client()
        # "json_schema" or "plain" once known; "auto" detects it on the first structured call
        self.mode: str | None = {"json_schema": "json_schema", "off": "plain"}.get(
            settings.structured
        )

    @property
    def where(self) -> str:
        return self.settings.base_url or "api.openai.com"

    def _new_client(self):
        """An SDK client doing its own HTTP retries, over a transport that times each try
        (:class:`_TryClock`) for the total deadline."""
        self._clock = _TryClock()
        transport = _clocked_transport(self._httpx, self._clock)
        return self._openai.OpenAI(
            base_url=self.settings.base_url,
            api_key=self._key,
            timeout=self.settings.timeout,
            max_retries=self.settings.max_retries,
            http_client=self._openai.DefaultHttpxClient(transport=transport),
        )

    def check(self) -> None:
        """Fail early, with the fix, if the endpoint is unreachable or the model unknown."""
        openai = self._openai
        s = self.settings
        try:
            once = self._client.with_options(max_retries=0)  # a check says at once
            listed = self._within_deadline(lambda: once.models.list())
            models = [m.id for m in listed if isinstance(getattr(m, "id", None), str)]
        except _Deadline:
            raise LLMError(self._timeout_message(1)) from None
        except openai.APITimeoutError:
            raise LLMError(self._timeout_message(1)) from None
        except openai.APIConnectionError:
            raise LLMError(
                f"cannot reach the LLM endpoint {self.where}: check the base URL "
                "(--llm-base-url, or the app's LLM base URL field) and that the server is running"
            ) from None
        except openai.AuthenticationError:
            raise LLMError(f"the endpoint rejected the API key: check ${s.api_key_env}") from None
        except (
            openai.APIStatusError,
            openai.APIResponseValidationError,
            TypeError,
            ValueError,
            AttributeError,  # a body that is not a model list (e.g. a web page)
        ):
            return  # some servers do not list models (or list them oddly); the first call tells
        if models and s.model not in models:
            shown = ", ".join(str(m) for m in models[:5])
            raise LLMError(
                f"model {s.model!r} not found at {self.where}: use --llm-model with one of {shown}"
            )

    # -- HTTP --------------------------------------------------------------------------------
    def _within_deadline(self, work: Callable[[], Any]) -> Any:
        """``work()`` in a helper thread, each of its HTTP tries given at most ``timeout``
        seconds in all (plus a little, so that the SDK's own per-read timeout, which it
        retries, fires first where it can).

        On overrun the HTTP client is replaced and the old one closed (which drops the
        stuck connection); the helper thread ends when its socket does.
        """
        box: dict[str, Any] = {}
        clock = self._clock
        clock.reset()
        allowed = self.settings.timeout + DEADLINE_GRACE

        def run() -> None:
            try:
                box["value"] = work()
            except BaseException as error:  # handed to the caller's thread
                box["error"] = error

        worker = threading.Thread(target=run, name="llm-request", daemon=True)
        worker.start()
        while True:
            started = clock.started
            left = allowed if started is None else started + allowed - time.monotonic()
            worker.join(min(max(left, 0.0), 0.1) if started is None else max(left, 0.0))
            if not worker.is_alive():
                break
            started = clock.started
            if started is not None and time.monotonic() - started >= allowed:
                stuck, self._client = self._client, self._new_client()
                threading.Thread(target=stuck.close, daemon=True).start()
                raise _Deadline
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _post(self, request: dict[str, Any]) -> tuple[str, bytes]:
        """One chat-completion request: (content type, body), the body read up to the cap."""
        create = self._client.chat.completions.with_streaming_response.create
        with create(**request) as response:
            content_type = response.headers.get("content-type", "")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise _TooLarge
            return content_type, bytes(body)

    def _completion(self, body: bytes, content_type: str) -> tuple[str, int, int]:
        """(answer text, prompt tokens, completion tokens) from a response body, or one line
        naming the endpoint and what is wrong with the response."""
        where = self.where

        def bad(what: str) -> LLMAnswerError:
            return LLMAnswerError(
                f"the LLM endpoint {where} {what}: check that --llm-base-url is an "
                "OpenAI-compatible /v1 endpoint"
            )

        if "json" not in content_type.lower():
            raise bad(f"answered with content type {content_type or 'none'!r}, not JSON")
        text = body.decode("utf-8", errors="replace")
        if json_depth(text) > MAX_JSON_DEPTH:
            raise bad(f"sent JSON nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            data = json.loads(text)
        except ValueError:
            raise bad("sent a body that is not JSON") from None
        if not isinstance(data, dict):
            raise bad(f"sent a JSON {type(data).__name__}, not a completion object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise bad("sent a completion without choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise bad("sent a completion whose message is null")
        content = message.get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise bad(f"sent message content of type {type(content).__name__}, not text")
        usage = data.get("usage") or {}
        if not isinstance(usage, dict):
            raise bad("sent usage that is not an object")
        tokens = []
        for name in ("prompt_tokens", "completion_tokens"):
            value = usage.get(name, 0)
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            if value is None:
                value = 0
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise bad(f"sent usage.{name} = {str(value)[:40]!r}, not a token count")
            tokens.append(value)
        return safe_text(content, MAX_ANSWER_CHARS * 2), tokens[0], tokens[1]

    def _complete(
        self,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None = None,
        repair_round: int = 0,
    ) -> tuple[str, int, int, int]:
        """One completion (the SDK retries transient HTTP failures): (text, prompt tokens,
        completion tokens, HTTP tries). A repair round samples hotter
        (:func:`repair_temperature`). Raises LLMError (endpoint unusable) or LLMAnswerError
        (bad response); a refused ``response_format`` raises ``_FormatRefused``."""
        openai = self._openai
        httpx = self._httpx
        s = self.settings
        request: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": repair_temperature(s.temperature, repair_round),
            "max_tokens": s.max_tokens,
        }
        if s.frequency_penalty:
            request["frequency_penalty"] = s.frequency_penalty
        if response_format is not None:
            request["response_format"] = response_format
        clock = self._clock  # this call's tries (a new one when the client is replaced)
        try:
            content_type, body = self._within_deadline(lambda: self._post(request))
        except (
            _Deadline,
            openai.RateLimitError,
            openai.InternalServerError,
            openai.APIConnectionError,  # APITimeoutError is a subclass
            httpx.TransportError,  # while the body is read
        ) as error:  # the SDK's retries are spent (or a try overran the deadline)
            raise _Failed(self._transient_message(error, clock.tries), clock.tries) from None
        except _TooLarge:
            raise _Failed(
                f"the LLM endpoint {self.where} sent more than {MAX_RESPONSE_BYTES:,} bytes "
                "for one completion: check the server (it must answer one JSON completion)",
                clock.tries,
                answer_error=True,
            ) from None
        except openai.NotFoundError:
            raise _Failed(
                f"model {s.model!r} not found at {self.where}: check --llm-model (list the "
                "server's models)",
                clock.tries,
            ) from None
        except openai.AuthenticationError:
            raise _Failed(
                f"the endpoint rejected the API key: check ${s.api_key_env}", clock.tries
            ) from None
        except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
            if response_format is not None:
                raise _FormatRefused(str(error.message)[:160], clock.tries) from None
            raise _Failed(
                f"the endpoint {self.where} refused the request (HTTP {error.status_code}: "
                f"{safe_text(str(error.message), 160)}): check --llm-model and max_tokens",
                clock.tries,
            ) from None
        except openai.APIStatusError as error:
            raise _Failed(
                f"the endpoint {self.where} answered HTTP {error.status_code}: "
                f"{safe_text(str(error.message), 160)}",
                clock.tries,
            ) from None
        try:
            text, prompt_tokens, completion_tokens = self._completion(body, content_type)
        except LLMAnswerError as error:
            raise _Failed(str(error), clock.tries, answer_error=True) from None
        return text, prompt_tokens, completion_tokens, clock.tries

    def _timeout_message(self, tries: int) -> str:
        s = self.settings
        return (
            f"the LLM endpoint {self.where} timed out after {s.timeout:g} s ({tries} "
            f"{'try' if tries == 1 else 'tries'}): raise the timeout for a slow model "
            "(--llm-timeout, `timeout` in the [llm] table, or the app's LLM timeout field), "
            "or check that the server is not stuck"
        )

    def _transient_message(self, error: Exception, tries: int) -> str:
        timeouts = (_Deadline, self._openai.APITimeoutError, self._httpx.TimeoutException)
        if isinstance(error, timeouts):
            return self._timeout_message(tries)
        if isinstance(error, self._openai.APIConnectionError | self._httpx.TransportError):
            return (
                f"cannot reach the LLM endpoint {self.where} after {tries} tries: check "
                "--llm-base-url and that the server is running"
            )
        return (
            f"the LLM endpoint {self.where} kept failing ({type(error).__name__}) after "
            f"{tries} tries: retry later or use another endpoint"
        )

    # -- plain chat ----------------------------------------------------------------------
    def chat(self, role: str, messages: list[dict[str, Any]]) -> str:
        """One chat completion, retried on transient failures; returns the answer text."""
        started = time.perf_counter()
        try:
            text, prompt_tokens, completion_tokens, attempts = self._complete(messages)
        except _Failed as failed:
            self._record(role, messages, "", started, failed.attempts, error=str(failed))
            raise failed.error() from None
        self._record(role, messages, text, started, attempts, prompt_tokens, completion_tokens)
        return text

    def _record(
        self,
        role,
        messages,
        text,
        started,
        attempts,
        prompt_tokens=0,
        completion_tokens=0,
        error=None,
        validated=None,
        repair_round=0,
        mode="plain",
        answered=None,
    ) -> None:
        call = LLMCall(
            role=role,
            prompt=[_without_images(m) for m in messages],
            answer=text,
            model=self.settings.model or "",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=round(time.perf_counter() - started, 4),
            attempts=attempts,
            ok=(error is None) if answered is None else answered,
            error=error,
            validated=validated,
            repair_round=repair_round,
            mode=mode,
        )
        self.calls.append(call)
        self.on_call(call)

    # -- structured answers -----------------------------------------------------------------
    def structured(
        self,
        role: str,
        messages: list[dict[str, Any]],
        schema: type[T],
        check: Callable[[T], None] | None = None,
        choices: Mapping[str, Sequence[str]] | None = None,
    ) -> T:
        """An answer parsed as JSON and validated against ``schema`` (then ``check``, which
        raises ValueError with the fix), with repair rounds. ``choices``: names a property
        may take, sent in the JSON Schema (:func:`response_schema`; ``check`` still
        enforces them on servers without response_format). Raises LLMAnswerError when
        every round failed, LLMError when the endpoint cannot be used."""
        conversation = list(messages)
        problem = ""
        well_formed = False  # a round's answer had the schema's form
        unusable = ""  # the last answer that could not be used
        rounds = self.settings.repair_rounds + 1
        for repair_round in range(rounds):
            started = time.perf_counter()
            mode = self.mode or "json_schema"
            response_format = (
                {
                    "type": "json_schema",
                    "json_schema": {
                        "name": schema.__name__,
                        "schema": response_schema(schema, choices),
                        "strict": True,
                    },
                }
                if mode == "json_schema"
                else None
            )
            try:
                text, prompt_tokens, completion_tokens, attempts = self._complete(
                    conversation, response_format, repair_round
                )
            except _FormatRefused as refused:
                if self.mode is not None:  # it was known to work: a real refusal
                    message = f"the endpoint {self.where} refused the {role} request: {refused}"
                    self._record(role, conversation, "", started, refused.attempts, error=message)
                    raise LLMAnswerError(message) from None
                self._record(
                    role,
                    conversation,
                    "",
                    started,
                    refused.attempts,
                    error=f"response_format refused ({refused}): using plain prompts",
                    mode=mode,
                )
                self.mode = "plain"
                started = time.perf_counter()
                mode = "plain"
                try:
                    text, prompt_tokens, completion_tokens, attempts = self._complete(
                        conversation, repair_round=repair_round
                    )
                except _Failed as failed:
                    self._record(
                        role, conversation, "", started, failed.attempts, error=str(failed)
                    )
                    raise failed.error() from None
            except _Failed as failed:
                self._record(
                    role, conversation, "", started, failed.attempts, error=str(failed), mode=mode
                )
                raise failed.error() from None
            if self.mode is None:
                self.mode = mode  # the endpoint took response_format: remember it
            try:
                data = safe_data(extract_json(text))  # JSON escapes may hold lone surrogates
                if _is_echoed_schema(data):
                    raise ValueError(
                        "the answer is the JSON Schema itself, not an answer: fill in values"
                    )
                answer = schema.model_validate(data)
                well_formed = True
                if check is not None:
                    check(answer)
            except (ValueError, ValidationError) as error:
                problem = _short_error(error)
                self._record(
                    role,
                    conversation,
                    text,
                    started,
                    attempts,
                    prompt_tokens,
                    completion_tokens,
                    error=f"invalid answer: {problem}",
                    validated=False,
                    repair_round=repair_round,
                    mode=mode,
                    answered=True,
                )
                if isinstance(error, Unrepairable):
                    raise LLMAnswerError(
                        f"the model's {role} answer was refused ({problem})", well_formed=True
                    ) from None
                if repair_round and text.strip() == unusable:
                    # told what to change, it answered the same: no later round changed such
                    # an answer (a 1.5B model's plans, 7 of 11 repairs in six sessions)
                    raise LLMAnswerError(
                        f"the model's {role} answer repeated its refused answer word for word "
                        f"({problem}): try a stronger model",
                        well_formed=well_formed,
                    ) from None
                unusable = text.strip()
                # the schema holds the form where the server takes it: showing the example
                # again there only invites a copy (a 1.5B model's repaired plans copied it)
                example = getattr(schema, "EXAMPLE", "") if mode == "plain" else ""
                shape = (
                    f"with the same keys as this example (your own values, for this task):\n"
                    f"{example}"
                    if example
                    else "(your own values, for this task)"
                )
                conversation = conversation + [
                    {"role": "assistant", "content": text[:4000]},
                    {
                        "role": "user",
                        "content": (
                            f"Your answer could not be used: {problem}. Answer again with only "
                            f"one JSON object {shape}"
                        ),
                    },
                ]
                continue
            self._record(
                role,
                conversation,
                text,
                started,
                attempts,
                prompt_tokens,
                completion_tokens,
                validated=True,
                repair_round=repair_round,
                mode=mode,
            )
            return answer
        raise LLMAnswerError(
            f"the model's {role} answer failed validation {rounds} times ({problem}): try a "
            "stronger model, or structured output (an endpoint that accepts response_format)",
            well_formed=well_formed,
        )

    @property
    def tokens(self) -> int:
        return sum(c.prompt_tokens + c.completion_tokens for c in self.calls)


class _Failed(Exception):
    """A call failed; ``error()`` is what the caller sees (after it is recorded)."""

    def __init__(self, message: str, attempts: int, answer_error: bool = False):
        super().__init__(message)
        self.attempts = attempts
        self.answer_error = answer_error

    def error(self) -> LLMError:
        return (LLMAnswerError if self.answer_error else LLMError)(str(self))


class _FormatRefused(Exception):
    """The endpoint answered HTTP 400/422 to a request with ``response_format``."""

    def __init__(self, message: str, attempts: int):
        super().__init__(message)
        self.attempts = attempts


def _without_images(message: dict[str, Any]) -> dict[str, Any]:
    """A message as recorded: image parts replaced by a short note (no base64 in the DB)."""
    content = message.get("content")
    if not isinstance(content, list):
        return dict(message)
    parts = []
    for part in content:
        if part.get("type") == "image_url":
            url = part["image_url"]["url"]
            parts.append({"type": "image_url", "image_url": {"url": f"<image, {len(url)} chars>"}})
        else:
            parts.append(dict(part))
    return dict(message) | {"content": parts}


def _short_error(error: Exception) -> str:
    """The first few problems of an answer, one line (what a repair prompt quotes)."""
    if isinstance(error, ValidationError):
        problems = []
        ordered = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        for item in ordered[:3]:
            where = ".".join(str(p) for p in item["loc"]) or "answer"
            message = item["msg"].removeprefix("Value error, ")
            if item["type"] == "extra_forbidden":
                message = "this key is not allowed"
            elif item["type"] == "missing":
                message = "this key is missing"
            problems.append(f"{where}: {message}")
        more = error.error_count() - len(problems)
        return safe_text("; ".join(problems) + (f" (+{more} more)" if more > 0 else ""), 400)
    return safe_text(str(error), 300)
