"""What several commands share: the usage error, checked file reading, the LLM settings
from flags, the device check and ``--tensorboard``."""

from __future__ import annotations

import argparse
from pathlib import Path

from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.config import device_choice


class UsageError(Exception):
    """A problem with the user's input; printed as one line, exit code 2."""


def read_text(path: str, flag: str) -> str:
    """The UTF-8 text of the file ``flag`` names, or a UsageError naming the fix."""
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


def tensorboard_dir(args: argparse.Namespace) -> Path | None:
    """``--tensorboard DIR``, once the tensorboard package is found (else a one-line error
    naming the install)."""
    if not getattr(args, "tensorboard", None):
        return None
    # start-up: rl.tensorboard imports torch, which `run` imports only once its worlds load
    from rlgpt_tui.rl.tensorboard import TensorBoardUnavailable, require_tensorboard

    try:
        require_tensorboard()
    except TensorBoardUnavailable as error:
        raise UsageError(f"--tensorboard: {error}") from None
    return Path(args.tensorboard)


def llm_settings(args: argparse.Namespace) -> LLMSettings | None:
    """LLM settings from flags, the environment and a config file (None: builtin agent)."""
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
    try:
        device_choice()
    except ValueError as error:
        raise UsageError(str(error)) from None
