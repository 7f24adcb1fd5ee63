"""Table 2: pure PPO, pure code, RL over coded skills and the agent's two loops, per task.

Usage: python benchmarks/table2.py [--tasks collect_wood eat_cow] [--seeds 0 1 2]
       [--samples 30000] [--episodes 16] [--env craftax|crafter] [--out table2.md]
       [--jobs 4] [--sweep DIR] [--ray ADDRESS|local] [--record NAME]
Progress goes to stderr; stdout is a markdown table, then one JSON line with everything.

Its cells (task x method x seed) run one after another in this process, or with ``--jobs
N`` in N processes at once (each ``table2.py --cell TASK METHOD SEED``, a process of its
own: JAX and fork do not mix), or with ``--ray ADDRESS`` as tasks of a Ray cluster
(``local``: a Ray on this machine with ``--jobs`` CPUs). Each cell's result is kept in the
sweep folder (``--sweep DIR``) as it lands: the same command with the same folder skips
the finished cells, so an interrupted sweep resumes where it stopped; the pooled table is
the same as a sequential run's. ``--record NAME`` writes the figures, with the commit,
machine and date, to ``benchmarks/results/NAME.json`` (``python benchmarks/render.py``
then shows them in docs/results.md).

Every method gets the same training-sample budget (primitive env steps) and the same seeds;
each run is then evaluated on the same evaluation seed (``--eval-seed`` + seed), one episode
per env, and each (task, method) cell pools the evaluation episodes of all seeds: a success
rate with a Wilson 95% interval, or Crafter's score with a bootstrap one over episodes.

Methods:
- ``ppo``: pure PPO over the 17 primitives;
- ``code``: the agent's skills run by a fixed script, no learning (the task's own tech-tree
  skill; for a scored task the skill library's script, ``SCRIPT_SKILL``);
- ``rl_code``: PPO with coded skills as extra actions (the ones the builtin agent codes for
  the task: ``go_to_<target>`` and the coded prerequisites; for a scored task the library),
  from a uniform policy (the ablation of ``rl_from_code``);
- ``rl_from_code``: the same skills plus the pure-code method's script as one more coded
  action, with a policy that starts as that script (``RLConfig.start.action``): RL that
  starts from the code. How it acts and whether the seed reports it or the code alone are
  the engine's own choices (``rlgpt_tui.engine.choice``) on the engine's worlds, never the
  evaluation's: it acts by its mode unless it did better in training than its mode and
  sampled measures higher on an iteration's worlds (``ITERATION_SEED`` + seed); then the
  final choice (``choose``, on ``FRESH_SEED`` + seed) keeps it or the code alone, whichever
  measures higher (its kind ``code`` where the code is kept, the figures beside it);
- ``agent``: the two loops (builtin agent, or an LLM team with ``--llm-base-url``); its
  best iteration's solution is evaluated like the others.

``--skills DIR``: ``code``, ``rl_code`` and ``rl_from_code`` take their coded skills from a
folder of skill files (``rlgpt-tui skills export`` writes them; e.g. what an LLM wrote in a
session) instead of the builtin agent's hand-written library: the script is the skill
``--script`` names (default ``plan`` when the folder has one, else the task's name), and RL
is offered every other skill of the folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rlgpt_bench import options
from rlgpt_bench.options import DEFAULT_ENVS, Parser, add_options
from rlgpt_bench.results import HAND_WRITTEN, TASK_ORDER, machine
from rlgpt_bench.skills import (
    BUILTIN_LIBRARY,
    FolderSkills,
    coded_specs,
    rl_skills,
    script_skill,
)
from rlgpt_tui.agents.builtin_team import builtin_team
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.choice import (
    CODE,
    FRESH_SEED,
    ITERATION_SEED,
    Candidate,
    Candidates,
    choose,
    fresh_episodes,
    mode_or_sampled,
)
from rlgpt_tui.engine.engine import Engine, EngineSettings
from rlgpt_tui.engine.provenance import solution_provenance
from rlgpt_tui.envs.base import stat_levels
from rlgpt_tui.labels import agent_labels
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.episodes import EpisodeTally
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.prior import action_probabilities
from rlgpt_tui.rl.train import TrainResult, train
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.tasks.catalog import Task, get_task, load_catalog
from rlgpt_tui.tasks.results import Measurement

METHODS: dict[str, str] = {
    "ppo": "pure PPO",
    "code": "pure code",
    "rl_code": "RL + coded skills from scratch",
    "rl_from_code": "RL + code, from the code",
    "agent": "agent (two loops)",
}
ENVS = ("craftax", "crafter")
# rl_from_code chooses how its policy acts, and between it and the code, as the engine
# does and on the engine's worlds (ITERATION_SEED, FRESH_SEED + seed; Bench.final_choice):
# before, this script chose on worlds 5,000 above its evaluation seeds: the rows recorded
# in benchmarks/results/ until then ran with that offset


def catalog_tasks() -> list[str]:
    """Every catalog task, in :data:`TASK_ORDER` (others after it)."""
    names = list(load_catalog())
    return [n for n in TASK_ORDER if n in names] + [n for n in names if n not in TASK_ORDER]


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class SeedRun:
    """One method's run on one seed: its evaluation and what it cost."""

    seed: int
    evaluation: EvalResult
    samples: int  # training samples
    seconds: float  # training and evaluation
    kind: str  # code, RL or RL + code
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "value": round(self.evaluation.value, 4),
            "ci95": [round(self.evaluation.ci_low, 4), round(self.evaluation.ci_high, 4)],
            "episodes": self.evaluation.episodes,
            "samples": self.samples,
            "seconds": round(self.seconds, 1),
            "kind": self.kind,
            "mean_length": round(self.evaluation.mean_length, 1),
        } | self.extra


