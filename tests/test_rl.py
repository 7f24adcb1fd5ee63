"""Coded actions in the action space, exact sample counting, PPO as a tool, head growth."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch

from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.rl.checkpoints import load_checkpoint
from rlgpt_tui.rl.config import CodedActionSpec, PPOParams, RLConfig
from rlgpt_tui.rl.environment import build_env, coded_actions_for, task_for
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.growth import grow_action_head
from rlgpt_tui.rl.model import make_model
from rlgpt_tui.rl.numpy_policy import NumpyPolicy
from rlgpt_tui.rl.rollout import OwnClockPPO
from rlgpt_tui.rl.train import train
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.runtime import CodedAction, CodedActionLimits
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task

#: the hand-written skill files the tests use
from rlgpt_tui.tasks.statistics import wilson_interval

SKILLS = Path(__file__).resolve().parent / "skills"

GO_TO_TREE = (SKILLS / "go_to_tree.py").read_text()


def walker(steps: int) -> CodedAction:
    source = f"def act(ctx):\n    for _ in range({steps}):\n        yield Action.NOOP\n"
    return validate(f"wait{steps}", source)


def test_action_space_appends_coded_actions() -> None:
    env = CodedActionVecEnv(
        CraftaxWorld(8, seed=0),
        get_task("collect_wood"),
        coded=[walker(3)],
        primitives=["move_left", "move_right", "do"],
    )
    assert env.action_space.n == 4
    assert [e.name for e in env.table] == ["move_left", "move_right", "do", "wait3"]


def test_sample_counting_through_macro_actions_is_exact() -> None:
    world = CraftaxWorld(8, seed=2)
    env = CodedActionVecEnv(
        world,
        get_task("collect_wood").model_copy(update={"horizon": 40}),
        coded=[walker(5), walker(9)],
    )
    env.reset()
    rng = np.random.default_rng(0)
    lengths_done = 0
    for _ in range(60):
        _, _, dones, infos = env.step(rng.integers(0, env.action_space.n, 8))
        lengths_done += sum(infos[i]["episode"]["l"] for i in np.flatnonzero(dones))
    in_progress = int(env.runner._episode_length.sum())
    assert env.samples == world.steps_taken
    assert env.samples == lengths_done + in_progress
    stats = env.coded_usage()["actions"]
    total_coded_steps = sum(s["steps"] for s in stats.values())
    assert total_coded_steps == env.coded_samples
    # every completed call of wait5 took exactly 5 steps unless its episode ended first
    assert set(stats["wait5"]["end_reasons"]) <= {"returned", "episode ended"}


def test_macro_action_runs_for_several_steps_in_one_decision() -> None:
    world = CraftaxWorld(8, seed=3)
    env = CodedActionVecEnv(world, get_task("collect_wood"), coded=[walker(5)])
    env.reset()
    before = world.steps_taken
    env.step(np.full(8, 17))  # everyone picks the coded action
    assert world.steps_taken - before == 5 * 8
    actions = np.zeros(8, dtype=int)
    actions[0] = 17  # one env runs the macro, the others take one primitive step
    before = world.steps_taken
    env.step(actions)
    assert world.steps_taken - before == 5 + 7


def test_broken_coded_action_never_stops_training() -> None:
    source = "def act(ctx):\n    yield Action.NOOP\n    while True:\n        pass\n"
    broken = validate("spin", source, limits=CodedActionLimits(seconds=0.01), dry_run=False)
    crash = validate(
        "crash",
        "def act(ctx):\n    yield 0\n    yield ctx.view.inventory['gold']\n",
        dry_run=False,
    )
    env = CodedActionVecEnv(CraftaxWorld(8, seed=4), get_task("collect_wood"), [broken, crash])
    env.reset()
    for _ in range(4):
        env.step(np.array([17, 18] * 4))
    reasons = env.coded_usage()["actions"]
    assert set(reasons["spin"]["end_reasons"]) <= {"timeout", "loop budget", "episode ended"}
    assert reasons["crash"]["end_reasons"]["error"] >= 1
    assert reasons["crash"]["last_failure"].startswith("error: KeyError: 'gold'")
    assert reasons["spin"]["calls"] == reasons["crash"]["calls"] == 16


def test_grow_action_head_keeps_old_logits() -> None:
    config = RLConfig(task="collect_wood", num_envs=8, samples=100)
    env = build_env(config)
    model = make_model(config, env)
    obs = torch.as_tensor(env.reset())

    def action_logits():
        with torch.no_grad():
            latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(obs))
            return model.policy.action_net(latent)

    before = action_logits()
    grow_action_head(model, 19)
    after = action_logits()
    assert after.shape == (8, 19)
    assert torch.equal(after[:, :17], before)  # the old actions' logits are unchanged
    assert model.policy.get_distribution(obs).distribution.logits.shape == (8, 19)
    assert model.action_space.n == 19
    # training continues with the grown head on an env that offers the coded actions
    grown = config.model_copy(
        update={
            "coded_actions": [
                CodedActionSpec(name="go_to_tree", source=GO_TO_TREE),
                CodedActionSpec(name="go_to_tree2", source=GO_TO_TREE),
            ],
            "samples": 600,
        }
    )
    result = train(grown, model=model)
    assert result.samples >= 600 and result.model.action_space.n == 19


def test_config_validation_names_the_fix() -> None:
    with pytest.raises(ValueError, match="unknown task 'chop'"):
        RLConfig(task="chop")
    with pytest.raises(ValueError, match="unknown env"):
        RLConfig(task="collect_wood", env="minecraft")
    with pytest.raises(ValueError, match="unknown primitive"):
        RLConfig(task="collect_wood", primitives=["jump"])
    with pytest.raises(ValueError, match="identifier"):
        CodedActionSpec(name="go to", source="")


def test_training_and_resuming_leave_no_folder_in_the_temp_dir(tmp_path, monkeypatch) -> None:
    """SB3's default logger makes tempdir/SB3-<time> at every learn(): one per training
    and resume of every session would pile up in /tmp."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    config = RLConfig(
        task="collect_wood",
        num_envs=4,
        samples=256,
        seed=0,
        ppo=PPOParams(n_steps=32, batch_size=64),
        checkpoint_dir=tmp_path / "checkpoint",
    )
    first = train(config)
    first.env.close()
    model, samples = load_checkpoint(config.checkpoint_dir)
    more = config.model_copy(update={"samples": samples + 128})
    resumed = train(more, model=model, samples_done=samples)
    resumed.env.close()
    assert resumed.samples > samples  # the resumed run trained
    assert not list(temp.glob("SB3-*"))


