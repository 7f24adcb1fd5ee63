"""The HTTP part of an LLM call: the openai SDK client of one endpoint, each of its HTTP
tries held to a total deadline (a server that drips one byte at a time cannot hold a call),
the response body read up to a cap and checked for the shape of a chat completion."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from rlgpt_tui.llm.answers import MAX_ANSWER_CHARS, MAX_JSON_DEPTH
from rlgpt_tui.text import json_depth, safe_text

MAX_RESPONSE_BYTES = 4_000_000  # one completion; more is a misbehaving server
DEADLINE_GRACE = 1.0  # seconds past ``timeout`` before a try is cut (the SDK's timeout first)
RETRIED_STATUSES = (408, 409, 429)  # and 5xx: the statuses the openai SDK tries again


class Deadline(Exception):
    """A request ran past its total deadline."""


class TooLarge(Exception):
    """A response body passed MAX_RESPONSE_BYTES."""


class BadResponse(Exception):
    """A response body that is not a chat completion; the message says what is wrong."""


def import_httpx() -> Any:
    # start-up and version: the httpx the installed openai uses, loaded with the first client
    try:
        import httpx2 as httpx  # what newer openai releases use
    except ImportError:  # pragma: no cover - older openai releases
        import httpx  # type: ignore[no-redef]
    return httpx


class TryClock:
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


def _clocked_transport(httpx: Any, clock: TryClock) -> Any:
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


class Endpoint:
    """The openai SDK client of one endpoint, doing its own HTTP retries over a transport
    that times each try (:class:`TryClock`) for the total deadline of ``timeout`` seconds."""

    def __init__(
        self,
        openai: Any,
        httpx: Any,
        base_url: str | None,
        api_key: str,
        timeout: float,
        max_retries: int,
    ):
        self._openai = openai
        self._httpx = httpx
        self._base_url = base_url
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self.client = self._new_client()

    def _new_client(self) -> Any:
        self.clock = TryClock()
        transport = _clocked_transport(self._httpx, self.clock)
        return self._openai.OpenAI(
            base_url=self._base_url,
            api_key=self._api_key,
            timeout=self._timeout,
            max_retries=self._max_retries,
            http_client=self._openai.DefaultHttpxClient(transport=transport),
        )

    def within_deadline(self, work: Callable[[], Any]) -> Any:
        """``work()`` in a helper thread, each of its HTTP tries given at most ``timeout``
        seconds in all (plus a little, so that the SDK's own per-read timeout, which it
        retries, fires first where it can).

        On overrun the HTTP client is replaced and the old one closed (which drops the
        stuck connection); the helper thread ends when its socket does.
        """
        box: dict[str, Any] = {}
        clock = self.clock
        clock.reset()
        allowed = self._timeout + DEADLINE_GRACE

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
                stuck, self.client = self.client, self._new_client()
                threading.Thread(target=stuck.close, daemon=True).start()
                raise Deadline
        if "error" in box:
            raise box["error"]
        return box["value"]

    def post(self, request: dict[str, Any]) -> tuple[str, bytes]:
        """One chat-completion request: (content type, body), the body read up to the cap."""
        create = self.client.chat.completions.with_streaming_response.create
        with create(**request) as response:
            content_type = response.headers.get("content-type", "")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise TooLarge
            return content_type, bytes(body)


def completion_parts(body: bytes, content_type: str) -> tuple[str, int, int]:
    """(answer text, prompt tokens, completion tokens) from a response body; raises
    BadResponse saying what is wrong with it."""
    if "json" not in content_type.lower():
        raise BadResponse(f"answered with content type {content_type or 'none'!r}, not JSON")
    text = body.decode("utf-8", errors="replace")
    if json_depth(text) > MAX_JSON_DEPTH:
        raise BadResponse(f"sent JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(text)
    except ValueError:
        raise BadResponse("sent a body that is not JSON") from None
    if not isinstance(data, dict):
        raise BadResponse(f"sent a JSON {type(data).__name__}, not a completion object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadResponse("sent a completion without choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise BadResponse("sent a completion whose message is null")
    content = message.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise BadResponse(f"sent message content of type {type(content).__name__}, not text")
    prompt_tokens, completion_tokens = _token_counts(data.get("usage") or {})
    return safe_text(content, MAX_ANSWER_CHARS * 2), prompt_tokens, completion_tokens


def _token_counts(usage: Any) -> tuple[int, int]:
    """(prompt tokens, completion tokens) of a completion's ``usage``: absent counts are 0."""
    if not isinstance(usage, dict):
        raise BadResponse("sent usage that is not an object")
    tokens = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name, 0)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if value is None:
            value = 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise BadResponse(f"sent usage.{name} = {str(value)[:40]!r}, not a token count")
        tokens.append(value)
    return tokens[0], tokens[1]
