"""RL that starts from the code: a fresh policy that begins as a coded action.

A uniform policy over primitives and coded actions must rediscover what the code already
does. Instead, when a config names ``start.action``, the fresh policy's action head is set
so that it chooses that coded action with probability ``start.share`` whatever it
observes (the rest spread evenly), which makes the untrained policy a slightly noisy copy
of "run the code"; its first ``start.critic_warmup`` rollouts train only the value function
(:class:`~rlgpt_tui.rl.rollout.OwnClockPPO`), so the first policy updates weigh other
choices against the code's measured returns. From there PPO learns where to deviate.

Levers for moving off the code (:class:`~rlgpt_tui.rl.config.RLConfig`):
``start.primitive_share`` sends the exploration (1 - share) mostly to the other coded
actions rather than to single steps; ``start.anchor_decay`` shrinks the pull toward the code
after every update; ``start.rollout_decisions`` (default 256) keeps rollouts short enough
that a run updates the policy at all (a call lasts tens of steps: 64 x 64 decisions were
a rollout of ~100-200k samples); ``hooks.death_penalty`` makes deaths cost in training.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.type_aliases import PyTorchObs


def start_as(
    model: PPO,
    action: int,
    share: float,
    coded: Sequence[bool] | None = None,
    primitive_share: float | None = None,
) -> None:
    """Make ``model``'s policy choose ``action`` with probability ``share`` in every state
    (the rest as :func:`start_log_probs` spreads it).

    The action head's weights are zeroed and its bias set: logits do not depend on the
    observation at the start, and PPO's gradients move the weights from there."""
    head = _action_head(model.policy)
    n = head.out_features
    if not 0 <= action < n:
        raise ValueError(f"action {action} is outside the policy's {n} actions")
    if n == 1:
        return
    with torch.no_grad():
        head.weight.zero_()
        start = start_log_probs(n, action, share, coded, primitive_share)
        head.bias.copy_(start.to(head.bias.device))


def _action_head(policy: ActorCriticPolicy) -> torch.nn.Linear:
    head = policy.action_net
    assert isinstance(head, torch.nn.Linear)  # a Discrete action space's head
    return head


def action_probabilities(model: PPO, obs) -> torch.Tensor:
    """The policy's action probabilities for a batch of observations."""
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32, device=model.device)
        distribution = model.policy.get_distribution(tensor).distribution
        assert isinstance(distribution, torch.distributions.Categorical)  # Discrete actions
        return distribution.probs


def start_log_probs(
    actions: int,
    action: int,
    share: float,
    coded: Sequence[bool] | None = None,
    primitive_share: float | None = None,
) -> torch.Tensor:
    """The starting policy's log-probabilities: ``share`` on ``action``; the rest even over
    the other actions, or (``coded`` marks the coded actions, ``primitive_share`` given)
    ``primitive_share`` of it over the primitives and the remainder over the other coded
    actions, so that exploration tries the other skills rather than single steps."""
    if actions == 1:
        return torch.zeros(1)
    weights = torch.ones(actions)
    if coded is not None and primitive_share is not None:
        mask = torch.as_tensor(list(coded), dtype=torch.bool)
        others = mask.clone()
        others[action] = False
        primitives = ~mask
        if others.any() and primitives.any():
            weights[primitives] = primitive_share / int(primitives.sum())
            weights[others] = (1.0 - primitive_share) / int(others.sum())
    weights[action] = 0.0
    rest = (1.0 - share) * weights / weights.sum()
    rest[action] = share
    return rest.clamp_min(1e-8).log()


class PriorPolicy(ActorCriticPolicy):
    """SB3's actor-critic policy, which can be pulled toward a starting policy (the code).

    Without an ``anchor`` it is SB3's ``MlpPolicy`` (:class:`ActorCriticPolicy`), unchanged.
    With one (a start distribution's log-probabilities, the same in every state:
    :func:`anchor_to_start`), :meth:`evaluate_actions` reports ``-KL(policy || start)`` in
    place of the entropy; PPO's loss adds ``-ent_coef * entropy``, so it then adds
    ``ent_coef * KL``: a relative-entropy regularizer around the code instead of a
    maximum-entropy one around the uniform policy. The anchor is no parameter: it is not
    saved with the model, and a policy saved with one loads as any ``MlpPolicy``."""

    anchor: torch.Tensor | None = None

    def evaluate_actions(
        self, obs: PyTorchObs, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        if self.anchor is None:
            return super().evaluate_actions(obs, actions)
        features = self.extract_features(obs)
        latent_pi, latent_vf = self.mlp_extractor(features)
        distribution = self._get_action_dist_from_latent(latent_pi)
        categorical = distribution.distribution
        assert isinstance(categorical, torch.distributions.Categorical)  # Discrete actions
        log_probs = categorical.logits  # normalized log-probabilities
        kl = (log_probs.exp() * (log_probs - self.anchor)).sum(dim=1)
        return self.value_net(latent_vf), distribution.log_prob(actions), -kl


def anchor_to_start(
    model: PPO,
    action: int,
    share: float,
    coef: float,
    coded: Sequence[bool] | None = None,
    primitive_share: float | None = None,
) -> None:
    """Replace PPO's entropy bonus by ``coef`` x KL to the starting policy (the code):
    ``model``'s :class:`PriorPolicy` is anchored to :func:`start_log_probs`. Set again on
    every training run (the anchor is not saved with the model)."""
    policy = model.policy
    if not isinstance(policy, PriorPolicy):
        raise TypeError(f"a policy pulled toward the code is a PriorPolicy, not {type(policy)}")
    actions = _action_head(policy).out_features
    start = start_log_probs(actions, action, share, coded, primitive_share)
    policy.anchor = start.to(policy.device)
    model.ent_coef = coef
