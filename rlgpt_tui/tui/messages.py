"""Messages that carry engine output from the worker thread to the widgets."""

from __future__ import annotations

from typing import Any

import numpy as np
from textual.message import Message


class EngineEvent(Message):
    """One engine event as a dict (``Event.to_dict()``, or a stored event when replaying)."""

    def __init__(self, event: dict[str, Any]) -> None:
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
