"""``rlgpt-tui config``: each resolved setting and where it came from."""

from __future__ import annotations

import argparse
import os
from dataclasses import fields

from rlgpt_tui.config import config_path, resolve_sessions_dir
from rlgpt_tui.llm.settings import LLMSettings


def cmd_config(args: argparse.Namespace) -> int:
    """Each resolved setting, its value and where it came from; the key's value never."""
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
