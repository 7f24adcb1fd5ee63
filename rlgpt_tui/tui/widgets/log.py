"""LLM calls and log: every LLM request (role, tokens, latency) and notable engine events."""

from __future__ import annotations

import time
from typing import Any

from textual.widgets import RichLog


class LogPane(RichLog):
    """A running log; LLM calls show role, model, tokens, latency and the answer's start."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(wrap=True, markup=False, **kwargs)
        self.border_title = "LLM calls and log"
        self.llm_calls = 0

    def note(self, text: str) -> None:
        self.write(f"{time.strftime('%H:%M:%S')} {text}")

    def show(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "llm_call":
            self.llm_calls += 1
            state = "ok" if event["ok"] else f"FAILED: {event['error']}"
            answer = event["answer"].strip().replace("\n", " ")[:120]
            self.note(
                f"LLM {event['role']} ({event['model']}): {event['prompt_tokens']}+"
                f"{event['completion_tokens']} tokens, {event['latency_s']:.2f} s, {state}: "
                f"{answer}"
            )
        elif kind == "session_started":
            self.note(f"session started: {event['task']} on {event['env']}, agent {event['agent']}")
        elif kind == "session_resumed":
            self.note(
                f"resumed at iteration {event['iteration']} ({event['total_samples']:,} samples "
                f"done, training checkpoint at {event['training_samples_done']:,})"
            )
        elif kind == "validation_failed":
            self.note(f"code for {event['subaction']} rejected: {event['error']}")
        elif kind == "error":
            self.note(f"ERROR: {event['message']}")
        elif kind == "control":
            self.note(f"engine {event['state']}")
        elif kind == "edit_applied":
            self.note(f"human edit applied: {event['what']} {event['target']}".rstrip())
        elif kind == "session_finished":
            self.note(
                f"finished: {event['reason']}; best success {event['best_success']:.2f}; "
                f"{event['total_samples']:,} samples; {event['tokens']:,} tokens"
            )
