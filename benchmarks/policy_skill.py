"""Policy skill cost: samples/s of a coded action calling a trained policy as a skill
(``yield from ctx.skill("collect_wood")``: a numpy forward pass over the observation computed
from the View, in the sandbox workers) against code of equal length (the same number of
steps, a primitive yielded each).

The policy is an MLP of the default size (64, 64) over the whole observation whose argmax
is noop, saved as the library saves policies; it never meets its goal, so every call lasts
its step budget (its training horizon, ``--steps``). Calls run in every env of a Craftax
world, in turn (``run_one_call_each``), each round from the same fresh worlds for both (a
world left running would end its games: calls of one step). Ends with one JSON line.

    python benchmarks/run.py policy_skill [--envs 16] [--steps 64] [--rounds 4]

Goal: a policy-skill call keeps at least 0.7 of the code's samples/s; the measured lines are
in ``benchmarks/speed/policy_skill.jsonl``.
"""

from __future__ import annotations

import argparse
import io
import json
import time

import numpy as np

from rlgpt_bench.results import machine
from rlgpt_tui.envs.base import OBSERVATION_SIZE
from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.rl.episodes import run_one_call_each
from rlgpt_tui.rl.policyfile import SavedPolicy
from rlgpt_tui.rl.policyskill import policy_skill
from rlgpt_tui.skills.runtime import CodedActionLimits
from rlgpt_tui.skills.validation import validate


def noop_policy(steps: int) -> SavedPolicy:
    """A (64, 64) MLP policy over the whole observation that always chooses noop."""
    rng = np.random.default_rng(0)
    arrays = {
        "mlp_extractor.policy_net.0.weight": rng.normal(0, 0.05, (64, OBSERVATION_SIZE)),
        "mlp_extractor.policy_net.0.bias": np.zeros(64),
        "mlp_extractor.policy_net.2.weight": rng.normal(0, 0.05, (64, 64)),
        "mlp_extractor.policy_net.2.bias": np.zeros(64),
        "action_net.weight": np.zeros((17, 64)),
        "action_net.bias": np.eye(17)[0] * 10.0,
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{k: v.astype(np.float32) for k, v in arrays.items()})
    return SavedPolicy(
        task="collect_wood",
        world="craftax",
        subaction="collect_wood",
        rl_config={"task": "collect_wood", "horizon": steps},
        authors={},
        samples=0,
        measure="success_rate",
        value=None,
        ci95=None,
        episodes=None,
        deterministic=True,
        made_in="benchmarks/policy_skill.py",
        weights=buffer.getvalue(),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--steps", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    limits = CodedActionLimits(max_steps=args.steps + 1, seconds=5.0)
    policy = validate(
        "plan",
        'def act(ctx):\n    yield from ctx.skill("collect_wood")\n',
        limits=limits,
        policies=(policy_skill(noop_policy(args.steps)),),
    )
    code = validate(
        "plan",
        f"def act(ctx):\n    for _ in range({args.steps}):\n        yield Action.NOOP\n",
        limits=limits,
    )
    world = CraftaxWorld(num_envs=args.envs, seed=0)
    world.reset(0)
    figures: dict[str, object] = {
        "benchmark": "policy_skill",
        "envs": args.envs,
        "steps_per_call": args.steps,
        "rounds": args.rounds,
    }
    actions = {"code": code, "policy": policy}
    seconds, samples = dict.fromkeys(actions, 0.0), dict.fromkeys(actions, 0)
    for action in actions.values():  # warm: workers started, kernels loaded
        world.reset(0)
        run_one_call_each(world, action, seed=0)
    for round_ in range(args.rounds):  # side by side, each from the same fresh worlds
        for name, action in actions.items():
            world.reset(1 + round_)
            started = time.perf_counter()
            _, _, records = run_one_call_each(world, action, seed=round_)
            seconds[name] += time.perf_counter() - started
            samples[name] += sum(r.steps for r in records)
    for name in actions:
        figures[f"{name}_samples_per_s"] = round(samples[name] / seconds[name], 1)
    figures["samples"] = samples
    world.close()
    figures["machine"] = machine()
    figures["policy_over_code"] = round(
        float(figures["policy_samples_per_s"]) / float(figures["code_samples_per_s"]), 3
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
