"""Engine settings small enough for tests: 8 envs, tiny PPO budgets, 8 eval episodes.

The target is above any success rate, so a run always does all its iterations: 8 evaluation
episodes can all succeed early on one machine and not on another.
"""

from __future__ import annotations

from rlgpt_tui.engine.engine import EngineSettings


def tiny_settings(**overrides) -> EngineSettings:
    values = dict(
        task="collect_wood",
        num_envs=8,
        max_iterations=2,
        samples_per_iteration=1024,
        eval_episodes=8,
        final_episodes=8,
        critic_runs=2,
        target=1.01,  # never reached: a run does all its iterations on any machine
    )
    return EngineSettings(**(values | overrides))
