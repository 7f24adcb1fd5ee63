"""``rlgpt-tui train`` and ``rlgpt-tui eval``: PPO on a task with coded actions, headless,
configured by flags or an RLConfig file."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from stable_baselines3 import PPO

from rlgpt_tui.cli.common import UsageError, read_text, tensorboard_dir
from rlgpt_tui.envs.registry import WORLDS
from rlgpt_tui.library.skillfile import validate_file
from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
from rlgpt_tui.rl.eval_result import EvalResult
from rlgpt_tui.rl.evaluation import evaluate
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.tensorboard import log_evaluation
from rlgpt_tui.rl.train import train

_FLAG_NAMES = {
    "samples": "--steps",
    "num_envs": "--num-envs",
    "horizon": "--horizon",
    "seed": "--seed",
    "task": "--task",
    "env": "--env",
}


def _config_from_args(args: argparse.Namespace, base: dict[str, Any] | None = None) -> RLConfig:
    """The RLConfig of `train` or `eval`: --config's file (over ``base``, a trained policy's),
    then the flags; a UsageError naming the flag for a bad value."""
    data: dict[str, Any] = dict(base or {})
    if args.config:
        text = read_text(args.config, "--config")
        try:
            loaded = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise UsageError(
                f"cannot read --config {args.config}: {str(error)[:120]}; pass a JSON RLConfig"
            ) from None
        if not isinstance(loaded, dict):
            raise UsageError(
                f"--config {args.config} holds a JSON {type(loaded).__name__}: it must hold "
                "one object (an RLConfig)"
            )
        data.update(loaded)
    for key, value in (
        ("task", args.task),
        ("env", args.env),
        ("num_envs", args.num_envs),
        ("horizon", args.horizon),
        ("seed", args.seed),
        ("samples", getattr(args, "steps", None)),
    ):
        if value is not None:
            data[key] = value
    if "task" not in data:
        raise UsageError("no task given: pass --task NAME (see `rlgpt-tui tasks`)")
    if args.num_envs is None and "num_envs" not in (base or {}) and data.get("env") in WORLDS:
        data.setdefault("num_envs", WORLDS[data["env"]].default_num_envs)
    coded = list(data.get("coded_actions", []))
    trained = [spec["name"] for spec in (base or {}).get("coded_actions", [])]
    for path in args.coded:
        spec = _coded_spec(path)
        names = [c["name"] if isinstance(c, dict) else c.name for c in coded]
        if spec.name in names:  # a trained policy's action, or --config's: this code runs
            coded[names.index(spec.name)] = spec
        elif trained:
            raise UsageError(
                f"--coded {path}: the policy in --model was trained with the coded actions "
                f"{', '.join(trained)}; a file can replace one of those (same name), a new "
                "action needs a new training"
            )
        else:
            coded.append(spec)
    data["coded_actions"] = coded
    if args.reward:
        data["reward_code"] = read_text(args.reward, "--reward")
    try:
        return RLConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        where = _FLAG_NAMES.get(where, where)
        message = first["msg"].removeprefix("Value error, ")
        raise UsageError(f"bad config: {where}: {message}") from None


def _coded_spec(path: str) -> CodedActionSpec:
    read_text(path, "--coded")  # readable text, or one line
    return CodedActionSpec.of(validate_file(path))  # raises CodeValidationError; validated once


def _progress_printer(total: int):
    progress = Progress(
        TextColumn("[bold]PPO"),
        BarColumn(),
        TextColumn("{task.completed:>9,}/{task.total:,} samples"),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        transient=False,
    )
    task_id = progress.add_task("train", total=total, status="")

    def on_metrics(m: TrainingMetrics) -> None:
        success = "-" if m.success_rate is None else f"{m.success_rate:.2f}"
        status = (
            f"fps {m.fps:,.0f}  success {success}  episodes {m.episodes}  "
            f"coded {m.coded_decision_share:.0%}"
        )
        progress.update(task_id, completed=min(m.samples, total), status=status)

    return progress, on_metrics


def cmd_train(args: argparse.Namespace) -> int:
    """Train PPO, evaluate the policy, print (or --json) the summary; the run folder keeps
    its config, model and summary."""
    config = _config_from_args(args)
    board = tensorboard_dir(args)
    folder = Path(args.sessions_dir)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(args.save) if args.save else folder / f"train-{config.task}-{config.env}-{stamp}"
    board = board / run_dir.name if board else None  # this training's run
    config = config.model_copy(update={"checkpoint_dir": run_dir, "tensorboard_dir": board})
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(config.model_dump_json(indent=2))
    console = Console(stderr=True)
    coded = ", ".join(c.name for c in config.coded_actions) or "none"
    console.print(
        f"[bold]train[/] task={config.task} env={config.env} samples={config.samples:,} "
        f"seed={config.seed} envs={config.num_envs} coded actions: {coded} (agent: none, "
        "PPO only)"
    )
    progress, on_metrics = _progress_printer(config.samples)
    with progress:
        result = train(config, on_metrics=on_metrics)
    evaluation = evaluate(config, result.model, episodes=args.eval_episodes)
    log_evaluation(result.model, evaluation)
    summary = {
        "task": config.task,
        "env": config.env,
        "seed": config.seed,
        "coded_actions": [c.name for c in config.coded_actions],
        "samples": result.samples,
        "train_seconds": round(result.seconds, 1),
        "train_fps": round(result.fps, 1),
        "eval": evaluation.as_dict(),
        "coded_usage": result.env.coded_usage(),
        "training_episodes": result.env.runner.tally.measure(result.env.task).as_dict(),
        "model": str(result.checkpoint),
        "tensorboard": str(board) if board else None,
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    if args.json:
        print(json.dumps(summary))
    else:
        _print_eval(console, summary, evaluation)
    return 0


def _print_eval(console: Console, summary: dict[str, Any], evaluation: EvalResult) -> None:
    table = Table(title=f"{summary['task']} on {summary['env']} (seed {summary['seed']})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    if "samples" in summary:
        table.add_row("samples (primitive steps)", f"{summary['samples']:,}")
        table.add_row("training fps", f"{summary['train_fps']:,.0f}")
    table.add_row("eval episodes", str(evaluation.episodes))
    m = evaluation.measurement.measure
    table.add_row(
        f"{m.label} (95% CI)",
        f"{m.show(evaluation.value)} ({m.show(evaluation.ci_low)}-{m.show(evaluation.ci_high)})",
    )
    table.add_row("mean episode length", f"{evaluation.mean_length:.1f}")
    training = summary.get("training_episodes")
    if evaluation.score is not None and training and training["episodes"]:
        low, high = training["ci95"]
        table.add_row(
            "Crafter score, all training episodes",
            f"{training['value']:.1f} ({low:.1f}-{high:.1f}), {training['episodes']:,} episodes",
        )
    for name, usage in summary.get("coded_usage", {}).get("actions", {}).items():
        table.add_row(f"coded {name}", f"{usage['calls']} calls, mean {usage['mean_length']} steps")
    if summary.get("model"):
        table.add_row("model", summary["model"])
    if summary.get("tensorboard"):
        table.add_row("TensorBoard run", summary["tensorboard"])
    console.print(table)


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate a trained policy (--model), a coded action alone (--only-coded) or random
    actions, and print (or --json) the result."""
    base = None
    model = None
    if args.model:
        run = Path(args.model)
        if run.is_file():
            run = run.parent
        if not (run / "config.json").exists() or not (run / "latest.zip").exists():
            raise UsageError(f"{args.model} is not a run folder: pass the --save DIR of `train`")
        base = json.loads((run / "config.json").read_text())

        model = PPO.load(run / "latest.zip", device="cpu")
    config = _config_from_args(args, base)
    if args.only_coded is not None:
        names = [c.name for c in config.coded_actions]
        if args.only_coded not in names:
            raise UsageError(
                f"--only-coded {args.only_coded!r} is not a coded action of this run: use one "
                f"of {', '.join(names) or 'none (add --coded FILE.py)'}"
            )
    if args.episodes < 1:
        raise UsageError("--episodes must be at least 1")
    evaluation = evaluate(
        config,
        model,
        only_coded=args.only_coded,
        episodes=args.episodes,
        seed=10_000 + config.seed,
    )
    who = (
        "policy" if model else (f"coded action {args.only_coded}" if args.only_coded else "random")
    )
    summary = {
        "task": config.task,
        "env": config.env,
        "seed": config.seed,
        "evaluated": who,
        "eval": evaluation.as_dict(),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        Console().print(f"evaluated: {who}")
        _print_eval(Console(), summary, evaluation)
    return 0
