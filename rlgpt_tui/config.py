"""Settings and where each came from: flags > environment > ``--llm-config FILE`` > the user
config file > defaults.

The user config file is ``config.toml`` in the platform's config folder
(``~/.config/rlgpt-tui/config.toml`` on Linux; ``$RLGPT_CONFIG`` names another file). It may
hold an ``[llm]`` table (the keys of :class:`rlgpt_tui.llm.settings.LLMSettings`, as in an
``--llm-config`` file) and ``sessions_dir``. It never holds an API key: ``api_key_env``
names the environment variable that does.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platformdirs import user_config_path

APP_NAME = "rlgpt-tui"
ENV_CONFIG = "RLGPT_CONFIG"
ENV_SESSIONS_DIR = "RLGPT_SESSIONS_DIR"
DEFAULT_SESSIONS_DIR = "sessions"
TOP_LEVEL_KEYS = ("llm", "sessions_dir")

# [llm] keys that environment variables set (name -> variable)
LLM_ENV = {
    "base_url": "RLGPT_LLM_BASE_URL",
    "model": "RLGPT_LLM_MODEL",
    "api_key_env": "RLGPT_LLM_API_KEY_ENV",
    "vision": "RLGPT_LLM_VISION",
}


class ConfigError(Exception):
    """A config file cannot be used; the message is one line naming the fix."""


@dataclass(frozen=True)
class Sourced:
    """One resolved setting: its value and where it came from."""

    value: Any
    source: str  # "flag --x", "env NAME", "file PATH", "default"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The user config file: ``$RLGPT_CONFIG``, else ``config.toml`` in the platform's
    config folder (it need not exist)."""
    env = os.environ if environ is None else environ
    if env.get(ENV_CONFIG):
        return Path(env[ENV_CONFIG]).expanduser()
    return user_config_path(APP_NAME, appauthor=False) / "config.toml"


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML document; an unreadable or malformed file is a one-line ConfigError."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read {what} {path}: {error.strerror}; check the path") from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(
            f"{what} {path} is not a text file: pass a TOML file with an [llm] table"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"bad config file {path}: {error}; fix its TOML") from None
    return document


def llm_table(document: dict[str, Any], path: Path) -> dict[str, Any]:
    """The ``[llm]`` table of a config document (empty when absent); an API key in it is
    refused."""
    table = document.get("llm", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `llm` must be a table ([llm]), not a {type(table).__name__}")
    if any("key" in k and k != "api_key_env" for k in table):
        raise ConfigError(
            f"{path} holds an API key: remove it and export it in the environment instead "
            "(api_key_env names the variable)"
        )
    return dict(table)


def user_config(environ: Mapping[str, str] | None = None) -> tuple[Path, dict[str, Any]]:
    """The user config file's path and document ({} when the default file does not exist;
    a file named by ``$RLGPT_CONFIG`` must exist)."""
    env = os.environ if environ is None else environ
    path = config_path(env)
    if not path.exists():
        if env.get(ENV_CONFIG):
            raise ConfigError(
                f"${ENV_CONFIG} names {path}, which does not exist: create it or unset {ENV_CONFIG}"
            )
        return path, {}
    document = read_toml(path, "the config file")
    unknown = sorted(set(document) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting(s) {', '.join(unknown)}: it may hold "
            f"{' and '.join(TOP_LEVEL_KEYS)} ([llm] table)"
        )
    llm_table(document, path)  # a key in it is refused whichever command reads the file
    return path, document


def resolve_llm(
    flags: Mapping[str, Any],
    llm_config: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    user_file: bool = True,
) -> dict[str, Sourced]:
    """The ``[llm]`` settings that are set anywhere, each with its source. ``flags``: the
    values given on the command line (None: not given). ``user_file``: read the user config
    file (False for a recorded session's settings, which are whole already)."""
    env = os.environ if environ is None else environ
    resolved: dict[str, Sourced] = {}
    if user_file:
        path, document = user_config(env)
        for key, value in llm_table(document, path).items():
            resolved[key] = Sourced(value, f"file {path}")
    if llm_config is not None:
        path = Path(llm_config)
        document = read_toml(path, "--llm-config")
        for key, value in llm_table(document, path).items():
            resolved[key] = Sourced(value, f"file {path} (--llm-config)")
    for key, variable in LLM_ENV.items():
        if env.get(variable):
            setting: Any = env[variable]
            if key == "vision":
                setting = setting.lower() in ("1", "true", "yes")
            resolved[key] = Sourced(setting, f"env {variable}")
    for key, value in flags.items():
        if value is not None:
            resolved[key] = Sourced(value, f"flag --llm-{key.replace('_', '-')}")
    return resolved


def resolve_sessions_dir(flag: str | None, environ: Mapping[str, str] | None = None) -> Sourced:
    """Where sessions are recorded: ``--sessions-dir``, ``$RLGPT_SESSIONS_DIR``, the user
    config file's ``sessions_dir`` (relative to the file's folder), else ./sessions."""
    env = os.environ if environ is None else environ
    if flag:
        return Sourced(flag, "flag --sessions-dir")
    if env.get(ENV_SESSIONS_DIR):
        return Sourced(env[ENV_SESSIONS_DIR], f"env {ENV_SESSIONS_DIR}")
    path, document = user_config(env)
    value = document.get("sessions_dir")
    if value is not None:
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{path}: sessions_dir must be a folder path (a string)")
        folder = Path(value).expanduser()
        return Sourced(str(path.parent / folder), f"file {path}")
    return Sourced(DEFAULT_SESSIONS_DIR, "default")
