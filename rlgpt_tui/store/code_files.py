"""A session's code files on disk: the latest code of each sub-action as
``<session>/code/<name>.py``, for editors (the database records every version either way).
"""

from __future__ import annotations

from pathlib import Path

from rlgpt_tui.text import short_name


def write_code_file(session_dir: Path, subaction: str, code: str) -> None:
    """The latest code of a sub-action as ``<session_dir>/code/<name>.py``; only for a short
    identifier (it is recorded in the database either way). Written whole, then renamed."""
    if not short_name(subaction):
        return
    folder = session_dir / "code"
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{subaction}.py.partial"
    partial.write_text(code)
    partial.replace(folder / f"{subaction}.py")
