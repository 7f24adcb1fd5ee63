"""The parts of stable-baselines3 that rl/rollout.py, rl/prior.py and rl/checkpoints.py rely
on beyond its public API. SB3 is pinned (pyproject); when an update changes one of these, a
test here fails first, naming what moved, instead of training going quietly wrong."""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
from stable_baselines3.common.policies import ActorCriticPolicy

from rlgpt_tui.rl.checkpoints import load_checkpoint, save_checkpoint
from rlgpt_tui.rl.prior import PriorPolicy, anchor_to_start, start_log_probs
from rlgpt_tui.rl.rollout import OwnClockPPO, _Decisions


def tiny_ppo(cls: type[PPO] = PPO, policy: str | type[ActorCriticPolicy] = "MlpPolicy") -> PPO:
    env = gym.make("CartPole-v1")
    env.observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float32)
    return cls(policy, env, n_steps=8, batch_size=8, n_epochs=1, seed=0, device="cpu")


def test_rollout_buffer_filled_by_hand_yields_exactly_those_rows() -> None:
    """_fill_buffer writes the buffer's arrays and sets ``pos``/``full``; SB3's ``get`` must
    then hand PPO's update those rows, once each."""
    model = tiny_ppo(OwnClockPPO)
    rows = _Decisions.empty(6, 4)
    rows.obs[:] = np.arange(24, dtype=np.float32).reshape(6, 4)
    rows.actions[:] = [0, 1, 1, 0, 1, 0]
    rows.values[:] = np.linspace(0, 1, 6)
    rows.rewards[:] = 1.0
    rows.envs[:] = 0
    model._fill_buffer(rows, last_values=np.zeros(1, dtype=np.float32))
    batches = list(model.rollout_buffer.get(batch_size=None))
    assert len(batches) == 1
    batch = batches[0]
    order = np.argsort(batch.observations[:, 0].numpy())
    assert np.array_equal(batch.observations.numpy()[order], rows.obs)
    assert np.array_equal(batch.actions.numpy()[order, 0], rows.actions)
    assert np.allclose(batch.old_values.numpy()[order], rows.values)


def test_update_info_buffer_takes_infos_and_dones() -> None:
    """rollout.py reports finished episodes through ``_update_info_buffer(infos, dones)``."""
    params = list(inspect.signature(OnPolicyAlgorithm._update_info_buffer).parameters)
    assert params[:3] == ["self", "infos", "dones"], params
    model = tiny_ppo()
    model._setup_learn(total_timesteps=8)
    model._update_info_buffer([{"episode": {"r": 3.0, "l": 5, "t": 0.0}}], np.array([True]))
    assert [e["r"] for e in model.ep_info_buffer] == [3.0]


def test_anchor_replaces_entropy_by_kl_in_ppo_loss() -> None:
    """prior.py's PriorPolicy overrides ``evaluate_actions`` and relies on PPO's loss using
    its third value as the entropy, weighted by ``ent_coef``; and on
    ``_get_action_dist_from_latent``."""
    assert hasattr(ActorCriticPolicy, "_get_action_dist_from_latent")
    params = list(inspect.signature(ActorCriticPolicy.evaluate_actions).parameters)
    assert params == ["self", "obs", "actions"], params
    train_source = inspect.getsource(PPO.train)
    assert "self.policy.evaluate_actions(" in train_source
    assert "self.ent_coef * entropy_loss" in train_source
    model = tiny_ppo(policy=PriorPolicy)
    anchor_to_start(model, action=1, share=0.9, coef=0.5)
    assert model.ent_coef == 0.5
    obs = torch.zeros((3, 4))
    _, _, negative_kl = model.policy.evaluate_actions(obs, torch.tensor([0, 1, 1]))
    probs = model.policy.get_distribution(obs).distribution.probs
    start = start_log_probs(2, 1, 0.9)
    kl = (probs * (probs.log() - start)).sum(dim=1)
    assert torch.allclose(-negative_kl, kl, atol=1e-5)
    assert (negative_kl <= 0).all()


def test_prior_policy_without_anchor_is_sb3s_mlp_policy() -> None:
    """Unanchored, a PriorPolicy evaluates actions as SB3's own policy does, over the same
    parameters (so the skill library's ``.npz`` weights of either load into the other)."""
    ours, theirs = tiny_ppo(policy=PriorPolicy), tiny_ppo()
    assert ours.policy.state_dict().keys() == theirs.policy.state_dict().keys()
    theirs.policy.load_state_dict(ours.policy.state_dict())
    obs, actions = torch.randn((5, 4)), torch.tensor([0, 1, 1, 0, 1])
    for a, b in zip(
        ours.policy.evaluate_actions(obs, actions),
        theirs.policy.evaluate_actions(obs, actions),
        strict=True,
    ):
        assert a is not None and b is not None and torch.equal(a, b)
    with pytest.raises(TypeError, match="PriorPolicy"):
        anchor_to_start(theirs, action=1, share=0.9, coef=0.5)


def test_checkpoints_of_sb3s_own_policy_load_as_prior_policy(tmp_path) -> None:
    """Checkpoints saved before PriorPolicy hold SB3's ActorCriticPolicy: they load (SB3's
    ``custom_objects``) as a PriorPolicy with the same weights, which can be anchored."""
    old = tiny_ppo(OwnClockPPO)
    save_checkpoint(old, tmp_path, samples=8)
    loaded = load_checkpoint(tmp_path)
    assert loaded is not None
    model, samples = loaded
    assert type(model.policy) is PriorPolicy and samples == 8
    for name, tensor in old.policy.state_dict().items():
        assert torch.equal(model.policy.state_dict()[name].cpu(), tensor.cpu()), name
    anchor_to_start(model, action=1, share=0.9, coef=0.5)
    save_checkpoint(model, tmp_path, samples=16)  # saved anchored: loads unanchored
    again = load_checkpoint(tmp_path)
    assert again is not None and type(again[0].policy) is PriorPolicy
    assert again[0].policy.anchor is None and again[1] == 16


@pytest.mark.parametrize("attribute", ["pos", "full", "buffer_size", "n_envs"])
def test_rollout_buffer_attributes(attribute: str) -> None:
    assert hasattr(tiny_ppo().rollout_buffer, attribute)
