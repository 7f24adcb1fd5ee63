"""The task planner: orders the sub-tasks of a long-horizon task, which the engine then runs
as a chain (``run --chain``, ``engine/chain.py``)."""

from rlgpt_tui.agents.planner.base import TaskPlanner
from rlgpt_tui.agents.planner.builtin import BuiltinPlanner
from rlgpt_tui.agents.planner.llm import LLMPlanner

__all__ = ["BuiltinPlanner", "LLMPlanner", "TaskPlanner"]
