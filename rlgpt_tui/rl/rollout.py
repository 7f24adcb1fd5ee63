"""PPO whose rollouts let every env decide on its own clock.

SB3's rollout asks all envs for a decision at once, so with coded actions (which last
several steps) every env waits for the slowest routine among them, and most world steps
move only a few envs. Here an env decides again as soon as its own action ended: every
world step moves every env, and the policy is asked, in one batch, only by the envs that
need a decision now.

A rollout is ``n_steps * n_envs`` decisions, as in SB3, but an env that takes short
actions contributes more of them than one running long routines. Once that many
decisions have started, the rollout waits for the ones in flight to end, so that every
env is at a decision point between rollouts. Advantages are computed per env over its
own decisions in order (GAE, SB3's formula, bootstrapped from the value of the env's
observation at the end of the rollout); the PPO update is SB3's, unchanged.

The envs form groups (the world's :meth:`~rlgpt_tui.envs.base.World.env_groups`; two on
Craftax during training) that take turns: a group's world step is dispatched and runs on
XLA's threads while Python lands the other group's step, runs its coded actions and asks
the policy for its decisions. Decisions come from :class:`NumpyPolicy`, a numpy copy of
the policy taken at the start of each rollout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import obs_as_tensor
from stable_baselines3.common.vec_env import VecEnv
from threadpoolctl import threadpool_limits

from rlgpt_tui.rl.config import TRAINING_GROUPS
from rlgpt_tui.rl.numpy_policy import NumpyPolicy
from rlgpt_tui.rl.vec_env import CodedActionVecEnv


@dataclass
class _Decisions:
    """The decisions of one rollout, in the order they started (one row each)."""

    obs: np.ndarray
    actions: np.ndarray
    values: np.ndarray
    log_probs: np.ndarray
    starts: np.ndarray  # the decision began an episode
    rewards: np.ndarray
    ends: np.ndarray  # the episode ended with this decision
    envs: np.ndarray  # which env took it
    discounts: np.ndarray  # what the next decision's value is worth (see _discounts)

    @classmethod
    def empty(cls, size: int, obs_size: int) -> _Decisions:
        return cls(
            obs=np.zeros((size, obs_size), dtype=np.float32),
            actions=np.zeros(size, dtype=np.int64),
            values=np.zeros(size, dtype=np.float32),
            log_probs=np.zeros(size, dtype=np.float32),
            starts=np.zeros(size, dtype=np.float32),
            rewards=np.zeros(size, dtype=np.float32),
            ends=np.zeros(size, dtype=np.float32),
            envs=np.zeros(size, dtype=np.int64),
            discounts=np.ones(size, dtype=np.float32),
        )


def decision_advantages(rows: _Decisions, last_values: np.ndarray, lam: float) -> np.ndarray:
    """GAE over each env's decisions, each discounting what follows it by its row's
    ``discounts``: gamma ** k for a decision that took k primitive steps (a semi-MDP), or
    gamma for every decision (``PPOParams.discount_per``)."""
    advantages = np.zeros_like(rows.rewards)
    rewards, values, ends = rows.rewards.tolist(), rows.values.tolist(), rows.ends.tolist()
    discounts = rows.discounts.tolist()
    for env_index in np.unique(rows.envs).tolist():
        next_value, gae = float(last_values[env_index]), 0.0
        for row in np.flatnonzero(rows.envs == env_index)[::-1].tolist():
            carry = discounts[row] * (1.0 - ends[row])
            delta = rewards[row] + carry * next_value - values[row]
            gae = delta + carry * lam * gae
            advantages[row] = gae
            next_value = values[row]
    return advantages


class OwnClockPPO(PPO):
    """SB3 PPO with a rollout collector for :class:`CodedActionVecEnv`.

    Torch threads: the update runs alone, on up to four cores (two were 1.4x faster than
    one here); rollouts keep torch to ``rollout_threads`` so it does not spin beside JAX.
    """

    rollout_threads = 1
    env_groups = TRAINING_GROUPS  # envs step in two groups, in turn (see collect_rollouts)
    #: decide with a numpy copy of the policy (same distribution, a third of the time);
    #: False: SB3's torch forward (its random stream, e.g. to compare with SB3's loop)
    numpy_decisions = True
    _rng: np.random.Generator | None = None
    update_threads = min(4, os.cpu_count() or 1)  # the MLP is small: more threads only wait

    #: updates left in which only the value function learns (RL that starts from code:
    #: the policy stays the code's until the critic knows the code's returns)
    critic_warmup = 0
    #: after each policy update the anchor's coefficient (``ent_coef``) is multiplied by this
    anchor_decay = 1.0
    #: a coded call discounts what follows by gamma ** its steps (else by gamma once)
    discount_per_step = False

    def train(self) -> None:
        torch.set_num_threads(self.update_threads)
        actor = [*self.policy.mlp_extractor.policy_net.parameters()]
        actor += [*self.policy.action_net.parameters()]
        frozen = self.critic_warmup > 0
        if frozen:
            self.critic_warmup -= 1
            for parameter in actor:
                parameter.requires_grad_(False)
        try:
            super().train()
            if not frozen:
                self.ent_coef *= self.anchor_decay
        finally:
            torch.set_num_threads(self.rollout_threads)
            for parameter in actor:
                parameter.requires_grad_(True)

    def collect_rollouts(
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: RolloutBuffer,
        n_rollout_steps: int,
    ) -> bool:
        """Fill the rollout buffer with ``n_rollout_steps * n_envs`` decisions."""
        if not isinstance(env, CodedActionVecEnv):  # any other VecEnv: SB3's own loop
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps)
        # numpy's BLAS on one thread: its idle threads spin beside JAX's (measured: PPO
        # with coded actions 2,922 -> 4,791 samples/s with the numpy policy on 2 cores)
        with threadpool_limits(limits=1, user_api="blas"):
            return self._collect(env, callback, n_rollout_steps)

    def _collect(
        self, env: CodedActionVecEnv, callback: BaseCallback, n_rollout_steps: int
    ) -> bool:
        self.policy.set_training_mode(False)
        torch.set_num_threads(self.rollout_threads)
        callback.on_rollout_start()
        total = n_rollout_steps * env.num_envs
        runner = env.runner  # each env on its own clock
        runner.abandon()  # no action may be in flight from an earlier, stopped rollout
        env.take_finished()
        obs = np.array(self._last_obs, dtype=np.float32)
        starts = np.array(self._last_episode_starts, dtype=np.float32)
        rows = _Decisions.empty(total, obs.shape[1])
        row_of = np.full(env.num_envs, -1, dtype=np.int64)  # each env's decision in flight
        fast = NumpyPolicy.of(self.policy) if self.numpy_decisions else None

        def decide(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            if fast is not None:
                return fast(batch, self._decision_rng())
            with torch.no_grad():
                actions, values, log_probs = self.policy(obs_as_tensor(batch, self.device))
            return actions.cpu().numpy(), values.flatten().cpu().numpy(), log_probs.cpu().numpy()

        started = 0
        # Groups take turns: while XLA steps one group, Python works on another's results.
        while started < total or runner.busy.any():
            for group, members in enumerate(runner.groups):
                runner.land(group)
                runner.prepare(among=members)
                done = env.take_finished()
                if len(done):
                    self.num_timesteps += len(done)
                    callback.update_locals(locals())
                    if not callback.on_step():
                        runner.abandon()
                        return False
                    self._update_info_buffer(done.infos, done.dones)
                    ended_rows = row_of[done.envs]
                    rows.rewards[ended_rows] = done.rewards + self._timeout_bootstrap(done, fast)
                    rows.ends[ended_rows] = done.dones
                    rows.discounts[ended_rows] = self._discounts(done)
                    obs[done.envs] = done.obs
                    starts[done.envs] = done.dones
                deciding = members[~runner.busy[members]][: total - started]
                if len(deciding):
                    actions, values, log_probs = decide(obs[deciding])
                    new = np.arange(started, started + len(deciding))
                    started += len(deciding)
                    rows.obs[new] = obs[deciding]
                    rows.actions[new] = actions
                    rows.values[new] = values
                    rows.log_probs[new] = log_probs
                    rows.starts[new] = starts[deciding]
                    rows.envs[new] = deciding
                    row_of[deciding] = new
                    runner.begin(deciding, actions)
                runner.launch(group)
        self._fill_buffer(rows, self._values(obs, fast))
        self._last_obs, self._last_episode_starts = obs, starts.astype(bool)
        callback.update_locals(locals())
        callback.on_rollout_end()
        return True

    def _decision_rng(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        return self._rng

    def _values(self, obs: np.ndarray, fast: NumpyPolicy | None) -> np.ndarray:
        if fast is not None:
            return fast.values(obs)
        with torch.no_grad():
            values = self.policy.predict_values(obs_as_tensor(obs, self.device))
            return values.flatten().cpu().numpy()

    def _fill_buffer(self, rows: _Decisions, last_values: np.ndarray) -> None:
        """GAE per env over its decisions in order; then the rollout buffer, flat."""
        advantages = decision_advantages(rows, last_values, self.gae_lambda)
        buffer = self._flat_buffer(len(rows.rewards))
        buffer.observations[:, 0] = rows.obs
        buffer.actions[:, 0, 0] = rows.actions
        buffer.rewards[:, 0] = rows.rewards
        buffer.episode_starts[:, 0] = rows.starts
        buffer.values[:, 0] = rows.values
        buffer.log_probs[:, 0] = rows.log_probs
        buffer.advantages[:, 0] = advantages
        buffer.returns[:, 0] = advantages + rows.values
        buffer.pos, buffer.full = buffer.buffer_size, True

    def _flat_buffer(self, size: int) -> RolloutBuffer:
        """The rollout buffer as one column of ``size`` decisions (SB3's update flattens
        its (steps, envs) buffer into one batch anyway)."""
        buffer = self.rollout_buffer
        if buffer.buffer_size != size or buffer.n_envs != 1:
            buffer = RolloutBuffer(
                size,
                self.observation_space,
                self.action_space,
                device=self.device,
                gamma=self.gamma,
                gae_lambda=self.gae_lambda,
                n_envs=1,
            )
            self.rollout_buffer = buffer
        buffer.reset()
        return buffer

    def _discounts(self, done) -> np.ndarray:
        """What the decision after each ended action is worth: gamma ** its steps (per
        step), or gamma whatever its length (per decision, the default)."""
        if self.discount_per_step:
            return done.discounts
        return np.full(len(done), self.gamma, dtype=np.float32)

    def _timeout_bootstrap(self, done, fast: NumpyPolicy | None) -> np.ndarray:
        """V(terminal observation), discounted as :meth:`_discounts` says, for episodes cut
        by the horizon (as SB3 does for one-step actions)."""
        extra = np.zeros(len(done), dtype=np.float32)
        cut = [k for k, info in enumerate(done.infos) if info.get("TimeLimit.truncated")]
        if cut:
            terminal = np.stack([done.infos[k]["terminal_observation"] for k in cut])
            extra[cut] = self._discounts(done)[cut] * self._values(terminal, fast)
        return extra
