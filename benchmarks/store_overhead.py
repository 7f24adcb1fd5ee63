"""Recording overhead: PPO training fps with and without the session store, side by side.

Trains the same config (craftax, collect_wood, coded go_to_tree) in alternating runs:
metrics dropped, or every update's metrics recorded in SQLite as a ``training_progress``
event (one transaction each, WAL). Also times the record calls themselves, the overhead
measured directly. Ends with one JSON line. Target: overhead < 2% of training throughput.

    python benchmarks/store_overhead.py [--samples 30000] [--pairs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rlgpt_bench import options
from rlgpt_bench.options import DEFAULT_ENVS, add_options
from rlgpt_tui.engine import events as ev
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.train import train
from rlgpt_tui.store import SessionStore

#: the hand-written skill files the tests use (go_to_tree.py)
SKILLS = Path(__file__).resolve().parent.parent / "tests" / "skills"


def build_parser() -> argparse.ArgumentParser:
    parser = options.parser("store_overhead", __doc__)
    add_options(parser, "samples", "num_envs")
    parser.add_argument("--pairs", type=int, default=3)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.num_envs = args.num_envs or DEFAULT_ENVS["craftax"]
    source = (SKILLS / "go_to_tree.py").read_text()
    config = RLConfig(
        task="collect_wood",
        num_envs=args.num_envs,
        samples=args.samples,
        seed=0,
        coded_actions=[CodedActionSpec(name="go_to_tree", source=source)],
    )
    train(config.model_copy(update={"samples": 2_000}))  # compile and warm caches first
    store = SessionStore(tempfile.mkdtemp(prefix="rlgpt-bench-"))
    session_id = store.create_session("collect_wood", "craftax", "none (benchmark)", {})
    plain, recorded, record_seconds, train_seconds, updates = [], [], 0.0, 0.0, 0
    for _ in range(args.pairs):
        plain.append(train(config).fps)
        timings: list[float] = []

        def record(metrics: TrainingMetrics, timings: list[float] = timings) -> None:
            started = time.perf_counter()
            store.record(
                session_id,
                ev.TrainingProgress(
                    iteration=0,
                    agent="none",
                    subaction="collect_wood",
                    metrics=metrics,
                ),
            )
            timings.append(time.perf_counter() - started)

        result = train(config, on_metrics=record)
        recorded.append(result.fps)
        record_seconds += sum(timings)
        train_seconds += result.seconds
        updates += len(timings)
    fps_plain, fps_recorded = statistics.median(plain), statistics.median(recorded)
    figures = {
        "benchmark": "store_overhead",
        "machine": "2-core CPU (no GPU)",
        "env": "craftax",
        "task": "collect_wood",
        "coded_actions": ["go_to_tree"],
        "samples_per_run": args.samples,
        "pairs": args.pairs,
        "seed": 0,
        "fps_without_store": round(fps_plain, 1),
        "fps_with_store": round(fps_recorded, 1),
        "fps_ratio_with_over_without": round(fps_recorded / fps_plain, 4),
        "updates_recorded": updates,
        "mean_record_ms": round(1000 * record_seconds / max(updates, 1), 3),
        "record_time_share_of_training": round(record_seconds / train_seconds, 5),
        "target_overhead_below": 0.02,
    }
    figures["target_met"] = figures["record_time_share_of_training"] < 0.02
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
