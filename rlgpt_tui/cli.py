"""Command line: ``rlgpt-tui run | resume | sessions | skills | train | eval | tasks | doctor
| config | app``.

Bad input (unknown task or env, a bad config, coded-action code that fails validation, a
malformed flag) prints one line naming the fix and exits with code 2, before any session
is created.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlgpt_tui import __version__
from rlgpt_tui.envs.registry import WORLDS

if TYPE_CHECKING:
    from rlgpt_tui.store import SessionStore

WORLD_HELP = ", ".join(f"{w.name} ({w.doc})" for w in WORLDS.values())
NUM_ENVS_DEFAULT = ", ".join(f"{w.name} {w.default_num_envs}" for w in WORLDS.values())

EXIT_USAGE = 2


_FLAG_NAMES = {
    "samples": "--steps",
    "num_envs": "--num-envs",
    "horizon": "--horizon",
    "seed": "--seed",
    "task": "--task",
    "env": "--env",
}


class UsageError(Exception):
    """A problem with the user's input; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (and the command's --help named) instead of a usage
    block; subcommand parsers are of the same class."""

    def error(self, message: str):  # type: ignore[override]
        print(f"rlgpt-tui: error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class _HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default, where it has one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default" in text
            or default is None
            or default is False
            or default == []
            or default == argparse.SUPPRESS
            or action.option_strings == []
        ):
            return text
        return text + " (default: %(default)s)"


def _add_run_options(parser: argparse.ArgumentParser, samples_default: int | None) -> None:
    parser.add_argument("--task", help="task name (see `rlgpt-tui tasks`)")
    parser.add_argument(
        "--env", default=None, help=f"world: {WORLD_HELP} (default: craftax, or --config's)"
    )
    parser.add_argument(
        "--coded",
        action="append",
        default=[],
        metavar="FILE.py",
        help="a coded action (def act(ctx): ... yield Action.X) to add to the action space; "
        "repeat for several",
    )
    parser.add_argument(
        "--reward", metavar="FILE.py", help="dense reward code: def reward(prev, now)"
    )
    parser.add_argument(
        "--num-envs", type=int, default=None, help=f"parallel envs (default: {NUM_ENVS_DEFAULT})"
    )
    parser.add_argument(
        "--horizon",
        type=int,
        default=None,
        help="episode length in steps (default: the task's, see `rlgpt-tui tasks`)",
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: 0)")
    parser.add_argument(
        "--config", metavar="FILE.json", help="an RLConfig as JSON (flags override)"
    )
    if samples_default is not None:
        parser.add_argument(
            "--steps",
            type=int,
            default=None,
            help=f"sample budget in primitive env steps (default {samples_default})",
        )


TENSORBOARD_HELP = (
    "write PPO's metrics and its evaluations as TensorBoard runs in DIR (one per training; "
    "needs the tensorboard extra); view: tensorboard --logdir DIR"
)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rlgpt-tui",
        description="RL-GPT: an LLM (or the builtin agent) using RL as a tool, with coded "
        "actions inside the RL action space. With no command: the terminal app.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rlgpt-tui {__version__}")
    parser.add_argument(
        "--unsafe-local-code",
        action="store_true",
        help="where the sandbox's syscall filter is unavailable (not Linux, no libseccomp), "
        "run LLM- and person-written code without it: it can then read and write your files",
    )
    _add_sessions_dir(parser, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubParser)

    train = sub.add_parser("train", help="train PPO on a task (headless)")
    _add_run_options(train, samples_default=100_000)
    train.add_argument(
        "--save", metavar="DIR", help="where to save the model (default: the sessions folder)"
    )
    _add_sessions_dir(train)
    train.add_argument("--eval-episodes", type=int, default=100, help="episodes for the final eval")
    train.add_argument("--tensorboard", metavar="DIR", help=TENSORBOARD_HELP)
    train.add_argument("--json", action="store_true", help="print the summary as one JSON line")

    evaluate = sub.add_parser("eval", help="evaluate a trained policy, a coded action, or random")
    _add_run_options(evaluate, samples_default=None)
    evaluate.add_argument("--model", metavar="DIR", help="a run folder written by `train`")
    evaluate.add_argument(
        "--only-coded", metavar="NAME", help="evaluate this coded action alone (no policy)"
    )
    evaluate.add_argument("--episodes", type=int, default=100, help="evaluation episodes")
    evaluate.add_argument("--json", action="store_true", help="print the result as one JSON line")

    run = sub.add_parser("run", help="run RL-GPT's two loops on a task (headless)")
    run.add_argument("--task", required=True, help="task name (see `rlgpt-tui tasks`)")
    run.add_argument("--env", default="craftax", help=f"world: {WORLD_HELP}")
    run.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (default: builtin agent)")
    run.add_argument("--llm-model", help="model name at the endpoint (default: none)")
    run.add_argument(
        "--llm-vision",
        action="store_true",
        help="the model accepts images: the critic also gets frames before/after",
    )
    run.add_argument(
        "--llm-config", metavar="FILE.toml", help="an [llm] table (default: the user config's)"
    )
    _add_llm_tuning(run)
    run.add_argument(
        "--minedojo-python",
        metavar="PATH",
        help="with --env minedojo: MineDojo's interpreter (default: $RLGPT_MINEDOJO_PYTHON)",
    )
    run.add_argument("--iterations", type=int, default=4, help="outer-loop iterations (max)")
    run.add_argument(
        "--samples-per-iteration",
        type=int,
        default=None,
        help="PPO budget per iteration (default: 30,000; scored tasks: max-samples/iterations)",
    )
    run.add_argument("--max-samples", type=int, default=200_000, help="total training samples")
    run.add_argument(
        "--max-tokens", type=int, default=None, help="LLM token budget (default: none)"
    )
    run.add_argument(
        "--target",
        type=float,
        default=None,
        help="target in the task's measure: a success rate in (0, 1] (default: 0.9), or a "
        "Crafter score in (0, 100] for scored tasks (default: 50.5, human experts)",
    )
    run.add_argument(
        "--num-envs", type=int, default=None, help=f"parallel envs (default: {NUM_ENVS_DEFAULT})"
    )
    run.add_argument("--eval-episodes", type=int, default=64, help="episodes per evaluation")
    run.add_argument("--tensorboard", metavar="DIR", help=TENSORBOARD_HELP)
    run.add_argument(
        "--final-episodes",
        type=int,
        default=None,
        help="episodes per candidate in the final choice on fresh worlds (default: 64; 32 "
        "for scored tasks; fewer gives a wider interval)",
    )
    run.add_argument("--seed", type=int, default=0, help="random seed")
    run.add_argument(
        "--library",
        default="user",
        metavar="empty|builtin|user|own|DIR",
        help="what an LLM session's agents start from: empty; builtin (the hand-written "
        "templates, labelled builtin library); user (your skill library, then builtin); own "
        "(your skill library alone); or a "
        "folder of skill files. The slow agent sees the most relevant skills; a coded "
        "sub-action named like one reuses its code (default: user)",
    )
    run.add_argument(
        "--chain",
        action="store_true",
        help="long-horizon: solve the planner's sub-tasks one by one, then chain them",
    )
    _add_sessions_dir(run)

    resume = sub.add_parser(
        "resume",
        help="continue a recorded session where it stopped",
        description="Continue a recorded session where it stopped, with its recorded "
        "settings (model, [llm] table, budgets, library).",
    )
    resume.add_argument("session_id", type=int, metavar="ID", help="see `rlgpt-tui sessions list`")
    resume.add_argument(
        "--llm-base-url", help="the endpoint moved: use this URL (same model) from now on"
    )
    resume.add_argument(
        "--llm-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds for each LLM request from now on (default: as recorded)",
    )
    _add_sessions_dir(resume)

    sessions = sub.add_parser("sessions", help="list, show, export or delete recorded sessions")
    _add_sessions_dir(sessions)
    actions = sessions.add_subparsers(
        dest="action", metavar="ACTION", required=True, parser_class=_SubParser
    )
    _add_sessions_dir(actions.add_parser("list", help="all sessions, newest first"), True)
    for name, text in (
        ("show", "one session: settings, iterations, verdicts"),
        ("delete", "delete a session and its artifacts"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("session_id", type=int, metavar="ID")
        _add_sessions_dir(action, suppress=True)
    export = actions.add_parser("export", help="a report of a session (markdown or JSON)")
    _add_sessions_dir(export, suppress=True)
    export.add_argument("session_id", type=int, metavar="ID")
    export.add_argument("--format", choices=("md", "json"), default="md", help="report format")
    export.add_argument("--out", metavar="DIR", help="where to write (default: the session folder)")
    export.add_argument("--no-gif", action="store_true", help="skip the evaluation-episode GIF")

    skills = sub.add_parser(
        "skills",
        help="the skill library: list, show, export or import coded actions and trained policies",
    )
    _add_sessions_dir(skills)
    verbs = skills.add_subparsers(
        dest="action", metavar="ACTION", required=True, parser_class=_SubParser
    )
    listing = verbs.add_parser(
        "list", help="every skill version (author, origin, record) and trained policy"
    )
    listing.add_argument("--world", help="only this world's skills")
    _add_sessions_dir(listing, suppress=True)
    show = verbs.add_parser("show", help="one skill: docstring, author, versions, record, code")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--world", help="the world, when the name is in several")
    show.add_argument("--version", type=int, help="a version (default: the newest)")
    _add_sessions_dir(show, suppress=True)
    export_skills = verbs.add_parser(
        "export",
        help="write the library as .py files with a TOML header and policies/ (trained "
        "policies: .json header, .npz weights), to share",
    )
    export_skills.add_argument("folder", metavar="DIR")
    export_skills.add_argument("--world", help="only this world's skills")
    export_skills.add_argument(
        "--plan",
        metavar="TASK",
        help="also write `plan`: the skills composed for TASK's steps, each by the skill "
        "proven on it (for `table2.py --skills DIR --script plan`)",
    )
    _add_sessions_dir(export_skills, suppress=True)
    import_skills = verbs.add_parser(
        "import",
        help="add a folder of skill files and trained policies (all checked first; a bad "
        "one adds none)",
    )
    import_skills.add_argument("folder", metavar="DIR")
    _add_sessions_dir(import_skills, suppress=True)

    sub.add_parser("tasks", help="list the task catalog")

    doctor = sub.add_parser(
        "doctor",
        help="check the installation, devices, LLM and MineDojo (writes nothing)",
    )
    _add_sessions_dir(doctor)
    _add_llm_flags(doctor, "OpenAI-compatible endpoint to check")
    doctor.add_argument(
        "--minedojo-python",
        metavar="PATH",
        help="the python of the venv with MineDojo (default: $RLGPT_MINEDOJO_PYTHON)",
    )

    config = sub.add_parser(
        "config",
        help="the resolved settings and where each came from (flag, env, file, default)",
        description="Settings come from flags, then environment variables, then "
        "--llm-config FILE, then the user config file (see the path printed; $RLGPT_CONFIG "
        "names another), then defaults. The API key itself is never shown.",
    )
    _add_sessions_dir(config)
    _add_llm_flags(config, "OpenAI-compatible endpoint")
    config.add_argument("--llm-vision", action="store_true", help="the model accepts images")

    app = sub.add_parser("app", help="the terminal app (also: rlgpt-tui with no command)")
    _add_sessions_dir(app)
    app.add_argument(
        "--approval", action="store_true", help="ask before each agent proposal is used"
    )
    app.add_argument(
        "--llm-config",
        metavar="FILE.toml",
        help="an [llm] table for the sessions the app starts (the form shows its endpoint, "
        "model and timeout; default: the user config file's)",
    )
    app.add_argument(
        "--llm-timeout",
        type=float,
        metavar="S",
        help="seconds for a whole LLM request, for new sessions and the LLM sessions the "
        "app resumes (a slow local model needs minutes; default: 60, or the [llm] table's)",
    )
    _add_learn_parser(sub)
    return parser


class _SubParser(_Parser):
    def __init__(self, **kwargs: Any):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(**kwargs)


def _add_sessions_dir(parser: argparse.ArgumentParser, suppress: bool = True) -> None:
    """``--sessions-dir`` on every level: it only sets the value when given (main() sets
    None otherwise), so ``rlgpt-tui --sessions-dir D sessions list``, ``sessions
    --sessions-dir D list`` and ``sessions list --sessions-dir D`` all work."""
    parser.add_argument(
        "--sessions-dir",
        metavar="DIR",
        default=argparse.SUPPRESS if suppress else None,
        help="where sessions are recorded (default: $RLGPT_SESSIONS_DIR, else sessions_dir in "
        "the user config file, else ./sessions)",
    )


def _add_llm_flags(parser: argparse.ArgumentParser, url_help: str) -> None:
    parser.add_argument("--llm-base-url", help=f"{url_help} (default: builtin agent)")
    parser.add_argument("--llm-model", help="model name at the endpoint (default: none)")
    parser.add_argument(
        "--llm-config",
        metavar="FILE.toml",
        help="a config file with an [llm] table (default: the user config file's)",
    )
    _add_llm_tuning(parser)


def _add_llm_tuning(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--llm-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds for each whole LLM request; raise it for a slow local model "
        "(default: 60, or `timeout` in the [llm] table)",
    )
    parser.add_argument(
        "--llm-structured",
        choices=("auto", "json_schema", "off"),
        help="send each answer's JSON Schema as response_format: auto detects whether the "
        "endpoint takes it (default: auto, or `structured` in the [llm] table)",
    )


def _config_from_args(args: argparse.Namespace, base: dict[str, Any] | None = None):
    from pydantic import ValidationError

    from rlgpt_tui.rl.config import RLConfig

    data: dict[str, Any] = dict(base or {})
    if args.config:
        text = _read(args.config, "--config")
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
        data["reward_code"] = _read(args.reward, "--reward")
    try:
        return RLConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        where = _FLAG_NAMES.get(where, where)
        message = first["msg"].removeprefix("Value error, ")
        raise UsageError(f"bad config: {where}: {message}") from None


def _read(path: str, flag: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {flag} {path}: {error.strerror}; check the path") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{flag} {path} is not a UTF-8 text file: check the path") from None
    if "\x00" in text:
        raise UsageError(f"{flag} {path} is a binary file, not text: check the path")
    return text


def _coded_spec(path: str):
    from rlgpt_tui.library.skillfile import validate_file
    from rlgpt_tui.rl.config import CodedActionSpec

    _read(path, "--coded")  # readable text, or one line
    return CodedActionSpec.of(validate_file(path))  # raises CodeValidationError; validated once


def _progress_printer(total: int):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("[bold]PPO"),
        BarColumn(),
        TextColumn("{task.completed:>9,}/{task.total:,} samples"),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        transient=False,
    )
    task_id = progress.add_task("train", total=total, status="")

    def on_metrics(m: dict[str, Any]) -> None:
        success = "-" if m["success_rate"] is None else f"{m['success_rate']:.2f}"
        status = (
            f"fps {m['fps']:,.0f}  success {success}  episodes {m['episodes']}  "
            f"coded {m['coded_decision_share']:.0%}"
        )
        progress.update(task_id, completed=min(m["samples"], total), status=status)

    return progress, on_metrics


def tensorboard_dir(args: argparse.Namespace) -> Path | None:
    """``--tensorboard DIR``, once the tensorboard package is found (else a one-line error
    naming the install)."""
    if not getattr(args, "tensorboard", None):
        return None
    from rlgpt_tui.rl.train import TensorBoardUnavailable, require_tensorboard

    try:
        require_tensorboard()
    except TensorBoardUnavailable as error:
        raise UsageError(f"--tensorboard: {error}") from None
    return Path(args.tensorboard)


def cmd_train(args: argparse.Namespace) -> int:
    from rich.console import Console

    from rlgpt_tui.rl.train import evaluate, log_evaluation, train

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


def _print_eval(console, summary: dict[str, Any], evaluation) -> None:
    from rich.table import Table

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
        f"{m.format(evaluation.value)} ({m.format(evaluation.ci_low)}-"
        f"{m.format(evaluation.ci_high)})",
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
    from rich.console import Console

    from rlgpt_tui.rl.train import evaluate

    base = None
    model = None
    if args.model:
        run = Path(args.model)
        if run.is_file():
            run = run.parent
        if not (run / "config.json").exists() or not (run / "latest.zip").exists():
            raise UsageError(f"{args.model} is not a run folder: pass the --save DIR of `train`")
        base = json.loads((run / "config.json").read_text())
        from stable_baselines3 import PPO

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


def llm_settings(args: argparse.Namespace):
    """LLM settings from flags, the environment and a config file (None: builtin agent)."""
    from rlgpt_tui.llm.client import LLMSettings

    settings = LLMSettings.resolve(
        args.llm_base_url,
        args.llm_model,
        args.llm_config,
        vision=True if getattr(args, "llm_vision", False) else None,
        timeout=getattr(args, "llm_timeout", None),
        structured=getattr(args, "llm_structured", None),
    )
    if not settings.configured:
        if settings.base_url:
            raise UsageError("--llm-base-url given without a model: add --llm-model NAME")
        return None
    return settings


def check_device() -> None:
    """``RLGPT_TORCH_DEVICE`` names a device this machine has, or a one-line error."""
    from rlgpt_tui.rl.config import device_choice

    try:
        device_choice()
    except ValueError as error:
        raise UsageError(str(error)) from None


def cmd_run(args: argparse.Namespace) -> int:
    from rlgpt_tui.engine.settings import EngineSettings
    from rlgpt_tui.tasks import get_task

    task = get_task(args.task)
    from rlgpt_tui.envs import UnknownWorldError, world_info

    try:
        world = world_info(args.env)
    except UnknownWorldError as error:
        raise UsageError(str(error)) from None
    for flag, value in (
        ("--iterations", args.iterations),
        ("--samples-per-iteration", args.samples_per_iteration),
        ("--max-samples", args.max_samples),
        ("--eval-episodes", args.eval_episodes),
        ("--final-episodes", args.final_episodes),
        ("--num-envs", args.num_envs),
        ("--max-tokens", args.max_tokens),
    ):
        if value is not None and value < 1:
            raise UsageError(f"{flag} must be at least 1, got {value}")
    if args.num_envs is not None and args.num_envs > 4096:
        raise UsageError(f"--num-envs must be at most 4096, got {args.num_envs}")
    if args.seed < 0:
        raise UsageError(f"--seed must be 0 or more, got {args.seed}")
    if args.target is not None:
        try:
            task.measure.check_target(args.target)
        except ValueError as error:
            raise UsageError(
                f"--target: {error} ({task.name} is judged by its {task.measure.label})"
            ) from None
    llm = llm_settings(args)  # a bad [llm] setting or a missing file: before any session
    if args.minedojo_python:
        os.environ["RLGPT_MINEDOJO_PYTHON"] = args.minedojo_python  # read by make_world
    world.cls.check_backend()  # a missing backend: one line, before any session
    board = tensorboard_dir(args)
    settings = EngineSettings(
        task=args.task,
        env=args.env,
        num_envs=args.num_envs or world.default_num_envs,
        seed=args.seed,
        max_iterations=args.iterations,
        target=args.target,
        samples_per_iteration=args.samples_per_iteration,
        max_samples=args.max_samples,
        max_tokens=args.max_tokens,
        eval_episodes=args.eval_episodes,
        final_episodes=args.final_episodes,
        tensorboard_dir=str(board) if board else None,
    )
    from rlgpt_tui.library.shelf import NAMED

    # the worlds load their kernels while torch, the session and the plan are set up (an
    # LLM session's checks of its endpoint, or of a library folder, come first: a bad one
    # fails without waiting), and torch's optimizer support imports while the world's
    # build waits on them
    nothing_to_check = llm is None and args.library in NAMED
    preparing = [settings.prepare_first_worlds()] if nothing_to_check else []
    try:
        from rlgpt_tui.rl.train import load_optimizer_support
        from rlgpt_tui.session import Session
        from rlgpt_tui.store import SessionStore

        store = SessionStore(args.sessions_dir)
        session = Session.create(store, settings, llm, chain=args.chain, library=args.library)
        if not preparing:
            preparing.append(settings.prepare_first_worlds())
        preparing.append(load_optimizer_support())
        return _run_session(session, args.seed)
    finally:
        for thread in preparing:  # never left running past the command
            thread.join()


def _run_session(session, seed: int) -> int:
    """Run a recorded session headless, printing its events; exit code from how it ended."""
    from rich.console import Console

    from rlgpt_tui.engine.events import events_from_records
    from rlgpt_tui.engine.printer import EventPrinter

    console = Console(stderr=True)
    console.print(
        f"session {session.id} recorded in {session.store.path} "
        f"(resume: rlgpt-tui resume {session.id})"
    )
    printer = EventPrinter(console)
    printer.remember(events_from_records(session.store.events(session.id)))  # resumed: its record
    outcome = session.run(printer)
    if outcome.chain is not None:
        settings = session.settings
        print(
            json.dumps(
                {
                    "session": session.id,
                    "task": settings.task,
                    "env": settings.env,
                    "agent": session.label,
                    "seed": seed,
                }
                | outcome.chain.to_dict(),
                default=str,  # as the store writes events: a value JSON lacks, as text
            )
        )
        return 0 if outcome.chain.evaluation is not None else 1
    from rlgpt_tui.engine.ends import EndKind

    return 1 if outcome.end.kind is EndKind.ERROR else 0


def cmd_resume(args: argparse.Namespace) -> int:
    from rlgpt_tui.session import Session
    from rlgpt_tui.store import SessionStore

    store = SessionStore(args.sessions_dir)
    llm = None
    if args.llm_base_url or args.llm_timeout is not None:
        from rlgpt_tui.llm.client import LLMSettings

        recorded = store.get(args.session_id).llm
        if not recorded:
            raise UsageError(
                f"session {args.session_id} used the builtin agent: drop --llm-base-url and "
                "--llm-timeout"
            )
        llm = LLMSettings.recorded(recorded, base_url=args.llm_base_url, timeout=args.llm_timeout)
    session = Session.resume(store, args.session_id, llm=llm)
    return _run_session(session, session.settings.seed)


def cmd_sessions(args: argparse.Namespace) -> int:
    from rich.console import Console

    from rlgpt_tui.store import SessionStore

    store = SessionStore(args.sessions_dir)
    console = Console(width=max(Console().width, 140))
    if args.action == "list":
        from rich.table import Table

        table = Table(title=f"Sessions in {store.path}")
        for column in ("id", "task", "env", "agent", "status", "result", "samples", "created"):
            table.add_column(column)
        for s in store.list_sessions():
            best = s.best_text
            created = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.created_at))
            table.add_row(
                str(s.id), s.task, s.env, s.agent, s.status, best, f"{s.total_samples:,}", created
            )
        console.print(table)
    elif args.action == "show":
        from rlgpt_tui.report import session_markdown

        console.print(session_markdown(store, args.session_id, assets=None), markup=False)
    elif args.action == "delete":
        store.delete(args.session_id)
        console.print(f"deleted session {args.session_id}")
    else:
        from rlgpt_tui.report import export_session

        path = export_session(
            store, args.session_id, args.format, args.out, with_gif=not args.no_gif
        )
        console.print(f"wrote {path}")
    return 0


def cmd_skills(args: argparse.Namespace) -> int:
    from rich.console import Console

    from rlgpt_tui.library.skill_library import SkillLibrary
    from rlgpt_tui.store import SessionStore

    store = SessionStore(args.sessions_dir)
    console = Console(width=max(Console().width, 140))
    library = SkillLibrary(store)
    if getattr(args, "world", None) and args.world not in WORLDS:
        raise UsageError(f"unknown --world {args.world!r}: use one of {', '.join(WORLDS)}")
    if args.action == "list":
        from rich.table import Table

        from rlgpt_tui.library.storage import COLUMNS

        table = Table(title=f"Skill library in {store.path}")
        for column in (*COLUMNS, "docstring"):
            table.add_column(column)
        skills = library.skills(args.world)
        for skill in skills:
            first_line = skill.docstring.splitlines()[0] if skill.docstring else ""
            table.add_row(*skill.cells(), first_line)
        console.print(table)
        policies = library.policies(args.world)
        if not skills and not policies:
            where = f" for {args.world}" if args.world else ""
            console.print(
                f"The library{where} is empty: every coded action that validated and ran in a "
                "session joins it; `rlgpt-tui skills import FOLDER` adds a shared one."
            )
        if policies:
            from rlgpt_tui.library.storage import POLICY_COLUMNS

            table = Table(title="Trained policies (a session on their task starts PPO from them)")
            for column in POLICY_COLUMNS:
                table.add_column(column)
            for policy in policies:
                table.add_row(*policy.cells())
            console.print(table)
    elif args.action == "show":
        from rlgpt_tui.report import skill_markdown

        skill = library.skill(args.name, args.world, args.version)
        versions = library.skills(skill.world, skill.name)
        console.print(skill_markdown(skill, versions), markup=False, highlight=False)
    elif args.action == "export":
        from rlgpt_tui.tasks import get_task

        task = get_task(args.plan) if args.plan else None  # a bad name: one line, no files
        world = (args.world or _only_world(store)) if task is not None else args.world
        written = library.export_folder(args.folder, args.world)
        policy_files = sum(1 for path in written if path.suffix == ".json")
        console.print(
            f"wrote {len(written) - policy_files} skill file(s) and {policy_files} trained "
            f"policy(ies) to {args.folder}"
        )
        if task is not None:
            path, steps = library.export_plan(args.folder, task, world)
            console.print(f"wrote {path.name}: {steps}", markup=False, highlight=False)
    else:
        added, known, policies_added = library.import_folder(args.folder)
        names = ", ".join(s.label for s in added) or "none"
        console.print(
            f"imported {len(added)} skill(s) from {args.folder} ({names}) and {policies_added} "
            f"trained policy(ies); {known} skill(s) already in the library"
        )
    return 0


def _only_world(store: SessionStore) -> str:
    """The one world the library holds skills of; a UsageError naming the fix otherwise."""
    worlds = sorted({skill.world for skill in store.skills()})
    if not worlds:
        raise UsageError("--plan: the library holds no skills; run sessions first")
    if len(worlds) > 1:
        raise UsageError(f"--plan needs --world: the library holds skills of {', '.join(worlds)}")
    return worlds[0]


def cmd_doctor(args: argparse.Namespace) -> int:
    from rlgpt_tui.doctor import run_doctor

    checks = run_doctor(
        args.sessions_dir,
        args.llm_base_url,
        args.llm_model,
        args.llm_config,
        args.minedojo_python,
        llm_timeout=args.llm_timeout,
        llm_structured=args.llm_structured,
    )
    for check in checks:
        print(check.line())
    failed = [c.name for c in checks if c.status == "FAIL"]
    print(
        f"{len(checks)} checks, {len(failed)} failed" + (f": {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


def cmd_config(args: argparse.Namespace) -> int:
    """Each resolved setting, its value and where it came from; the key's value never."""
    from dataclasses import fields

    from rlgpt_tui.config import config_path, resolve_sessions_dir
    from rlgpt_tui.llm.client import LLMSettings

    path = config_path()
    state = "exists" if path.exists() else "not found: create it to set your defaults"
    print(f"config file: {path} ({state})")
    settings, sources = LLMSettings.resolve_sourced(
        args.llm_base_url,
        args.llm_model,
        args.llm_config,
        vision=True if args.llm_vision else None,
        timeout=args.llm_timeout,
        structured=args.llm_structured,
    )
    rows = []
    for field in fields(settings):
        value = getattr(settings, field.name)
        shown = "none" if value is None else str(value)
        if isinstance(value, bool):
            shown = shown.lower()
        rows.append((f"llm.{field.name}", shown, sources.get(field.name, "default")))
    key_state = "set" if os.environ.get(settings.api_key_env) else "not set"
    rows.append(("llm api key", f"{key_state} in ${settings.api_key_env}", "env (never shown)"))
    agent = settings.describe() if settings.configured else "the builtin agent (no llm.model)"
    rows.append(("agent", agent, "from llm.model"))
    sessions = resolve_sessions_dir(args.sessions_dir)
    rows.append(("sessions_dir", sessions.value, sessions.source))
    width = max(len(name) for name, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for name, value, source in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  {source}")
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from rlgpt_tui.tasks import load_catalog
    from rlgpt_tui.tui.app import RlgptApp

    load_catalog()  # a broken install: one line, before the app takes the terminal

    # a bad --llm-config or --llm-timeout: one line from the constructor, before run()
    RlgptApp(
        args.sessions_dir,
        approval=args.approval,
        llm_config=args.llm_config,
        llm_timeout=args.llm_timeout,
    ).run()
    return 0


def cmd_tasks(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from rlgpt_tui.tasks import load_catalog

    table = Table(title="Tasks")
    for column in ("name", "horizon", "goal", "description"):
        table.add_column(column)
    for task in load_catalog().values():
        table.add_row(task.name, str(task.horizon), task.goal_text, task.description)
    Console(width=160).print(table)
    return 0


# -- rlgpt-tui learn: lifelong learning with an automatic curriculum --------------------------
def _add_learn_parser(sub) -> None:
    learn = sub.add_parser(
        "learn",
        help="learn a world task after task: a curriculum chooses, sessions learn (headless)",
        description="Lifelong learning of a world from a library: a curriculum agent (builtin "
        "rules, or the LLM) proposes the next task from the tech tree's prerequisites, the "
        "library's measured records and how recent episodes ended; an ordinary session runs "
        "it; every choice is recorded with its reason. Run again in the same sessions folder, "
        "it continues that folder's learn record (after a stop, kill -9 or crash); flags given "
        "then replace its settings and budgets. A reached task is not run again (see --retry).",
    )
    learn.add_argument("--env", default=None, help=f"world (default: craftax): {WORLD_HELP}")
    learn.add_argument(
        "--library",
        default=None,
        metavar="empty|builtin|user|own|DIR",
        help="what the first session starts from (default: empty); later sessions start from "
        "the library the earlier ones grew",
    )
    learn.add_argument(
        "--curriculum",
        choices=("auto", "builtin", "llm"),
        default="auto",
        help="who chooses the next task: builtin rules, or the LLM (falls back to the rules' "
        "choice on a bad answer); auto: the LLM when a model is given",
    )
    learn.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (default: builtin)")
    learn.add_argument("--llm-model", help="model name at the endpoint")
    learn.add_argument("--llm-config", metavar="FILE.toml", help="a config file with [llm]")
    _add_llm_tuning(learn)
    learn.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="fresh success rate at which a task is reached (default: 0.9)",
    )
    for flag, kind, text in (
        ("--max-hours", float, "wall-clock hours in all, fractions allowed"),
        ("--max-tokens", int, "LLM tokens in all"),
        ("--max-samples", int, "training samples in all"),
        ("--max-tasks", int, "tasks run in all (choices)"),
    ):
        learn.add_argument(flag, type=kind, default=None, help=f"budget: {text}")
    learn.add_argument("--iterations", type=int, default=None, help="each session's iterations")
    learn.add_argument(
        "--samples-per-iteration", type=int, default=None, help="each session's PPO budget"
    )
    learn.add_argument(
        "--session-samples",
        type=int,
        default=None,
        help="each session's training-sample cap (default: 200,000)",
    )
    learn.add_argument("--num-envs", type=int, default=None, help="parallel envs")
    learn.add_argument("--eval-episodes", type=int, default=None, help="episodes per evaluation")
    learn.add_argument(
        "--final-episodes", type=int, default=None, help="episodes of each fresh choice"
    )
    learn.add_argument("--seed", type=int, default=None, help="each session's seed")
    learn.add_argument(
        "--retry",
        action="append",
        default=[],
        metavar="TASK",
        help="run TASK again even if reached (repeat for several)",
    )
    learn.add_argument(
        "--status", action="store_true", help="print the frontier of the learn record and exit"
    )
    learn.add_argument("--json", action="store_true", help="with --status: one JSON object")
    learn.add_argument(
        "--stop", action="store_true", help="ask the running learn to stop, then exit"
    )
    learn.add_argument("--pin", metavar="TASK", help="ask the learn to run TASK next, then exit")
    learn.add_argument("--skip", metavar="TASK", help="ask the learn to skip TASK, then exit")
    _add_sessions_dir(learn)


def cmd_learn(args: argparse.Namespace) -> int:
    from rlgpt_tui.store import SessionStore

    store = SessionStore(args.sessions_dir)
    if args.json and not args.status:
        raise UsageError("--json goes with --status: `rlgpt-tui learn --status --json`")
    if args.status:
        return _print_frontier(store, args.json)
    if args.stop or args.pin or args.skip:
        return _learn_request(store, args)
    return _run_learn(store, args)


def _print_frontier(store: SessionStore, as_json: bool) -> int:
    from rich.console import Console
    from rich.table import Table

    from rlgpt_tui.curriculum.frontier import FRONTIER_COLUMNS, frontier_cells
    from rlgpt_tui.curriculum.loop import frontier

    data = frontier(store)
    if data is None:
        if as_json:
            print(json.dumps({"learn": None, "frontier": [], "choices": []}))
            return 0
        raise UsageError(f"no learn record in {store.path}: start one with `rlgpt-tui learn`")
    if as_json:
        print(json.dumps(data))
        return 0
    console = Console(width=max(Console().width, 140))
    table = Table(
        title=f"Frontier of learn record {data['learn']} ({data['env']}, {data['curriculum']} "
        f"curriculum, reached at {data['threshold']:g}): {data['status']}"
        + (f", {data['reason']}" if data["reason"] else "")
    )
    for column in FRONTIER_COLUMNS:
        table.add_column(column)
    for row in data["frontier"]:
        table.add_row(*frontier_cells(row))
    console.print(table)
    console.print(
        f"{data['reached']} reached; {len(data['choices'])} choices, {data['tokens']:,} tokens, "
        f"{data['samples']:,} samples, {data['hours']:.2f} h"
    )
    for choice in data["choices"][-10:]:
        console.print(
            f"  {choice['position']}. {choice['task']} (session {choice['session']}, "
            f"{choice['status']}): {choice['chooser']}: {choice['reason']}",
            markup=False,
            highlight=False,
        )
    return 0


def _learn_request(store: SessionStore, args: argparse.Namespace) -> int:
    from rlgpt_tui.store.learning import LearnStore
    from rlgpt_tui.tasks import get_task

    learn = LearnStore(store)
    run = learn.latest()
    if run is None:
        raise UsageError(f"no learn record in {store.path}: start one with `rlgpt-tui learn`")
    for kind, task in (("pin", args.pin), ("skip", args.skip), ("stop", "" if args.stop else None)):
        if task is None:
            continue
        if task:
            get_task(task)
        learn.add_command(run.id, kind, task)
        print(f"learn record {run.id}: {kind} {task}".rstrip() + " recorded")
    return 0


def _run_learn(store: SessionStore, args: argparse.Namespace) -> int:
    from rich.console import Console

    from rlgpt_tui.curriculum.loop import Learner
    from rlgpt_tui.engine.printer import EventPrinter

    for flag, value in (
        ("--iterations", args.iterations),
        ("--samples-per-iteration", args.samples_per_iteration),
        ("--session-samples", args.session_samples),
        ("--num-envs", args.num_envs),
        ("--eval-episodes", args.eval_episodes),
        ("--final-episodes", args.final_episodes),
        ("--max-tokens", args.max_tokens),
        ("--max-samples", args.max_samples),
        ("--max-tasks", args.max_tasks),
    ):
        if value is not None and value < 1:
            raise UsageError(f"{flag} must be at least 1, got {value}")
    if args.max_hours is not None and args.max_hours <= 0:
        raise UsageError(f"--max-hours must be more than 0, got {args.max_hours}")
    if args.threshold is not None and not 0 < args.threshold <= 1:
        raise UsageError(f"--threshold must be a success rate in (0, 1], got {args.threshold}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be 0 or more, got {args.seed}")
    if args.env is not None and args.env not in WORLDS:
        raise UsageError(f"unknown --env {args.env!r}: use one of {', '.join(WORLDS)}")
    llm = llm_settings(args)
    plan = {
        key: value
        for key, value in (
            ("iterations", args.iterations),
            ("samples_per_iteration", args.samples_per_iteration),
            ("session_samples", args.session_samples),
            ("num_envs", args.num_envs),
            ("eval_episodes", args.eval_episodes),
            ("final_episodes", args.final_episodes),
            ("seed", args.seed),
        )
        if value is not None
    }
    budgets = {
        key: value
        for key, value in (
            ("max_hours", args.max_hours),
            ("max_tokens", args.max_tokens),
            ("max_samples", args.max_samples),
            ("max_tasks", args.max_tasks),
        )
        if value is not None
    }
    console = Console(stderr=True)
    learner = Learner.open(
        store,
        args.env,
        args.library,
        plan,
        budgets,
        args.threshold,
        llm,
        curriculum=args.curriculum,
        retry=args.retry,
        say=lambda line: console.print(line, markup=False, highlight=False),
        on_session=lambda session: EventPrinter(console),
    )
    console.print(
        f"learn record {learner.run_record.id} in {store.path} (its frontier: rlgpt-tui learn "
        "--status; continue it: rlgpt-tui learn)",
        markup=False,
        highlight=False,
    )
    learner.run()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and getattr(args, "command", None) == "resume":  # run's flags, given again
        flags = " ".join(a for a in unknown if a.startswith("-")) or " ".join(unknown)
        print(
            "rlgpt-tui: error: resume keeps the session's recorded settings (its model, "
            "[llm] table, budgets and library) and takes only --llm-base-url and "
            f"--llm-timeout: drop {flags} (see `rlgpt-tui resume --help`)",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_USAGE)
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if not hasattr(args, "sessions_dir"):
        args.sessions_dir = None
    commands = {
        "train": cmd_train,
        "eval": cmd_eval,
        "run": cmd_run,
        "resume": cmd_resume,
        "sessions": cmd_sessions,
        "skills": cmd_skills,
        "tasks": cmd_tasks,
        "app": cmd_app,
        "doctor": cmd_doctor,
        "config": cmd_config,
        "learn": cmd_learn,
    }
    if args.command is None:
        given = args.sessions_dir
        args = parser.parse_args(["app"])
        args.sessions_dir = given
    if args.unsafe_local_code:
        from rlgpt_tui.sandbox import UNSAFE_ENV

        os.environ[UNSAFE_ENV] = "1"
    from rlgpt_tui import MissingAssetError
    from rlgpt_tui.config import ConfigError, resolve_sessions_dir, user_config
    from rlgpt_tui.envs import UnknownWorldError, WorldSetupError
    from rlgpt_tui.envs.minedojo.process import MineDojoError
    from rlgpt_tui.library.storage import LibraryError
    from rlgpt_tui.llm.client import LLMError
    from rlgpt_tui.sandbox import SandboxUnavailable
    from rlgpt_tui.skills.checker import CodeValidationError
    from rlgpt_tui.store import StoreError
    from rlgpt_tui.tasks import UnknownTaskError

    try:
        if args.command != "doctor":  # doctor reports a bad file as one of its checks
            user_config()  # a bad user config file: one line, whatever the command
        if args.command not in ("config", "doctor"):  # they say where it came from
            args.sessions_dir = resolve_sessions_dir(args.sessions_dir).value
        if args.command in ("train", "eval", "run", "resume", "app", "learn"):
            check_device()  # a bad RLGPT_TORCH_DEVICE: before any session or screen
        return commands[args.command](args)
    except (
        UsageError,
        ConfigError,
        MissingAssetError,
        CodeValidationError,
        UnknownTaskError,
        UnknownWorldError,
        WorldSetupError,
        LLMError,
        StoreError,
        LibraryError,
        MineDojoError,
        SandboxUnavailable,
    ) as error:
        print(f"rlgpt-tui: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("rlgpt-tui: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