def test_wilson_interval() -> None:
    low, high = wilson_interval(90, 100)
    assert 0.82 < low < 0.84 and 0.94 < high < 0.95


@pytest.mark.slow
def test_ppo_with_coded_action_beats_random_on_collect_wood(tmp_path) -> None:
    config = RLConfig(
        task="collect_wood",
        num_envs=16,
        samples=12_000,
        seed=0,
        coded_actions=[CodedActionSpec(name="go_to_tree", source=GO_TO_TREE)],
        ppo=PPOParams(n_steps=64, batch_size=256),
        checkpoint_dir=tmp_path,
    )
    history = []
    result = train(config, on_metrics=history.append)
    assert result.samples >= 12_000
    assert history and history[-1].samples == result.samples
    assert (tmp_path / "latest.zip").exists()
    trained = evaluate(config, result.model, episodes=32, seed=777)
    random_policy = evaluate(config.model_copy(update={"coded_actions": []}), episodes=32, seed=777)
    assert trained.success_rate >= random_policy.success_rate + 0.2, (trained, random_policy)
    assert trained.success_rate >= 0.8


def one_rollout(config: RLConfig, own_clock: bool, groups: int | None = None):
    """Collect one rollout (no update) with the own-clock collector or SB3's own loop;
    ``groups``: Craftax's env groups (default: its own choice)."""
    env = build_env(config)
    if groups is not None:
        env = CodedActionVecEnv(
            CraftaxWorld(config.num_envs, seed=config.seed, groups=groups),
            task_for(config),
            coded=coded_actions_for(config),
            primitives=config.primitives,
            gamma=config.ppo.gamma,
            seed=config.seed,
        )
    model = make_model(config, env)
    model.numpy_decisions = False  # torch's sampling: the same random stream as SB3's loop
    _, callback = model._setup_learn(10**9)
    collect = model.collect_rollouts if own_clock else super(OwnClockPPO, model).collect_rollouts
    assert collect(env, callback, model.rollout_buffer, config.ppo.n_steps)
    return model.rollout_buffer, env


@pytest.mark.parametrize("groups", [1, 2])
def test_own_clock_rollout_matches_sb3_when_every_action_is_one_step(groups: int) -> None:
    config = RLConfig(
        task="collect_wood", num_envs=8, horizon=12, seed=3, ppo=PPOParams(n_steps=16)
    )
    ours, _ = one_rollout(config, own_clock=True, groups=groups)
    sb3, _ = one_rollout(config, own_clock=False, groups=groups)
    # the same decisions in the same order: ours is SB3's (steps, envs) buffer, flattened
    assert ours.advantages.shape == (16 * 8, 1)
    for name in ("observations", "actions", "rewards", "episode_starts", "advantages", "returns"):
        mine, theirs = getattr(ours, name), getattr(sb3, name)
        np.testing.assert_allclose(mine.reshape(theirs.shape), theirs, rtol=1e-5, atol=1e-6)
    assert sb3.episode_starts[1:].sum() > 0  # episodes ended inside the rollout (horizon 12)


