"""A parsed command line run: the checks every command shares, the command's handler
(its module imported only now), and each known error as one line with exit code 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from rlgpt_tui import MissingAssetError
from rlgpt_tui.cli.common import UsageError, check_device
from rlgpt_tui.cli.parser import EXIT_USAGE
from rlgpt_tui.config import ConfigError, resolve_sessions_dir, user_config
from rlgpt_tui.envs import UnknownWorldError, WorldSetupError
from rlgpt_tui.envs.minedojo.process import MineDojoError
from rlgpt_tui.library.storage import LibraryError
from rlgpt_tui.llm.settings import LLMError
from rlgpt_tui.sandbox import UNSAFE_ENV, SandboxUnavailable
from rlgpt_tui.session_settings import SettingError
from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.store import StoreError
from rlgpt_tui.tasks.catalog import UnknownTaskError

Handler = Callable[[argparse.Namespace], int]

#: errors that are the user's to fix: one line, exit code 2
USAGE_ERRORS = (
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
    SettingError,
)


def dispatch(args: argparse.Namespace) -> int:
    """Run ``args.command``; its exit code (2 for a usage error, 130 when interrupted)."""
    if args.unsafe_local_code:
        os.environ[UNSAFE_ENV] = "1"
    try:
        if args.command != "doctor":  # doctor reports a bad file as one of its checks
            user_config()  # a bad user config file: one line, whatever the command
        if args.command not in ("config", "doctor"):  # they say where it came from
            args.sessions_dir = resolve_sessions_dir(args.sessions_dir).value
        if args.command in ("train", "eval", "run", "resume", "app", "learn"):
            check_device()  # a bad RLGPT_TORCH_DEVICE: before any session or screen
        return handler(args.command)(args)
    except USAGE_ERRORS as error:
        print(f"rlgpt-tui: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("rlgpt-tui: interrupted", file=sys.stderr)
        return 130


def handler(command: str) -> Handler:
    """The handler of ``command``, its module imported now."""
    # start-up: each command imports only its own module (torch, JAX, Textual where it needs
    # them), so `rlgpt-tui tasks` or `config` does not wait on the others'
    match command:
        case "train":
            from rlgpt_tui.cli.train import cmd_train

            return cmd_train
        case "eval":
            from rlgpt_tui.cli.train import cmd_eval

            return cmd_eval
        case "run":
            from rlgpt_tui.cli.run import cmd_run

            return cmd_run
        case "resume":
            from rlgpt_tui.cli.resume import cmd_resume

            return cmd_resume
        case "sessions":
            from rlgpt_tui.cli.sessions import cmd_sessions

            return cmd_sessions
        case "skills":
            from rlgpt_tui.cli.skills import cmd_skills

            return cmd_skills
        case "tasks":
            from rlgpt_tui.cli.tasks import cmd_tasks

            return cmd_tasks
        case "doctor":
            from rlgpt_tui.cli.doctor import cmd_doctor

            return cmd_doctor
        case "config":
            from rlgpt_tui.cli.config import cmd_config

            return cmd_config
        case "app":
            from rlgpt_tui.cli.app import cmd_app

            return cmd_app
        case "learn":
            from rlgpt_tui.cli.learn import cmd_learn

            return cmd_learn
    raise ValueError(f"no command {command!r}")
