"""RL that starts from the code: a fresh policy that begins as a coded action.

A uniform policy over primitives and coded actions must rediscover what the code already
does. Instead, when a config names ``start_from``, the fresh policy's action head is set
so that it chooses that coded action with probability ``start_share`` whatever it
observes (the rest spread evenly), which makes the untrained policy a slightly noisy copy
of "run the code"; its first ``critic_warmup`` rollouts train only the value function
(:class:`~rlgpt_tui.rl.rollout.OwnClockPPO`), so the first policy updates weigh other
choices against the code's measured returns. From there PPO learns where to deviate.
"""

from __future__ import annotations

import math

import torch
from stable_baselines3 import PPO


def start_as(model: PPO, action: int, share: float) -> None:
    """Make ``model``'s policy choose ``action`` with probability ``share`` in every state.

    The action head's weights are zeroed and its bias set: logits do not depend on the
    observation at the start, and PPO's gradients move the weights from there."""
    head: torch.nn.Linear = model.policy.action_net
    n = head.out_features
    if not 0 <= action < n:
        raise ValueError(f"action {action} is outside the policy's {n} actions")
    if n == 1:
        return
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.bias[action] = math.log(share * (n - 1) / (1.0 - share))


def action_probabilities(model: PPO, obs) -> torch.Tensor:
    """The policy's action probabilities for a batch of observations."""
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32)
        return model.policy.get_distribution(tensor).distribution.probs
