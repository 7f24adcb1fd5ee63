"""A training's TensorBoard run (``--tensorboard DIR``): SB3's logger writing on the
training's samples (:class:`SampleAxisLogger`), this app's rollout scalars
(:class:`TensorBoardCallback`), and the evaluation that ends the run
(:func:`log_evaluation`)."""

from __future__ import annotations

from pathlib import Path

from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, make_output_format

from rlgpt_tui.rl.callbacks import ProgressCallback
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.model import quiet
from rlgpt_tui.rl.progress import TrainingMetrics

#: how to install what ``tensorboard_dir`` (``--tensorboard DIR``) needs
TENSORBOARD_INSTALL = "pip install 'rlgpt-tui[tensorboard]'"


def require_tensorboard() -> None:
    """Raise :class:`TensorBoardUnavailable` (naming the install) without the tensorboard
    package."""
    try:
        import tensorboard  # noqa: F401 - optional: the tensorboard extra
    except ImportError:
        raise TensorBoardUnavailable(
            f"TensorBoard logging needs the tensorboard package: {TENSORBOARD_INSTALL}"
        ) from None


class TensorBoardUnavailable(ValueError):
    """A TensorBoard folder was given, and the tensorboard package is not installed."""


class SampleAxisLogger(Logger):
    """SB3's logger writing TensorBoard event files into one run's folder, on the training's
    samples (primitive env steps, as everywhere in this app; SB3's own step counts
    decisions, and a coded action is one decision of many steps)."""

    def __init__(self, folder: Path):
        require_tensorboard()
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(str(folder), [make_output_format("tensorboard", str(folder))])
        self.folder = folder
        self.samples = 0  # set by TensorBoardCallback before each of SB3's dumps
        self.layout_written = False

    def dump(self, step: int = 0) -> None:
        super().dump(self.samples)

    @property
    def writer(self):
        """torch's SummaryWriter under SB3's TensorBoard format."""
        return self.output_formats[0].writer


class TensorBoardCallback(BaseCallback):
    """After every rollout, this app's scalars of its metrics (the coded actions' share of
    decisions, Crafter's score) to the model's :class:`SampleAxisLogger`, at its samples;
    SB3 dumps them with its own after the rollout. Nothing without one."""

    def __init__(self, progress: ProgressCallback):
        super().__init__()
        self.progress = progress

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.record(self.progress.latest)

    def record(self, metrics: TrainingMetrics) -> None:
        board = self.model.logger
        if not isinstance(board, SampleAxisLogger):
            return
        board.samples = metrics.samples
        board.record("rollout/coded_decision_share", metrics.coded_decision_share)
        if metrics.score is not None:
            board.record("rollout/crafter_score", metrics.score)


def log_to_tensorboard(model: PPO, folder: Path) -> None:
    """From now on ``model``'s PPO metrics (SB3's train/* and rollout/* scalars) go to the
    TensorBoard run ``folder``; an earlier run's files are closed."""
    old = getattr(model, "_logger", None)
    if isinstance(old, SampleAxisLogger):
        if old.folder == Path(folder):
            return
        old.close()
    model.set_logger(SampleAxisLogger(Path(folder)))


def log_evaluation(model: PPO | None, evaluation: EvalResult) -> None:
    """Write ``evaluation`` (the task's measure, its 95% interval, its episodes) to the
    TensorBoard run of ``model``'s training, at the samples it was trained on, and end
    that run (its files closed; a later training opens its own). Nothing without one."""
    board = getattr(model, "_logger", None)
    if model is None or not isinstance(board, SampleAxisLogger):
        return
    measure = evaluation.measurement.measure.value
    if not board.layout_written:  # TensorBoard's Custom Scalars tab: the value in its band
        band = ["Margin", [f"eval/{measure}", "eval/ci95_low", "eval/ci95_high"]]
        board.writer.add_custom_scalars({"evaluation": {f"{measure} (95% CI)": band}})
        board.layout_written = True
    board.record(f"eval/{measure}", evaluation.value)
    board.record("eval/ci95_low", evaluation.ci_low)
    board.record("eval/ci95_high", evaluation.ci_high)
    board.record("eval/episodes", evaluation.episodes)
    board.record("eval/mean_length", evaluation.mean_length)
    board.dump()
    board.close()
    quiet(model)
