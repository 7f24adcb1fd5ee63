"""How a call of untrusted code ended: one typed reason, shared by workers, runner and panes."""

from __future__ import annotations

from enum import StrEnum

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
