"""``--tensorboard DIR``: PPO's metrics (SB3's train/* and rollout/* scalars) and the
evaluations land in TensorBoard runs there, one per training, read back with TensorBoard's
own reader; without the tensorboard package, a one-line error naming the install."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rlgpt_tui.cli import main
from rlgpt_tui.rl.config import PPOParams, RLConfig
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.tensorboard import SampleAxisLogger, log_evaluation
from rlgpt_tui.rl.train import train
from rlgpt_tui.store import SessionStore

INSTALL = "pip install 'rlgpt-tui[tensorboard]'"


def scalars(run: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar tag of a TensorBoard run folder: its (step, value) points."""
    reader = EventAccumulator(str(run))
    reader.Reload()
    return {
        tag: [(e.step, e.value) for e in reader.Scalars(tag)] for tag in reader.Tags()["scalars"]
    }


@pytest.mark.slow
def test_training_writes_ppo_losses_and_each_evaluation_on_the_sample_axis(tmp_path) -> None:
    run = tmp_path / "board" / "collect_wood-seed0"
    config = RLConfig(
        task="collect_wood",
        num_envs=4,
        samples=256,
        seed=0,
        ppo=PPOParams(n_steps=32, batch_size=64),
        tensorboard_dir=run,
    )
    first = train(config)
    evaluation = evaluate(config, first.model, episodes=4, env=first.env)
    log_evaluation(first.model, evaluation)
    assert not isinstance(first.model.logger, SampleAxisLogger)  # the run ended, closed
    more = config.model_copy(update={"samples": 512})  # the same run, trained on
    second = train(more, model=first.model, env=first.env, samples_done=first.samples)
    again = evaluate(more, second.model, episodes=4, env=second.env)
    log_evaluation(second.model, again)
    second.env.close()

    found = scalars(run)
    for tag in ("train/loss", "train/value_loss", "train/entropy_loss", "time/fps"):
        assert found.get(tag), tag
    # one point per evaluation, at the samples the policy had been trained on
    points = found["eval/success_rate"]
    assert [step for step, _ in points] == [first.samples, second.samples]
    assert [value for _, value in points] == pytest.approx([evaluation.value, again.value])
    assert [v for _, v in found["eval/episodes"]] == [4, 4]
    low, high = found["eval/ci95_low"][0][1], found["eval/ci95_high"][0][1]
    assert low <= evaluation.value <= high and low < high
    # PPO's scalars on the samples axis (primitive steps), within the budget
    losses = [step for step, _ in found["train/loss"]]
    assert losses == sorted(losses) and losses[0] > 0 and losses[-1] == second.samples


def test_tensorboard_without_the_package_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # as if not installed
    board, sessions = tmp_path / "board", tmp_path / "sessions"
    for command in (
        ["train", "--task", "collect_wood", "--steps", "64"],
        ["run", "--task", "collect_wood", "--max-samples", "64"],
    ):
        code = main([*command, "--sessions-dir", str(sessions), "--tensorboard", str(board)])
        error = capsys.readouterr().err
        assert code == 2 and INSTALL in error and len(error.strip().splitlines()) == 1, error
    assert not board.exists()
    assert not list(sessions.glob("train-*")) and not SessionStore(sessions).list_sessions()


def test_the_new_session_form_names_the_install_without_tensorboard(tmp_path, monkeypatch):
    from rlgpt_tui.tui.app import RlgptApp

    monkeypatch.setitem(sys.modules, "tensorboard", None)

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("n")
            app.screen.query_one("#tb").value = str(tmp_path / "board")
            await pilot.press("ctrl+s")
            assert INSTALL in str(app.screen.query_one("#form-error").render())

    asyncio.run(scenario())
    assert not SessionStore(tmp_path).list_sessions() and not (tmp_path / "board").exists()


@pytest.mark.slow
def test_run_writes_one_tensorboard_run_per_training_of_the_session(tmp_path) -> None:
    board, sessions = tmp_path / "board", tmp_path / "sessions"
    flags = ["--iterations", "2", "--samples-per-iteration", "1024", "--num-envs", "8"]
    flags += ["--eval-episodes", "8", "--final-episodes", "8", "--target", "1.0"]
    code = main(["run", "--task", "collect_wood", *flags, "--sessions-dir", str(sessions),
                 "--tensorboard", str(board)])  # fmt: skip
    assert code == 0
    store = SessionStore(sessions)
    (session,) = store.list_sessions()
    trainings = [e for e in store.events(session.id) if e["kind"] == "training_started"]
    expected = {f"it{e['iteration'] + 1}-{e['subaction']}" for e in trainings}
    folder = board / f"session-{session.id}-collect_wood"
    assert {p.name for p in folder.iterdir()} == expected and trainings
    for name in expected:
        found = scalars(folder / name)
        assert found.get("train/loss") and found.get("rollout/ep_len_mean"), name
        assert len(found["eval/success_rate"]) == 1, name  # the training's evaluation
