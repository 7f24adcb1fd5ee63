"""rlgpt-tui: RL-GPT (an LLM using RL as a tool, coded actions inside the RL action space)."""

from importlib.resources import files
from pathlib import Path

__version__ = "0.1.0"

# Prompts, tasks, world texts, skill templates and recorded libraries: package data, installed
# with the wheel. The package is installed as files (not zipped), so this is a real folder.
ASSETS_DIR = Path(str(files("rlgpt_tui").joinpath("assets")))

REINSTALL = (
    "the installation is incomplete: reinstall rlgpt-tui (pip install --force-reinstall "
    "from where you installed it, or bash scripts/setup.sh in a clone)"
)


class MissingAssetError(FileNotFoundError):
    """A file of the package's data (a prompt, the task catalog, a world text) is missing or
    unreadable; the message is one line naming it and the fix (reinstall)."""


def read_asset(path: Path) -> str:
    """The text of the package data file ``path`` (under :data:`ASSETS_DIR`), or a
    :class:`MissingAssetError` naming it: never an empty text in its place."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise MissingAssetError(
            f"cannot read the package data file {path} ({error.strerror}): {REINSTALL}"
        ) from None


def asset_files(folder: Path, pattern: str) -> list[Path]:
    """The package data files in ``folder`` matching ``pattern``, sorted; a
    :class:`MissingAssetError` when there are none (a catalog is never empty)."""
    found = sorted(folder.glob(pattern))
    if not found:
        raise MissingAssetError(
            f"no {pattern} files in the package data folder {folder}: {REINSTALL}"
        )
    return found
