"""Access to any OpenAI-compatible endpoint through the ``openai`` package.

Settings come from flags, environment variables or a config file; the API key comes from
the environment only (the *name* of its variable may be configured) and is never stored in
settings, call records, logs or exports. Calls retry with exponential backoff on 429, 5xx,
timeouts and dropped connections; structured answers are validated with pydantic and get
repair rounds when they do not parse or validate.
"""

from __future__ import annotations

import json
import os
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

ENV_BASE_URL = "RLGPT_LLM_BASE_URL"
ENV_MODEL = "RLGPT_LLM_MODEL"
ENV_KEY_NAME = "RLGPT_LLM_API_KEY_ENV"
ENV_VISION = "RLGPT_LLM_VISION"


class LLMError(Exception):
    """The endpoint could not be used; the message is one line that names the fix."""


@dataclass(frozen=True)
class LLMSettings:
    """Where and how to call the model. Holds the key's variable name, never the key."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 1.0
    temperature: float = 0.2
    max_tokens: int = 2048
    repair_rounds: int = 2
    vision: bool = False  # the model accepts images: the critic gets frames too

    @property
    def configured(self) -> bool:
        return bool(self.model)

    @classmethod
    def resolve(
        cls,
        base_url: str | None = None,
        model: str | None = None,
        config_file: str | Path | None = None,
        environ: dict[str, str] | None = None,
        **overrides: Any,
    ) -> LLMSettings:
        """Flags override the environment, which overrides the config file's ``[llm]``."""
        env = os.environ if environ is None else environ
        data: dict[str, Any] = {}
        if config_file is not None and Path(config_file).exists():
            try:
                data.update(tomllib.loads(Path(config_file).read_text()).get("llm", {}))
            except tomllib.TOMLDecodeError as error:
                raise LLMError(
                    f"bad config file {config_file}: {error}; fix its [llm] table"
                ) from None
            if any("key" in k and k != "api_key_env" for k in data):
                raise LLMError(
                    f"{config_file} holds an API key: remove it and export it in the "
                    "environment instead"
                )
        for key, var in (
            ("base_url", ENV_BASE_URL),
            ("model", ENV_MODEL),
            ("api_key_env", ENV_KEY_NAME),
        ):
            if env.get(var):
                data[key] = env[var]
        if env.get(ENV_VISION):
            data["vision"] = env[ENV_VISION].lower() in ("1", "true", "yes")
        if base_url:
            data["base_url"] = base_url
        if model:
            data["model"] = model
        data.update({k: v for k, v in overrides.items() if v is not None})
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise LLMError(f"unknown LLM setting(s) {', '.join(unknown)}: use {sorted(known)}")
        return cls(**data)

    def describe(self) -> str:
        return f"{self.model} at {self.base_url or 'api.openai.com'}"


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
    ok: bool = True
    error: str | None = None
    started: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, a ```json fence, or {...}."""
    text = text.strip()
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
    raise ValueError(f"answer is not JSON ({last_error})")


class LLMClient:
    """Chat and structured calls against one endpoint and model, every call recorded."""

    def __init__(
        self,
        settings: LLMSettings,
        on_call: Callable[[LLMCall], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        import openai

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
        self._sleep = sleep
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=settings.base_url, api_key=key, timeout=settings.timeout, max_retries=0
        )

    def check(self) -> None:
        """Fail early, with the fix, if the endpoint is unreachable or the model unknown."""
        openai = self._openai
        s = self.settings
        where = s.base_url or "api.openai.com"
        try:
            models = [m.id for m in self._client.models.list()]
        except openai.APIConnectionError:
            raise LLMError(
                f"cannot reach the LLM endpoint {where}: check --llm-base-url and that the "
                "server is running"
            ) from None
        except openai.AuthenticationError:
            raise LLMError(f"the endpoint rejected the API key: check ${s.api_key_env}") from None
        except openai.APIStatusError:
            return  # some servers do not list models; the first call will tell
        if models and s.model not in models:
            shown = ", ".join(models[:5])
            raise LLMError(
                f"model {s.model!r} not found at {where}: use --llm-model with one of {shown}"
            )

    # -- plain chat ----------------------------------------------------------------------
    def chat(self, role: str, messages: list[dict[str, str]]) -> str:
        """One chat completion, retried on transient failures; returns the answer text."""
        openai = self._openai
        s = self.settings
        started = time.perf_counter()
        for attempt in range(1, s.max_retries + 2):
            try:
                response = self._client.chat.completions.create(
                    model=s.model,
                    messages=messages,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                )
            except (
                openai.RateLimitError,
                openai.InternalServerError,
                openai.APIConnectionError,
            ) as error:  # APITimeoutError is a subclass
                if attempt > s.max_retries:
                    self._record(role, messages, "", started, attempt, error=str(error))
                    raise LLMError(self._transient_message(error)) from None
                self._sleep(s.backoff * 2 ** (attempt - 1))
                continue
            except openai.NotFoundError:
                self._record(role, messages, "", started, attempt, error="model not found")
                raise LLMError(
                    f"model {s.model!r} not found at {s.base_url or 'api.openai.com'}: check "
                    "--llm-model (list the server's models)"
                ) from None
            except openai.AuthenticationError:
                self._record(role, messages, "", started, attempt, error="authentication")
                raise LLMError(
                    f"the endpoint rejected the API key: check ${s.api_key_env}"
                ) from None
            except openai.APIStatusError as error:
                self._record(role, messages, "", started, attempt, error=str(error))
                raise LLMError(
                    f"the endpoint answered HTTP {error.status_code}: {str(error.message)[:160]}"
                ) from None
            text = (response.choices[0].message.content or "") if response.choices else ""
            usage = response.usage
            self._record(
                role,
                messages,
                text,
                started,
                attempt,
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
            )
            return text
        raise AssertionError("unreachable")

    def _transient_message(self, error: Exception) -> str:
        s = self.settings
        where = s.base_url or "api.openai.com"
        if isinstance(error, self._openai.APIConnectionError):
            return (
                f"cannot reach the LLM endpoint {where} after {s.max_retries + 1} tries: "
                "check --llm-base-url and that the server is running"
            )
        return (
            f"the LLM endpoint {where} kept failing ({type(error).__name__}) after "
            f"{s.max_retries + 1} tries: retry later or use another endpoint"
        )

    def _record(
        self,
        role,
        messages,
        text,
        started,
        attempts,
        error=None,
        prompt_tokens=0,
        completion_tokens=0,
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
            ok=error is None,
            error=error,
        )
        self.calls.append(call)
        self.on_call(call)

    # -- structured answers -----------------------------------------------------------------
    def structured(self, role: str, messages: list[dict[str, str]], schema: type[T]) -> T:
        """An answer parsed as JSON and validated against ``schema``, with repair rounds."""
        conversation = list(messages)
        problem = ""
        for _ in range(self.settings.repair_rounds + 1):
            text = self.chat(role, conversation)
            try:
                return schema.model_validate(extract_json(text))
            except (ValueError, ValidationError) as error:
                problem = _short_error(error)
                conversation = conversation + [
                    {"role": "assistant", "content": text},
                    {
                        "role": "user",
                        "content": (
                            f"Your answer could not be used: {problem}. Answer again with "
                            "only one JSON object matching this schema:\n"
                            + json.dumps(schema.model_json_schema())
                        ),
                    },
                ]
        raise LLMError(
            f"the model's {role} answer failed validation {self.settings.repair_rounds + 1} "
            f"times ({problem}): try a stronger model"
        )

    @property
    def tokens(self) -> int:
        return sum(c.prompt_tokens + c.completion_tokens for c in self.calls)


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
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        return f"{where}: {first['msg']}"
    return str(error)[:200]
