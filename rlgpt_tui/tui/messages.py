"""Messages that carry engine output from the worker thread to the widgets."""

from __future__ import annotations

import numpy as np
from textual.message import Message

from rlgpt_tui.engine import events as ev


class EngineEvent(Message):
    """One engine event (typed), after the store recorded it."""

    def __init__(self, event: ev.Event) -> None:
        super().__init__()
        self.event = event


class FrameReady(Message):
    """An RGB frame of the environment being trained."""

    def __init__(self, frame: np.ndarray) -> None:
        super().__init__()
        self.frame = frame


class SessionEnded(Message):
    """The worker's session run returned (or failed with ``error``)."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class CodeFileChanged(Message):
    """A session code file changed on disk (an external editor saved it)."""

    def __init__(self, subaction: str, code: str) -> None:
        super().__init__()
        self.subaction = subaction
        self.code = code
