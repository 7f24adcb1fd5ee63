"""The episode runner on a fake World (no game, no PPO): what every caller relies on."""

from __future__ import annotations

import numpy as np

from rlgpt_tui.envs.base import OBSERVATION_SEGMENTS
from rlgpt_tui.rl.hooks import NeedInterrupt, ResumeInterrupted, SharedMemory
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.skills.runtime import CodedAction
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task
from tests.still_world import StillWorld


def coded(name: str, body: str, version: int | None = None) -> CodedAction:
    return validate(name, f"def act(ctx):\n{body}", version=version)


def test_replaced_code_is_what_later_calls_run_and_records_name_the_version() -> None:
    world = StillWorld(3)
    task = get_task("collect_wood").model_copy(update={"horizon": 100})
    env = CodedActionVecEnv(world, task, [coded("walk", "    yield 1\n", 1)], primitives=["noop"])
    env.reset()
    env.step(np.ones(3, dtype=int))  # index 1: the coded action
    env.replace_coded("walk", coded("walk", "    yield 2\n    yield 2\n", 2))
    env.step(np.ones(3, dtype=int))
    stats = env.coded_usage()["actions"]["walk"]
    env.close()
    assert world.taken == [[1, 2, 2]] * 3
    assert stats["versions"] == {"1": 3, "2": 3}


def test_memory_lasts_an_episode_and_a_routine_that_returns_at_once_costs_a_noop() -> None:
    # The routine counts its calls in ctx.memory and acts that count (1, 2, 3, 4); from the
    # fifth call on it returns before acting, which costs a no-op (0). The horizon of 6
    # steps ends the episode, which must empty the memory: the count starts again.
    body = (
        "    ctx.memory['calls'] = ctx.memory.get('calls', 0) + 1\n"
        "    if ctx.memory['calls'] > 4:\n"
        "        return\n"
        "    yield ctx.memory['calls']\n"
    )
    world = StillWorld(2)
    task = get_task("collect_wood").model_copy(update={"horizon": 6})
    env = CodedActionVecEnv(world, task, [coded("count", body)], primitives=["noop"])
    env.reset()
    for _ in range(7):
        env.step(np.ones(2, dtype=int))
    stats = env.coded_usage()["actions"]["count"]
    env.close()
    assert world.history == [[1, 2, 3, 4, 0, 0, 1]] * 2
    assert env.samples == world.steps_taken == 14
    # every call ended by returning; the no-op steps are not the routine's
    assert stats["end_reasons"] == {"returned": 14} and stats["steps"] == 10


def test_with_shared_memory_a_skill_knows_what_another_kept_and_without_it_not() -> None:
    # ``note`` keeps a number in ctx.memory; ``use`` acts it (0, a no-op, when it sees none):
    # a skill chosen beside a script sees what the script remembered only with shared memory
    note = coded("note", "    ctx.memory['seen'] = 3\n    yield 1\n")
    use = coded("use", "    yield ctx.memory.get('seen', 0)\n")
    taken = {}
    for shared in (False, True):
        world = StillWorld(1)
        task = get_task("collect_wood").model_copy(update={"horizon": 100})
        hooks = [SharedMemory()] if shared else []
        env = CodedActionVecEnv(world, task, [note, use], primitives=["noop"], hooks=hooks)
        env.reset()
        env.step(np.array([1]))  # note
        env.step(np.array([2]))  # use
        env.close()
        taken[shared] = world.history[0]
    assert taken == {False: [1, 0], True: [1, 3]}


class HungryWorld(StillWorld):
    """Food falls by one a step from 9 (the other stats stay at 9)."""

    observation_segments = OBSERVATION_SEGMENTS

    def _result(self):
        result = super()._result()
        stats = OBSERVATION_SEGMENTS["intrinsics"]
        for i, taken in enumerate(self.taken):
            result.obs[i, stats] = np.array([9, max(9 - len(taken), 0), 9, 9]) / 10.0
        return result


def test_a_call_ends_when_food_falls_to_the_need_so_the_policy_decides_there() -> None:
    walk = coded("walk", "    while True:\n        yield 1\n")
    steps = {}
    for need in (0, 3):
        world = HungryWorld(1)
        task = get_task("collect_wood").model_copy(update={"horizon": 100})
        hooks = [NeedInterrupt(need)] if need else []
        env = CodedActionVecEnv(world, task, [walk], primitives=["noop"], hooks=hooks)
        env.reset()
        env.step(np.array([1]))  # one decision: the call runs until it ends
        ends = env.coded_usage()["actions"]["walk"]["end_reasons"]
        env.close()
        steps[need] = (len(world.taken[0]), ends)
    # without it the call runs to its step budget (64); with 3 it ends where food is 3
    assert steps == {0: (64, {"step budget": 1}), 3: (6, {"interrupted": 1})}


def test_an_interrupted_call_resumes_where_it_yielded_only_with_resume_on() -> None:
    # ``count`` walks one way for 6 steps, then the other: food falls to 3 at step 6 and ends
    # the call there; ``other`` runs one step; then ``count`` is chosen again
    count = coded(
        "count", "    n = 0\n    while True:\n        n += 1\n        yield 1 if n <= 6 else 2\n"
    )
    other = coded("other", "    yield 0\n")
    taken = {}
    for resume in (False, True):
        world = HungryWorld(1)
        task = get_task("collect_wood").model_copy(update={"horizon": 200})
        env = CodedActionVecEnv(
            world,
            task,
            [count, other],
            primitives=["noop"],
            hooks=[NeedInterrupt(3), *([ResumeInterrupted()] if resume else [])],
        )
        env.reset()
        for action in (1, 2, 1):  # count, other, count
            env.step(np.array([action]))
        ends = env.coded_usage()["actions"]["count"]["end_reasons"]
        env.close()
        taken[resume] = (world.taken[0][:10], len(world.taken[0]), ends)
    # afresh, ``count`` walks 6 steps one way again, with a new budget of 64; resumed, it
    # goes on the other way with the 58 steps it had left
    ends = {"interrupted": 1, "step budget": 1}
    assert taken[False] == ([1] * 6 + [0] + [1] * 3, 6 + 1 + 64, ends)
    assert taken[True] == ([1] * 6 + [0] + [2] * 3, 6 + 1 + 58, ends)
