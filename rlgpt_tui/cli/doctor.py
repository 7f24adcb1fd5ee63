"""``rlgpt-tui doctor``: the installation, devices, LLM and MineDojo checked."""

from __future__ import annotations

import argparse

from rlgpt_tui.doctor import run_doctor


def cmd_doctor(args: argparse.Namespace) -> int:
    """Run the checks, print one line each and the count; exit 1 if any failed."""
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