def off_script(
    config: RLConfig, result: TrainResult, script: str, need: int = 3
) -> dict[str, Any] | None:
    """Where the trained policy's mode leaves the script, over its last rollout's states:
    the share of states it does in need (health, food or drink at ``need`` or below) and
    otherwise, and what it then chooses (the whole observation only; else None)."""
    if config.observation is not None:
        return None
    model, env = result.model, result.env
    obs = model.rollout_buffer.observations.reshape(-1, model.observation_space.shape[0])
    chosen = action_probabilities(model, obs).argmax(1).numpy()
    in_need = stat_levels(obs)[:, :3].min(1) <= need  # health, food or drink
    off = chosen != env.coded_index(script)
    names = [entry.name for entry in env.runner.table]

    def share(mask: np.ndarray) -> dict[str, Any]:
        kinds = np.unique(chosen[mask & off], return_counts=True)
        return {
            "states": int(mask.sum()),
            "off": round(float(off[mask].mean()), 4) if mask.any() else None,
            "to": {names[k]: int(c) for k, c in zip(*kinds, strict=True)},
        }

    return {"in_need": share(in_need), "otherwise": share(~in_need)}


def solution_kind(coded: bool, learned: bool) -> str:
    return "RL + code" if coded and learned else ("RL" if learned else "code")


def as_coded(config: RLConfig) -> RLConfig:
    """``config`` for the code alone: its calls run as written, never ended at danger points
    or needs."""
    return config.changed(hooks={"interrupt_on_danger": 0, "interrupt_on_need": 0})


