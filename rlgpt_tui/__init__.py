"""rlgpt-tui: RL-GPT (an LLM using RL as a tool, coded actions inside the RL action space)."""

from importlib.resources import files
from pathlib import Path

__version__ = "0.1.0"

# Prompts, tasks, world texts, skill templates and recorded libraries: package data, installed
# with the wheel. The package is installed as files (not zipped), so this is a real folder.
ASSETS_DIR = Path(str(files("rlgpt_tui").joinpath("assets")))
