"""One entry point for every benchmark and probe: ``python benchmarks/run.py NAME [options]``.

Each benchmark is a module with ``main(argv)``; the options it shares with the others come
from :mod:`rlgpt_bench.options` (one set, with one set of defaults). ``run.py`` alone lists
them. A benchmark in ``benchmarks/`` also runs as its own script (``python
benchmarks/table2.py ...``, as the commands recorded with the results have it); a probe
(one investigation, ``benchmarks/probes/``) runs through here.
"""

from __future__ import annotations

import importlib
import sys

#: name: (module, what it measures)
BENCHMARKS: dict[str, tuple[str, str]] = {
    "table2": ("table2", "the paper's Table 2: PPO, code, RL + code, the two loops"),
    "script_edits": ("script_edits", "named edits to the hand-written script, side by side"),
    "throughput": ("throughput", "samples per second, against SB3's CnnPolicy on Crafter"),
    "time_to_result": ("time_to_result", "where a run's wall time goes"),
    "prompt_cache": ("prompt_cache", "LLM seconds per session, with and without the cache"),
    "kill_resume": ("kill_resume", "kill -9 a session at random moments, resume, count losses"),
    "store_overhead": ("store_overhead", "training fps with and without recording"),
    "tui_responsiveness": ("tui_responsiveness", "the app's start and key latency"),
    "minedojo_protocol": ("minedojo_protocol", "the MineDojo backend's pipe overhead"),
    "policy_skill": ("policy_skill", "a trained policy as a skill, in the worker"),
    "busy_machine": ("busy_machine", "code alone quiet and beside busy processes"),
    "curriculum": ("curriculum", "achievements in tech-tree order from one library (LLM)"),
    "learn_frontier": ("learn_frontier", "a learn's frontier, recorded as results"),
    "plan_search": ("plan_search", "a task's plan composed by measurement"),
    # probes: one investigation each (docs/findings.md)
    "death_probe": ("probes.death_probe", "probe: where the code dies, every step watched"),
    "climb_probe": ("probes.climb_probe", "probe: does RL from the code climb above it"),
    "rule_headroom": ("probes.rule_headroom", "probe: fixed rules over the coded skills"),
    "techtree_probe": ("probes.techtree_probe", "probe: how far the tech-tree code gets"),
}


def listing() -> str:
    width = max(map(len, BENCHMARKS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, what) in BENCHMARKS.items()]
    return "usage: python benchmarks/run.py NAME [options]\n\n" + "\n".join(lines)


def module(name: str):
    """The benchmark ``name``'s module (imported: torch, JAX and the worlds load with it)."""
    return importlib.import_module(BENCHMARKS[name][0])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(listing())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"run.py: error: no benchmark {name!r}: use one of {', '.join(BENCHMARKS)}")
        return 2
    code = module(name).main(rest)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
