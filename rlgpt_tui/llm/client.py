"""Access to any OpenAI-compatible endpoint through the ``openai`` package.

Settings (:mod:`rlgpt_tui.llm.settings`) come from flags, environment variables or a config
file; the API key comes from the environment only (the *name* of its variable may be
configured) and is never stored in settings, call records, logs or exports.

Every HTTP request has a total deadline (``timeout`` seconds for the whole request, not per
read: a server that drips one byte at a time cannot hold a call), a cap on the response size,
and checks of the response's content type and shape; what fails gives one line naming the
endpoint. HTTP retries are the openai SDK's own (``max_retries``): on 408, 409, 429, 5xx,
timeouts and dropped connections, waiting as ``Retry-After`` says or with jittered
exponential backoff. The total deadline applies to each try (the SDK's waits between tries
do not count); a try that overruns it (a server dripping bytes) ends the call. Answers that
cannot be used (malformed JSON, a failed check) are asked again here, in repair rounds.
The HTTP part (deadline, size cap, response checks) is :mod:`rlgpt_tui.llm.transport`.

Structured answers: each role's pydantic schema is sent as ``response_format`` (JSON Schema,
strict) when the endpoint accepts it; whether it does is found on the first structured call
and remembered by the client (one client per session, endpoint and model). Otherwise the
prompt carries the answer's shape and an example. Either way the answer is bounded in size
and nesting, parsed, validated, and repaired: the repair prompt quotes the one error and a
short example, never the whole schema (:mod:`rlgpt_tui.llm.answers`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlgpt_tui.llm.answers import (
    json_schema_format,
    parsed_answer,
    repair_messages,
    repair_temperature,
    short_error,
)
from rlgpt_tui.llm.settings import LLMError, LLMSettings
from rlgpt_tui.llm.transport import (
    MAX_RESPONSE_BYTES,
    BadResponse,
    Deadline,
    Endpoint,
    TooLarge,
    completion_parts,
    import_httpx,
)
from rlgpt_tui.text import safe_text

T = TypeVar("T", bound=BaseModel)


class Unrepairable(ValueError):
    """A check's refusal that repair rounds would not change: the answer fails at once
    (recorded), without asking again: a model that answers its failing code unchanged
    rarely changes it in a later round, and every round costs an answer."""


class LLMAnswerError(LLMError):
    """One answer could not be used (it failed validation after its repair rounds, or the
    response was malformed). The session goes on: that sub-action is marked failed.
    ``well_formed``: some round's answer had the schema's form and was refused only by the
    check (e.g. a plan that copies the prompt's example), so the model does answer."""

    def __init__(self, message: str, well_formed: bool = False):
        super().__init__(message)
        self.well_formed = well_formed


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
        self._httpx = import_httpx()
        self._endpoint = Endpoint(
            openai, self._httpx, settings.base_url, key, settings.timeout, settings.max_retries
        )
        # "json_schema" or "plain" once known; "auto" detects it on the first structured call
        self.mode: str | None = {"json_schema": "json_schema", "off": "plain"}.get(
            settings.structured
        )

    @property
    def where(self) -> str:
        return self.settings.base_url or "api.openai.com"

    def check(self) -> None:
        """Fail early, with the fix, if the endpoint is unreachable or the model unknown."""
        openai = self._openai
        s = self.settings
        try:
            once = self._endpoint.client.with_options(max_retries=0)  # a check says at once
            listed = self._endpoint.within_deadline(lambda: once.models.list())
            models = [m.id for m in listed if isinstance(getattr(m, "id", None), str)]
        except (Deadline, openai.APITimeoutError):
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
        endpoint = self._endpoint
        clock = endpoint.clock  # this call's tries (a new one when the client is replaced)
        try:
            content_type, body = endpoint.within_deadline(lambda: endpoint.post(request))
        except (
            Deadline,
            openai.RateLimitError,
            openai.InternalServerError,
            openai.APIConnectionError,  # APITimeoutError is a subclass
            httpx.TransportError,  # while the body is read
        ) as error:  # the SDK's retries are spent (or a try overran the deadline)
            raise _Failed(self._transient_message(error, clock.tries), clock.tries) from None
        except TooLarge:
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
            text, prompt_tokens, completion_tokens = completion_parts(body, content_type)
        except BadResponse as bad:
            raise _Failed(
                f"the LLM endpoint {self.where} {bad}: check that --llm-base-url is an "
                "OpenAI-compatible /v1 endpoint",
                clock.tries,
                answer_error=True,
            ) from None
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
        timeouts = (Deadline, self._openai.APITimeoutError, self._httpx.TimeoutException)
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
            reply = self._structured_reply(role, conversation, schema, choices, repair_round)
            try:
                answer = parsed_answer(reply.text, schema)
                well_formed = True
                if check is not None:
                    check(answer)
            except (ValueError, ValidationError) as error:
                problem = short_error(error)
                self._record_reply(
                    role,
                    conversation,
                    reply,
                    repair_round,
                    error=f"invalid answer: {problem}",
                    validated=False,
                    answered=True,
                )
                if isinstance(error, Unrepairable):
                    raise LLMAnswerError(
                        f"the model's {role} answer was refused ({problem})", well_formed=True
                    ) from None
                if repair_round and reply.text.strip() == unusable:
                    # told what to change, it answered the same: a later round rarely
                    # changes such an answer
                    raise LLMAnswerError(
                        f"the model's {role} answer repeated its refused answer word for word "
                        f"({problem}): try a stronger model",
                        well_formed=well_formed,
                    ) from None
                unusable = reply.text.strip()
                # the schema holds the form where the server takes it: showing the example
                # again there only invites a copy
                example = getattr(schema, "EXAMPLE", "") if reply.mode == "plain" else ""
                conversation = conversation + repair_messages(reply.text, problem, example)
                continue
            self._record_reply(role, conversation, reply, repair_round, validated=True)
            return answer
        raise LLMAnswerError(
            f"the model's {role} answer failed validation {rounds} times ({problem}): try a "
            "stronger model, or structured output (an endpoint that accepts response_format)",
            well_formed=well_formed,
        )

    def _structured_reply(
        self,
        role: str,
        conversation: list[dict[str, Any]],
        schema: type[BaseModel],
        choices: Mapping[str, Sequence[str]] | None,
        repair_round: int,
    ) -> _Reply:
        """One round's completion, with ``schema`` as response_format while the endpoint
        takes it (or before that is known: a first refusal turns this client to plain
        prompts). Failures are recorded, then raised as LLMError or LLMAnswerError."""
        started = time.perf_counter()
        mode = self.mode or "json_schema"
        response_format = json_schema_format(schema, choices) if mode == "json_schema" else None
        try:
            completed = self._complete(conversation, response_format, repair_round)
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
            return self._plain_reply(role, conversation, repair_round)
        except _Failed as failed:
            self._record(
                role, conversation, "", started, failed.attempts, error=str(failed), mode=mode
            )
            raise failed.error() from None
        if self.mode is None:
            self.mode = mode  # the endpoint took response_format: remember it
        return _Reply(*completed, mode=mode, started=started)

    def _plain_reply(
        self, role: str, conversation: list[dict[str, Any]], repair_round: int
    ) -> _Reply:
        """One round's completion without response_format (the answer's form is in the
        prompt)."""
        started = time.perf_counter()
        try:
            completed = self._complete(conversation, repair_round=repair_round)
        except _Failed as failed:
            self._record(role, conversation, "", started, failed.attempts, error=str(failed))
            raise failed.error() from None
        return _Reply(*completed, mode="plain", started=started)

    def _record_reply(
        self,
        role: str,
        conversation: list[dict[str, Any]],
        reply: _Reply,
        repair_round: int,
        **outcome: Any,
    ) -> None:
        """Record one round's answer with ``outcome`` (validated, error, answered)."""
        self._record(
            role,
            conversation,
            reply.text,
            reply.started,
            reply.attempts,
            reply.prompt_tokens,
            reply.completion_tokens,
            repair_round=repair_round,
            mode=reply.mode,
            **outcome,
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


@dataclass(frozen=True)
class _Reply:
    """One round's completion of a structured call, and how it was asked."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    mode: str  # json_schema or plain
    started: float  # time.perf_counter() when it was asked


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
