"""An MLP actor-critic's decisions in numpy, for rollouts.

Asking SB3's policy for a batch of decisions costs ~0.6 ms here, almost all of it torch's
per-call overhead (a dozen small ops and a distribution object); the same forward pass
in numpy costs a third of that. :class:`NumpyPolicy` copies the weights of an SB3
``ActorCriticPolicy`` with the default MLP extractor (Linear layers and Tanh/ReLU over a
flat observation, a categorical action head) and samples from the same distribution.
The copy is taken again after every update (:meth:`OwnClockPPO.collect_rollouts`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stable_baselines3.common.distributions import CategoricalDistribution
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor
from torch import nn

from rlgpt_tui.rl.prior import PriorPolicy

_ACTIVATIONS: dict[type[nn.Module], Callable[[np.ndarray], np.ndarray]] = {
    nn.Tanh: np.tanh,
    nn.ReLU: lambda x: np.maximum(x, 0.0),
}

Layer = tuple[np.ndarray, np.ndarray] | Callable[[np.ndarray], np.ndarray]


def _layers(net: nn.Module) -> list[Layer] | None:
    """(weight.T, bias) pairs and activations of a Sequential, or None if unsupported."""
    layers: list[Layer] = []
    for module in net.children() if isinstance(net, nn.Sequential) else [net]:
        if isinstance(module, nn.Linear):
            weight = module.weight.detach().cpu().numpy().T.copy()
            bias = module.bias.detach().cpu().numpy().copy()
            layers.append((weight, bias))
        elif type(module) in _ACTIVATIONS:
            layers.append(_ACTIVATIONS[type(module)])
        else:
            return None
    return layers


def _run(layers: list[Layer], x: np.ndarray) -> np.ndarray:
    for layer in layers:
        x = layer(x) if callable(layer) else x @ layer[0] + layer[1]
    return x


class NumpyPolicy:
    """Actions, values and log-probabilities of a snapshot of an SB3 MLP policy."""

    def __init__(self, actor: list[Layer], critic: list[Layer]):
        self.actor = actor
        self.critic = critic

    @classmethod
    def of(cls, policy: nn.Module) -> NumpyPolicy | None:
        """A snapshot of ``policy``; None when it is not a plain MLP actor-critic."""
        if not (
            isinstance(policy, ActorCriticPolicy)
            and type(policy) in (ActorCriticPolicy, PriorPolicy)  # PriorPolicy: SB3's forward
            and isinstance(policy.features_extractor, FlattenExtractor)
            and isinstance(policy.action_dist, CategoricalDistribution)
            and policy.share_features_extractor
        ):
            return None
        extractor = policy.mlp_extractor
        parts = [
            _layers(extractor.policy_net),
            _layers(policy.action_net),
            _layers(extractor.value_net),
            _layers(policy.value_net),
        ]
        policy_layers, action_layers, value_layers, value_head = parts
        if policy_layers is None or action_layers is None:
            return None
        if value_layers is None or value_head is None:
            return None
        return cls(policy_layers + action_layers, value_layers + value_head)

    def values(self, obs: np.ndarray) -> np.ndarray:
        """V(obs), one per row."""
        return _run(self.critic, self._flat(obs))[:, 0]

    def __call__(
        self, obs: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sampled actions, values and the actions' log-probabilities, one per row."""
        obs = self._flat(obs)
        logits = _run(self.actor, obs)
        logits = logits - logits.max(axis=1, keepdims=True)
        log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        # Gumbel-max: argmax(log p + Gumbel noise) is a sample from p
        noise = -np.log(-np.log(rng.random(log_probs.shape)))
        actions = np.argmax(log_probs + noise, axis=1)
        chosen = log_probs[np.arange(len(actions)), actions]
        return actions, _run(self.critic, obs)[:, 0], chosen.astype(np.float32)

    @staticmethod
    def _flat(obs: np.ndarray) -> np.ndarray:
        return np.asarray(obs, dtype=np.float32).reshape(len(obs), -1)