class Bench:
    """Runs the methods for one configuration (env, budget, episodes, envs)."""

    def __init__(self, args: argparse.Namespace, team_factory) -> None:
        self.args = args
        self.team_factory = team_factory
        self.folder = FolderSkills(args.skills, args.script, args.env) if args.skills else None

    def script(self, task: Task) -> str:
        return self.folder.script(task) if self.folder else script_skill(task)

    def offered(self, task: Task) -> list[str]:
        return self.folder.offered(task) if self.folder else rl_skills(task)

    def specs(self, names: list[str]) -> list[CodedActionSpec]:
        return self.folder.specs(names) if self.folder else coded_specs(names)

    def config(
        self, task: Task, seed: int, coded: list[str] | None = None, start_from: str | None = None
    ) -> RLConfig:
        """The run's RLConfig; its coded calls end at danger points (``--danger``), except
        where the code runs alone (:func:`as_coded`)."""
        a = self.args
        start = {}
        if start_from is not None:  # RL from the code: how firmly it starts there
            start = {
                k: v
                for k, v in (
                    ("start_share", a.start_share),
                    ("start_anchor_decay", a.anchor_decay),
                    ("start_primitive_share", a.primitive_share),
                )
                if v is not None
            }
        return RLConfig(
            task=task.name,
            env=a.env,
            samples=a.samples,
            seed=seed,
            num_envs=a.num_envs,
            coded_actions=self.specs(coded or []),
            start_from=start_from,
            interrupt_on_danger=a.danger if coded else 0,
            shared_memory=a.shared_memory,
            interrupt_on_need=a.need if coded else 0,
            reward_code=a.reward_code,
            resume_interrupted=a.resume,
            **start,
        )

    def eval_seed(self, seed: int) -> int:
        return self.args.eval_seed + seed

    def run(self, method: str, task: Task, seed: int) -> SeedRun:
        return getattr(self, f"run_{method}")(task, seed)

    def _trained(
        self, task: Task, seed: int, coded: list[str], start_from: str | None = None
    ) -> SeedRun:
        started = time.perf_counter()
        config = self.config(task, seed, coded, start_from)
        result = train(config)
        extra: dict[str, Any] = {"train_seconds": round(result.seconds, 1)}
        if coded:
            usage = result.env.coded_usage()
            extra["coded_actions"] = coded
            extra["coded_decision_share"] = round(usage["decision_share"], 4)
        if start_from:
            calls = usage["actions"].get(start_from, {}).get("calls", 0)
            extra["start_from"] = start_from
            extra["start_from_call_share"] = round(calls / max(result.env.decisions, 1), 4)
            extra["off_script"] = off_script(config, result, start_from)
        tally = result.env.runner.tally
        if task.scored and len(tally):  # Crafter's own definition: every training episode
            extra["run"] = tally.measure(task, seed=seed).as_dict()
            extra["run_tally"] = tally
        result.env.close()
        kind = solution_kind(bool(coded), True)
        if start_from:  # the engine's choices: mode or sampled, then code or policy
            chosen = self.final_choice(task, config, result, seed, start_from, extra)
            kind = chosen.kind
            evaluation = chosen.evaluate(self.args.episodes, self.eval_seed(seed))
        else:
            evaluation = evaluate(
                config, result.model, episodes=self.args.episodes, seed=self.eval_seed(seed)
            )
        seconds = time.perf_counter() - started
        return SeedRun(seed, evaluation, result.samples, seconds, kind, extra)

    def final_choice(
        self,
        task: Task,
        config: RLConfig,
        result: TrainResult,
        seed: int,
        script: str,
        extra: dict[str, Any],
    ) -> Candidate:
        """What a policy that started from code (``script``) is evaluated as, chosen by the
        engine's own choices on the engine's own worlds, never the evaluation's: how it acts
        (:func:`~rlgpt_tui.engine.choice.mode_or_sampled`, on an iteration's worlds,
        ``ITERATION_SEED`` + seed), then the policy so acting or the code alone
        (:func:`~rlgpt_tui.engine.choice.choose`, the final choice, on ``FRESH_SEED`` + seed).
        A 1.5B model's searched plan for crafter_score scored 18.3 alone on fresh worlds; RL
        from it, its mode at 0.0 and sampled 12.5 on selection worlds, measured 12.5."""
        episodes, at = self.args.episodes, ITERATION_SEED + seed
        mode = evaluate(config, result.model, episodes=episodes, seed=at)

        def sampled() -> EvalResult:
            return evaluate(config, result.model, episodes=episodes, seed=at, deterministic=False)

        acts = mode_or_sampled(config, result.history, mode, sampled)
        extra["selection"] = {"seed": at, "mode": round(mode.value, 4)}
        if acts.sampled is not None:
            extra["selection"]["sampled"] = round(acts.sampled.value, 4)
        if acts.deterministic is False:
            extra["acts"] = "sampled"
            log(f"  the policy acts sampled: {acts.kept.value:.2f}, its mode {mode.value:.2f}")
        candidates = Candidates()
        policy = Candidate(
            config, 0, acts.kept.value, model=result.model, deterministic=acts.deterministic
        )
        candidates.offer(policy)
        candidates.offer(Candidate(as_coded(config), 0, None, only_coded=script))
        fresh = FRESH_SEED + seed
        final = choose(
            candidates,
            task,
            fresh_episodes(task, episodes, self.args.final_episodes),
            fresh,
            task.measure.default_target,
        )
        assert final is not None  # two candidates
        extra["final_choice"] = {
            "seed": fresh,
            "candidates": [c.to_dict() for c in final.measured_candidates()],
        }
        if final.chosen.kind == CODE:
            extra["kept"] = "code"
            log(f"  the code is kept: {final.fresh.value:.2f} on the final choice's worlds")
        return final.chosen

    def run_ppo(self, task: Task, seed: int) -> SeedRun:
        return self._trained(task, seed, [])

    def run_rl_code(self, task: Task, seed: int) -> SeedRun:
        return self._trained(task, seed, self.offered(task))

    def run_rl_from_code(self, task: Task, seed: int) -> SeedRun:
        script = self.script(task)
        skills = list(dict.fromkeys([*self.offered(task), script]))
        return self._trained(task, seed, skills, start_from=script)

    def run_code(self, task: Task, seed: int) -> SeedRun:
        started = time.perf_counter()
        name = self.script(task)
        config = as_coded(self.config(task, seed, [name]))
        evaluation = evaluate(
            config, only_coded=name, episodes=self.args.episodes, seed=self.eval_seed(seed)
        )
        seconds = time.perf_counter() - started
        return SeedRun(seed, evaluation, 0, seconds, "code", {"script": name})

    def run_agent(self, task: Task, seed: int) -> SeedRun:
        a = self.args
        started = time.perf_counter()
        settings = EngineSettings(
            task=task.name,
            env=a.env,
            num_envs=a.num_envs,
            seed=seed,
            max_iterations=a.iterations,
            samples_per_iteration=a.per_iteration
            if a.per_iteration
            else (None if task.scored else max(a.samples // 3, 1)),
            max_samples=a.samples,
            eval_episodes=a.episodes,
            final_episodes=a.final_episodes,
        )

        events: list[ev.Event] = []

        def on_event(event: ev.Event) -> None:
            events.append(event)
            if isinstance(event, ev.IterationDone):
                log(
                    f"    agent iteration {event.iteration}: {event.plan} -> "
                    f"{task.measure.show(event.value)} ({event.total_samples:,} samples)"
                )

        team = self.team_factory()
        engine = Engine(settings, team, on_event)
        result = engine.run()
        final = result.final
        if final is None:  # nothing was evaluated (e.g. no plan from an LLM)
            raise RuntimeError(f"the agent found no solution for {task.name} ({result.reason})")
        # the engine's chosen solution, on this benchmark's evaluation worlds
        evaluation = final.chosen.evaluate(a.episodes, self.eval_seed(seed))
        seconds = time.perf_counter() - started
        extra: dict[str, Any] = {
            "agent_best": round(result.best, 4),  # its own evaluation, which stopped it
            "agent_fresh": final.solution().to_dict(),  # its final choice's fresh evaluation
            "chosen_iteration": final.chosen.iteration,
            "iterations": [
                {"plan": h.plan.summary(), "value": round(h.value, 4), "samples": h.samples}
                for h in result.history
            ],
            "end": result.reason,
            "tokens": result.tokens,
        }
        client = getattr(team, "client", None)
        if client is not None:  # an LLM team: its wall time and calls
            extra["llm_seconds"] = round(sum(c.latency_s for c in client.calls), 1)
            extra["llm_calls"] = len(client.calls)
        provenance = solution_provenance(events, final.solution())
        extra["authors"] = provenance.authors
        share = provenance.llm_share
        extra["llm_share"] = None if share is None else round(share, 4)
        if result.run is not None:
            extra["run"] = result.run.as_dict()
            extra["run_tally"] = engine.run_tally
        return SeedRun(seed, evaluation, result.total_samples, seconds, final.chosen.kind, extra)


def tally_dict(tally: EpisodeTally) -> dict[str, Any]:
    """An episode tally as JSON: each episode's success, achievements (bits) and end."""
    return {
        "success": list(map(bool, tally.success)),
        "achieved": tally.bitmasks(),
        "ends": list(tally.ends),
    }


def tally_from(data: dict[str, Any]) -> EpisodeTally:
    tally = EpisodeTally.from_bitmasks(data["achieved"], {})
    tally.success, tally.ends = list(data["success"]), list(data["ends"])
    return tally


def seed_record(run: SeedRun) -> dict[str, Any]:
    """One seed's run as JSON, with the episodes that pool into its cell (``tally``, and
    ``run_tally``: a scored task's training episodes): what a sweep's cell file holds."""
    record = {k: v for k, v in run.as_dict().items() if k != "run_tally"}
    tally = run.evaluation.tally
    record["tally"] = None if tally is None else tally_dict(tally)
    run_tally = run.extra.get("run_tally")
    record["run_tally"] = None if run_tally is None else tally_dict(run_tally)
    return record


def pooled(task: Task, records: list[dict[str, Any]], key: str = "tally") -> Measurement | None:
    """The task's measure over every seed's episodes (evaluation ``tally``, or the
    training's ``run_tally``)."""
    tally = EpisodeTally()
    for record in records:
        part = record.get(key)
        if part is None:
            return None
        tally.extend(tally_from(part))
    return tally.measure(task, seed=0) if len(tally) else None


def kinds_text(kinds: list[str]) -> str:
    """e.g. ``code`` or ``RL + code 2, code 1``."""
    if not kinds:
        return "-"
    counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
    return kinds[0] if len(counts) == 1 else ", ".join(f"{k} {n}" for k, n in counts.items())


def cell_dict(
    task: Task, method: str, records: list[dict[str, Any]], budget: int
) -> dict[str, Any]:
    """A (task, method) cell from its seeds' records (:func:`seed_record`), pooled."""
    m = pooled(task, records)  # None: every seed failed
    cell: dict[str, Any] = {
        "task": task.name,
        "method": method,
        "measure": task.measure.value,
        "value": None if m is None else round(m.value, 4),
        "ci95": None if m is None else [round(m.ci95[0], 4), round(m.ci95[1], 4)],
        "episodes": 0 if m is None else m.episodes,
        "budget": budget,
        "samples": [r["samples"] for r in records],
        "seconds": round(sum(r["seconds"] for r in records), 1),
        "kind": kinds_text([r["kind"] for r in records]),
        "per_seed": [
            {k: v for k, v in r.items() if k not in ("tally", "run_tally")} for r in records
        ],
    }
    if task.scored and m is not None:
        cell["achievement_rates"] = {k: round(v, 4) for k, v in m.achievement_rates.items()}
        cell["episode_ends"] = m.ends
        run = pooled(task, records, key="run_tally")
        cell["run_score"] = None if run is None else round(run.value, 3)
        cell["run_episodes"] = None if run is None else run.episodes
    return cell


def provenance_text(runs: list[dict[str, Any]]) -> str:
    """The agent cell's provenance: the LLM-written share of the solution's coded-action
    calls per seed, its authors, and the LLM's tokens and wall time (empty elsewhere)."""
    if not any("authors" in r for r in runs):
        return ""
    shares = ["-" if r.get("llm_share") is None else f"{r['llm_share']:.0%}" for r in runs]
    authors = sorted({a for r in runs for a in (r.get("authors") or {}).values()})
    text = f"<br>LLM-written share: {', '.join(shares)}; by {', '.join(authors) or 'no code'}"
    if any("llm_seconds" in r for r in runs):
        tokens = sum(r.get("tokens", 0) for r in runs)
        seconds = sum(r.get("llm_seconds", 0.0) for r in runs)
        text += f"<br>LLM: {tokens:,} tokens, {seconds:.0f} s"
    return text


def count(n: int) -> str:
    """``2,048`` or ``30k``."""
    return f"{n:,}" if n < 10_000 else f"{n / 1000:.0f}k"


def markdown(cells: list[dict[str, Any]], methods: list[str]) -> str:
    """One row per task, one column per method: value [95% CI], then samples, time, kind."""
    catalog = load_catalog()
    head = "| task | measure | " + " | ".join(METHODS[m] for m in methods) + " |"
    lines = [head, "|" + "---|" * (2 + len(methods))]
    tasks = list(dict.fromkeys(c["task"] for c in cells))
    for name in tasks:
        measure = catalog[name].measure
        row = [name, measure.label]
        for method in methods:
            cell = next((c for c in cells if c["task"] == name and c["method"] == method), None)
            if cell is None or cell["value"] is None:
                row.append("-" if cell is None else "failed")
                continue
            low, high = cell["ci95"]
            samples = max(cell["samples"], default=0)
            text = (
                f"**{measure.show(cell['value'])}** [{measure.show(low)}-"
                f"{measure.show(high)}]<br>{count(samples)} samples, "
                f"{cell['seconds']:.0f} s, {cell['kind']}"
            )
            if cell.get("run_score") is not None:
                text += f"<br>training episodes: {cell['run_score']:.1f}"
            stops = [r["agent_best"] for r in cell["per_seed"] if "agent_best" in r]
            if stops:
                text += "<br>its own stop figures: " + ", ".join(map(measure.show, stops))
            text += provenance_text(cell["per_seed"])
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def build_parser() -> Parser:
    """table2.py's parser: the shared options (:mod:`rlgpt_bench.options`) and its own."""
    parser = options.parser("table2", __doc__)
    add_options(parser, "tasks", "seeds", "samples", "episodes", "num_envs", "env", "eval_seed")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), metavar="METHOD")
    parser.add_argument(
        "--final-episodes",
        type=int,
        default=None,
        help="episodes per candidate in the final choice, the agent's and rl_from_code's "
        "(default: the engine's, at least 64; 32 for a score)",
    )
    parser.add_argument("--iterations", type=int, default=4, help="the agent's iterations")
    parser.add_argument(
        "--per-iteration",
        type=int,
        default=None,
        help="the agent's samples per iteration (default: a third of the budget; scored "
        "tasks: the budget spread over the iterations)",
    )
    parser.add_argument(
        "--library",
        default="empty",
        choices=("empty", "builtin"),
        help="what an LLM agent starts from (default: empty, every coded action its own)",
    )
    add_options(parser, "skills", "script")
    parser.add_argument(
        "--start-share",
        type=float,
        default=None,
        help="rl_from_code: the starting policy's probability of the script (default: "
        "RLConfig's start.share)",
    )
    parser.add_argument(
        "--anchor-decay",
        type=float,
        default=None,
        help="rl_from_code: the pull toward the script is multiplied by this after every "
        "update (default: RLConfig's start.anchor_decay)",
    )
    parser.add_argument(
        "--primitive-share",
        type=float,
        default=None,
        help="rl_from_code: of the start's 1 - start share, the part on the primitives, the "
        "rest on the other coded skills (default: RLConfig's start.primitive_share, even)",
    )
    parser.add_argument(
        "--reward",
        type=Path,
        default=None,
        metavar="FILE",
        help="ppo, rl_code, rl_from_code: reward code (`def reward(prev, now) -> float` over "
        "Views) added to the task's reward in training (RLConfig's reward_code)",
    )
    add_options(
        parser,
        "danger",
        "need",
        "shared_memory",
        "resume",
        "llm_base_url",
        "llm_model",
        "llm_timeout",
        "jobs",
        help={
            "danger": "rl_code, rl_from_code: a coded call ends when a zombie, skeleton or arrow "
            "comes within this many steps, so the policy decides there (RLConfig's "
            "hooks.interrupt_on_danger; default 0: never). The code method runs uninterrupted",
            "need": "rl_code, rl_from_code: a coded call ends when health, food or drink falls "
            "to this value or below, so the policy decides there (RLConfig's "
            "hooks.interrupt_on_need; default 0: never). The code method runs uninterrupted",
            "jobs": "run the cells (task x method x seed) in this many processes at once "
            "(default 1: one after another in this process)",
        },
    )
    parser.add_argument("--out", default=None, help="also write the markdown table here")
    parser.add_argument(
        "--sweep",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep each cell's result in DIR as it lands; run again with the same DIR to "
        "skip finished cells and resume an interrupted sweep (default with --jobs or --ray: "
        "a new temporary folder)",
    )
    parser.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="run the cells as Ray tasks on the cluster at ADDRESS, or 'local' for a Ray on "
        "this machine with --jobs CPUs (needs the ray extra: pip install 'rlgpt-tui[ray]')",
    )
    add_options(parser, "record", "results_dir")
    parser.add_argument("--cell", nargs=3, default=None, help=argparse.SUPPRESS)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    catalog = load_catalog()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.tasks is None:
        args.tasks = catalog_tasks()
    unknown = [t for t in args.tasks if t not in catalog]
    if unknown:
        parser.error(f"unknown task(s) {', '.join(unknown)}: use {', '.join(catalog_tasks())}")
    bad = [m for m in args.methods if m not in METHODS]
    if bad:
        parser.error(f"unknown method(s) {', '.join(bad)}: use {', '.join(METHODS)}")
    if args.env not in ENVS:
        parser.error(f"unknown env {args.env!r}: use --env craftax or --env crafter")
    if any(s < 0 for s in args.seeds) or len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds must be distinct and 0 or more, got {args.seeds}")
    for flag, value in (
        ("--samples", args.samples),
        ("--episodes", args.episodes),
        ("--iterations", args.iterations),
        ("--per-iteration", args.per_iteration),
        ("--final-episodes", args.final_episodes),
    ):
        if value is not None and value < 1:
            parser.error(f"{flag} must be at least 1, got {value}")
    if args.num_envs is None:
        args.num_envs = DEFAULT_ENVS[args.env]
    if not 1 <= args.num_envs <= 4096:
        parser.error(f"--num-envs must be in 1..4096, got {args.num_envs}")
    if args.start_share is not None and not 0 < args.start_share < 1:
        parser.error(f"--start-share must be between 0 and 1, got {args.start_share}")
    if args.anchor_decay is not None and not 0 < args.anchor_decay <= 1:
        parser.error(f"--anchor-decay must be in (0, 1], got {args.anchor_decay}")
    if not 0 <= args.danger <= 8:
        parser.error(f"--danger must be in 0..8 steps, got {args.danger}")
    if args.eval_seed < 0:
        parser.error(f"--eval-seed must be 0 or more, got {args.eval_seed}")
    chosen_on = {base + s for base in (ITERATION_SEED, FRESH_SEED) for s in args.seeds}
    if chosen_on & {args.eval_seed + s for s in args.seeds}:
        parser.error(
            f"--eval-seed {args.eval_seed}: the engine chooses on worlds {ITERATION_SEED:,} "
            f"and {FRESH_SEED:,} + seed; evaluate elsewhere (e.g. 60000)"
        )
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.ray and importlib.util.find_spec("ray") is None:
        parser.error("--ray needs Ray: pip install 'rlgpt-tui[ray]' (or pip install ray)")
    if args.record is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", args.record):
        parser.error(f"--record {args.record!r}: use a plain name such as table2-30k")
    if args.cell is not None:
        if args.cell[0] not in catalog or args.cell[1] not in METHODS:
            parser.error(f"--cell {' '.join(args.cell)}: give TASK METHOD SEED")
        if not args.cell[2].isdigit():
            parser.error(f"--cell {' '.join(args.cell)}: the seed must be a number")
    args.reward_code = None
    if args.reward is not None:
        try:
            args.reward_code = RewardCode(args.reward.read_text()).source
        except OSError as error:
            parser.error(f"--reward {args.reward}: {error.strerror}: give a readable file")
        except ValueError as error:  # CodeValidationError: the first line names the fault
            parser.error(f"--reward {args.reward}: {str(error).splitlines()[0]}")
    if bool(args.llm_base_url) != bool(args.llm_model):
        parser.error("--llm-base-url and --llm-model go together: give both, or neither")
    return args


