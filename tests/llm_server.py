"""A local OpenAI-compatible HTTP server serving scripted replies (the allowed stand-in).

Real HTTP on 127.0.0.1, driven by the real ``openai`` client. Each request to
``/v1/chat/completions`` takes the next scripted step, or asks ``responder`` when the
script is empty. A step is a dict: ``{"content": str}``, ``{"status": 429}``,
``{"delay": seconds, "content": str}`` or ``{"drop": True}`` (close without answering);
``{"status": 429, "headers": {"Retry-After": "2"}}`` sends those headers too. ``arrived``
holds each chat request's arrival time (``time.monotonic()``).
Misbehaving servers: ``{"raw": bytes, "content_type": str}`` (any body),
``{"body": obj}`` (any JSON body, e.g. without ``choices``), ``{"drip": seconds}`` (a body
sent one byte every ``drip`` seconds, for ever), ``{"flood": True}`` (an endless chunked
body), ``{"usage": obj}`` (replaces the token counts of a normal answer).

``response_format``: "accept" (default: the schema is taken, and recorded in ``requests``)
or "reject" (HTTP 400 for any request that carries one, as older servers answer).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]


class ScriptedLLMServer:
    def __init__(
        self,
        model: str = "scripted-model",
        responder: Responder | None = None,
        response_format: str = "accept",
    ):
        self.model = model
        self.response_format = response_format
        self.models_page: tuple[bytes, str] | None = None  # (body, content type) for GET
        self.script: list[dict[str, Any]] = []
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.arrived: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(
                self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                # the client may have given up waiting (its deadline), as it should
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if server.models_page is not None:  # e.g. a web page instead of a model list
                    data, kind = server.models_page
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200,
                        {
                            "object": "list",
                            "data": [
                                {
                                    "id": server.model,
                                    "object": "model",
                                    "created": 0,
                                    "owned_by": "test",
                                }
                            ],
                        },
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.arrived.append(time.monotonic())
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if body.get("model") != server.model:
                    self._send(
                        404,
                        {
                            "error": {
                                "message": f"model {body.get('model')} not found",
                                "type": "invalid_request_error",
                            }
                        },
                    )
                    return
                if "response_format" in body and server.response_format == "reject":
                    self._send(400, {"error": {"message": "response_format is not supported"}})
                    return
                step = server.script.pop(0) if server.script else None
                if step is None:
                    step = {"content": server.responder(body["messages"])}
                if self._misbehave(step):
                    return
                if step.get("drop"):
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if "delay" in step:
                    time.sleep(step["delay"])
                if "status" in step:
                    error = {"error": {"message": f"scripted {step['status']}"}}
                    self._send(step["status"], error, step.get("headers"))
                    return
                content = step["content"]
                prompt_tokens = sum(len(str(m["content"]).split()) for m in body["messages"])
                usage = step.get("usage") or {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": len(content.split()),
                    "total_tokens": prompt_tokens + len(content.split()),
                }
                self._send(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": server.model,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": usage,
                    },
                )

            def _misbehave(self, step: dict[str, Any]) -> bool:
                """Serve a misbehaving step; False for a normal one."""
                try:
                    if "raw" in step or "body" in step:
                        data = step["raw"] if "raw" in step else json.dumps(step["body"]).encode()
                        self.send_response(200)
                        kind = step.get("content_type", "application/json")
                        self.send_header("Content-Type", kind)
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return True
                    if "drip" in step:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", "1000000")
                        self.end_headers()
                        while not server.stopping.is_set():
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            server.stopping.wait(step["drip"])
                        return True
                    if step.get("flood"):
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        chunk = b"[" * 65536
                        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
                        while not server.stopping.is_set():
                            self.wfile.write(frame)
                        return True
                except (BrokenPipeError, ConnectionResetError):
                    return True  # the client hung up, as it should
                return False

        self.stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        # a short poll: shutdown() waits out one poll, and tests start and stop many servers
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
