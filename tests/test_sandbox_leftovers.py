"""What a coded action or reward code leaves behind is bounded before the worker or the app
touches it.

Each hostile routine below puts about 100 MB (a list of 100,000 texts of 1,000 characters,
cheap to make: one text, shared) into one thing it can reach, on every call. The worker and
the app then join, copy, send or record what they take from it; if any of that walked the
whole value, each call would cost a join of 100 MB, and the calls below would take many
times what the same number of plain calls take. Measured side by side in one test, in real
worker processes over a world that costs nothing to step.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from rlgpt_tui.rl.hooks import RewardCodeHook
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.api import MAX_NOTE
from rlgpt_tui.skills.outcomes import MAX_DETAIL
from rlgpt_tui.skills.runtime import CodedActionLimits
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task
from tests.still_world import StillWorld

BIG = '["x" * 1000] * 100_000'  # 100 MB as text, 800 kB of memory
CALLS = 40  # calls per measurement: an unbounded join would cost ~0.3 s each
#: a routine's calls may take at most this many times a plain one's (and a little jitter)
RATIO, JITTER = 2.0, 0.5
#: the most characters a recorded detail holds (safe_text marks a cut after the limit)
RECORDED = MAX_DETAIL + 40

TEXT = "'x' * 1_000_000 * 100"  # 100 MB of text: making it is the code's own work
#: one routine per thing a coded action can reach: (what it makes, how it leaves it there)
HOSTILE = {
    "notes": (BIG, "ctx.notes.extend(big)"),
    "begun": (BIG, "ctx.begun.extend(big)"),
    "log": (BIG, "ctx.log(big)"),
    "log_text": (TEXT, "ctx.log(big)"),
    "begin_step": (BIG, "ctx.begin_step(big)"),
    "memory": (BIG, "ctx.memory['big'] = big\n    ctx.log(ctx.memory)"),
    "memory_map": (
        "set(zip(range(1_000_000), range(1_000_000)))",
        "ctx.memory['seen blocks'] = {'blocks': {}, 'where': {'tree': big}, 'last': None}\n"
        "    ctx.recall('tree')",
    ),
    "random": (BIG, "ctx.random.big = big"),
    "context": (BIG, "ctx.big = big"),
    "view": (BIG, "ctx.view.inventory['big'] = big"),
    "exception": (BIG, "yield Action.NOOP\n    raise ValueError(big)"),
    "yielded": (BIG, "yield big"),
    "yielded_text": (TEXT, "yield big"),
    "returned": (BIG, "yield Action.NOOP\n    return big"),
}


def routine(fill: str, leave: str = "") -> str:
    """A coded action that makes ``fill`` on each call and leaves it as ``leave`` says
    (nowhere: it only makes it, the baseline of the same work)."""
    left = f"    {leave}\n" if leave else ""
    return f"def act(ctx):\n    big = {fill}\n{left}    yield Action.NOOP\n"


def _run(source: str, reward: str | None = None) -> tuple[float, dict]:
    """Seconds for CALLS calls of ``source`` (one env, one worker) and the action's usage."""
    action = validate("act", source, limits=CodedActionLimits(seconds=5.0), dry_run=False)
    task = get_task("collect_wood").model_copy(update={"horizon": 10_000})
    hooks = [RewardCodeHook(reward)] if reward else []
    env = CodedActionVecEnv(
        StillWorld(1), task, coded=[action], primitives=["noop"], workers=1, hooks=hooks
    )
    try:
        env.reset()
        env.step(np.array([1]))  # the worker started and the code loaded: not measured
        started = time.perf_counter()
        for _ in range(CALLS):
            env.step(np.array([1]))
        seconds = time.perf_counter() - started
        return seconds, env.coded_usage()
    finally:
        env.close()


def _within(seconds: float, plain: float) -> bool:
    return seconds <= RATIO * plain + JITTER


@pytest.mark.slow
def test_what_a_coded_action_leaves_costs_no_more_than_a_plain_call() -> None:
    plain = {fill: _run(routine(fill))[0] for fill in (BIG, TEXT, HOSTILE["memory_map"][0])}
    measured = {name: _run(routine(fill, leave)) for name, (fill, leave) in HOSTILE.items()}
    slow = {
        name: f"{seconds:.2f} s against {plain[HOSTILE[name][0]]:.2f} s"
        for name, (seconds, _) in measured.items()
        if not _within(seconds, plain[HOSTILE[name][0]])
    }
    assert not slow, f"more than {RATIO}x the same calls leaving nothing: {slow}"
    for name, (_, usage) in measured.items():
        stats = usage["actions"]["act"]
        assert stats["calls"] == CALLS + 1, name
        assert len(stats["last_failure"]) <= RECORDED, name
        assert len(stats["notes"]) <= 3 and all(len(n) <= RECORDED for n in stats["notes"])
    # the read-only records say what to use instead
    notes_failure = measured["notes"][1]["actions"]["act"]["last_failure"]
    assert "read-only" in notes_failure and "ctx.log" in notes_failure
    assert measured["exception"][1]["actions"]["act"]["end_reasons"] == {"error": CALLS + 1}
    # what ctx.log kept: its first notes, each cut to MAX_NOTE characters
    (logged,) = measured["log"][1]["actions"]["act"]["notes"]
    assert logged.startswith("['xxxx") and len(logged.split("; ")[0]) <= MAX_NOTE


REWARDS = {
    "list": f"def reward(prev, now):\n    return {BIG}\n",
    "digits": "def reward(prev, now):\n    return '1' * 1_000_000 * 10\n",
    "exception": f"def reward(prev, now):\n    raise ValueError({BIG})\n",
    "module": f"KEPT = []\n\ndef reward(prev, now):\n    KEPT.append({BIG})\n    return 0.0\n",
}


@pytest.mark.slow
def test_what_reward_code_leaves_costs_no_more_than_a_plain_reward() -> None:
    plain, _ = _run(routine("0"), "def reward(prev, now):\n    return 0.0\n")
    measured = {name: _run(routine("0"), source) for name, source in REWARDS.items()}
    slow = {name: round(s, 2) for name, (s, _) in measured.items() if not _within(s, plain)}
    assert not slow, f"plain rewards took {plain:.2f} s; these took more than {RATIO}x: {slow}"
    for name in ("list", "digits", "exception"):
        failures = measured[name][1]["reward_code_failures"]
        assert sum(failures.values()) >= CALLS, name
        assert all(len(message) <= RECORDED for message in failures), name
    assert "not a number" in next(iter(measured["digits"][1]["reward_code_failures"]))
    assert not measured["module"][1]["reward_code_failures"]
