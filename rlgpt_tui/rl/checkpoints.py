"""A training's checkpoints: ``latest.zip`` (SB3's save of the model) and ``latest.json``
(the samples it was trained on) in one folder, written every few rollouts and when a stop
cuts the training between rollouts (:class:`CheckpointCallback`), read back to resume."""

from __future__ import annotations

import json
import time
from pathlib import Path

from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback

from rlgpt_tui.rl.callbacks import ProgressCallback, TrainingClock
from rlgpt_tui.rl.model import policy_device, quiet
from rlgpt_tui.rl.prior import PriorPolicy
from rlgpt_tui.rl.rollout import OwnClockPPO


def save_checkpoint(model: BaseAlgorithm, directory: Path, samples: int | None = None) -> Path:
    """Write the model to ``directory/latest.zip`` atomically (write then rename).

    ``samples`` (training samples spent so far) goes to ``latest.json`` after the model,
    so a resumed run never counts samples its checkpoint has not seen.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / "latest.partial.zip"
    model.save(partial)
    final = directory / "latest.zip"
    partial.replace(final)
    if samples is not None:
        meta = directory / "latest.partial.json"
        meta.write_text(json.dumps({"samples": samples}))
        meta.replace(directory / "latest.json")
    return final


def checkpoint_samples(directory: Path) -> int | None:
    """The samples the checkpoint in ``directory`` was trained on (None: no checkpoint)."""
    directory = Path(directory)
    meta = directory / "latest.json"
    if not (directory / "latest.zip").exists() or not meta.exists():
        return None
    return int(json.loads(meta.read_text())["samples"])


def load_checkpoint(directory: Path) -> tuple[OwnClockPPO, int] | None:
    """The model in ``directory/latest.zip`` and the samples it was trained on, if any.

    Its policy is a :class:`PriorPolicy`, also where the checkpoint was saved with SB3's
    own ``ActorCriticPolicy`` (by versions before it): the same parameters."""
    samples = checkpoint_samples(directory)
    if samples is None:
        return None
    model = OwnClockPPO.load(
        Path(directory) / "latest.zip",
        device=policy_device(),
        custom_objects={"policy_class": PriorPolicy},
    )
    return quiet(model), samples


class CheckpointCallback(BaseCallback):
    """Saves a checkpoint to ``directory`` every ``every`` rollouts, after the rollout's
    other callbacks; :meth:`save` also when a stop cuts the training between rollouts
    (:attr:`cut_between_rollouts`), so that every sample trained is kept."""

    def __init__(
        self, directory: Path, every: int, progress: ProgressCallback, clock: TrainingClock
    ):
        super().__init__()
        self.directory = Path(directory)
        self.every = every
        self.progress = progress
        self.clock = clock
        self.rollouts = 0

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        if self.rollouts % self.every == 0:
            self.save()

    @property
    def cut_between_rollouts(self) -> bool:
        """A rollout ended, and a callback after it raised before this one ran."""
        return self.progress.rollouts > self.rollouts

    def save(self) -> Path:
        """A checkpoint of the model as trained so far (its time counted)."""
        began = time.perf_counter()
        try:
            return save_checkpoint(self.model, self.directory, self.progress.budget.samples)
        finally:
            self.clock.checkpoints += time.perf_counter() - began
