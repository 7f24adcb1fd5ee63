"""The critic backed by an LLM (``assets/prompts/critic*.md``), whose answers are checked
against their evidence and overruled by what was measured."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from rlgpt_tui.agents.critic.base import Critic
from rlgpt_tui.agents.critic.evidence import (
    code_evidence,
    evidence_check,
    runs_summary,
    text_evidence,
)
from rlgpt_tui.agents.critic.overrule import overrule_code, overrule_rl, passed_by_runs
from rlgpt_tui.agents.grounding import both, example_check
from rlgpt_tui.agents.llm_role import LLMRole
from rlgpt_tui.agents.prompts import answer_shape, evaluation_lines, open_ended_text, render
from rlgpt_tui.agents.runs import Execution
from rlgpt_tui.agents.schemas import SubAction, Verdict, VerdictAnswer
from rlgpt_tui.envs.base import describe_view
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import Task
from rlgpt_tui.tasks.measure import Measure


def _round(run: Execution) -> str:
    """``round N of the plan, `` for a call after earlier rounds of a code-alone plan."""
    return f"round {run.round} of the plan, " if run.round > 1 else ""


class LLMCritic(LLMRole, Critic):
    def judge_code(self, task: Task, sub: SubAction, runs: list[Execution]) -> Verdict:
        # its runs (those that held what its recipe uses) made what it is named for
        decided = passed_by_runs(runs, sub.name, self.docs.step(sub.name))
        if decided is not None:
            return decided
        shown = runs[:3]
        executions = (
            runs_summary(runs)
            + "\n\n"
            + "\n\n".join(
                f"Run {i + 1} ({_round(r)}{r.steps} steps, ended: {r.end_reason})\nBEFORE:\n"
                f"{describe_view(r.before)}\nAFTER:\n{describe_view(r.after)}"
                for i, r in enumerate(shown)
            )
        )
        images = []
        if self.client.settings.vision:
            for i, run in enumerate(shown):
                if run.frames is not None:
                    images += [(f"Run {i + 1} before", run.frames[0])]
                    images += [(f"Run {i + 1} after", run.frames[1])]
        subaction = f"{sub.name} (code): {sub.description}"
        # the sub-action is judged by its own description and runs, not by the task's goal
        # (collect_wood runs that all got wood are no failure for placing no table)
        evidence = code_evidence([subaction], shown)
        verdict = self._judge(task, subaction, executions, evidence, images)
        return overrule_code(verdict, runs)

    def judge_rl(self, task, sub, evaluation: EvaluationSummary, target: float) -> Verdict:
        if task.scored:
            measure, value = Measure.CRAFTER_SCORE, evaluation.value
            if value is None:
                value = evaluation.score or 0.0
            said = f"Crafter score {value}; target Crafter score {target} (0-100)."
        else:
            measure, value = Measure.SUCCESS_RATE, evaluation.success_rate
            if value is None:
                value = evaluation.value or 0.0
            said = f"success rate {value}; target success rate {target}."
        executions = "\n".join(
            [
                f"RL policy evaluation: {said}",
                *evaluation_lines(evaluation, measure),
                f"Full summary: {json.dumps(evaluation.to_dict())}",
            ]
        )
        subaction = f"{sub.name} (RL): {sub.description}"
        evidence = text_evidence([task.prompt_text(), subaction, executions])
        verdict = self._judge(task, subaction, executions, evidence)
        rates = evaluation.achievement_rates or {}
        return overrule_rl(verdict, float(value), target, task.measure.label, rates)

    def _judge(
        self, task: Task, subaction: str, executions: str, evidence: set[str], images=()
    ) -> Verdict:
        """The critic's verdict: an answer repeating the example or naming things outside
        ``evidence`` is repaired."""
        messages: list[dict[str, Any]] = render(
            "critic",
            task=task.prompt_text(),
            subaction=subaction,
            environment=self.environment,
            executions=executions,
            schema=answer_shape(VerdictAnswer),
            example=VerdictAnswer.EXAMPLE,
            open_ended=open_ended_text("critic", task),
        )
        if images:  # OpenAI-style content parts: the text, then each labelled frame
            parts: list[dict[str, Any]] = [{"type": "text", "text": messages[-1]["content"]}]
            for label, frame in images:
                parts.append({"type": "text", "text": f"{label}:"})
                parts.append({"type": "image_url", "image_url": {"url": png_data_url(frame)}})
            messages[-1] = {"role": "user", "content": parts}
        check = both(example_check(VerdictAnswer.EXAMPLE), evidence_check(evidence))
        return self.client.structured("critic", messages, VerdictAnswer, check)


def png_data_url(frame) -> str:
    """An RGB array as a ``data:image/png;base64,...`` URL."""
    from PIL import Image  # start-up: only a vision model's critic encodes frames

    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
