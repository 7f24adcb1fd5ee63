"""A trained policy's weights as plain arrays: what the skill library keeps of a policy.

SB3's own ``.zip`` unpickles objects when it loads, so a shared one could run code in the
app's process. The library keeps a policy as a ``.npz`` of its parameters (numbers only,
read with ``allow_pickle=False``: :mod:`rlgpt_tui.rl.policyfile`) beside the
:class:`~rlgpt_tui.rl.config.RLConfig` it was trained with; a later session makes the same
PPO over the same actions and loads them.
"""

from __future__ import annotations

import io

import numpy as np
import torch
from stable_baselines3 import PPO

from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.model import make_model
from rlgpt_tui.rl.policyfile import WeightsError, read_weights
from rlgpt_tui.rl.vec_env import CodedActionVecEnv


def policy_weights(model: PPO) -> bytes:
    """``model``'s policy parameters as ``.npz`` bytes."""
    arrays = {k: v.detach().cpu().numpy() for k, v in model.policy.state_dict().items()}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def load_policy(config: RLConfig, env: CodedActionVecEnv, data: bytes) -> PPO:
    """A PPO made for ``config`` over ``env`` (:func:`~rlgpt_tui.rl.model.make_model`) with
    the parameters in ``data``; :class:`WeightsError` when they do not fit it (another
    observation, action count or network)."""
    model = make_model(config, env)
    arrays = read_weights(data)
    state = model.policy.state_dict()
    if set(arrays) != set(state):
        raise WeightsError(
            f"the weights hold {sorted(set(arrays) ^ set(state))[:3]} where the policy does not"
        )
    for name, tensor in state.items():
        if arrays[name].shape != tuple(tensor.shape):
            raise WeightsError(
                f"{name} is {arrays[name].shape} in the weights, {tuple(tensor.shape)} in the "
                "policy: they were trained with another observation, action set or network"
            )
    model.policy.load_state_dict(
        {name: torch.as_tensor(arrays[name], dtype=state[name].dtype) for name in state}
    )
    return model
