"""The command line's parser: every command's options, defaults and help.

A session's settings (``run``'s and ``learn``'s flags) are declared once, in
:mod:`rlgpt_tui.session_settings`: their flags take its types, defaults and help.

Light on purpose: ``rlgpt-tui --help`` builds it, so it imports nothing heavy (no torch,
JAX or Textual; pydantic only through the settings model); each command's handler lives in
its own module, imported once the command line is parsed.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, get_args

from rlgpt_tui import __version__
from rlgpt_tui.envs.registry import WORLDS
from rlgpt_tui.session_settings import (
    CheckedSettings,
    LearnBudgets,
    LearnTarget,
    SessionPlan,
    SessionSettings,
    flag,
)

WORLD_HELP = ", ".join(f"{w.name} ({w.doc})" for w in WORLDS.values())
NUM_ENVS_DEFAULT = ", ".join(f"{w.name} {w.default_num_envs}" for w in WORLDS.values())
NUM_ENVS_HELP = f"parallel envs (default: {NUM_ENVS_DEFAULT})"

EXIT_USAGE = 2

TENSORBOARD_HELP = (
    "write PPO's metrics and its evaluations as TensorBoard runs in DIR (one per training; "
    "needs the tensorboard extra); view: tensorboard --logdir DIR"
)


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


class _SubParser(_Parser):
    def __init__(self, **kwargs: Any):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(**kwargs)


if TYPE_CHECKING:
    Commands = argparse._SubParsersAction[_SubParser]


def build_parser() -> argparse.ArgumentParser:
    """``rlgpt-tui``'s parser, every command's options included."""
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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubParser)
    add_train(commands)
    add_eval(commands)
    add_run(commands)
    add_resume(commands)
    add_sessions(commands)
    add_skills(commands)
    add_tasks(commands)
    add_doctor(commands)
    add_config(commands)
    add_app(commands)
    add_learn(commands)
    return parser


def add_train(commands: Commands) -> None:
    """``train``: PPO on a task, headless."""
    train = commands.add_parser("train", help="train PPO on a task (headless)")
    _add_run_options(train, samples_default=100_000)
    train.add_argument(
        "--save", metavar="DIR", help="where to save the model (default: the sessions folder)"
    )
    _add_sessions_dir(train)
    train.add_argument("--eval-episodes", type=int, default=100, help="episodes for the final eval")
    train.add_argument("--tensorboard", metavar="DIR", help=TENSORBOARD_HELP)
    train.add_argument("--json", action="store_true", help="print the summary as one JSON line")


def add_eval(commands: Commands) -> None:
    """``eval``: a trained policy, a coded action or random, evaluated."""
    evaluate = commands.add_parser(
        "eval", help="evaluate a trained policy, a coded action, or random"
    )
    _add_run_options(evaluate, samples_default=None)
    evaluate.add_argument("--model", metavar="DIR", help="a run folder written by `train`")
    evaluate.add_argument(
        "--only-coded", metavar="NAME", help="evaluate this coded action alone (no policy)"
    )
    evaluate.add_argument("--episodes", type=int, default=100, help="evaluation episodes")
    evaluate.add_argument("--json", action="store_true", help="print the result as one JSON line")


def add_run(commands: Commands) -> None:
    """``run``: RL-GPT's two loops on a task, headless."""
    run = commands.add_parser("run", help="run RL-GPT's two loops on a task (headless)")
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
    _add_settings(
        run,
        SessionSettings,
        ("iterations", "samples_per_iteration", "max_samples", "max_tokens", "target"),
    )
    _add_settings(run, SessionSettings, ("num_envs",), help=NUM_ENVS_HELP)
    _add_settings(run, SessionSettings, ("eval_episodes",))
    run.add_argument("--tensorboard", metavar="DIR", help=TENSORBOARD_HELP)
    _add_settings(run, SessionSettings, ("final_episodes", "seed"))
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


