"""Budgets and targets of one engine run, and where its training checkpoints go."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from threading import Thread
from typing import Any

from rlgpt_tui.envs import prepare_worlds, world_info
from rlgpt_tui.recorded import current_settings
from rlgpt_tui.rl.config import world_groups
from rlgpt_tui.session_settings import SessionSettings
from rlgpt_tui.tasks.catalog import Task


@dataclass
class EngineSettings:
    """Budgets and targets of one engine run. The settings a person gives (``run``'s flags,
    the app's form) take their defaults from :class:`~rlgpt_tui.session_settings.
    SessionSettings`, which checks them; ``num_envs`` is craftax's default here (the CLI and
    the form take the chosen world's)."""

    task: str
    env: str = "craftax"
    num_envs: int = 64
    seed: int = SessionSettings.default("seed")
    max_iterations: int = SessionSettings.default("iterations")
    target: float | None = None  # in the task's measure; None: its default (0.9, or 50.5)
    samples_per_iteration: int | None = None  # None: 30,000; scored tasks share the budget
    max_samples: int = SessionSettings.default("max_samples")
    max_tokens: int | None = None
    max_repairs: int = 2
    eval_episodes: int = SessionSettings.default("eval_episodes")
    final_episodes: int | None = None  # the final choice's fresh episodes (None: 64; 32 scored)
    critic_runs: int = 8
    artifacts_dir: str | None = None  # checkpoints go here (a session's folder)
    checkpoint_every: int = 2  # rollouts between training checkpoints
    tensorboard_dir: str | None = None  # TensorBoard runs go here (see tensorboard_folder)

    @classmethod
    def from_recorded(cls, data: dict[str, Any]) -> EngineSettings:
        """Settings as a session recorded them (any version's: :mod:`rlgpt_tui.recorded`)."""
        return cls(**current_settings(data))

    def target_for(self, task: Task) -> float:
        """The target in ``task``'s measure."""
        return self.target if self.target is not None else task.measure.default_target

    def iteration_budget(self, task: Task) -> int:
        """Training samples per iteration: as set, else 30,000; a scored task (open-ended
        play, judged at the whole budget) spreads the budget over its iterations."""
        if self.samples_per_iteration is not None:
            return self.samples_per_iteration
        if task.scored:
            return max(self.max_samples // max(self.max_iterations, 1), 1)
        return 30_000

    def prepare_next_world(self, trains_first: bool) -> Thread:
        """Prepare, on a background thread (:func:`rlgpt_tui.envs.prepare_worlds`), the
        world this run needs next but not now: the training's (and its evaluations') of
        ``num_envs`` envs while the plan's code is tried, or the critic runs' of
        ``critic_runs`` while a plan without code trains (the caller builds the one it needs
        now: no two threads build it). Each size is prepared once per process."""
        critic = (self.critic_runs, 1)
        training = (self.num_envs, world_groups(self.num_envs))
        return prepare_worlds(self.env, [critic] if trains_first else [training])

    def prepare_first_worlds(self) -> Thread:
        """At the start of a run: set up the world's backend here (its imports, Python
        work that would only compete for the GIL on another thread), then prepare the
        training's world and the critic runs' on a background thread, whose loading of
        kernels (off the GIL) overlaps the imports and set-up the run does meanwhile
        (torch, the session, the plan). Each size is prepared once per process: the
        engine's later :meth:`prepare_next_world` finds them under way or done."""
        world_info(self.env).cls.load()
        training = (self.num_envs, world_groups(self.num_envs))
        return prepare_worlds(self.env, [training, (self.critic_runs, 1)])


def checkpoint_folder(artifacts_dir: str | None, iteration: int, subaction: str) -> Path | None:
    """Where the training run of ``subaction`` in ``iteration`` keeps its checkpoints."""
    if not artifacts_dir:
        return None
    return Path(artifacts_dir) / "checkpoints" / f"iter{iteration}-{subaction}"


def tensorboard_folder(root: str | None, iteration: int, subaction: str) -> Path | None:
    """The TensorBoard run of ``subaction``'s training in ``iteration`` (``it1-NAME`` for
    the first), in ``root``: a session's folder (``session-ID-TASK``, a chain stage's below it)
    in the ``--tensorboard DIR``. None: no TensorBoard."""
    if not root:
        return None
    return Path(root) / f"it{iteration + 1}-{subaction}"


def session_tensorboard(settings: EngineSettings, session_id: int) -> str | None:
    """Session ``session_id``'s folder of TensorBoard runs (``session-ID-TASK``) in the
    ``--tensorboard DIR`` its ``settings`` name, or None."""
    root = settings.tensorboard_dir
    return str(Path(root) / f"session-{session_id}-{settings.task}") if root else None
