"""Throughput, side by side in one run: raw worlds, our PPO with and without coded actions,
and the baseline a user would otherwise run (SB3 PPO + CnnPolicy on Crafter images).

Usage: python benchmarks/throughput.py [--quick] [--seed N] [--torch-threads N] [budgets]
Progress goes to stderr; stdout gets exactly one line, a JSON object of figures and ratios.

All figures are samples per second, a sample being one primitive env step. Rates are
steady-state: JIT compilation and warm-up are excluded (see each measurement). Other
processes sharing the CPU lower every figure, so compare figures from the same run. The
raw Craftax rate is measured before and after the PPO runs and their mean is used: the
speed of the (virtual) machine drifted by tens of percent over minutes here. Each raw
Craftax figure is the better of two: this process (XLA's CPU pool one core short, as the
app sizes it for training) and a child process with XLA's default pool (every core).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_tui.envs import make_world
from rlgpt_tui.envs.craftax_kernels import XLA_THREADS_ENV, xla_cpu_threads
from rlgpt_tui.library.skillfile import validate_file
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.rollout import OwnClockPPO
from rlgpt_tui.rl.train import train

#: the hand-written skill files the tests use (go_to_tree.py)
SKILLS = Path(__file__).resolve().parent.parent / "tests" / "skills"

TASK = "collect_wood"
CRAFTAX_ENVS = 64
CRAFTER_ENVS = 8
CNN_N_STEPS = 128  # SB3's default is 2048 (16k samples per rollout with 8 envs): too slow
WARMUP_STEPS = 10
# What the ratios should reach (see the README): a coded-action PPO run at least 10x the
# image baseline, and at least 40% of the raw Craftax step rate.
TARGETS = {"ppo_coded_vs_crafter_cnn": 10.0, "ppo_coded_vs_raw_craftax": 0.4}

BUDGETS = {  # default: the whole script in ~5-6 minutes on 2 cores
    "raw_craftax_steps": 1_000,  # batched steps (x64 envs)
    "raw_crafter_steps": 1_000,  # batched steps (x8 envs)
    "ppo_samples": 150_000,  # per PPO run (plain, coded)
    "cnn_samples": 12_288,  # SB3 CnnPolicy: 12 rollouts of 8 x 128, ~90 s
}
QUICK_BUDGETS = {  # --quick: a smoke run, under ~90 s
    "raw_craftax_steps": 200,
    "raw_crafter_steps": 200,
    "ppo_samples": 20_000,
    "cnn_samples": 3_072,  # 3 rollouts: 2 timed intervals
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def raw_world_rate(name: str, num_envs: int, steps: int, seed: int) -> dict[str, Any]:
    """Random primitive actions through the World interface, resetting ended games.

    A reset and a few steps come first, untimed: they compile Craftax's jitted step (or
    load it from JAX's persistent cache) and warm Crafter's world generation.
    """
    try:
        world = make_world(name, num_envs, seed=seed)
    except Exception as error:  # e.g. a backend missing on this machine
        return {"rate": None, "error": f"{type(error).__name__}: {error}"}
    rng = np.random.default_rng(seed)
    world.reset(seed)
    for _ in range(WARMUP_STEPS):
        world.reset_envs(world.step(rng.integers(0, 17, num_envs)).game_over)
    before = world.steps_taken
    resets, reset_seconds = 0, 0.0
    started = time.perf_counter()
    for _ in range(steps):
        ended = world.step(rng.integers(0, 17, num_envs)).game_over
        if ended.any():  # timed apart: Crafter generates a new world on reset (slow)
            mark = time.perf_counter()
            world.reset_envs(ended)
            reset_seconds += time.perf_counter() - mark
            resets += int(ended.sum())
    seconds = time.perf_counter() - started
    samples = world.steps_taken - before
    world.close()
    return {
        "rate": samples / seconds,  # resets included
        "rate_without_resets": samples / (seconds - reset_seconds),
        "samples": samples,
        "seconds": round(seconds, 3),
        "resets": resets,
        "reset_seconds": round(reset_seconds, 3),
    }


def raw_craftax_rate(steps: int, seed: int) -> dict[str, Any]:
    """Raw Craftax at its best: the faster of this process (XLA's CPU pool as the app sizes
    it) and a child process with XLA's default pool (every core).

    The app leaves a core to Python during training, which slows a lone step; the ratios
    must not gain from that, so the raw figure gets XLA's default as well.
    """
    here = measured(raw_world_rate, "craftax", CRAFTAX_ENVS, steps, seed)
    here["xla_threads"] = xla_cpu_threads()
    child = subprocess.run(
        [sys.executable, __file__, "--raw-craftax-only"]
        + ["--raw-craftax-steps", str(steps), "--seed", str(seed)],
        env={**os.environ, XLA_THREADS_ENV: "0"},
        capture_output=True,
        text=True,
    )
    if child.returncode == 0:
        default = json.loads(child.stdout.splitlines()[-1])
    else:
        default = {"rate": None, "error": child.stderr.strip().splitlines()[-1:]}
    default["xla_threads"] = "default"
    best = max((here, default), key=lambda figures: figures["rate"] or 0.0)
    return {**best, "in_process": here, "xla_default_threads": default}


def steady_rate(marks: list[tuple[int, float]]) -> dict[str, Any]:
    """Samples/s between the first and the last (cumulative samples, time) mark.

    The first mark is the end of the first rollout: everything before it (model building,
    JAX compilation of the world's step, the first policy calls) is warm-up and excluded.
    Each interval after it holds one PPO update plus one rollout, so training time counts.
    ``rate_last_quarter`` covers the last quarter of the intervals only: with coded actions
    the rate drifts down as the policy learns to call them more (see the README).
    """
    if len(marks) < 2:
        raise RuntimeError("need at least two rollouts for a steady-state rate: raise the budget")
    intervals = len(marks) - 1
    late = marks[-1 - max(1, intervals // 4)]
    (s0, t0), (s1, t1) = marks[0], marks[-1]
    return {
        "rate": (s1 - s0) / (t1 - t0),
        "rate_last_quarter": (s1 - late[0]) / (t1 - late[1]),
        "timed_rollouts": intervals,
    }


def ppo_rate(
    samples: int, coded: bool, seed: int, episodes_per_world: int | None = None
) -> dict[str, Any]:
    """Our PPO (MLP over the symbolic observation) on craftax collect_wood, 64 envs.

    ``episodes_per_world``: None keeps RLConfig's default (what a user's run does)."""
    specs = []
    if coded:
        source = (SKILLS / "go_to_tree.py").read_text()
        specs = [CodedActionSpec(name="go_to_tree", source=source)]
    config = RLConfig(
        task=TASK,
        env="craftax",
        num_envs=CRAFTAX_ENVS,
        samples=samples,
        seed=seed,
        coded_actions=specs,
    )
    if episodes_per_world is not None:
        config = config.model_copy(update={"episodes_per_world": episodes_per_world})
    result = train(config)
    # history: one report per finished rollout, then train()'s final report. The final one
    # ends in the rollout cut short at the budget (collected but never trained on), so it
    # is left out; the first one is left out as warm-up by steady_rate.
    rollouts = result.history[:-1]
    rates = steady_rate([(m.samples, m.elapsed) for m in rollouts])
    last = result.history[-1]
    result.env.close()
    return {
        **rates,
        "samples": result.samples,
        "seconds": round(result.seconds, 2),
        "overall_rate": result.fps,  # warm-up included, for reference
        "coded_decision_share": last.coded_decision_share,
        "coded_sample_share": last.coded_sample_share,
        "episodes_per_world": config.episodes_per_world,
        "episodes": result.env.episodes_finished,
    }


def crafter_cnn_rate(samples: int, seed: int) -> dict[str, Any]:
    """SB3 PPO with its default CnnPolicy on 64x64 Crafter images, 8 envs in DummyVecEnv.

    PPO's defaults except ``n_steps`` (so that a few rollouts fit in the budget); the
    rollout-end clock works like :func:`steady_rate` in PPO's own loop.
    """
    try:
        import crafter
    except Exception as error:
        return {"rate": None, "error": f"{type(error).__name__}: {error}"}
    import gymnasium as gym
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    class CrafterImages(gym.Env):
        """crafter.Env as gymnasium: 64x64x3 uint8 image, Discrete(17)."""

        def __init__(self, index: int):
            self.env = crafter.Env(seed=seed * 1_000 + index)
            self.observation_space = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
            self.action_space = gym.spaces.Discrete(17)

        def reset(self, *, seed=None, options=None):
            return self.env.reset(), {}

        def step(self, action):
            obs, reward, done, info = self.env.step(int(action))
            dead = info["discount"] == 0
            return obs, float(reward), dead, done and not dead, {}

    class Clock(BaseCallback):
        def __init__(self):
            super().__init__()
            self.marks: list[tuple[int, float]] = []

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            self.marks.append((self.num_timesteps, time.perf_counter()))

    env = DummyVecEnv([lambda i=i: CrafterImages(i) for i in range(CRAFTER_ENVS)])
    model = PPO("CnnPolicy", env, n_steps=CNN_N_STEPS, seed=seed, device="cpu", verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-* folder in /tmp
    clock = Clock()
    started = time.perf_counter()
    model.learn(total_timesteps=samples, callback=clock)
    seconds = time.perf_counter() - started
    rates = steady_rate(clock.marks)
    env.close()
    return {
        **rates,
        "samples": model.num_timesteps,
        "seconds": round(seconds, 2),
    }


def worker_scaling(num_envs: int, counts: list[int], rounds: int, seed: int) -> dict[str, Any]:
    """Coded-action work spread over sandbox workers: calls of go_to_tree (a BFS over the
    View to the nearest tree, then its first step) on ``num_envs`` real Craftax Views, in
    rounds (start a call in every env, ask each for its first primitive, stop them), for
    each worker count. Calls per second, and the speed-up over one worker."""
    from rlgpt_tui.sandbox import CallScheduler
    from rlgpt_tui.skills.outcomes import CallEnd

    action = validate_file(SKILLS / "go_to_tree.py")
    world = make_world("craftax", num_envs, seed=seed)
    world.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # wander off the start so that Views differ
        world.reset_envs(world.step(rng.integers(1, 5, num_envs)).game_over)
    rows, light = world.view_rows()
    world.close()
    envs = list(range(num_envs))
    rates: dict[str, float] = {}
    for count in counts:
        scheduler = CallScheduler([action], num_envs, seed=seed, workers=count)
        try:
            for round_ in range(rounds + 1):  # the first round warms the workers up
                if round_ == 1:
                    started = time.perf_counter()
                scheduler.start(envs, [0] * num_envs)
                scheduler.ask(envs, rows, light)
                scheduler.stop(list(scheduler.active), CallEnd.ABANDONED)
            rates[str(count)] = rounds * num_envs / (time.perf_counter() - started)
        finally:
            scheduler.close()
    one = rates.get("1")
    return {
        "envs": num_envs,
        "rounds": rounds,
        "calls_per_s": {k: round(v, 1) for k, v in rates.items()},
        "speedup_over_one_worker": {k: round(v / one, 2) for k, v in rates.items()} if one else {},
    }


def measured(function, *args, **kwargs) -> dict[str, Any]:
    """Run one measurement; add this process's CPU time per wall second while it ran.

    Well below what the section normally uses (about 1-2 on 2 cores) means other processes
    took the CPU, and the figure is low for that reason.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    figures = function(*args, **kwargs)
    figures["cpu_per_wall"] = (time.process_time() - cpu) / (time.perf_counter() - wall)
    return figures


