"""LLM calls and log: every LLM request (role, tokens, latency), edits and their outcomes,
pauses and errors, each at the time it was recorded."""

from __future__ import annotations

import json
import time
from typing import Any

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.printer import finished_text
from rlgpt_tui.engine.provenance import written_by
from rlgpt_tui.tui.widgets.searchable import SearchableLog

WHAT = {"plan": "the plan", "code": "code of", "rl_config": "RL config of"}


def describe_edit(what: str, target: str) -> str:
    return f"{WHAT.get(what, what)} {target}".strip()


class LogPane(SearchableLog):
    """A running log; LLM calls show role, model, tokens, latency and the answer's start."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("LLM calls and log", markup=False, **kwargs)
        self.llm_calls = 0
        self.versions: dict[str, int] = {}  # code versions per sub-action so far (vN)

    def note(self, text: str, when: float | None = None) -> None:
        """A line stamped with ``when`` (an event's recorded time), or now."""
        stamp = time.strftime("%H:%M:%S", time.localtime(when if when is not None else None))
        self.add(f"{stamp} {text}")

    def show(self, event: ev.Event) -> None:
        line = self.describe(event)
        if line:
            self.note(line, event.time)

    def describe(self, event: ev.Event) -> str | None:
        match event:
            case ev.LLMCalled():
                self.llm_calls += 1
                state = "ok" if event.ok else f"FAILED: {event.error}"
                answer = event.answer.strip().replace("\n", " ")[:120]
                return (
                    f"LLM {event.role} ({event.model}): {event.prompt_tokens}+"
                    f"{event.completion_tokens} tokens, {event.latency_s:.2f} s, {state}: {answer}"
                )
            case ev.SessionStarted():
                return f"session started: {event.task} on {event.env}, agent {event.agent}"
            case ev.SessionResumed() if event.ended:
                return (
                    f"resumed after iteration {event.iteration + 1}, which had ended the run "
                    f"({event.ended}): the final choice on fresh worlds"
                )
            case ev.SessionResumed():
                return (
                    f"resumed at iteration {event.iteration + 1} ({event.total_samples:,} samples "
                    f"done, training checkpoint at {event.training_samples_done:,})"
                )
            case ev.CodeValidationFailed():
                return f"code for {event.subaction} rejected: {event.error}"
            case ev.RLConfigValidationFailed():
                return f"RL config for {event.subaction} rejected (defaults used): {event.error}"
            case ev.PolicyReused():
                return f"library policy for {event.subaction}: {event.note}"
            case ev.EngineError():
                return f"ERROR: {event.message}"
            case ev.CodeWritten():
                n = self.versions[event.subaction] = self.versions.get(event.subaction, 0) + 1
                if event.source == "human":
                    return f"code {event.subaction} v{n} by a person"
                return f"code {event.subaction} v{n} {written_by(event.source, event.agent)}"
            case ev.PhaseStarted() if event.phase == "world" and ": " in event.detail:
                return f"iteration {event.iteration + 1}: {event.detail}"  # a compilation
            case ev.PhaseStarted() if event.phase in ("training", "evaluating"):
                units = "samples" if event.phase == "training" else "episodes"
                size = f": {event.total:,} {units}" if event.total else ""
                return f"iteration {event.iteration + 1}: {event.phase} {event.detail}{size}"
            case ev.ApprovalGiven():
                if event.what == "mode":
                    return f"approval mode {event.answer}"
                what = f"{event.what} for {event.target}" if event.target else event.what
                return f"approval: {what} {event.answer}"
            case ev.ControlChanged() if event.state == "stopping":
                return "engine stopping: you asked to stop; it stops within one PPO rollout"
            case ev.ControlChanged():
                return f"engine {event.state}"
            case ev.EditQueued():
                origin = {"file": "saved on disk", "app": "in the app"}.get(event.origin, "")
                return (
                    f"edit {event.edit_id} queued ({origin}): "
                    f"{describe_edit(event.what, event.target)}, used at the next safe point"
                )
            case ev.EditApplied():
                where = f" at {event.samples:,} samples" if event.samples is not None else ""
                latest = self.versions.get(event.target)
                version = f"; now v{latest} of {event.target}" if event.version and latest else ""
                if event.what == "rl_config":
                    version = f": {json.loads(event.after) if event.after else ''}"
                number = f"edit {event.edit_id}" if event.edit_id else "human edit"
                return (
                    f"{number} applied: {describe_edit(event.what, event.target)}, "
                    f"{event.at or 'at a safe point'}{where}{version}"
                )
            case ev.EditRefused():
                return (
                    f"edit {event.edit_id} refused: {describe_edit(event.what, event.target)}: "
                    f"{event.reason}"
                )
            case ev.EditDiscarded():
                return (
                    f"edit {event.edit_id} discarded: "
                    f"{describe_edit(event.what, event.target)}: {event.reason}"
                )
            case ev.SessionFinished():
                return finished_text(event)
        return None