def add_resume(commands: Commands) -> None:
    """``resume``: a recorded session continued."""
    resume = commands.add_parser(
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


def add_sessions(commands: Commands) -> None:
    """``sessions list | show | delete | export``."""
    sessions = commands.add_parser(
        "sessions", help="list, show, export or delete recorded sessions"
    )
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


def add_skills(commands: Commands) -> None:
    """``skills list | show | export | import``: the skill library."""
    skills = commands.add_parser(
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
    export_skills.add_argument(
        "--steps-only",
        action="store_true",
        help="with --plan: compose the steps alone, without the library's survive skill "
        "(else run before a step when survival is due: a vital low or a zombie or skeleton "
        "adjacent, rlgpt_tui/skills/guard.py)",
    )
    export_skills.add_argument(
        "--code-only",
        action="store_true",
        help="the skill files alone, no trained policies; with --plan: composed from code "
        "alone (else a step, or survive, runs its trained policy where that measured better)",
    )
    _add_sessions_dir(export_skills, suppress=True)
    import_skills = verbs.add_parser(
        "import",
        help="add a folder of skill files and trained policies (all checked first; a bad "
        "one adds none)",
    )
    import_skills.add_argument("folder", metavar="DIR")
    _add_sessions_dir(import_skills, suppress=True)


def add_tasks(commands: Commands) -> None:
    """``tasks``: the task catalog."""
    commands.add_parser("tasks", help="list the task catalog")


def add_doctor(commands: Commands) -> None:
    """``doctor``: the installation checked."""
    doctor = commands.add_parser(
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


def add_config(commands: Commands) -> None:
    """``config``: the resolved settings and their sources."""
    config = commands.add_parser(
        "config",
        help="the resolved settings and where each came from (flag, env, file, default)",
        description="Settings come from flags, then environment variables, then "
        "--llm-config FILE, then the user config file (see the path printed; $RLGPT_CONFIG "
        "names another), then defaults. The API key itself is never shown.",
    )
    _add_sessions_dir(config)
    _add_llm_flags(config, "OpenAI-compatible endpoint")
    config.add_argument("--llm-vision", action="store_true", help="the model accepts images")


def add_app(commands: Commands) -> None:
    """``app``: the terminal app."""
    app = commands.add_parser("app", help="the terminal app (also: rlgpt-tui with no command)")
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


def add_learn(commands: Commands) -> None:
    """``learn``: lifelong learning with an automatic curriculum."""
    learn = commands.add_parser(
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
    _add_settings(learn, LearnTarget, ("threshold",), given_only=True)
    _add_settings(learn, LearnBudgets, ("max_hours", "max_tokens", "max_samples", "max_tasks"))
    _add_settings(
        learn,
        SessionPlan,
        ("iterations", "samples_per_iteration", "session_samples"),
        given_only=True,
    )
    _add_settings(learn, SessionPlan, ("num_envs",), given_only=True, help=NUM_ENVS_HELP)
    _add_settings(
        learn,
        SessionPlan,
        ("eval_episodes", "final_episodes", "seed", "max_tries"),
        given_only=True,
    )
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


def _add_settings(
    parser: argparse.ArgumentParser,
    model: type[CheckedSettings],
    names: tuple[str, ...],
    given_only: bool = False,
    help: str | None = None,
) -> None:
    """One flag per setting of ``model`` named in ``names``, with the model's type, default
    and help (``help`` replaces the model's). ``given_only``: the flag's value is None when
    not given (``learn``: a flag given replaces its record's setting), its help naming the
    model's default. Bounds are the model's to check (:class:`SettingError`)."""
    for name in names:
        info = model.model_fields[name]
        kind = float if float in (info.annotation, *get_args(info.annotation)) else int
        text = help or info.description or ""
        default = info.default
        if given_only and default is not None and "default" not in text:
            text = f"{text} (default: {default:g})"
        parser.add_argument(
            flag(name), type=kind, default=None if given_only else default, help=text
        )


def _add_run_options(parser: argparse.ArgumentParser, samples_default: int | None) -> None:
    """The RL configuration's flags ``train`` and ``eval`` share."""
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
    parser.add_argument("--num-envs", type=int, default=None, help=NUM_ENVS_HELP)
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
