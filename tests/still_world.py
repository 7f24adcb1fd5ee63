"""A fake World for tests of the runner and the sandbox: no game, one fixed View.

Every env shows the same recorded View whatever it does; the world records the primitives
each env took (``taken``: this episode, ``history``: since ``reset``). The game ends
after ``game_over_after`` steps of an env (never: None).
"""

from __future__ import annotations

import time

import numpy as np

from rlgpt_tui.envs.base import (
    ACHIEVEMENTS,
    INVENTORY_ITEMS,
    OBSERVATION_SIZE,
    StepResult,
    View,
    World,
)
from rlgpt_tui.rl.episodes import run_one_call_each
from rlgpt_tui.skills.runtime import CallRecord, CodedAction, recorded_views


class StillWorld(World):
    name = "still"

    def __init__(
        self, num_envs: int = 1, view: View | None = None, game_over_after: int | None = None
    ):
        self.num_envs = num_envs
        self.view = view or recorded_views()[0]
        self.game_over_after = game_over_after
        self.taken: list[list[int]] = [[] for _ in range(num_envs)]  # this episode's
        self.history: list[list[int]] = [[] for _ in range(num_envs)]  # every episode's

    def _result(self) -> StepResult:
        n = self.num_envs
        limit = self.game_over_after
        return StepResult(
            obs=np.zeros((n, OBSERVATION_SIZE), dtype=np.float32),
            reward=np.zeros(n, dtype=np.float32),
            game_over=np.array([limit is not None and len(t) >= limit for t in self.taken]),
            achievements=np.zeros((n, len(ACHIEVEMENTS)), dtype=bool),
            inventory=np.zeros((n, len(INVENTORY_ITEMS)), dtype=np.int32),
        )

    def reset(self, seed: int) -> StepResult:
        self.taken = [[] for _ in range(self.num_envs)]
        return self._result()

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> StepResult:
        active = np.ones(self.num_envs, dtype=bool) if active is None else active
        for i in np.flatnonzero(active).tolist():
            self.taken[i].append(int(actions[i]))
            self.history[i].append(int(actions[i]))
            self._steps_taken += 1
        return self._result()

    def reset_envs(self, mask: np.ndarray) -> StepResult:
        for i in np.flatnonzero(mask).tolist():
            self.taken[i] = []
        return self._result()

    def views(self, indices: list[int] | None = None) -> list[View]:
        indices = range(self.num_envs) if indices is None else indices
        return [self.view for _ in indices]

    def frame(self, index: int, size: int = 288) -> np.ndarray:
        return np.zeros((size, size, 3), dtype=np.uint8)


def run_call(
    action: CodedAction, steps: int | None = None, envs: int = 1
) -> tuple[list[int], CallRecord, float]:
    """One call of ``action`` in a StillWorld (cut after ``steps`` steps: the game ends):
    the primitives env 0 took, env 0's call record, and the wall-clock seconds."""
    world = StillWorld(envs, game_over_after=steps)
    started = time.perf_counter()
    _, _, records = run_one_call_each(world, action)
    return world.taken[0], records[0], time.perf_counter() - started
