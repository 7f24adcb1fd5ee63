"""The builtin fast agent (no LLM): the skill templates as code, and RL that starts from the
script the builtin slow agent planned."""

from __future__ import annotations

from rlgpt_tui.agents.fast.base import FastAgent
from rlgpt_tui.agents.schemas import RLAnswer
from rlgpt_tui.agents.slow.builtin import SCRIPT_SKILL, own_code_name
from rlgpt_tui.library.templates import template_code


class BuiltinFastAgent(FastAgent):
    def write_code(self, task, sub, previous=None, problem=None) -> str:
        code = template_code(sub.name)
        if code is None:
            raise ValueError(f"builtin agent has no skill template for {sub.name!r}")
        return code

    def write_rl(self, task, sub, coded, env: str = "craftax") -> RLAnswer:
        offered = [n for n in sub.high_level_actions if n in coded]
        script = SCRIPT_SKILL if task.scored else own_code_name(task)
        return RLAnswer(
            high_level_actions=offered, start_from=script if script in offered else None
        )
