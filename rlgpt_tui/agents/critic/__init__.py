"""The critic: judges each sub-action, coded from its sampled runs, learned from its
evaluation (``evidence.py``: what it is shown and may name; ``overrule.py``: the measured
figure's last word over its verdicts)."""

from rlgpt_tui.agents.critic.base import Critic
from rlgpt_tui.agents.critic.builtin import BuiltinCritic
from rlgpt_tui.agents.critic.llm import LLMCritic

__all__ = ["BuiltinCritic", "Critic", "LLMCritic"]
