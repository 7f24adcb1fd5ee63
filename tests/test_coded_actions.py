"""Coded actions: validation, containment of broken code, and a working wood collector."""

from __future__ import annotations

import random
import textwrap
import time

import numpy as np
import pytest

from rlgpt_tui import ASSETS_DIR
from rlgpt_tui.agents.builtin import template_code
from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.runtime import (
    CodedAction,
    CodedActionLimits,
    CodedActionStats,
    recorded_views,
    run_one_call_each,
)
from rlgpt_tui.skills.sandbox import CodeValidationError


def code(body: str) -> str:
    return textwrap.dedent(body)


def run_once(action: CodedAction, steps: int = 10) -> tuple[list[int], str]:
    view = recorded_views()[0]
    call = action.start(view, {}, random.Random(0))
    actions = []
    for _ in range(steps):
        a = call.next_action(view)
        if a is None:
            break
        actions.append(a)
    return actions, call.end_reason or "running"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os\ndef act(ctx):\n    yield 0\n", "import of 'os' is not allowed"),
        ("def act(ctx):\n    open('/etc/passwd')\n    yield 0\n", "builtin 'open' is not allowed"),
        ("def act(ctx):\n    yield ctx.__class__\n", "attribute '__class__' is not allowed"),
        ("def act(ctx):\n    eval('1')\n    yield 0\n", "builtin 'eval' is not allowed"),
        ("def act(ctx):\n    __import__('os')\n    yield 0\n", "starts with an underscore"),
        ("def act(ctx):\n    return 5\n", "must yield actions"),
        ("def act(ctx):\n    yield 10 ** 100\n", "constant exponent"),
        ("def act(ctx):\n    try:\n        yield 0\n    except:\n        pass\n", "catch specific"),
        ("def act(ctx:\n", "syntax error at line 1"),
        ("def go(ctx):\n    yield 0\n", "define a function `def act"),
        ("class A: pass\ndef act(ctx):\n    yield 0\n", "ClassDef is not allowed"),
        ("def act(ctx):\n    yield '{0.__class__}'.format(ctx)\n", "attribute 'format'"),
    ],
)
def test_validation_rejects_forbidden_code(source: str, expected: str) -> None:
    with pytest.raises(CodeValidationError, match=None) as error:
        CodedAction.from_source("bad", source)
    assert expected in str(error.value)
    assert "\n" not in str(error.value)  # one line


def test_dry_run_rejects_code_that_crashes_on_recorded_views() -> None:
    source = code(
        """
        def act(ctx):
            yield Action.NOOP
            x = ctx.view.inventory["wood"] / 0
            yield Action.DO
        """
    )
    with pytest.raises(CodeValidationError, match="dry run.*ZeroDivisionError.*line 4"):
        CodedAction.from_source("crashes", source)


def test_endless_loop_is_stopped_by_budget() -> None:
    source = code(
        """
        def act(ctx):
            yield Action.NOOP
            while True:
                pass
        """
    )
    action = CodedAction.from_source("spin", source, dry_run=False)
    started = time.perf_counter()
    actions, reason = run_once(action)
    assert actions == [0]
    assert reason in {"line budget", "time budget"}
    assert time.perf_counter() - started < 5
    with pytest.raises(CodeValidationError, match="dry run"):
        CodedAction.from_source("spin", source)


def test_budget_cannot_be_swallowed_by_except_exception() -> None:
    source = code(
        """
        def act(ctx):
            while True:
                try:
                    while True:
                        pass
                except Exception:
                    pass
            yield 0
        """
    )
    action = CodedAction.from_source("sneaky", source, dry_run=False)
    actions, reason = run_once(action)
    assert actions == [] and reason in {"line budget", "time budget"}


def test_runtime_errors_and_bad_actions_end_the_call_with_a_reason() -> None:
    raising = CodedAction.from_source(
        "raises", "def act(ctx):\n    yield 1\n    raise ValueError('boom')\n", dry_run=False
    )
    actions, reason = run_once(raising)
    assert actions == [1] and reason == "error: ValueError: boom (line 3)"
    bad = CodedAction.from_source("bad_yield", "def act(ctx):\n    yield 'fly'\n", dry_run=False)
    assert run_once(bad)[1].startswith("invalid action")
    steps = CodedAction.from_source(
        "forever",
        "def act(ctx):\n    while True:\n        yield Action.NOOP\n",
        limits=CodedActionLimits(max_steps=7),
    )
    actions, reason = run_once(steps, steps=20)
    assert len(actions) == 7 and reason == "step budget"


