"""The benchmarks' shared options, declared once with one set of defaults.

Every benchmark's parser takes the options it shares with the others from here
(:func:`add_options`), so ``--eval-seed``, ``--episodes``, ``--seeds``, ``--skills`` ... mean
the same and default to the same value in every script (after Craftax_Baselines' scripts
sharing one argument set, and CleanRL's one ``Args`` per script). A script adds only what is
its own. :data:`DEFAULTS` holds each shared default; :data:`KEPT_DEFAULTS` lists the few
scripts whose recorded results ran at another default, which they keep so that the command
recorded beside each result still reproduces it.

``python benchmarks/run.py NAME [options]`` runs any benchmark or probe by name.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NoReturn


@dataclass(frozen=True)
class Defaults:
    """Each shared option's default."""

    task: str = "crafter_score"  # the headline task
    tasks: tuple[str, ...] | None = None  # None: every task the benchmark covers
    env: str = "craftax"
    seed: int = 0  # a training (or the one) seed
    seeds: tuple[int, ...] = (0, 1, 2)
    samples: int = 100_000  # training samples per run
    episodes: int = 32  # evaluation episodes per seed
    num_envs: int | None = None  # None: the world's own (craftax 64, crafter 8)
    eval_seed: int = 20_000  # evaluation worlds: this + the training seed
    eval_seeds: tuple[int, ...] = (20_000,)  # evaluation worlds of code alone, side by side
    jobs: int = 1  # processes at once
    record: str | None = None
    results_dir: Path | None = None  # None: benchmarks/results/
    skills: Path | None = None  # None: the builtin (hand-written) library
    script: str | None = None  # with --skills: the skill code alone runs
    danger: int = 0
    need: int = 0
    shared_memory: bool = False
    resume: bool = False
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_timeout: float | None = None  # None: the client's own
    sessions_dir: Path | None = None


DEFAULTS = Defaults()

#: world sizes by default (``--num-envs`` not given)
DEFAULT_ENVS = {"craftax": 64, "crafter": 8}

#: scripts whose recorded results ran at another default than :data:`DEFAULTS`: they keep it,
#: so that the command recorded with each result reproduces it
KEPT_DEFAULTS: dict[str, dict[str, Any]] = {
    # benchmarks/results/handwritten-variants-script-edits.json: 64 episodes per world seed
    "script_edits": {"episodes": 64, "eval_seeds": (90_000, 91_000, 92_000)},
    # benchmarks/results/llm-curriculum-sessions.json: its sessions ran with 16 envs, a 900 s
    # LLM timeout, over the achievements in tech-tree order
    "curriculum": {"num_envs": 16, "llm_timeout": 900.0},
}


def _ints(values: tuple[int, ...]) -> list[int]:
    return list(values)


#: each shared option: its flags and argparse's settings (the default comes from DEFAULTS)
SPECS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "task": (("--task",), {"help": "the task (default: %(default)s)"}),
    "tasks": (
        ("--tasks",),
        {"nargs": "+", "metavar": "TASK", "help": "tasks (default: every one it covers)"},
    ),
    "env": (("--env", "--world"), {"help": "the world: craftax or crafter (default: craftax)"}),
    "seed": (("--seed",), {"type": int, "help": "the seed (default: %(default)s)"}),
    "seeds": (("--seeds",), {"nargs": "+", "type": int, "help": "training seeds"}),
    "samples": (("--samples",), {"type": int, "help": "training samples per run"}),
    "episodes": (("--episodes",), {"type": int, "help": "evaluation episodes per seed"}),
    "num_envs": (("--num-envs",), {"type": int, "help": "envs (default: craftax 64, crafter 8)"}),
    "eval_seed": (
        ("--eval-seed",),
        {"type": int, "help": "evaluation worlds: this + the seed (default: %(default)s)"},
    ),
    "eval_seeds": (
        ("--eval-seeds",),
        {"nargs": "+", "type": int, "help": "evaluation world seeds"},
    ),
    "jobs": (("--jobs",), {"type": int, "help": "processes at once (default: 1)"}),
    "record": (
        ("--record",),
        {"metavar": "NAME", "help": "write the figures to benchmarks/results/NAME.json"},
    ),
    "results_dir": (("--results-dir",), {"type": Path, "help": argparse.SUPPRESS}),
    "skills": (
        ("--skills",),
        {
            "type": Path,
            "metavar": "DIR",
            "help": "coded skills from this folder of skill files (default: the builtin, "
            "hand-written library)",
        },
    ),
    "script": (("--script",), {"help": "with --skills: the skill the code runs alone"}),
    "danger": (
        ("--danger",),
        {
            "type": int,
            "help": "a coded call ends when a hostile comes within this many steps "
            "(RLConfig's hooks.interrupt_on_danger; default 0: never)",
        },
    ),
    "need": (
        ("--need",),
        {
            "type": int,
            "help": "a coded call ends when health, food or drink falls to this or below "
            "(RLConfig's hooks.interrupt_on_need; default 0: never)",
        },
    ),
    "shared_memory": (
        ("--shared-memory",),
        {"action": "store_true", "help": "one ctx.memory per env (RLConfig's hooks)"},
    ),
    "resume": (
        ("--resume",),
        {"action": "store_true", "help": "resume an interrupted call (RLConfig's hooks)"},
    ),
    "llm_base_url": (("--llm-base-url",), {"help": "an OpenAI-compatible server"}),
    "llm_model": (("--llm-model",), {"help": "its model"}),
    "llm_timeout": (("--llm-timeout",), {"type": float, "help": "seconds per LLM call"}),
    "sessions_dir": (("--sessions-dir",), {"type": Path, "help": "a sessions folder"}),
}
assert set(SPECS) == {f.name for f in fields(Defaults)}


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the script (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def default(name: str, script: str | None = None) -> Any:
    """The shared option ``name``'s default (a list for a tuple), in ``script``."""
    value = KEPT_DEFAULTS.get(script or "", {}).get(name, getattr(DEFAULTS, name))
    return list(value) if isinstance(value, tuple) else value


def add_options(
    parser: argparse.ArgumentParser,
    *names: str,
    script: str | None = None,
    required: tuple[str, ...] = (),
    help: dict[str, str] | None = None,
) -> argparse.ArgumentParser:
    """Add the shared options ``names`` to ``parser`` with their shared defaults (``script``'s
    kept ones where :data:`KEPT_DEFAULTS` lists it); ``required`` ones must be given; ``help``
    may say what an option means in this script."""
    for name in names:
        flags, settings = SPECS[name]
        settings = dict(settings)
        if name in required:
            settings["required"] = True
        else:
            settings["default"] = default(name, script)
        if help and name in help:
            settings["help"] = help[name]
        parser.add_argument(*flags, dest=name, **settings)
    return parser


def parser(script: str, description: str | None) -> Parser:
    """A benchmark's parser, named after its script."""
    return Parser(prog=f"{script}.py", description=(description or "").splitlines()[0])


def world_envs(args: argparse.Namespace) -> int:
    """``--num-envs``, or the world's default size."""
    return args.num_envs if args.num_envs is not None else DEFAULT_ENVS[args.env]
