"""Where a recorded run stopped, rebuilt from its events, so the engine can continue it.

Finished iterations are kept as they were (plan, verdicts, success, samples). The
unfinished iteration keeps its plan and the sub-actions already judged; a training run it
had started continues from that run's last checkpoint with the same RLConfig.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt_tui.agents.base import IterationFeedback
from rlgpt_tui.agents.schemas import Plan, Verdict


@dataclass
class ResumeState:
    """What the engine needs to continue a run: its history and the unfinished iteration."""

    next_iteration: int = 0
    history: list[IterationFeedback] = field(default_factory=list)
    total_samples: int = 0
    best: float = 0.0
    tokens: int = 0
    code: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None  # the unfinished iteration's plan, if it had one
    judged: dict[str, tuple[str, Verdict]] = field(default_factory=dict)
    training: dict[str, Any] | None = None  # {"subaction", "rl_config"} of a started run

    @classmethod
    def from_events(cls, events: list[dict[str, Any]]) -> ResumeState:
        """Rebuild from stored ``Event.to_dict()`` records of one run, oldest first."""
        starts = [i for i, e in enumerate(events) if e["kind"] == "session_started"]
        run = events[starts[-1] :] if starts else events
        state = cls(tokens=sum(_tokens(e) for e in events))
        plans: dict[int, Plan] = {}
        verdicts: dict[int, dict[str, Verdict]] = {}
        code_by_iteration: dict[int, dict[str, str]] = {}
        training: dict[int, dict[str, Any]] = {}
        done: list[dict[str, Any]] = []
        for e in run:
            i = e["iteration"]
            match e["kind"]:
                case "plan_proposed":
                    plans[i] = Plan.model_validate(e["plan"])
                    verdicts[i], code_by_iteration[i] = {}, {}
                    training.pop(i, None)
                case "subaction_done":
                    verdict = Verdict(
                        success=e["success"], reason=e["reason"], suggestion=e["suggestion"]
                    )
                    verdicts.setdefault(i, {})[e["subaction"]] = verdict
                    if e["mode"] == "code":
                        code_by_iteration.setdefault(i, {})[e["subaction"]] = e["code"]
                case "training_started" if e.get("rl_config"):
                    training[i] = {"subaction": e["subaction"], "rl_config": e["rl_config"]}
                case "iteration_done":
                    done.append(e)
        for e in done:
            i = e["iteration"]
            state.history.append(
                IterationFeedback(
                    i, plans[i], dict(verdicts.get(i, {})), e["success_rate"], e["samples"]
                )
            )
        for i in sorted(code_by_iteration):
            state.code.update({n: c for n, c in code_by_iteration[i].items() if c})
        if done:
            state.next_iteration = done[-1]["iteration"] + 1
            state.total_samples = done[-1]["total_samples"]
            state.best = max(e["success_rate"] for e in done)
        i = state.next_iteration
        state.plan = plans.get(i)
        if state.plan is not None:
            judged = code_by_iteration.get(i, {})
            state.judged = {n: (c, verdicts[i][n]) for n, c in judged.items()}
            state.training = training.get(i)
        return state

    def training_samples_done(self, checkpoint_dir: Callable[[int, str], Path | None]) -> int:
        """Samples the cut-off training run had checkpointed (0 if none)."""
        if self.training is None:
            return 0
        directory = checkpoint_dir(self.next_iteration, self.training["subaction"])
        meta = directory / "latest.json" if directory else None
        if meta is None or not meta.exists():
            return 0
        return int(json.loads(meta.read_text())["samples"])


def _tokens(event: dict[str, Any]) -> int:
    if event["kind"] != "llm_call":
        return 0
    return int(event["prompt_tokens"]) + int(event["completion_tokens"])