def team_factory(args: argparse.Namespace):
    """A function making a fresh agent team per run: builtin, or LLM agents."""
    if not args.llm_base_url:
        return builtin_team, "builtin"
    from rlgpt_tui.llm.settings import LLMSettings
    from rlgpt_tui.session import make_team, session_shelf

    settings = LLMSettings.resolve(args.llm_base_url, args.llm_model, timeout=args.llm_timeout)

    def factory() -> AgentTeam:
        shelf = session_shelf(None, args.library, args.env)
        return make_team(settings, args.env, shelf)

    return factory, f"llm:{args.llm_model}"


def stop_on_sigterm() -> None:
    """SIGTERM ends the run like Ctrl-C: the cells finished so far are still reported."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def code_author(args: argparse.Namespace, cell: dict[str, Any], bench: Bench) -> str:
    """Who wrote the code a cell ran: none (pure PPO), the skills folder's authors, the
    agent's (its solutions' authors), or us (the builtin library)."""
    if cell["method"] == "ppo":
        return "none"
    if cell["method"] == "agent":
        authors = {a for r in cell["per_seed"] for a in (r.get("authors") or {}).values()}
        authors = {HAND_WRITTEN if a == "builtin library" else a for a in authors}
        return ", ".join(sorted(agent_labels(authors))) or "none"
    if bench.folder is not None:  # a model named by its GGUF path in older files: by its name
        return ", ".join(sorted(agent_labels(bench.folder.authors.values())))
    return HAND_WRITTEN


def record(args: argparse.Namespace, report: dict[str, Any], bench: Bench) -> Path:
    """Write the run's cells to benchmarks/results/<--record>.json (rlgpt_bench)."""
    from rlgpt_bench.results import RESULTS_DIR, write_run

    library = str(args.skills) if args.skills else BUILTIN_LIBRARY
    rows = []
    for cell in report["cells"]:
        if cell["value"] is None:
            continue
        row = {
            "task": cell["task"],
            "metric": cell["measure"],
            "value": cell["value"],
            "low": cell["ci95"][0],
            "high": cell["ci95"][1],
            "method": cell["method"],
            "code_author": code_author(args, cell, bench),
            "library": None if cell["method"] == "ppo" else library,
            "budget": 0 if cell["method"] == "code" else args.samples,
            "episodes": cell["episodes"],
        }
        notes = [f"kind: {cell['kind']}"]
        if bench.folder is not None and cell["method"] != "ppo":
            called = bench.folder.policies_called(bench.script(get_task(cell["task"])))
            notes.append(f"policy skills called: {', '.join(called) or 'none'}")
        if cell.get("run_score") is not None:
            notes.append(f"training episodes {cell['run_score']:.1f}")
        if cell["errors"]:
            notes.append(f"{len(cell['errors'])} seed(s) failed")
        row["note"] = "; ".join(notes)
        rows.append(row)
    group = (
        "Table 2 on the hand-written library (builtin agent, no LLM)"
        if not args.skills and report["agent"] == "builtin"
        else f"Table 2 over {library} ({report['agent']} agent)"
    )
    return write_run(
        args.record,
        rows,
        folder=args.results_dir or RESULTS_DIR,
        command=report["command"],
        source="recorded by benchmarks/table2.py --record",
        group=group,
        agent=report["agent"],
        world=args.env,
        training_seeds=args.seeds,
        eval_seeds=report["eval_seeds"],
        details={k: v for k, v in report.items() if k != "cells"}
        | {"cells": [{k: v for k, v in c.items() if k != "per_seed"} for c in report["cells"]]},
    )


