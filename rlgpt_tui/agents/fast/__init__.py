"""The fast agent: writes the code of coded sub-actions and the RL configuration of learned
ones (``checks.py``: what an LLM's code must pass before it runs)."""

from rlgpt_tui.agents.fast.base import FastAgent
from rlgpt_tui.agents.fast.builtin import BuiltinFastAgent
from rlgpt_tui.agents.fast.llm import LLMFastAgent

__all__ = ["BuiltinFastAgent", "FastAgent", "LLMFastAgent"]
