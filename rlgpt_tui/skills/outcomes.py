"""How a call of untrusted code ended: one typed reason, shared by workers, runner and panes."""

from __future__ import annotations

import reprlib
from enum import StrEnum
from typing import Any

from rlgpt_tui.text import clipped
from rlgpt_tui.text import safe_text as stored_text

MAX_DETAIL = 300  # characters of an error message kept with a call's end


class CallEnd(StrEnum):
    """Why a coded-action call (or a reward-code call) ended."""

    RETURNED = "returned"  # the routine finished
    STEP_BUDGET = "step budget"  # it used its primitive steps per call
    EPISODE_ENDED = "episode ended"  # the task's goal, its horizon or the game ended it
    ABANDONED = "abandoned"  # training stopped mid-rollout, or a stage switched
    INTERRUPTED = "interrupted"  # the caller ended it (e.g. a chain stage reached its goal)
    TIMEOUT = "timeout"  # its CPU time ran out in the worker, or the app killed the worker
    LOOP_BUDGET = "loop budget"  # too many loop iterations / calls between two actions
    MEMORY = "memory"  # it ran out of the worker's memory
    CRASHED = "crashed"  # the worker died by a signal or broke the protocol
    ERROR = "error"  # it raised an exception
    INVALID = "invalid"  # it yielded something that is not an action
    LOST = "lost"  # the worker was restarted because another call in it overran
    DISABLED = "disabled"  # the action broke its worker too often and is off for this run

    @property
    def failure(self) -> bool:
        """True when the code misbehaved (as opposed to ending normally or being cut off)."""
        return self in _FAILURES


_FAILURES = frozenset(
    {
        CallEnd.TIMEOUT,
        CallEnd.LOOP_BUDGET,
        CallEnd.MEMORY,
        CallEnd.CRASHED,
        CallEnd.ERROR,
        CallEnd.INVALID,
        CallEnd.DISABLED,
    }
)


def safe_text(text: str, limit: int = MAX_DETAIL) -> str:
    """A message from untrusted code made safe to store and show: :func:`rlgpt_tui.text.
    safe_text` (valid UTF-8, no NUL, bounded), and no control characters (a terminal escape
    sequence in an error message must not reach the screen) but newlines and tabs."""
    text = stored_text(str(text), limit)
    return "".join(ch if ch >= " " or ch in "\n\t" else "?" for ch in text)


def _bounded_repr() -> reprlib.Repr:
    shown = reprlib.Repr()  # Python 3.11's Repr takes no arguments
    shown.maxlevel, shown.maxstring, shown.maxother, shown.maxlong = 3, MAX_DETAIL, MAX_DETAIL, 60
    return shown


_BOUNDED = _bounded_repr()


def bounded_text(value: Any, limit: int = MAX_DETAIL) -> str:
    """``str(value)`` of a value untrusted code made, at most ``limit`` characters (a cut
    marked "..."), at a cost bounded by ``limit``.

    ``str`` of a list of a million texts joins them all before anything can cut the
    result; here a text is sliced first and any other value is shown by :mod:`reprlib`,
    which looks at a few items of each container."""
    text = value[: limit + 1] if isinstance(value, str) else _BOUNDED.repr(value)
    return safe_text(clipped(text, limit), limit)


def bounded_message(error: BaseException, limit: int = MAX_DETAIL) -> str:
    """``str(error)``, its cost bounded by ``limit``: untrusted code may raise
    ``ValueError(huge_list)``, whose ``str`` would show every item."""
    args = error.args
    small = len(args) <= 8 and all(
        (isinstance(a, str) and len(a) <= 4 * limit) or isinstance(a, int | float | None)
        for a in args
    )
    if small or isinstance(error, UnicodeError):  # their own ``str`` is bounded then
        try:
            return safe_text(str(error), limit)
        except ValueError:  # e.g. an int too large to print
            pass
    if len(args) == 1:
        return bounded_text(args[0], limit)
    return bounded_text(args[:8], limit)
