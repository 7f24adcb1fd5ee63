"""Tasks own their measure: a success rate or Crafter's score, end to end on real worlds,
real PPO and a real sessions database."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.cli import main
from rlgpt_tui.engine import events as ev
from rlgpt_tui.envs import make_world
from rlgpt_tui.envs.base import ACHIEVEMENTS, EpisodeEnd
from rlgpt_tui.report.export import export_session
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.episodes import EpisodeRunner, build_action_table, run_episodes
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.train import train
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tasks.catalog import get_task
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.tasks.statistics import crafter_score


def test_a_score_gets_a_bootstrap_interval_and_a_rate_a_wilson_one() -> None:
    rng = np.random.default_rng(3)
    achieved = rng.random((400, 22)) < np.linspace(0.0, 0.9, 22)
    scored = get_task("crafter_score").measurement(np.zeros(400, bool), achieved, ["horizon"])
    assert scored.measure is Measure.CRAFTER_SCORE
    assert scored.value == pytest.approx(crafter_score(achieved.mean(axis=0)))
    low, high = scored.ci95
    assert low < scored.value < high and high - low < 5  # 400 episodes: a narrow interval
    assert scored.achievement_rates["collect_wood"] == 0.0  # the first rate is 0
    few = get_task("crafter_score").measurement(np.zeros(10, bool), achieved[:10])
    assert few.ci95[1] - few.ci95[0] > high - low  # fewer episodes, a wider interval
    rate = get_task("collect_wood").measurement(np.array([1, 1, 0, 1], bool), achieved[:4])
    assert rate.value == 0.75 and rate.score is None and 0.2 < rate.ci95[0] < 0.75


def test_episodes_say_how_they_ended_on_a_real_world() -> None:
    # random primitives on craftax: every episode ends by death (a cause read from its last
    # View) or at the horizon; a goal reached ends as success
    task = get_task("collect_wood").model_copy(update={"horizon": 400})
    world = make_world("craftax", 16, seed=1, task=task.name)
    runner = EpisodeRunner(world, task, build_action_table(None, []), seed=1, reset_ended=False)
    rng = np.random.default_rng(1)
    try:
        outcomes = run_episodes(runner, lambda envs, obs: rng.integers(0, 17, len(envs)), seed=1)
    finally:
        runner.close()
        world.close()
    ends = {o.end for o in outcomes}
    assert len(outcomes) == 16 and len(runner.tally) == 16
    assert all((o.end is EpisodeEnd.SUCCESS) == o.success for o in outcomes)
    assert all(o.end is EpisodeEnd.HORIZON for o in outcomes if o.length == 400)
    assert ends <= set(EpisodeEnd) and ends != {EpisodeEnd.DIED}
    measured = runner.tally.measure(task)
    assert measured.episodes == 16 and sum(measured.ends.values()) == 16


def test_a_survival_counts_the_players_alive_at_the_horizon_on_a_real_world() -> None:
    # random primitives on craftax under the survive task, cut to 250 steps: an episode
    # that reaches the horizon alive is a success and earns the goal's reward of 1; one
    # that dies first is not and earns nothing
    task = get_task("survive_night").model_copy(update={"horizon": 250})
    assert task.goal_text == "alive at step 250" and task.measure is Measure.SUCCESS_RATE
    world = make_world("craftax", 16, seed=4, task=task.name)
    runner = EpisodeRunner(world, task, build_action_table(None, []), seed=4, reset_ended=False)
    rng = np.random.default_rng(4)
    try:
        outcomes = run_episodes(runner, lambda envs, obs: rng.integers(0, 17, len(envs)), seed=4)
    finally:
        runner.close()
        world.close()
    alive = [o for o in outcomes if o.length == 250]
    dead = [o for o in outcomes if o.length < 250]
    assert alive and dead  # random play: some live through 250 steps, some do not
    assert all(o.success and o.end is EpisodeEnd.SUCCESS and o.ret == 1.0 for o in alive)
    assert all(not o.success and o.game_over and o.ret == 0.0 for o in dead)
    assert runner.tally.measure(task).value == pytest.approx(len(alive) / len(outcomes))


@pytest.mark.slow
def test_scored_training_reports_the_score_over_its_training_episodes() -> None:
    config = RLConfig(task="crafter_score", num_envs=8, samples=3000, seed=2)
    result = train(config)
    tally = result.env.runner.tally
    assert len(tally) > 0  # PPO's early policy dies within a few hundred steps
    last = result.history[-1]
    assert last.measure == "crafter_score" and last.value == last.score
    assert last.score == pytest.approx(crafter_score(np.mean(tally.achieved, axis=0)), 1e-3)
    evaluation = evaluate(config, result.model, episodes=4, seed=7)
    assert evaluation.score is not None and 0 <= evaluation.ci_low <= evaluation.ci_high <= 100
    assert set(evaluation.achievement_rates) == set(ACHIEVEMENTS)
    assert sum(evaluation.measurement.ends.values()) == 4
    result.env.close()


@pytest.mark.slow
def test_run_on_a_scored_task_reports_its_crafter_score(tmp_path: Path, capsys) -> None:
    # the two loops on crafter_score with the builtin agent, headless: the printout, the
    # session list, the store and the report all speak of a Crafter score, and the run
    # keeps Crafter's own score over every training episode
    code = main(
        [
            "run",
            "--task",
            "crafter_score",
            "--iterations",
            "1",
            "--max-samples",
            "4096",  # (at 2,048 samples no training episode had ended)
            "--num-envs",
            "8",
            "--eval-episodes",
            "2",
            "--final-episodes",
            "2",
            "--sessions-dir",
            str(tmp_path),
        ]
    )
    printed = " ".join(capsys.readouterr().err.split())  # as read, whatever the line wraps
    assert code == 0, printed
    assert "iteration 1 done: Crafter score" in printed
    assert "result Crafter score" in printed and "all training episodes: Crafter score" in printed
    store = SessionStore(tmp_path)
    session = store.list_sessions()[0]
    events = [ev.event_from_dict(e) for e in store.events(session.id)]
    done = next(e for e in events if isinstance(e, ev.IterationDone))
    finished = events[-1]
    assert isinstance(finished, ev.SessionFinished) and finished.measure == "crafter_score"
    assert done.value == finished.best
    assert session.best == pytest.approx(done.value, abs=1e-3)  # the record keeps 4 decimals
    assert done.evaluation.score == pytest.approx(done.value, abs=1e-3)
    assert session.measure is Measure.CRAFTER_SCORE and session.best_text.startswith("score ")
    assert done.training is not None and finished.run.episodes == done.training.episodes > 0
    assert session.run_score == finished.run.score
    main(["sessions", "list", "--sessions-dir", str(tmp_path)])
    assert session.result is not None and finished.result is not None
    assert session.result_kind == finished.result.kind
    assert f"score {Measure.CRAFTER_SCORE.show(session.result)} [" in capsys.readouterr().out
    text = export_session(store, session.id, "md", tmp_path / "report", with_gif=False).read_text()
    assert "judged by its Crafter score, target 50.5" in text
    assert "Crafter's own definition of its score" in text
    assert "| how episodes ended |" in text and "| collect_wood |" in text
