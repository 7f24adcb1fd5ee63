"""Agent view: an RGB frame of the environment, drawn with half-block characters."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget


def frame_strips(frame: np.ndarray, columns: int, rows: int) -> list[Strip]:
    """The frame scaled to ``columns`` x ``2 * rows`` pixels, two pixels per cell (▀)."""
    image = (
        Image.fromarray(frame).convert("RGB").resize((columns, rows * 2), Image.Resampling.NEAREST)
    )
    pixels = np.asarray(image)
    strips = []
    for row in range(rows):
        top, bottom = pixels[2 * row], pixels[2 * row + 1]
        segments = [
            Segment(
                "▀",
                Style.parse(f"rgb({t[0]},{t[1]},{t[2]}) on rgb({b[0]},{b[1]},{b[2]})"),
            )
            for t, b in zip(top, bottom, strict=True)
        ]
        strips.append(Strip(segments, columns))
    return strips


class AgentView(Widget):
    """The latest frame (env 0 of the training run), redrawn when a new one arrives."""

    can_focus = True  # key 5 focuses it (and z zooms it)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Agent view (env 0)"
        self.frame: np.ndarray | None = None
        self.frames_shown = 0
        self._strips: list[Strip] = []
        self._strip_size = (0, 0)

    def show_frame(self, frame: np.ndarray) -> None:
        self.frame = frame
        self.frames_shown += 1
        self._strips = []
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size.width, self.content_size.height
        if self.frame is None or width < 2 or height < 2:
            return Strip.blank(width)
        side = min(width, height * 2)  # square frame: cells are about twice as tall as wide
        if not self._strips or self._strip_size != (side, height):
            self._strips = frame_strips(self.frame, side, side // 2)
            self._strip_size = (side, height)
        return self._strips[y] if y < len(self._strips) else Strip.blank(width)
