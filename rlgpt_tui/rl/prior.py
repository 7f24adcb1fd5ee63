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
from stable_baselines3.common.policies import ActorCriticPolicy


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
        head.bias.copy_(start_log_probs(n, action, share))


def action_probabilities(model: PPO, obs) -> torch.Tensor:
    """The policy's action probabilities for a batch of observations."""
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32)
        return model.policy.get_distribution(tensor).distribution.probs


def start_log_probs(actions: int, action: int, share: float) -> torch.Tensor:
    """The starting policy's log-probabilities: ``share`` on ``action``, the rest even."""
    rest = math.log((1.0 - share) / max(actions - 1, 1))
    log_probs = torch.full((actions,), rest)
    log_probs[action] = math.log(share) if actions > 1 else 0.0
    return log_probs


def anchor_to_start(model: PPO, action: int, share: float, coef: float) -> None:
    """Replace PPO's entropy bonus by a pull toward the starting policy (the code).

    SB3's loss adds ``-ent_coef * entropy``; here the policy's ``evaluate_actions`` reports
    ``-KL(policy || start)`` in place of the entropy, so the loss adds ``coef * KL``: a
    relative-entropy regularizer around the code instead of a maximum-entropy one around
    the uniform policy. The start distribution is :func:`start_log_probs` (the same in every
    state). Set again on every training run (it is not saved with the model)."""
    policy: ActorCriticPolicy = model.policy
    start = start_log_probs(policy.action_net.out_features, action, share)
    model.ent_coef = coef

    def evaluate_actions(obs, actions):
        features = policy.extract_features(obs)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        distribution = policy._get_action_dist_from_latent(latent_pi)
        log_probs = distribution.distribution.logits  # normalized log-probabilities
        kl = (log_probs.exp() * (log_probs - start)).sum(dim=1)
        return policy.value_net(latent_vf), distribution.log_prob(actions), -kl

    policy.evaluate_actions = evaluate_actions
