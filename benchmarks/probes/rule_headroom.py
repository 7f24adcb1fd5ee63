"""How much can a choice among the coded skills gain over the script? Fixed decision rules
over the same action table an RL-from-the-code policy gets, on the same fresh worlds.

    python benchmarks/run.py rule_headroom --task make_iron_pickaxe \
        --skills benchmarks/skills/handwritten/make_iron_pickaxe-care \
        --script make_iron_pickaxe \
        --rule care:need<=3 [--rule fight:hostile<=1,recover:health<=3] \
        [--need 3] [--danger 2] [--shared-memory] [--episodes 128] [--eval-seeds 60000 61000]

A rule is ``SKILL:FEATURE<=N`` clauses joined by commas (the first clause that holds
chooses; none: the script), read at every decision the policy would make: where a call
ends (the script returns or runs out of steps, or ``--need``/``--danger`` cut it). Features:
health, food, drink, energy, need (the lowest of health, food and drink), hostile (steps to
the nearest zombie, skeleton or arrow in view; none: infinite). ``--skills`` is a folder of
skill files, as table2.py's; without it the builtin agent's templates by name
(``--offer fight recover``).

Every rule and the script alone (always chosen, under the same decision points) play the
same evaluation worlds. Prints each one's measure per seed and pooled, with its 95%
interval, and for success rates the rule's difference to the script with an approximate
95% interval; then one JSON line. A rule that beats the script is headroom RL over these
skills could find; none that does says the lever is the skills themselves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from rlgpt_bench import options
from rlgpt_bench.compare import against_script, side_by_side
from rlgpt_bench.options import add_options
from rlgpt_bench.results import machine
from rlgpt_bench.skills import FolderSkills, coded_specs, script_skill
from rlgpt_tui.envs.base import hostile_distances, stat_levels
from rlgpt_tui.rl.config import RLConfig
from rlgpt_tui.tasks.catalog import get_task

FEATURES = ("health", "food", "drink", "energy", "need", "hostile")

Clause = tuple[str, str, float]  # (skill, feature, at most)


def parse_rule(text: str) -> list[Clause]:
    """``SKILL:FEATURE<=N,...`` as clauses; ValueError names the fix."""
    clauses = []
    for part in text.split(","):
        skill, _, condition = part.strip().partition(":")
        feature, _, bound = condition.partition("<=")
        if not skill or feature not in FEATURES or not bound:
            raise ValueError(
                f"--rule {text!r}: write SKILL:FEATURE<=N[,...] with FEATURE one of "
                f"{', '.join(FEATURES)}"
            )
        try:
            clauses.append((skill, feature, float(bound)))
        except ValueError:
            raise ValueError(f"--rule {text!r}: {bound!r} is not a number") from None
    return clauses


class RulePolicy:
    """Chooses by clauses over the observation, like a trained model's ``predict``."""

    def __init__(self, clauses: list[Clause], index: dict[str, int], script: str):
        self.clauses = clauses
        self.index = index
        self.script = script

    def features(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        stats = stat_levels(obs)  # health, food, drink, energy (0-9)
        named = dict(zip(FEATURES[:4], stats.T, strict=True))
        return named | {"need": stats[:, :3].min(1), "hostile": hostile_distances(obs)}

    def predict(self, obs: np.ndarray, deterministic: bool = True) -> tuple[np.ndarray, None]:
        features = self.features(obs)
        chosen = np.full(len(obs), self.index[self.script])
        for skill, feature, bound in reversed(self.clauses):  # the first clause wins
            chosen = np.where(features[feature] <= bound, self.index[skill], chosen)
        return chosen, None


def build_parser() -> argparse.ArgumentParser:
    p = options.parser("rule_headroom", __doc__)
    add_options(p, "task", "skills", "script", "need", "danger", "shared_memory", "resume")
    add_options(p, "episodes", "eval_seeds")
    p.add_argument("--offer", nargs="*", default=[], help="without --skills: builtin skills")
    p.add_argument("--rule", action="append", required=True, dest="rules")
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    p = build_parser()
    a = p.parse_args(argv)
    try:
        task = get_task(a.task)
        rules = {text: parse_rule(text) for text in a.rules}
        if a.skills is not None:
            folder = FolderSkills(a.skills, a.script)
            script = folder.script(task)
            names = list(dict.fromkeys([*folder.offered(task), script]))
            specs = folder.specs(names)
        else:
            script = a.script or script_skill(task)
            names = list(dict.fromkeys([*a.offer, script]))
            specs = coded_specs(names)
        unknown = {s for clauses in rules.values() for s, _, _ in clauses} - set(names)
        if unknown:
            raise ValueError(f"--rule names {sorted(unknown)}: offer them (skills: {names})")
        config = RLConfig(
            task=a.task,
            coded_actions=specs,
            start_from=script,
            interrupt_on_need=a.need,
            interrupt_on_danger=a.danger,
            shared_memory=a.shared_memory,
            resume_interrupted=a.resume,
        )
    except ValueError as error:
        p.error(str(error).splitlines()[0])
    started = time.perf_counter()
    policies = {"script": []} | rules

    def choosers(env: Any) -> dict[str, dict[str, Any]]:
        index = {name: env.coded_index(name) for name in names}
        return {
            label: {"model": RulePolicy(clauses, index, script)}
            for label, clauses in policies.items()
        }

    pooled, per_seed = side_by_side(config, task, choosers, a.eval_seeds, a.episodes)
    out: dict[str, Any] = {
        "benchmark": "rule_headroom",
        "machine": machine(),
        "command": "python benchmarks/run.py rule_headroom " + " ".join(argv),
        "task": a.task,
        "script": script,
        "skills": names,
        "interrupt_on_need": a.need,
        "interrupt_on_danger": a.danger,
        "shared_memory": a.shared_memory,
        "resume_interrupted": a.resume,
        "eval_seeds": a.eval_seeds,
        "episodes_per_seed": a.episodes,
        "results": against_script(task, pooled, per_seed),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(out, default=str))
