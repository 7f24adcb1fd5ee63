"""Throughput, side by side in one run: raw worlds, our PPO with and without coded actions,
and the baseline a user would otherwise run (SB3 PPO + CnnPolicy on Crafter images).

Usage: python benchmarks/throughput.py [--quick]
Progress goes to stderr; the last line on stdout is one JSON object of figures and ratios.

Rates are steady-state: JIT compilation and warm-up are excluded by timing from the first
reported rollout (or a warm-up loop) to the last one. All figures are samples per second,
a sample being one primitive env step.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rlgpt_tui.envs import make_world  # noqa: E402
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig  # noqa: E402
from rlgpt_tui.rl.train import train  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def raw_world_rate(name: str, num_envs: int, steps: int, seed: int) -> float:
    """Random primitive actions through the World interface, resetting ended games."""
    world = make_world(name, num_envs, seed=seed)
    world.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(10):  # warm-up (JIT compile for craftax)
        world.reset_envs(world.step(rng.integers(0, 17, num_envs)).game_over)
    started = time.perf_counter()
    for _ in range(steps):
        world.reset_envs(world.step(rng.integers(0, 17, num_envs)).game_over)
    return steps * num_envs / (time.perf_counter() - started)


def ppo_rate(samples: int, coded: bool, seed: int) -> dict:
    """Our PPO on craftax collect_wood; the rate between the first and the last rollout."""
    specs = []
    if coded:
        source = (ROOT / "assets" / "skills" / "go_to_tree.py").read_text()
        specs = [CodedActionSpec(name="go_to_tree", source=source)]
    config = RLConfig(
        task="collect_wood",
        env="craftax",
        num_envs=64,
        samples=samples,
        seed=seed,
        coded_actions=specs,
    )
    history: list[dict] = []
    train(config, on_metrics=history.append)
    first, last = history[0], history[-1]
    rate = (last["samples"] - first["samples"]) / (last["elapsed"] - first["elapsed"])
    return {
        "rate": rate,
        "samples": last["samples"],
        "coded_sample_share": last["coded_sample_share"],
    }


def crafter_cnn_rate(samples: int, seed: int) -> float:
    """SB3 PPO with its default CnnPolicy on 64x64 Crafter images, 8 envs, default PPO."""
    import crafter
    import gymnasium as gym
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    class CrafterImages(gym.Env):
        def __init__(self, index: int):
            self.env = crafter.Env(seed=seed * 100 + index)
            self.observation_space = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
            self.action_space = gym.spaces.Discrete(17)

        def reset(self, *, seed=None, options=None):
            return self.env.reset(), {}

        def step(self, action):
            obs, reward, done, info = self.env.step(int(action))
            dead = info["discount"] == 0
            return obs, reward, dead, done and not dead, {}

    class Clock(BaseCallback):
        def __init__(self):
            super().__init__()
            self.marks: list[tuple[int, float]] = []

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            self.marks.append((self.num_timesteps, time.perf_counter()))

    env = DummyVecEnv([lambda i=i: CrafterImages(i) for i in range(8)])
    model = PPO("CnnPolicy", env, n_steps=128, seed=seed, device="cpu", verbose=0)
    clock = Clock()
    model.learn(total_timesteps=samples, callback=clock)
    (s0, t0), (s1, t1) = clock.marks[0], clock.marks[-1]
    return (s1 - s0) / (t1 - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small budgets (~2 minutes)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    quick = args.quick
    # torch uses every core by default (2 here); JAX's CPU backend does too. Both run in
    # the same process, one after the other, so neither is pinned.
    budgets = {
        "raw_craftax_steps": 100 if quick else 400,
        "raw_crafter_steps": 100 if quick else 300,
        "ppo_samples": 20_000 if quick else 120_000,
        "cnn_samples": 2_048 if quick else 8_192,
    }
    log("raw craftax ...")
    raw_craftax = raw_world_rate("craftax", 64, budgets["raw_craftax_steps"], args.seed)
    log(f"  {raw_craftax:,.0f} steps/s\nraw crafter ...")
    raw_crafter = raw_world_rate("crafter", 8, budgets["raw_crafter_steps"], args.seed)
    log(f"  {raw_crafter:,.0f} steps/s\nPPO craftax, no coded actions ...")
    plain = ppo_rate(budgets["ppo_samples"], coded=False, seed=args.seed)
    log(f"  {plain['rate']:,.0f} samples/s\nPPO craftax, coded go_to_tree ...")
    coded = ppo_rate(budgets["ppo_samples"], coded=True, seed=args.seed)
    log(f"  {coded['rate']:,.0f} samples/s\nSB3 PPO CnnPolicy on crafter images ...")
    cnn = crafter_cnn_rate(budgets["cnn_samples"], args.seed)
    log(f"  {cnn:,.0f} samples/s")
    import jax

    print(
        json.dumps(
            {
                "machine": {
                    "cpus": os.cpu_count(),
                    "platform": platform.platform(),
                    "python": platform.python_version(),
                    "torch": torch.__version__,
                    "jax": jax.__version__,
                    "torch_threads": torch.get_num_threads(),
                },
                "seed": args.seed,
                "budgets": budgets,
                "task": "collect_wood",
                "raw_craftax_steps_per_s": round(raw_craftax, 1),
                "raw_crafter_steps_per_s": round(raw_crafter, 1),
                "ppo_craftax_plain_samples_per_s": round(plain["rate"], 1),
                "ppo_craftax_coded_samples_per_s": round(coded["rate"], 1),
                "ppo_craftax_coded_sample_share": coded["coded_sample_share"],
                "sb3_cnn_crafter_samples_per_s": round(cnn, 1),
                "ppo_coded_vs_crafter_cnn": round(coded["rate"] / cnn, 2),
                "ppo_coded_vs_raw_craftax": round(coded["rate"] / raw_craftax, 3),
                "ppo_plain_vs_raw_craftax": round(plain["rate"] / raw_craftax, 3),
                "crafter_raw_vs_craftax_raw": round(raw_crafter / raw_craftax, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
