"""rlgpt-tui: RL-GPT (an LLM using RL as a tool, coded actions inside the RL action space)."""

from pathlib import Path

__version__ = "0.1.0"

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"
