"""The builtin RL-GPT agent against pure PPO with the same sample budget, in one run.

Usage: python benchmarks/agent_vs_ppo.py [--task collect_wood] [--samples 200000]
Progress goes to stderr; the last line on stdout is one JSON object.

Both sides train on Craftax-Classic with the same seed and are evaluated on the same
evaluation seed; samples are primitive env steps used for training.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from rlgpt_tui.agents.builtin_team import builtin_team
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.engine import Engine, EngineSettings
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.train import train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="collect_wood")
    parser.add_argument("--samples", type=int, default=200_000, help="training budget each")
    parser.add_argument("--per-iteration", type=int, default=30_000)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    iterations: list[dict] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.IterationDone):
            iterations.append(
                {
                    "iteration": event.iteration,
                    "plan": event.plan,
                    "success_rate": event.success_rate,
                    "total_samples": event.total_samples,
                }
            )
            print(
                f"agent iteration {event.iteration}: {event.plan} -> {event.success_rate:.2f}",
                file=sys.stderr,
                flush=True,
            )

    started = time.perf_counter()
    settings = EngineSettings(
        task=args.task,
        seed=args.seed,
        max_iterations=6,
        samples_per_iteration=args.per_iteration,
        max_samples=args.samples,
        eval_episodes=args.episodes,
    )
    agent = Engine(settings, builtin_team(), on_event).run()
    agent_seconds = time.perf_counter() - started

    print(f"pure PPO, {args.samples:,} samples ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    config = RLConfig(task=args.task, samples=args.samples, seed=args.seed)
    result = train(config)
    ppo = evaluate(config, result.model, episodes=args.episodes, seed=10_000 + args.seed)
    ppo_seconds = time.perf_counter() - started

    print(
        json.dumps(
            {
                "task": args.task,
                "env": "craftax",
                "seed": args.seed,
                "budget": args.samples,
                "agent": "builtin",
                "agent_iterations": iterations,
                "agent_final_success": agent.history[-1].value if agent.history else None,
                "agent_training_samples": agent.total_samples,
                "agent_end": agent.reason,
                "agent_seconds": round(agent_seconds, 1),
                "ppo_success": ppo.success_rate,
                "ppo_ci95": [round(ppo.ci_low, 3), round(ppo.ci_high, 3)],
                "ppo_training_samples": result.samples,
                "ppo_seconds": round(ppo_seconds, 1),
                "eval_episodes": args.episodes,
            }
        )
    )


if __name__ == "__main__":
    main()
