"""MineDojo, run out of process in its own interpreter (see docs/minedojo.md)."""

from rlgpt_tui.envs.minedojo.actions import PRIMITIVES
from rlgpt_tui.envs.minedojo.process import (
    MineDojoError,
    WorkerCrashed,
    WorkerProcess,
    WorkerTimeout,
)
from rlgpt_tui.envs.minedojo.tasks import MineDojoTask, load_minedojo_tasks
from rlgpt_tui.envs.minedojo.world import MineDojoWorld, minedojo_success

__all__ = [
    "PRIMITIVES",
    "MineDojoError",
    "MineDojoTask",
    "MineDojoWorld",
    "WorkerCrashed",
    "WorkerProcess",
    "WorkerTimeout",
    "load_minedojo_tasks",
    "minedojo_success",
]