def test_no_way_to_open_files_at_run_time(tmp_path) -> None:
    # Names that would reach the file system are not even present at run time.
    source = "def act(ctx):\n    f = ctx.view.grid\n    yield len(f) - 7\n"
    action = CodedAction.from_source("ok", source)
    assert run_once(action)[0][0] == 0
    assert "open" not in action.program.namespace["__builtins__"]
    assert "__import__" in action.program.namespace["__builtins__"]
    with pytest.raises(ImportError):
        action.program.namespace["__builtins__"]["__import__"]("os")


def test_go_to_tree_and_collect_wood_succeeds_on_most_seeds() -> None:
    action = CodedAction.from_file(ASSETS_DIR / "skills" / "collect_wood.py")
    world = CraftaxWorld(num_envs=16, seed=123)
    world.reset(123)
    before, after, calls = run_one_call_each(world, action)
    stats = CodedActionStats()
    for call in calls:
        stats.record(call)
    has_wood = [v.inventory["wood"] > 0 for v in after]
    assert all(v.inventory["wood"] == 0 for v in before)
    assert sum(has_wood) >= 13, stats.as_dict()  # most of 16 seeds
    assert stats.end_reasons["returned"] >= 12


def test_reward_code_is_validated_and_contained() -> None:
    reward = RewardCode(
        "def reward(prev, now):\n    return now.inventory['wood'] - prev.inventory['wood']\n"
    )
    views = recorded_views()
    assert reward(views[0], views[0]) == 0.0
    with pytest.raises(CodeValidationError, match="dry run"):
        RewardCode("def reward(prev, now):\n    return 1 / 0\n")
    with pytest.raises(CodeValidationError, match="import of 'socket'"):
        RewardCode("import socket\ndef reward(prev, now):\n    return 0\n")


def walkable_region(view) -> set[tuple[int, int]] | None:
    """The walkable tiles connected to the player, or None when they reach the View's edge."""
    region, todo = {view.position}, [view.position]
    while todo:
        x, y = todo.pop()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            col, row = nxt[0] - view.position[0] + 4, nxt[1] - view.position[1] + 3
            if nxt in region or view.block_at(*nxt) not in {"grass", "sand", "path"}:
                continue
            if col in (0, 8) or row in (0, 6):
                return None
            region.add(nxt)
            todo.append(nxt)
    return region


def test_shelter_walls_the_player_in_and_recall_remembers_the_table() -> None:
    # The tech tree gets a stone pickaxe and stones, then ctx.shelter() must leave the player
    # in a closed cell (at most two walkable tiles, every tile around them solid), and
    # ctx.recall() must know where the table is.
    source = template_code("make_stone_pickaxe") + code(
        """
        def act(ctx):
            ctx.recall("table")
            yield from make_stone_pickaxe(ctx)
            yield from gather(ctx, "stone", "stone", 4)
            ctx.memory["table"] = ctx.recall("table")
            ctx.memory["sheltered"] = yield from ctx.shelter()
        """
    )
    limits = CodedActionLimits(max_steps=400, seconds=60)
    action = CodedAction.from_source("shelter", source, limits=limits)
    world = CraftaxWorld(num_envs=8, seed=7)
    world.reset(7)
    views = world.views()
    memories = [{} for _ in views]
    calls = [action.start(v, memories[i], random.Random(i)) for i, v in enumerate(views)]
    active = np.ones(8, dtype=bool)
    while active.any():
        views = world.views()
        actions = np.zeros(8, dtype=np.int32)
        for i in np.flatnonzero(active):
            step = calls[i].next_action(views[i])
            active[i] = step is not None
            actions[i] = step or 0
        world.step(actions, active)
    views = world.views()
    world.close()
    sheltered = [i for i in range(8) if memories[i].get("sheltered")]
    assert len(sheltered) >= 5, [c.end_reason for c in calls]
    for i in sheltered:
        region = walkable_region(views[i])
        assert region is not None and len(region) <= 2
        assert not any(name == "zombie" and (x, y) in region for name, x, y in views[i].mobs)
    assert all(memories[i]["table"] is not None for i in range(8))


def test_builtin_plans_are_valid_for_every_catalog_task() -> None:
    # Long tech trees (make_iron_pickaxe, collect_diamond) must still fit a plan's 8 slots.
    from rlgpt_tui.agents.builtin import BuiltinSlowAgent
    from rlgpt_tui.tasks import get_task, load_catalog

    slow = BuiltinSlowAgent()
    for name in load_catalog():
        task = get_task(name)
        for stage in range(3):
            plan = slow.plan(task, [None] * stage)
            assert 1 <= len(plan.subactions) <= 8
