"""Grow a trained PPO policy's action head when coded actions are added (SB3 has no API)."""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.distributions import make_proba_distribution


def grow_action_head(model: PPO, new_actions: int, init_scale: float = 0.01) -> None:
    """Give ``model`` ``new_actions`` discrete actions, keeping the old actions' weights.

    The old rows of the action layer are copied unchanged, so the old actions' logits are
    the same for every observation; the new rows start small (SB3's own init gain for the
    action net is 0.01), so new actions start near-uniform against each other. New actions
    are appended after the old ones, matching how the action table appends coded actions.
    """
    policy = model.policy
    old = policy.action_net
    assert isinstance(old, torch.nn.Linear)  # a Discrete action space's head
    old_actions = old.out_features
    if new_actions < old_actions:
        raise ValueError(f"cannot shrink the action head from {old_actions} to {new_actions}")
    if new_actions == old_actions:
        return
    new = torch.nn.Linear(old.in_features, new_actions).to(old.weight.device)
    with torch.no_grad():
        torch.nn.init.orthogonal_(new.weight, gain=init_scale)
        new.bias.zero_()
        new.weight[:old_actions] = old.weight
        new.bias[:old_actions] = old.bias
    policy.action_net = new
    space = gym.spaces.Discrete(new_actions)
    policy.action_space = space
    policy.action_dist = make_proba_distribution(space)
    model.action_space = space
    # The optimizer holds references to the replaced parameters: rebuild it.
    # SB3 types optimizer_class as type[Optimizer], whose base __init__ takes no lr
    policy.optimizer = policy.optimizer_class(  # type: ignore[call-arg]
        policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs
    )
