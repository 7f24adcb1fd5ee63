"""Pipe-protocol overhead of the MineDojo backend, against the stand-in env, side by side.

The same stand-in env (tests/minedojo_standin.py: MineDojo's observation keys and shapes,
including a 3x160x256 RGB frame) is stepped (a) directly in this process and (b) through
a worker process over the real pipe protocol (MineDojoWorld: encode the action, send,
receive and decode the observation, build the policy vector). Overhead per step = (b) - (a).
Ends with one JSON line. Target: < 1 ms per step.

    python benchmarks/minedojo_protocol.py [--steps 2000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the MineDojo stand-in lives in tests/

from rlgpt_tui.envs.minedojo import PRIMITIVES, MineDojoWorld  # noqa: E402
from rlgpt_tui.envs.minedojo.actions import ActionEncoder  # noqa: E402
from tests.minedojo_standin import CRAFT_ITEMS, make  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--height", type=int, default=160)
    parser.add_argument("--width", type=int, default=256)
    args = parser.parse_args(argv)
    forward = PRIMITIVES.index("forward")
    size = (args.height, args.width)

    env = make("harvest_1_cobblestone_with_wooden_pickaxe", size, 0)
    encoder = ActionEncoder(CRAFT_ITEMS)
    obs = env.reset()
    started = time.perf_counter()
    for _ in range(args.steps):
        obs, _, _, _ = env.step(encoder.encode("forward", obs))
        MineDojoWorld.vector(obs)
    direct = (time.perf_counter() - started) / args.steps
    env.close()

    world = MineDojoWorld(
        1,
        task_id="harvest_1_cobblestone_with_wooden_pickaxe",  # never done: steps only
        python=sys.executable,
        image_size=size,
        worker_env={
            "RLGPT_MINEDOJO_FACTORY": "tests.minedojo_standin:make",
            "PYTHONPATH": str(ROOT),
        },
    )
    world.reset(0)
    actions = np.array([forward])
    started = time.perf_counter()
    for _ in range(args.steps):
        world.step(actions)
    piped = (time.perf_counter() - started) / args.steps
    world.close()
    overhead_ms = 1000 * (piped - direct)
    print(
        json.dumps(
            {
                "benchmark": "minedojo_protocol",
                "machine": "2-core CPU (no GPU)",
                "env": "MineDojo stand-in (tests/minedojo_standin.py)",
                "rgb_shape": [3, *size],
                "steps": args.steps,
                "direct_ms_per_step": round(1000 * direct, 4),
                "piped_ms_per_step": round(1000 * piped, 4),
                "protocol_overhead_ms_per_step": round(overhead_ms, 4),
                "piped_over_direct": round(piped / direct, 2),
                "target_overhead_ms": 1.0,
                "target_met": overhead_ms < 1.0,
            }
        )
    )


if __name__ == "__main__":
    main()