def cell_name(task: str, method: str, seed: int) -> str:
    return f"{task}--{method}--seed{seed}"


#: flags of the whole sweep that its cells' processes do not get (each takes one value)
SWEEP_FLAGS = ("--jobs", "--sweep", "--ray", "--record", "--results-dir", "--out")
#: settings that do not change a cell's result (a sweep folder may be reused across them)
NOT_SETTINGS = (
    "tasks",
    "methods",
    "seeds",
    "jobs",
    "sweep",
    "ray",
    "record",
    "results_dir",
    "out",
    "cell",
)


def cell_argv(argv: list[str]) -> list[str]:
    """``argv`` without the sweep's own flags: what every cell's process gets."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in SWEEP_FLAGS:
            skip = True
        elif not any(arg.startswith(f"{flag}=") for flag in SWEEP_FLAGS):
            out.append(arg)
    return out


def sweep_folder(args: argparse.Namespace) -> Path:
    """The sweep's folder (``--sweep``, else a new temporary one), checked to hold cells
    of these settings only."""
    import tempfile

    folder = Path(args.sweep) if args.sweep else Path(tempfile.mkdtemp(prefix="table2-sweep-"))
    settings = {k: str(v) for k, v in sorted(vars(args).items()) if k not in NOT_SETTINGS}
    marker = folder / "settings.json"
    folder.mkdir(parents=True, exist_ok=True)
    if marker.exists() and json.loads(marker.read_text()) != settings:
        old = json.loads(marker.read_text())
        changed = sorted(k for k in settings.keys() | old.keys() if settings.get(k) != old.get(k))
        print(
            f"table2.py: error: --sweep {folder} holds cells run with other settings "
            f"({', '.join(changed)}): use another folder",
            file=sys.stderr,
        )
        sys.exit(2)
    marker.write_text(json.dumps(settings, indent=1) + "\n")
    return folder


def run_one_cell(args: argparse.Namespace, bench: Bench) -> None:
    """``--cell TASK METHOD SEED``: run that seed and print its record as one JSON line (a
    failure as ``{"error": ...}``)."""
    name, method, seed = args.cell[0], args.cell[1], int(args.cell[2])
    task = load_catalog()[name]
    log(f"{name} / {METHODS[method]} / seed {seed} ...")
    try:
        run = bench.run(method, task, seed)
    except Exception as error:  # reported as the cell's error, as a sequential run does
        print(json.dumps({"error": f"seed {seed}: {type(error).__name__}: {error}"}), flush=True)
        return
    log(f"  {name} / {method} / seed {seed}: {task.measure.show(run.evaluation.value)}")
    print(json.dumps(seed_record(run)), flush=True)


def sequential(
    args: argparse.Namespace, bench: Bench, done: dict[tuple[str, str, int], Any]
) -> None:
    """Every seed run in this process, one after another, into ``done``."""
    catalog = load_catalog()
    for name in args.tasks:
        task = catalog[name]
        for method in args.methods:
            for seed in args.seeds:
                log(f"{name} / {METHODS[method]} / seed {seed} ...")
                try:
                    run = bench.run(method, task, seed)
                except Exception as error:  # one failed run never ends the benchmark
                    done[name, method, seed] = f"seed {seed}: {type(error).__name__}: {error}"
                    log(f"  failed: {done[name, method, seed]}")
                    continue
                log(
                    f"  {task.measure.show(run.evaluation.value)} ({run.kind}, "
                    f"{run.samples:,} samples, {run.seconds:.0f} s)"
                )
                done[name, method, seed] = seed_record(run)
            cell_landed(args, done, name, method)


def in_parallel(
    args: argparse.Namespace, argv: list[str], done: dict[tuple[str, str, int], Any]
) -> None:
    """Every seed run as a cell of a sweep (:mod:`rlgpt_bench.sweep`): its own process,
    ``--jobs`` at a time or on Ray, its record kept in the sweep folder as it lands."""
    from rlgpt_bench.sweep import Cell, Outcome, run_cells

    folder = sweep_folder(args)
    log(f"sweep folder {folder} (run again with --sweep {folder} to resume)")
    script = str(Path(__file__).resolve())
    base = [sys.executable, script, *cell_argv(argv)]
    keys = {}
    cells = []
    for name in args.tasks:
        for method in args.methods:
            for seed in args.seeds:
                cell = Cell(
                    cell_name(name, method, seed),
                    (*base, "--cell", name, method, str(seed)),
                )
                keys[cell.name] = (name, method, seed)
                cells.append(cell)

    def landed(outcome: Outcome) -> None:
        name, method, seed = keys[outcome.cell.name]
        done[name, method, seed] = outcome.result if outcome.result else outcome.error
        how = "already in the sweep folder" if outcome.reused else "landed"
        log(
            f"{outcome.cell.name}: {how}" + (f" (failed: {outcome.error})" if outcome.error else "")
        )
        if all((name, method, s) in done for s in args.seeds):
            cell_landed(args, done, name, method)

    run_cells(cells, folder, jobs=args.jobs, ray_address=args.ray, cwd=Path.cwd(), on_result=landed)


def cells_so_far(args: argparse.Namespace, done: dict[tuple[str, str, int], Any]) -> list[dict]:
    """The (task, method) cells whose every seed is done, in the table's order; a seed
    that failed is in its cell's ``errors``."""
    catalog = load_catalog()
    cells = []
    for name in args.tasks:
        for method in args.methods:
            if not all((name, method, s) in done for s in args.seeds):
                continue
            seeds = [done[name, method, s] for s in args.seeds]
            records = [r for r in seeds if isinstance(r, dict)]
            errors = [r for r in seeds if isinstance(r, str)]
            cell = cell_dict(catalog[name], method, records, args.samples)
            cells.append(cell | {"errors": errors})
    return cells


