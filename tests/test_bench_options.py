"""The benchmarks' one set of shared options (benchmarks/rlgpt_bench/options.py): every
script's parser takes them with the same defaults, ``benchmarks/run.py`` reaches every
benchmark by name, and every command recorded beside a result still parses."""

from __future__ import annotations

import importlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from rlgpt_bench import options

ROOT = Path(__file__).resolve().parent.parent
run = importlib.import_module("run")  # benchmarks/run.py

#: the benchmarks whose parsers take shared options, by their run.py names
SHARING = [
    "table2",
    "script_edits",
    "throughput",
    "prompt_cache",
    "store_overhead",
    "busy_machine",
    "curriculum",
    "learn_frontier",
    "plan_search",
    "death_probe",
    "climb_probe",
    "rule_headroom",
    "techtree_probe",
]


def shared_actions(name: str) -> dict[str, object]:
    """The shared options ``name``'s parser holds, with their defaults."""
    parser = run.module(name).build_parser()
    return {
        a.dest: a
        for a in parser._actions
        if a.dest in options.SPECS and a.option_strings[0] == options.SPECS[a.dest][0][0]
    }


@pytest.mark.parametrize("name", SHARING)
def test_every_benchmark_takes_the_shared_options_with_the_shared_defaults(name: str) -> None:
    actions = shared_actions(name)
    assert actions, f"{name} takes no shared option"
    for dest, action in actions.items():
        flags, _ = options.SPECS[dest]
        assert tuple(action.option_strings) == flags, (name, dest)
        if action.required:
            continue
        assert action.default == options.default(dest, name), (name, dest)
        kept = options.KEPT_DEFAULTS.get(name, {})
        if dest not in kept:  # one default, the same in every script
            shared = getattr(options.DEFAULTS, dest)
            assert action.default == (list(shared) if isinstance(shared, tuple) else shared)


def test_eval_seed_episodes_and_seeds_mean_one_thing_everywhere() -> None:
    """The defaults the scripts once each declared (--eval-seed 20,000 or 60,000 ...)."""
    for name in SHARING:
        actions = shared_actions(name)
        if "eval_seed" in actions and not actions["eval_seed"].required:
            assert actions["eval_seed"].default == 20_000, name
        if "seed" in actions:
            assert actions["seed"].default == 0, name
    assert options.KEPT_DEFAULTS.keys() <= set(SHARING)


def test_run_py_names_every_script_and_probe() -> None:
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"run", "render"}
    probes = {p.stem for p in (ROOT / "benchmarks" / "probes").glob("*.py")} - {"__init__"}
    assert set(run.BENCHMARKS) == scripts | probes
    for name, (module, _) in run.BENCHMARKS.items():
        assert module in (name, f"probes.{name}")
    assert run.main([]) == 0 and run.main(["no_such_benchmark"]) == 2


def recorded_commands() -> list[str]:
    """Every benchmark command docs/results.md prints and benchmarks/results/*.json hold."""
    found = re.findall(r"`(python benchmarks/[^`]+)`", (ROOT / "docs" / "results.md").read_text())

    def walk(data: object) -> None:
        if isinstance(data, dict):
            for key, value in data.items():
                if key == "command" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(data, list):
            for value in data:
                walk(value)

    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        walk(json.loads(path.read_text()))
    # render.py (named in the page's header) renders the pages, not a measurement
    return sorted({c for c in found if c.startswith("python benchmarks/") and "render.py" not in c})


def as_run(command: str) -> tuple[str, list[str]]:
    """A recorded command's benchmark and arguments: its words before a note in brackets
    or after a comma, placeholders (T, S) as a task and a seed, old library folders as
    they are now."""
    command = re.split(r" \(|, and ", command)[0]
    words = shlex.split(command)
    name = Path(words[1]).stem
    values = {"T": "collect_wood", "S": "0"}
    return name, [values.get(w, w) for w in words[2:]]


def test_every_recorded_command_still_parses() -> None:
    commands = recorded_commands()
    assert len(commands) >= 15
    for command in commands:
        name, argv = as_run(command)
        module = run.module(name)
        if hasattr(module, "parse_args"):  # its checks too (tasks, methods, seeds ...)
            parsed = module.parse_args(argv)
        else:
            parsed = module.build_parser().parse_args(argv)
        assert parsed is not None, command


def test_the_engine_and_table2_share_one_choice_of_mode_or_sampled() -> None:
    """engine.choice.mode_or_sampled: sampled is measured only where training beat the
    mode's interval, and kept only where it measures higher (table2.py calls it too)."""
    from types import SimpleNamespace as Ns

    from rlgpt_tui.engine.choice import mode_or_sampled

    config: Any = Ns(start=Ns(action="collect_wood"))
    mode: Any = Ns(value=0.2, ci_high=0.4)
    calls = []

    def sampled(value: float) -> Any:
        return lambda: calls.append(value) or Ns(value=value, ci_high=value)

    kept = mode_or_sampled(config, [Ns(value=0.3)], mode, sampled(0.9))
    assert kept.kept is mode and kept.deterministic is None and not calls  # not measured
    kept = mode_or_sampled(config, [Ns(value=0.8)], mode, sampled(0.1))
    assert kept.kept is mode and kept.deterministic is None and kept.in_training == 0.8
    kept = mode_or_sampled(config, [Ns(value=0.8)], mode, sampled(0.9))
    assert kept.kept.value == 0.9 and kept.deterministic is False and calls == [0.1, 0.9]
    table2 = (ROOT / "benchmarks" / "table2.py").read_text()
    assert "mode_or_sampled(" in table2 and "choose(" in table2
    assert "sampled_may_beat_mode" not in table2 and "5_000" not in table2
