"""A skill as a plain ``.py`` file with a TOML header, to share libraries between people.

The header is a block of comment lines (like PEP 723's inline metadata) that Python ignores,
so the file is the skill's source as it ran::

    # /// rlgpt-skill
    # name = "go_to_tree"
    # world = "craftax"
    # version = 1
    # author = "llm:qwen2.5-coder"
    # docstring = "Walk next to the nearest tree and face it."
    # made_in = "session 3, iteration 1"
    # [record]
    # calls = 412
    # ...
    # ///
    def act(ctx):
        ...

Parsing checks the header only (:class:`SkillFileError` names the fix); the source is
validated like any coded action by whoever imports it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlgpt_tui.skills.checker import CodeValidationError
from rlgpt_tui.skills.validation import ValidatedAction, validate

HEADER_START = "# /// rlgpt-skill"
HEADER_END = "# ///"
SUFFIX = ".py"


#: a library folder's file naming the folder it adds to (one line: a path relative to it)
BASE_FILE = "BASE"


class SkillFileError(ValueError):
    """A skill file cannot be read; the message is one line naming the fix."""


def skill_paths(folder: Path) -> list[Path]:
    """The skill files of a library ``folder``, by name: its own ``.py`` files, and those
    of the folder its :data:`BASE_FILE` names (and that folder's base, in turn) that it has
    no file of the same name for. A library that adds two skills and a plan to another
    holds those three files, not a copy of the other's 22. A base that is not a folder, or
    that leads back to the folder, raises :class:`SkillFileError`."""
    found: dict[str, Path] = {}
    seen: set[Path] = set()
    while True:
        folder = folder.resolve()
        if folder in seen:
            raise SkillFileError(f"{folder / BASE_FILE}: its bases lead back to {folder}")
        seen.add(folder)
        for path in sorted(folder.glob(f"*{SUFFIX}")):
            if path.is_file():
                found.setdefault(path.name, path)
        base = folder / BASE_FILE
        if not base.is_file():
            return [found[name] for name in sorted(found)]
        folder = folder / base.read_text().strip()
        if not folder.is_dir():
            raise SkillFileError(f"{base}: no folder {folder}; write the library folder it adds to")


@dataclass
class SkillFile:
    """One skill of a shared library: its header fields and its source."""

    name: str
    world: str
    source: str
    version: int = 1
    author: str = "person"
    docstring: str = ""
    made_in: str = ""  # where it was written, e.g. "session 3, iteration 1"
    record: dict[str, Any] = field(default_factory=dict)  # calls, steps, end_reasons, ...

    @property
    def file_name(self) -> str:
        """``<name>-<world>-v<version>.py``: distinct for every skill of a library."""
        return f"{self.name}-{self.world}-v{self.version}{SUFFIX}"


def _toml_value(value: Any) -> str:
    """A TOML value for strings, numbers, booleans, lists and flat tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):  # JSON string escapes are TOML basic-string escapes
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        items = ", ".join(
            f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items() if v is not None
        )
        return "{" + items + "}"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def format_skill_file(skill: SkillFile) -> str:
    """The file's text: the header, then the source unchanged."""
    lines = [HEADER_START]
    for key in ("name", "world", "version", "author", "docstring", "made_in"):
        lines.append(f"# {key} = {_toml_value(getattr(skill, key))}")
    record = {k: v for k, v in skill.record.items() if v is not None}
    if record:
        lines.append("# [record]")
        lines += [f"# {key} = {_toml_value(value)}" for key, value in record.items()]
    lines.append(HEADER_END)
    return "\n".join(lines) + "\n" + skill.source


def parse_skill_file(path: Path) -> SkillFile:
    """Read a skill file; raises :class:`SkillFileError` naming the file and the fix."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise SkillFileError(f"cannot read {path}: {error.strerror}; check the path") from None
    except UnicodeDecodeError:
        raise SkillFileError(f"{path} is not UTF-8 text: give a Python source file") from None
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != HEADER_START:
        raise SkillFileError(
            f"{path} has no skill header: start it with '{HEADER_START}' (see `rlgpt-tui "
            "skills export` for the format)"
        )
    try:
        end = next(i for i, line in enumerate(lines) if i and line.rstrip() == HEADER_END)
    except StopIteration:
        raise SkillFileError(
            f"{path}: the header never ends: close it with '{HEADER_END}'"
        ) from None
    body = []
    for line in lines[1:end]:
        if not line.startswith("#"):
            raise SkillFileError(f"{path}: header lines must start with '#': comment out {line!r}")
        body.append(line[1:].removeprefix(" "))
    try:
        header = tomllib.loads("".join(body))
    except tomllib.TOMLDecodeError as error:
        raise SkillFileError(f"{path}: the header is not TOML ({error}): fix that line") from None
    missing = [k for k in ("name", "world") if not isinstance(header.get(k), str)]
    if missing:
        raise SkillFileError(f'{path}: the header lacks {" and ".join(missing)}: add name = "..."')
    version = header.get("version", 1)
    if not isinstance(version, int) or version < 1:
        raise SkillFileError(f"{path}: version = {version!r}: use a whole number from 1")
    record = header.get("record", {})
    return SkillFile(
        name=header["name"],
        world=header["world"],
        source="".join(lines[end + 1 :]),
        version=version,
        author=str(header.get("author", "person")),
        docstring=str(header.get("docstring", "")),
        made_in=str(header.get("made_in", "")),
        record=record if isinstance(record, dict) else {},
    )


def validate_file(path: str | Path, **kwargs) -> ValidatedAction:
    """Validate a ``.py`` file as a coded action named after the file's stem, or, for a
    skill file that ``rlgpt-tui skills export`` wrote, after its header's name
    (:func:`~rlgpt_tui.skills.validation.validate`)."""
    path = Path(path)
    try:
        source = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise CodeValidationError(
            f"cannot read coded action {str(path)!r}: {error.strerror}"
        ) from None
    except UnicodeDecodeError:
        raise CodeValidationError(
            f"coded action {str(path)!r} is not UTF-8 text: give a Python source file"
        ) from None
    if source.startswith(HEADER_START):  # an exported skill: its header names it
        try:
            skill = parse_skill_file(path)
        except SkillFileError as error:
            raise CodeValidationError(str(error)) from None
        return validate(skill.name, skill.source, description=skill.docstring, **kwargs)
    doc = source.split('"""')[1].strip() if source.lstrip().startswith('"""') else ""
    return validate(path.stem, source, description=doc, **kwargs)
