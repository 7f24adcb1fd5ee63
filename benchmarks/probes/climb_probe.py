"""Does RL that starts from the code climb above it? One probe: train, then the policy's mode
and the code alone on the same evaluation episodes.

    python benchmarks/run.py climb_probe --task make_iron_pickaxe --samples 200000 \
        [--extra survive eat_cow collect_drink] [--share 0.5] [--primitive-share 0.2] \
        [--anchor 0.1] [--decay 0.9] [--death 0] [--seed 0] [--episodes 32] \
        [--danger 2] [--interrupt] [--gamma 0.99]

Uses table2.py's skills for ``rl_from_code`` (plus ``--extra``); prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rlgpt_bench import options
from rlgpt_bench.options import add_options
from rlgpt_bench.skills import coded_specs, rl_skills, script_skill
from rlgpt_tui.rl.config import RLConfig, StartFromCode
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.prior import action_probabilities
from rlgpt_tui.rl.train import train
from rlgpt_tui.tasks.catalog import get_task


def build_parser() -> argparse.ArgumentParser:
    p = options.parser("climb_probe", __doc__)
    add_options(p, "task", "samples", "danger", "seed", "eval_seed", "episodes")
    p.add_argument("--extra", nargs="*", default=[])
    defaults = StartFromCode.model_fields
    p.add_argument("--share", type=float, default=defaults["share"].default)
    p.add_argument("--primitive-share", type=float, default=None)
    p.add_argument("--anchor", type=float, default=0.1)
    p.add_argument("--decay", type=float, default=defaults["anchor_decay"].default)
    p.add_argument("--death", type=float, default=0.0)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--n-steps", type=int, default=64)
    p.add_argument("--max-steps", type=int, default=None, help="every coded call's budget")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99, help="per primitive step")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--rollout-decisions", type=int, default=256, help="0: no cap")
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--interrupt", action="store_true", help="interrupt_on_damage")
    p.add_argument("--no-code", action="store_true", help="skip the code-alone evaluation")
    return p


def main(argv: list[str] | None = None) -> None:
    a = build_parser().parse_args(argv)
    task = get_task(a.task)
    script = script_skill(task)
    skills = list(dict.fromkeys([*rl_skills(task), *a.extra, script]))
    config = RLConfig(
        task=a.task,
        samples=a.samples,
        seed=a.seed,
        coded_actions=coded_specs(skills),
        start_from=script,
        start_share=a.share,
        start_primitive_share=a.primitive_share,
        start_anchor=a.anchor,
        start_anchor_decay=a.decay,
        death_penalty=a.death,
        critic_warmup=a.warmup,
        start_rollout_decisions=a.rollout_decisions or None,
        interrupt_on_damage=a.interrupt,
        interrupt_on_danger=a.danger,
    )
    config.ppo.n_steps = a.n_steps
    config.ppo.learning_rate = a.lr
    config.ppo.gamma = a.gamma
    config.ppo.n_epochs = a.epochs
    config.ppo.batch_size = a.batch
    if a.max_steps:
        for spec in config.coded_actions:
            spec.max_steps = a.max_steps
    began = time.perf_counter()
    result = train(config)
    train_s = time.perf_counter() - began
    usage = result.env.coded_usage()["actions"]
    calls = {k: v.get("calls", 0) for k, v in usage.items()}
    tally = result.env.runner.tally
    run = tally.measure(task, seed=a.seed).as_dict() if len(tally) else {}
    # where the trained policy stands: over the last rollout's states
    obs = result.model.rollout_buffer.observations.reshape(
        -1, result.model.observation_space.shape[0]
    )
    probs = action_probabilities(result.model, obs).numpy()
    index = result.env.coded_index(script)
    names = [e.name for e in result.env.table]
    off = probs.argmax(1) != index
    policy = {
        "code_prob_mean": round(float(probs[:, index].mean()), 4),
        "code_prob_min": round(float(probs[:, index].min()), 4),
        "states_off_code": round(float(off.mean()), 4),
        "mode_when_off": {
            names[k]: int(c)
            for k, c in zip(*np.unique(probs.argmax(1)[off], return_counts=True), strict=True)
        },
        "mean_probs": {
            n: round(float(v), 4) for n, v in zip(names, probs.mean(0), strict=True) if v > 0.01
        },
        "anchor_now": result.model.ent_coef,
        "updates": result.model._n_updates // a.epochs,
    }
    result.env.close()
    seed = a.eval_seed + a.seed
    mode = evaluate(config, result.model, episodes=a.episodes, seed=seed)
    sampled = evaluate(config, result.model, episodes=a.episodes, seed=seed, deterministic=False)
    out = {
        "args": vars(a),
        "skills": skills,
        "train_s": round(train_s, 1),
        "samples": result.samples,
        "train_calls": calls,
        "policy": policy,
        "train_run": {k: run.get(k) for k in ("value", "ci95", "episodes", "ends")},
        "mode": mode.as_dict(),
        "sampled": {k: sampled.as_dict().get(k) for k in ("value", "ci95", "ends")},
    }
    if not a.no_code:
        code = evaluate(config, only_coded=script, episodes=a.episodes, seed=seed)
        out["code"] = code.as_dict()
        if a.interrupt or a.danger:  # the code alone as the table runs it: not interrupted
            plain = config.changed(hooks={"interrupt_on_damage": False, "interrupt_on_danger": 0})
            code = evaluate(plain, only_coded=script, episodes=a.episodes, seed=seed)
            out["code_uninterrupted"] = code.as_dict()
    out["wall_s"] = round(time.perf_counter() - began, 1)
    print(json.dumps(out, default=str))
