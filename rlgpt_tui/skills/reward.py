"""Dense reward code ``def reward(prev, now) -> float``: validated and run in sandbox workers.

The episode runner's workers call it on every step of every env (budgeted like coded
actions: ``ticks`` loop iterations and ``seconds`` per call); a call that fails gives 0 and
is counted by reason, and after 1,000 failures the code is switched off for the run. Values
are clipped to +-10.
"""

from __future__ import annotations

import threading

from rlgpt_tui.sandbox import validate_reward

_passed: set[tuple[str, int, float]] = set()  # reward code validated in this process
_passed_lock = threading.Lock()


class RewardCode:
    """Reward code that passed validation (allow-lists, a dry run on recorded Views).

    The same source and budgets are validated once per process (the engine checks an
    agent's reward code before training; building the training and evaluation envs then
    takes it as it is)."""

    def __init__(self, source: str, ticks: int = 5_000, seconds: float = 0.05):
        key = (source, ticks, seconds)
        with _passed_lock:
            known = key in _passed
        if not known:
            validate_reward(source, ticks, seconds)
            with _passed_lock:
                _passed.add(key)
        self.source = source
        self.ticks = ticks
        self.seconds = seconds
