"""Command line: ``rlgpt-tui run | resume | sessions | skills | train | eval | tasks | doctor
| config | app | learn``.

The parser (``parser.py``) is light, so that ``rlgpt-tui --help`` starts at once; each
command's handler lives in its own module, imported by ``dispatch.py`` once the command line
is parsed. Bad input (unknown task or env, a bad config, coded-action code that fails
validation, a malformed flag) prints one line naming the fix and exits with code 2, before
any session is created.
"""

from __future__ import annotations

import sys

from rlgpt_tui.cli.parser import EXIT_USAGE, build_parser


def main(argv: list[str] | None = None) -> int:
    """``rlgpt-tui``: parse the command line and run its command; the exit code."""
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
    if args.command is None:
        given = args.sessions_dir
        args = parser.parse_args(["app"])
        args.sessions_dir = given
    # start-up: `rlgpt-tui --help` must not import the commands (torch, JAX, Textual)
    from rlgpt_tui.cli.dispatch import dispatch

    return dispatch(args)
