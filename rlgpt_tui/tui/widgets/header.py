"""The session line: session, task, agent, iteration, samples, tokens, elapsed time."""

from __future__ import annotations

import time
from typing import Any

from textual.widgets import Static


class SessionHeader(Static):
    """Updated from events; the elapsed time ticks once a second while live."""

    def __init__(self, session_id: int | None, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.session_id = session_id
        self.task_name = self.env_name = self.agent = "-"
        self.iteration = 0
        self.samples = 0
        self.tokens = 0
        self.state = "starting"
        self.started = time.monotonic()
        self.elapsed: float | None = None  # fixed when replaying or finished

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_text)
        self.refresh_text()

    def show(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        self.agent = event.get("agent", self.agent)
        self.iteration = event.get("iteration", self.iteration)
        if kind == "session_started":
            self.task_name, self.env_name, self.state = event["task"], event["env"], "running"
        elif kind == "training_progress" and self.state not in ("pausing", "paused"):
            self.state = "training"
        elif kind == "iteration_done":
            self.samples, self.tokens = event["total_samples"], event["tokens"]
        elif kind == "llm_call":
            self.tokens += event["prompt_tokens"] + event["completion_tokens"]
        elif kind == "control":
            self.state = event["state"]
        elif kind == "session_finished":
            self.state = f"finished: {event['reason']}"
            self.samples, self.tokens = event["total_samples"], event["tokens"]
        self.refresh_text()

    def freeze(self, elapsed: float | None = None) -> None:
        """Stop the clock (a replay, or a finished run)."""
        self.elapsed = elapsed if elapsed is not None else time.monotonic() - self.started
        self.refresh_text()

    def refresh_text(self) -> None:
        seconds = self.elapsed if self.elapsed is not None else time.monotonic() - self.started
        minutes, secs = divmod(int(seconds), 60)
        label = "builtin agent (no LLM)" if self.agent == "builtin" else self.agent
        self.update(
            f"[b]session {self.session_id if self.session_id is not None else '-'}[/b]  "
            f"{self.task_name} on {self.env_name}  |  {label}  |  iteration {self.iteration}  |  "
            f"samples {self.samples:,}  |  tokens {self.tokens:,}  |  "
            f"{minutes:02d}:{secs:02d}  |  {self.state}"
        )