def cell_landed(
    args: argparse.Namespace, done: dict[tuple[str, str, int], Any], name: str, method: str
) -> None:
    cell = next(c for c in cells_so_far(args, done) if c["task"] == name and c["method"] == method)
    measure = load_catalog()[name].measure
    log(f"{name} / {METHODS[method]}: {measure.show(cell['value'])} {cell['ci95']}")
    if args.out:  # the table so far, after every cell
        Path(args.out).write_text(markdown(cells_so_far(args, done), args.methods) + "\n")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    factory, agent = team_factory(args)
    try:
        bench = Bench(args, factory)
    except ValueError as error:  # a bad --skills folder (CodeValidationError included)
        print(f"table2.py: error: {error}", file=sys.stderr)
        sys.exit(2)
    stop_on_sigterm()
    if args.cell:
        run_one_cell(args, bench)
        return
    started = time.perf_counter()
    done: dict[tuple[str, str, int], Any] = {}  # (task, method, seed): record or error
    complete = True
    try:
        if args.jobs > 1 or args.sweep or args.ray:
            from rlgpt_bench.sweep import SweepError

            try:
                in_parallel(args, argv, done)
            except SweepError as error:
                print(f"table2.py: error: {error}", file=sys.stderr)
                sys.exit(2)
        else:
            sequential(args, bench, done)
    except KeyboardInterrupt:
        complete = False
    cells = cells_so_far(args, done)
    if not complete:
        log(f"interrupted: reporting the {len(cells)} finished cell(s)")
    table = markdown(cells, args.methods)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n")
    report = {
        "benchmark": "table2",
        "machine": machine(),
        "command": "python benchmarks/table2.py " + " ".join(argv),
        "env": args.env,
        "agent": agent,
        "library": args.library
        if args.llm_base_url
        else (f"skills folder {args.skills}" if args.skills else "builtin agent"),
        "skills": None
        if bench.folder is None
        else {
            "folder": str(args.skills),
            "authors": bench.folder.authors,
            "versions": bench.folder.versions,
        },
        "seeds": args.seeds,
        "budget": args.samples,
        "rl_from_code": {
            "start_share": args.start_share,
            "anchor_decay": args.anchor_decay,
            "primitive_share": args.primitive_share,
        },
        "interrupt_on_danger": args.danger,
        "shared_memory": args.shared_memory,
        "interrupt_on_need": args.need,
        "reward_code": args.reward_code,
        "resume_interrupted": args.resume,
        "episodes_per_seed": args.episodes,
        "num_envs": args.num_envs,
        "eval_seeds": [args.eval_seed + s for s in args.seeds],
        "methods": {m: METHODS[m] for m in args.methods},
        "jobs": args.jobs,
        "ray": args.ray,
        "complete": complete,
        "seconds": round(time.perf_counter() - started, 1),
        "cells": cells,
    }
    if args.record:
        if complete:
            path = record(args, report, bench)
            log(f"recorded {path}: run `python benchmarks/render.py` to show it")
        else:
            log("not recorded: the run was interrupted (run it again to finish)")
    print(json.dumps(report), flush=True)
    if not complete:
        sys.exit(130)


if __name__ == "__main__":
    main()