def mean_rate(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """One figure from measurements before and after the PPO runs: their mean rate."""
    if before["rate"] is None or after["rate"] is None:
        return before
    rate = (before["rate"] + after["rate"]) / 2
    return {"rate": rate, "before_ppo": before, "after_ppo": after}


def show(figures: dict[str, Any], unit: str) -> str:
    if figures["rate"] is None:
        return f"  skipped: {figures['error']}"
    line = f"  {figures['rate']:,.0f} {unit}"
    if "xla_default_threads" in figures:  # raw Craftax: both XLA pools
        here, default = figures["in_process"]["rate"], figures["xla_default_threads"]["rate"]
        line += f" (XLA pool {figures['in_process']['xla_threads']}: {here:,.0f}; "
        line += f"XLA default: {default:,.0f})" if default else "XLA default: failed)"
    return line


def ratio(a: float | None, b: float | None, digits: int = 3) -> float | None:
    return round(a / b, digits) if a and b else None


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("throughput", __doc__)
    add_options(parser, "seed")
    parser.add_argument("--quick", action="store_true", help="small budgets: under ~90 s")
    parser.add_argument(
        "--raw-craftax-only",
        action="store_true",
        help="print one JSON line: raw Craftax alone (the child process of raw_craftax_rate)",
    )
    parser.add_argument(
        "--workers-only",
        action="store_true",
        help="print one JSON line: the sandbox workers' scaling alone",
    )
    parser.add_argument(
        "--scaling-envs",
        type=int,
        default=None,
        help="envs for the workers' scaling figure (default 1,024 on 16+ cores, else 256)",
    )
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=os.cpu_count() or 1,
        help="torch intra-op threads for SB3's CnnPolicy baseline (default: all cores, as a "
        f"user's run would); our PPO uses {OwnClockPPO.rollout_threads} in rollouts and "
        f"{OwnClockPPO.update_threads} in updates (OwnClockPPO)",
    )
    for key, value in BUDGETS.items():
        parser.add_argument(
            "--" + key.replace("_", "-"),
            type=int,
            default=None,
            help=f"default {value:,} ({QUICK_BUDGETS[key]:,} with --quick)",
        )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    budgets = dict(QUICK_BUDGETS if args.quick else BUDGETS)
    for key in budgets:
        if getattr(args, key) is not None:
            budgets[key] = getattr(args, key)

    cores = os.cpu_count() or 1
    scaling_envs = args.scaling_envs or (1024 if cores >= 16 else 256)
    counts = [c for c in (1, 2, 4, 8, 16) if c <= max(2, cores)]
    scaling_rounds = 4 if args.quick else 20
    if args.workers_only:
        print(json.dumps(worker_scaling(scaling_envs, counts, scaling_rounds, args.seed)))
        return

    if args.raw_craftax_only:
        figures = measured(
            raw_world_rate, "craftax", CRAFTAX_ENVS, budgets["raw_craftax_steps"], args.seed
        )
        print(json.dumps(figures), flush=True)
        return

    # Our PPO sets its own torch threads (OwnClockPPO: one in rollouts, beside JAX; more in
    # updates); the CnnPolicy baseline gets --torch-threads, set right before it.
    started = time.perf_counter()

    load_before = os.getloadavg()
    log(f"raw craftax, {CRAFTAX_ENVS} envs ...")
    raw_craftax = raw_craftax_rate(budgets["raw_craftax_steps"], args.seed)
    log(show(raw_craftax, "steps/s"))
    log(f"raw crafter, {CRAFTER_ENVS} envs ...")
    raw_crafter = measured(
        raw_world_rate, "crafter", CRAFTER_ENVS, budgets["raw_crafter_steps"], args.seed
    )
    log(show(raw_crafter, "steps/s"))
    log(f"PPO craftax {TASK}, no coded actions ...")
    plain = measured(ppo_rate, budgets["ppo_samples"], coded=False, seed=args.seed)
    log(show(plain, "samples/s"))
    log(f"PPO craftax {TASK}, coded go_to_tree ...")
    coded = measured(ppo_rate, budgets["ppo_samples"], coded=True, seed=args.seed)
    log(show(coded, "samples/s") + f" (coded share of samples {coded['coded_sample_share']})")
    log(f"PPO craftax {TASK}, coded go_to_tree, a new world for every episode ...")
    fresh = measured(
        ppo_rate, budgets["ppo_samples"], coded=True, seed=args.seed, episodes_per_world=1
    )
    log(show(fresh, "samples/s"))
    log(f"raw craftax again, {CRAFTAX_ENVS} envs (the machine's speed drifts) ...")
    raw_craftax_after = raw_craftax_rate(budgets["raw_craftax_steps"], args.seed)
    log(show(raw_craftax_after, "steps/s"))
    raw_craftax = mean_rate(raw_craftax, raw_craftax_after)
    log(f"SB3 PPO CnnPolicy on crafter images, {CRAFTER_ENVS} envs ...")
    torch.set_num_threads(args.torch_threads)
    cnn = measured(crafter_cnn_rate, budgets["cnn_samples"], args.seed)
    log(show(cnn, "samples/s"))

    log(f"sandbox workers' scaling, {scaling_envs} envs, workers {counts} ...")
    scaling = worker_scaling(scaling_envs, counts, scaling_rounds, args.seed)
    log(f"  {scaling['calls_per_s']} calls/s; speed-up {scaling['speedup_over_one_worker']}")

    import jax

    ratios = {
        "ppo_coded_vs_crafter_cnn": ratio(coded["rate"], cnn["rate"], 2),
        "ppo_coded_vs_raw_craftax": ratio(coded["rate"], raw_craftax["rate"]),
        "ppo_plain_vs_raw_craftax": ratio(plain["rate"], raw_craftax["rate"]),
        "ppo_coded_fresh_worlds_vs_raw_craftax": ratio(fresh["rate"], raw_craftax["rate"]),
        "crafter_raw_vs_craftax_raw": ratio(raw_crafter["rate"], raw_craftax["rate"], 4),
    }

    def rounded(figures: dict[str, Any]) -> dict[str, Any]:
        return {
            k: round(v, 1 if abs(v) >= 10 else 4) if isinstance(v, float) else v
            for k, v in figures.items()
        }

    report = {
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "processor": platform.machine(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_threads": {
                "ours_rollouts": OwnClockPPO.rollout_threads,
                "ours_updates": OwnClockPPO.update_threads,
                "sb3_cnn": args.torch_threads,
            },
            "jax": jax.__version__,
            "jax_backend": jax.default_backend(),
            "xla_cpu_threads_ours": xla_cpu_threads(),  # None: XLA's default (every core)
            # other processes' load: figures are only comparable on a quiet machine
            "load_average_1min": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        },
        "seed": args.seed,
        "quick": args.quick,
        "budgets": budgets,
        "task": TASK,
        "envs": {"craftax": CRAFTAX_ENVS, "crafter": CRAFTER_ENVS},
        "cnn_n_steps": CNN_N_STEPS,
        "raw_craftax_steps_per_s": rounded(raw_craftax)["rate"],
        "raw_crafter_steps_per_s": rounded(raw_crafter)["rate"],
        "ppo_craftax_plain_samples_per_s": rounded(plain)["rate"],
        "ppo_craftax_coded_samples_per_s": rounded(coded)["rate"],
        "ppo_craftax_coded_fresh_worlds_samples_per_s": rounded(fresh)["rate"],
        "sb3_cnn_crafter_samples_per_s": rounded(cnn)["rate"],
        "sandbox_workers_scaling": scaling,
        **ratios,
        "targets": TARGETS,
        "meets_targets": {
            k: (ratios[k] >= v if ratios[k] is not None else None) for k, v in TARGETS.items()
        },
        "details": {
            "raw_craftax": {
                k: rounded(v) if isinstance(v, dict) else round(v, 1)
                for k, v in raw_craftax.items()
            },
            "raw_crafter": rounded(raw_crafter),
            "ppo_plain": rounded(plain),
            "ppo_coded": rounded(coded),
            "ppo_coded_fresh_worlds": rounded(fresh),
            "sb3_cnn_crafter": rounded(cnn),
        },
        "total_seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