def test_own_clock_rollout_keeps_every_env_stepping() -> None:
    config = RLConfig(
        task="collect_wood",
        num_envs=8,
        seed=1,
        ppo=PPOParams(n_steps=64),
        primitives=["noop", "do"],  # the coded action is a third of the untrained policy
        coded_actions=[CodedActionSpec(name="go_to_tree", source=GO_TO_TREE)],
    )
    envs = {}
    for own_clock in (True, False):
        _, env = one_rollout(config, own_clock)
        envs[own_clock] = env
        assert env.samples == env.world.steps_taken  # every primitive step is one sample
        assert env.decisions == 64 * 8
        assert env.coded_usage()["actions"]["go_to_tree"]["calls"] > 0
        assert not env.busy.any()  # between rollouts no action is in flight
    # envs stepped per batched world step: SB3's loop waits for the longest coded action at
    # every decision (measured: 5.1 of 8); ours waits only at the end of the rollout (7.5)
    ours, theirs = envs[True], envs[False]
    assert ours.samples / ours.batched_steps > 0.85 * config.num_envs
    assert theirs.samples / theirs.batched_steps < 0.75 * config.num_envs


def test_numpy_decisions_follow_the_policys_distribution() -> None:
    config = RLConfig(
        task="collect_wood",
        num_envs=8,
        coded_actions=[CodedActionSpec(name="go_to_tree", source=GO_TO_TREE)],
    )
    env = build_env(config)
    model = make_model(config, env)
    with torch.no_grad():  # a sharper distribution than the initial, nearly uniform one
        model.policy.action_net.weight.mul_(300.0)
    fast = NumpyPolicy.of(model.policy)
    obs = env.reset()[:4]
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(obs)).distribution.probs.numpy()
        values = model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
    assert probs.max() > 0.3 and probs.shape == (4, 18)
    np.testing.assert_allclose(fast.values(obs), values, rtol=1e-4, atol=1e-5)
    rng = np.random.default_rng(0)
    counts = np.zeros_like(probs)
    rows = np.arange(4)
    for _ in range(2000):
        actions, action_values, log_probs = fast(obs, rng)
        counts[rows, actions] += 1
        np.testing.assert_allclose(log_probs, np.log(probs[rows, actions]), atol=1e-4)
        np.testing.assert_allclose(action_values, values, rtol=1e-4, atol=1e-5)
    assert np.abs(counts / 2000 - probs).max() < 0.05  # 4.5 standard errors at most


def test_a_decision_discounts_what_follows_by_gamma_to_its_steps() -> None:
    """A coded call of k steps hands PPO gamma ** k with its reward, and with
    ``discount_per="step"`` the advantage of that decision discounts the next decision's
    value by it (a one-step action: gamma, as SB3 does)."""
    from rlgpt_tui.rl.rollout import _Decisions, decision_advantages

    gamma = 0.99
    env = CodedActionVecEnv(
        CraftaxWorld(4, seed=3), get_task("collect_wood"), coded=[walker(5)], gamma=gamma
    )
    env.reset()
    env.runner.begin(np.arange(4), np.array([17, 17, 0, 0]))  # two wait5 calls, two noops
    while env.runner.busy.any():
        env.runner.advance()
        env.runner.prepare()
    done = env.take_finished()
    env.close()
    by_env = dict(zip(done.envs.tolist(), done.discounts.tolist(), strict=True))
    np.testing.assert_allclose([by_env[i] for i in range(4)], [gamma**5] * 2 + [gamma] * 2)

    # one env: a 5-step call, then a one-step action; values 1, then 2 after the rollout
    rows = _Decisions.empty(2, 1)
    rows.rewards[:] = [0.5, 0.0]
    rows.values[:] = [1.0, 1.0]
    rows.discounts[:] = [gamma**5, gamma]
    lam = 0.95
    advantages = decision_advantages(rows, np.array([2.0]), lam)
    second = 0.0 + gamma * 2.0 - 1.0
    first = 0.5 + gamma**5 * 1.0 - 1.0 + gamma**5 * lam * second
    np.testing.assert_allclose(advantages, [first, second], rtol=1e-6)
