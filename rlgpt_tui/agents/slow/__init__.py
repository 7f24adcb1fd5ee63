"""The slow agent: decomposes a task into sub-actions, each coded or learned with RL, and
revises the plan from each iteration's feedback (``checks.py``: what an LLM's plan must
pass)."""

from rlgpt_tui.agents.slow.base import IterationFeedback, SlowAgent
from rlgpt_tui.agents.slow.builtin import BuiltinSlowAgent
from rlgpt_tui.agents.slow.llm import LLMSlowAgent

__all__ = ["BuiltinSlowAgent", "IterationFeedback", "LLMSlowAgent", "SlowAgent"]
