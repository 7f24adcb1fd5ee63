"""One library skill as markdown (``skills show``)."""

from __future__ import annotations

from typing import Any


def skill_markdown(skill: Any, versions: list[Any] | None = None) -> str:
    """One library skill as text: who wrote it and where, its versions, its measured record
    and its code (``skills show`` and the app's library screen)."""
    record = skill.record
    lines = [
        f"# {skill.name} v{skill.version} ({skill.world})",
        "",
        skill.docstring or "(no docstring)",
        "",
        f"- author: {skill.author}",
        f"- made in: {skill.made_in or '-'}"
        + (f" (code version {skill.code_seq})" if skill.code_seq else ""),
        f"- origin: {skill.origin}",
        f"- calls: {record.calls_text}; ends: {record.ends_text}",
        f"- success of the task it served: {record.success_text}",
    ]
    if versions and len(versions) > 1:
        lines.append(
            "- versions: "
            + ", ".join(
                f"v{v.version} by {v.author}" + (" (shown)" if v.id == skill.id else "")
                for v in versions
            )
        )
    lines += ["", "```python", skill.source.rstrip("\n"), "```"]
    return "\n".join(lines)
