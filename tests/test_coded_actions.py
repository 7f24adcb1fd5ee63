"""Coded actions: validation, containment of broken code, and a working wood collector."""

from __future__ import annotations

import contextlib
import os
import signal
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rlgpt_tui.envs.base import ACTION_NAMES
from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.library.skillfile import validate_file
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.episodes import run_one_call_each
from rlgpt_tui.rl.hooks import RewardCodeHook
from rlgpt_tui.rl.vec_env import CodedActionVecEnv
from rlgpt_tui.sandbox import GRACE_SECONDS
from rlgpt_tui.skills.api import IDLE_REPEATS, Action
from rlgpt_tui.skills.checker import (
    BudgetExceeded,
    CodeValidationError,
    budget,
    compile_untrusted,
)
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.skills.reward import RewardCode
from rlgpt_tui.skills.runtime import CodedActionLimits, CodedActionStats, recorded_views
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task
from tests.still_world import StillWorld, run_call

#: the hand-written skill files the tests use
SKILLS = Path(__file__).resolve().parent / "skills"


def test_the_action_enum_names_every_primitive_action_in_order() -> None:
    assert tuple(action.name.lower() for action in Action) == ACTION_NAMES
    assert [int(action) for action in Action] == list(range(len(ACTION_NAMES)))


def one_call_in_new_worlds(action, num_envs: int, seed: int):
    """One call of ``action`` in each of ``num_envs`` new Craftax worlds: the Views before
    and after, and the call records (see ``run_one_call_each``)."""
    world = CraftaxWorld(num_envs=num_envs, seed=seed)
    world.reset(seed)
    try:
        return run_one_call_each(world, action)
    finally:
        world.close()


def code(body: str) -> str:
    return textwrap.dedent(body)


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
        # Binding __tick__ (parameter, `as` name) would shadow the inserted budget counter.
        (
            "def spin(__tick__=bool):\n    while True:\n        pass\n"
            "def act(ctx):\n    yield spin()\n",
            "line 1: name '__tick__' starts with an underscore",
        ),
        ("def act(ctx):\n    f = lambda __tick__: 0\n    yield 0\n", "name '__tick__' starts"),
        ("from math import sqrt as __tick__\ndef act(ctx):\n    yield 0\n", "'__tick__' starts"),
        (
            "def act(ctx):\n    try:\n        yield 0\n    except Exception as __tick__:\n"
            "        pass\n",
            "line 4: name '__tick__' starts with an underscore",
        ),
    ],
)
def test_validation_rejects_forbidden_code(source: str, expected: str) -> None:
    with pytest.raises(CodeValidationError, match=None) as error:
        validate("bad", source)
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
        validate("crashes", source)


def test_endless_loop_is_stopped_by_budget() -> None:
    source = code(
        """
        def act(ctx):
            yield Action.NOOP
            while True:
                pass
        """
    )
    action = validate("spin", source, dry_run=False)
    actions, record, seconds = run_call(action)
    assert actions == [0] and record.steps == 1
    assert record.end in {CallEnd.LOOP_BUDGET, CallEnd.TIMEOUT}
    assert seconds < 5
    with pytest.raises(CodeValidationError, match="dry run"):
        validate("spin", source)


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
    action = validate("sneaky", source, dry_run=False)
    _, record, _ = run_call(action)
    assert record.steps == 0 and record.end in {CallEnd.LOOP_BUDGET, CallEnd.TIMEOUT}


RUNAWAY = {
    "while_true": "def act(ctx):\n    yield 0\n    while True:\n        pass\n",
    "fib_40": code(
        """
        def fib(n):
            return fib(n - 1) + fib(n - 2) if n > 1 else n

        def act(ctx):
            yield 0
            yield fib(40)
        """
    ),
    # Catching the RecursionError and recursing again would take ~2**1000 calls.
    "recursion_past_the_limit": code(
        """
        def deeper(n):
            try:
                return deeper(n + 1) + 1
            except Exception:
                return deeper(n + 1) + 1

        def act(ctx):
            yield 0
            yield deeper(0)
        """
    ),
    "nested_comprehension": code(
        """
        def act(ctx):
            yield 0
            yield len([i * j for i in range(100000) for j in range(100000)])
        """
    ),
    "generator_expression": code(
        """
        def act(ctx):
            yield 0
            yield sum(sum(1 for j in range(100000)) for i in range(100000))
        """
    ),
    "lambdas_over_map": code(
        """
        def act(ctx):
            yield 0
            step = lambda i: max(map(lambda j: i * j, range(100000)))
            yield max(map(step, range(100000)))
        """
    ),
}


@pytest.mark.parametrize("name", sorted(RUNAWAY))
def test_runaway_code_ends_with_the_loop_budget_quickly(name: str) -> None:
    action = validate(name, RUNAWAY[name], dry_run=False)
    actions, record, seconds = run_call(action)
    assert actions == [0] and record.steps == 1
    # Calls failing with RecursionError before their tick can make the deadline come first.
    ends = {CallEnd.LOOP_BUDGET, CallEnd.TIMEOUT}
    assert record.end in (ends if name.startswith("recursion") else {CallEnd.LOOP_BUDGET})
    assert seconds < 3


def test_a_loop_waiting_on_a_helper_that_cannot_act_ends_naming_the_helper() -> None:
    """A 1.5B model's eat_cow looped ``while not (yield from ctx.collect('stone', ...)):
    pass``: where collect returns at once (nothing to reach), nothing changes until the
    code acts, and each such call spun 20,000 loop ticks. The same acting helper call
    returning at once more than IDLE_REPEATS times in a row ends the call by its loop
    budget, naming the call; a bounded loop of as many calls goes on as written, and so
    does one that acts between them."""
    assert "diamond" not in {b for row in recorded_views()[0].grid for b in row}
    spin = code(
        """
        def act(ctx):
            yield Action.NOOP
            while not (yield from ctx.collect('diamond', max_steps=500)):
                pass
        """
    )
    actions, record, _ = run_call(validate("eat_cow", spin, dry_run=False))
    assert actions == [0] and record.end is CallEnd.LOOP_BUDGET
    assert record.detail.startswith(
        f"ctx.collect('diamond', max_steps=500) returned at once {IDLE_REPEATS + 1} times in "
        "a row, with no action between"
    )
    bounded = code(
        f"""
        def act(ctx):
            for _ in range({IDLE_REPEATS}):
                yield from ctx.collect('diamond')
            yield Action.NOOP
            for _ in range({IDLE_REPEATS}):
                yield from ctx.collect('diamond')
            yield Action.NOOP
        """
    )
    actions, record, _ = run_call(validate("look", bounded))
    assert actions == [0, 0] and record.end is CallEnd.RETURNED


def test_plain_endless_recursion_ends_with_an_error_or_the_budget() -> None:
    source = "def f(n):\n    return f(n + 1) + 1\ndef act(ctx):\n    yield 0\n    yield f(0)\n"
    actions, record, seconds = run_call(validate("rec", source, dry_run=False))
    assert actions == [0] and seconds < 3
    assert record.end is CallEnd.LOOP_BUDGET or (
        record.end is CallEnd.ERROR and record.detail.startswith("RecursionError")
    )


def test_slow_loop_ends_with_the_time_budget() -> None:
    # Few ticks, each expensive (a builtin summing 100,000 numbers): the deadline ends it.
    source = "def act(ctx):\n    yield 0\n    while True:\n        total = sum(range(100000))\n"
    limits = CodedActionLimits(seconds=0.05)
    action = validate("slow", source, limits=limits, dry_run=False)
    actions, record, seconds = run_call(action)
    assert actions == [0] and record.end is CallEnd.TIMEOUT
    assert seconds < 3


def _children() -> list[int]:
    """This process's child processes (here: the sandbox workers)."""
    pids: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            pids += [int(p) for p in (task / "children").read_text().split()]
    return pids


def _busy_call(cpu_seconds: float, frozen: float, running: float):
    """One call of code doing about ``cpu_seconds`` of the worker's CPU in one step under a
    0.5 s budget, its worker frozen (SIGSTOP) ``frozen`` s of every ``frozen + running``,
    as on a machine running other jobs: ``run_call``'s actions, record and wall seconds."""
    rounds, started = 0, time.thread_time()
    while time.thread_time() - started < cpu_seconds:
        sum(range(100_000))
        rounds += 1
    source = code(
        f"""
        def act(ctx):
            for _ in range({rounds}):
                total = sum(range(100000))
            yield Action.NOOP
        """
    )
    action = validate("busy", source, limits=CodedActionLimits(seconds=0.5), dry_run=False)
    done = threading.Event()

    def throttle() -> None:
        while not done.is_set():
            stopped = _children()
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
            time.sleep(frozen)
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            time.sleep(running)

    thread = threading.Thread(target=throttle, daemon=True)
    thread.start()
    try:
        return run_call(action)
    finally:
        done.set()
        thread.join()


def test_a_busy_machine_does_not_cut_a_call_that_is_within_its_cpu_budget() -> None:
    # About 0.15 s of the worker's own CPU under a 0.5 s budget; the worker is frozen two
    # thirds of the time, so the call takes ~0.5-1 s of wall clock. It must end as it would
    # on a quiet machine: the code returns, and its action is the one after the work. A
    # wall-clock budget cut it ("timeout").
    actions, record, seconds = _busy_call(0.15, frozen=0.08, running=0.04)
    assert record.end is CallEnd.RETURNED, (record.end, record.detail, seconds)
    assert actions == [0]


@pytest.mark.slow
def test_a_call_slowed_by_a_busy_machine_is_not_killed_from_outside() -> None:
    # About 0.3 s of the worker's CPU, the worker frozen nine tenths of the time: some 3 s
    # of wall clock, past the budget and its 1 s of grace. The app's outside watch counts
    # the worker's CPU time, as the worker does: the call returns and acts. The wall-clock
    # watch killed the worker ("timeout").
    actions, record, seconds = _busy_call(0.3, frozen=0.09, running=0.01)
    assert seconds > 0.5 + GRACE_SECONDS  # it did run past the budget by the wall clock
    assert record.end is CallEnd.RETURNED, (record.end, record.detail, seconds)
    assert actions == [0]


def test_endless_finally_block_is_closed_without_hanging() -> None:
    # generator.close() runs the finally block outside any budget: its first tick ends it.
    source = code(
        """
        def act(ctx):
            try:
                while True:
                    yield Action.NOOP
            finally:
                while True:
                    pass
        """
    )
    action = validate("clingy", source, limits=CodedActionLimits(max_steps=3))
    actions, record, seconds = run_call(action)
    assert actions == [0, 0, 0] and record.end is CallEnd.STEP_BUDGET and seconds < 3
    # cut from outside after 2 steps (the game ends): the finally block must not hang
    actions, record, seconds = run_call(action, steps=2)
    assert actions == [0, 0] and record.end is CallEnd.EPISODE_ENDED and seconds < 3


def test_untrusted_functions_run_only_inside_a_budget_and_budgets_nest() -> None:
    program = compile_untrusted(
        "def count(n):\n    return [i for i in range(n)]\n", "count", {}, "count"
    )
    count = program.function("count")
    with pytest.raises(BudgetExceeded, match="outside a budget"):
        count(1)
    with budget(100, seconds=5):
        assert count(50) == list(range(50))  # 1 call + 50 iterations = 51 ticks
        with budget(10, seconds=5), pytest.raises(BudgetExceeded, match="budget of 10 exc"):
            count(50)
        assert count(40) == list(range(40))  # the outer count (51) was restored: 92 ticks
        with pytest.raises(BudgetExceeded, match="loop budget of 100 exceeded"):
            count(10)
    with pytest.raises(BudgetExceeded, match="outside a budget"):
        count(0)


def test_error_lines_point_into_the_untrusted_code() -> None:
    source = code(
        """
        def act(ctx):
            for i in range(2):
                while i > 5:
                    pass
            yield [1 / (j - 1) for j in range(3)]
        """
    ).lstrip()
    actions, record, _ = run_call(validate("div", source, dry_run=False))
    assert record.end is CallEnd.ERROR
    assert record.detail == "ZeroDivisionError: division by zero (line 5)"
    source = code(
        """
        def act(ctx):
            half = lambda v: v // 0
            yield 0
            values = sorted([3, 1, 2], key=lambda v: v)
            yield half(values[0])
        """
    ).lstrip()
    actions, record, _ = run_call(validate("lam", source, dry_run=False))
    assert actions == [0] and record.end is CallEnd.ERROR
    assert record.detail == "ZeroDivisionError: integer division or modulo by zero (line 2)"


def test_runtime_errors_and_bad_actions_end_the_call_with_a_reason() -> None:
    raising = validate(
        "raises", "def act(ctx):\n    yield 1\n    raise ValueError('boom')\n", dry_run=False
    )
    actions, record, _ = run_call(raising)
    assert actions == [1] and record.end is CallEnd.ERROR
    assert record.detail == "ValueError: boom (line 3)"
    bad = validate("bad_yield", "def act(ctx):\n    yield 'fly'\n", dry_run=False)
    assert run_call(bad)[1].end is CallEnd.INVALID
    steps = validate(
        "forever",
        "def act(ctx):\n    while True:\n        yield Action.NOOP\n",
        limits=CodedActionLimits(max_steps=7),
    )
    actions, record, _ = run_call(steps)
    assert len(actions) == 7 and record.end is CallEnd.STEP_BUDGET


@pytest.mark.slow  # an evaluation over 16 seeds (a benchmark)
def test_go_to_tree_and_collect_wood_succeeds_on_most_seeds() -> None:
    action = validate_file(SKILLS / "collect_wood.py")
    before, after, calls = one_call_in_new_worlds(action, 16, 123)
    stats = CodedActionStats()
    for call in calls:
        stats.record(call)
    has_wood = [v.inventory["wood"] > 0 for v in after]
    assert all(v.inventory["wood"] == 0 for v in before)
    assert sum(has_wood) >= 13, stats.as_dict()  # most of 16 seeds
    assert stats.end_reasons["returned"] >= 12


def test_an_exported_skill_file_is_a_coded_action_named_by_its_header(tmp_path) -> None:
    """`rlgpt-tui train --coded collect_coal-craftax-v1.py` (a file `skills export` wrote)
    was refused: the file's stem is no identifier. The header's name is the action's."""
    from rlgpt_tui.library.skillfile import SkillFile, format_skill_file

    source = (SKILLS / "collect_wood.py").read_text()
    skill = SkillFile(name="wood_first", world="craftax", source=source, docstring="wood")
    path = tmp_path / skill.file_name
    path.write_text(format_skill_file(skill))
    action = validate_file(path)
    assert (action.name, action.description) == ("wood_first", "wood")
    _, after, _ = one_call_in_new_worlds(action, 8, 123)
    assert sum(v.inventory["wood"] > 0 for v in after) >= 6
    path.write_text(path.read_text().replace('# name = "wood_first"\n', ""))
    with pytest.raises(CodeValidationError, match="lacks name"):
        validate_file(path)


def test_reward_code_is_validated_and_runs_in_the_workers() -> None:
    # wood gained, plus a constant: in a world where nothing changes only the constant shows
    source = code(
        """
        def reward(prev, now):
            return now.inventory["wood"] - prev.inventory["wood"] + 0.25
        """
    )
    RewardCode(source)  # validation: a dry run in a worker
    env = CodedActionVecEnv(
        StillWorld(2),
        get_task("collect_wood").model_copy(update={"horizon": 5}),
        hooks=[RewardCodeHook(source)],
    )
    env.reset()
    _, rewards, _, _ = env.step(np.array([0, 5]))
    env.close()
    assert rewards.tolist() == [0.25, 0.25]
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
            if ctx.recall("table") is None:
                raise ValueError("the table was forgotten")
            sheltered = yield from ctx.shelter()
            if not sheltered:
                raise ValueError("not sheltered")
        """
    )
    limits = CodedActionLimits(max_steps=400, seconds=60)
    action = validate("shelter", source, limits=limits)
    _, views, records = one_call_in_new_worlds(action, 8, 7)
    # the routine raises when it failed, so its end reason says whether it worked
    sheltered = [i for i, r in enumerate(records) if r.end is CallEnd.RETURNED]
    assert len(sheltered) >= 5, [(r.end.value, r.detail) for r in records]
    for i in sheltered:
        region = walkable_region(views[i])
        assert region is not None and len(region) <= 2
        assert not any(name == "zombie" and (x, y) in region for name, x, y in views[i].mobs)


def test_builtin_plans_are_valid_for_every_catalog_task() -> None:
    # Long tech trees (make_iron_pickaxe, collect_diamond) must still fit a plan's 8 slots.
    from rlgpt_tui.agents.schemas import MAX_SUBACTIONS
    from rlgpt_tui.agents.slow import BuiltinSlowAgent
    from rlgpt_tui.tasks.catalog import get_task, load_catalog

    slow = BuiltinSlowAgent()
    for name in load_catalog():
        task = get_task(name)
        for stage in range(3):
            plan = slow.plan(task, [None] * stage)
            # scored tasks get a library of skills; the others keep 8 at most
            assert 1 <= len(plan.subactions) <= (MAX_SUBACTIONS if task.scored else 8)


def test_a_plans_rounds_make_a_tool_once_and_place_a_station_once_in_sight() -> None:
    """A code-alone plan is called round after round: a 1.5B model's make_stone_pickaxe
    plan made a second wood pickaxe and placed a second table each round, so the wood the
    stone pickaxe needs was never left. Composed, a make step is skipped while its tool is
    held and a place step while its station is in sight; chained by hand without that,
    the same steps make a pickaxe a round."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources

    steps = [
        ("collect_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n'),
        ("place_table", 'def act(ctx):\n    return (yield from ctx.place("table"))\n'),
        ("make_wood_pickaxe", 'def act(ctx):\n    yield from ctx.make("wood_pickaxe")\n'),
    ]
    unguarded = (
        "def act(ctx):\n"
        '    yield from ctx.collect("tree")\n'
        '    yield from ctx.place("table")\n'
        '    yield from ctx.make("wood_pickaxe")\n'
    )

    def after_rounds(source: str, rounds: int = 10) -> tuple[list[int], list[int]]:
        """Each world's pickaxes and tables in sight after ``rounds`` calls."""
        action = validate(COMPOSED_PLAN, source)
        world = CraftaxWorld(num_envs=4, seed=5)
        world.reset(5)
        try:
            for _ in range(rounds):
                _, after, _ = run_one_call_each(world, action)
        finally:
            world.close()
        tables = [sum(row.count("table") for row in view.grid) for view in after]
        return [view.inventory.get("wood_pickaxe", 0) for view in after], tables

    pickaxes, tables = after_rounds(unguarded)  # the steps as they are, without the guards
    # (ctx.make walks back to the first table, so their wood goes mostly into pickaxes)
    assert max(pickaxes) >= 2, (pickaxes, tables)
    pickaxes, tables = after_rounds(compose_sources(steps))
    assert pickaxes.count(1) >= 3 and max(pickaxes) == 1, pickaxes
    assert max(tables) == 1, tables


def test_a_step_that_raises_ends_itself_and_the_round_goes_on() -> None:
    """A 1.5B model's eat_cow raised a TypeError in 6 of 8 runs, and each round of its
    22-step crafter_score plan stopped there, before any tool was made. Composed, a step's
    error ends that step only: the next step runs in the same call, and the call itself
    ends as returned."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources

    steps = [
        ("collect_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n'),
        ("eat_cow", 'def act(ctx):\n    yield from ctx.face("cow")\n'),  # TypeError
        ("collect_more_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n'),
    ]
    action = validate(COMPOSED_PLAN, compose_sources(steps))
    before, after, records = one_call_in_new_worlds(action, 4, 5)
    wood = [
        a.inventory.get("wood", 0) - b.inventory.get("wood", 0)
        for a, b in zip(after, before, strict=True)
    ]
    assert wood.count(2) >= 3, wood  # both collecting steps ran, around the failing one
    assert all(r.end.value == "returned" for r in records), [r.end for r in records]
    # the step's error, logged by the plan (ctx.log), is in each call's record
    assert all(r.detail.startswith("eat_cow failed: ") for r in records), records


def test_what_a_plan_logged_reaches_its_evaluation_and_the_slow_agents_feedback() -> None:
    """ctx.log notes were kept inside the worker and shown nowhere, so a plan whose step
    raised in every round evaluated as if nothing had gone wrong. Its evaluation now
    counts the notes, and the evaluation summary the slow agent reads names them."""
    from rlgpt_tui.agents.prompts import evaluation_lines
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate
    from rlgpt_tui.tasks.measure import Measure

    steps = [
        ("collect_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n'),
        ("eat_cow", 'def act(ctx):\n    yield from ctx.face("cow")\n'),  # TypeError
    ]
    action = validate(COMPOSED_PLAN, compose_sources(steps))
    config = RLConfig(
        task="place_table",  # never placed: the plan runs round after round
        coded_actions=[CodedActionSpec.of(action)],
        num_envs=4,
        horizon=60,
    )
    result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=5)
    noted = result.notes[COMPOSED_PLAN]
    assert list(noted)[0].startswith("eat_cow failed: "), noted
    assert sum(noted.values()) >= 4, noted  # a call per round, in every episode
    lines = evaluation_lines(result.summary(), Measure.SUCCESS_RATE)
    assert any(line.startswith("- plan logged: eat_cow failed: ") for line in lines), lines
    # how its episodes ended reaches the slow agent too (a success-rate task: no table ever)
    ends = result.summary().episode_ends or {}
    assert "success" not in ends and sum(ends.values()) == 4, ends
    (said,) = [line for line in lines if line.startswith("- how episodes ended: ")]
    assert all(f"{end} {n}/4" in said for end, n in ends.items()), (said, ends)


def test_a_plan_of_builtin_library_skills_composes_under_the_size_limit_and_works() -> None:
    """An LLM session with ``--library builtin`` planned collect_wood ... make_stone_pickaxe
    with the library's skills, each the whole 18,000-character techtree module: composed,
    135,523 characters, refused by the size limit, and the session had no solution. The
    helpers they share are now composed once."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate
    from rlgpt_tui.skills.runtime import MAX_SOURCE_CHARS

    names = ["collect_wood", "place_table", "make_wood_pickaxe", "collect_stone"]
    names.append("make_stone_pickaxe")
    parts = [(name, template_code(name)) for name in names]
    assert sum(len(source) for _, source in parts) > MAX_SOURCE_CHARS
    action = validate(COMPOSED_PLAN, compose_sources(parts))
    assert len(action.source) < 2 * len(parts[0][1])
    config = RLConfig(
        task="make_stone_pickaxe", coded_actions=[CodedActionSpec.of(action)], num_envs=4
    )
    result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=11)
    # seeded: measured 1.00 (4 of 4 episodes; the same on every run)
    assert result.success_rate == pytest.approx(1.0, abs=0.05), result.as_dict()
    begun = result.calls[COMPOSED_PLAN]["begun"]
    assert begun == dict.fromkeys(names, 4), begun  # measured: each step begun once a game


def test_a_plans_steps_wait_for_what_its_earlier_steps_bring() -> None:
    """A 1.5B model's make_stone_pickaxe plan, with no tree in sight, walked back to its
    table each round to make a pickaxe it had no wood for, and never explored past it.
    Composed with the world's recipes, a make step waits for the materials that an earlier
    collect step brings, and a collect step for the tool an earlier make step makes."""
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate

    steps = [  # the collecting step never collects: no wood, ever
        ("collect_wood", "def act(ctx):\n    yield from ctx.explore(4)\n"),
        ("make_wood_pickaxe", 'def act(ctx):\n    yield from ctx.make("wood_pickaxe")\n'),
        ("collect_stone", 'def act(ctx):\n    yield from ctx.collect("stone")\n'),
    ]

    def steps_begun(source: str) -> dict[str, int]:
        action = validate(COMPOSED_PLAN, source)
        config = RLConfig(
            task="collect_stone",
            coded_actions=[CodedActionSpec.of(action)],
            num_envs=4,
            horizon=80,
        )
        result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=5)
        return result.calls[COMPOSED_PLAN]["begun"]

    unguarded = steps_begun(compose_sources(steps))  # every step, every round
    assert unguarded["make_wood_pickaxe"] >= 4 and unguarded["collect_stone"] >= 4, unguarded
    recipes = craftax_classic_documentation().recipes
    waiting = steps_begun(compose_sources(steps, recipes))
    assert waiting["collect_wood"] >= 4, waiting  # it explores round after round
    assert "make_wood_pickaxe" not in waiting and "collect_stone" not in waiting, waiting


def test_a_step_that_gathers_the_rest_itself_is_not_kept_waiting() -> None:
    """Waiting for a step's full materials deadlocked the builtin library's place_table
    plan (0.00 in an LLM session): its collect_wood stops at 1 wood, and its place_table,
    which gathers the second wood itself, never ran. A step now waits for some of each."""
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate

    parts = [(name, template_code(name)) for name in ("collect_wood", "place_table")]
    source = compose_sources(parts, craftax_classic_documentation().recipes)
    action = validate(COMPOSED_PLAN, source)
    config = RLConfig(task="place_table", coded_actions=[CodedActionSpec.of(action)], num_envs=4)
    result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=11)
    # seeded: measured 1.00 (4 of 4 episodes; the same on every run)
    assert result.success_rate == pytest.approx(1.0, abs=0.05), result.as_dict()


def test_a_collecting_step_rests_while_what_the_later_steps_use_is_held() -> None:
    """The same plan mined stone every round, up to 9, for a pickaxe that needs one. A
    collect step now rests while the later steps' use of its item is held; the critic's
    runs compose the steps before a step with that step as the later one."""
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources

    steps = [("collect_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n')]
    recipes = craftax_classic_documentation().recipes

    def wood_after_rounds(source: str) -> list[int]:
        action = validate(COMPOSED_PLAN, source)
        world = CraftaxWorld(num_envs=4, seed=3)
        world.reset(3)
        try:
            for _ in range(6):
                _, after, _ = run_one_call_each(world, action)
        finally:
            world.close()
        return [view.inventory.get("wood", 0) for view in after]

    hoarded = wood_after_rounds(compose_sources(steps, recipes))  # nothing later uses wood
    assert max(hoarded) >= 3, hoarded
    enough = wood_after_rounds(compose_sources(steps, recipes, then=["make_wood_pickaxe"]))
    assert enough == [1, 1, 1, 1], enough  # the wood pickaxe's one wood, then it rests


def test_a_plans_rounds_place_an_item_only_until_its_achievement_is_unlocked() -> None:
    """A 1.5B model's crafter_score plan placed its one stone every round, so the stone
    pickaxe after it never had stone. Composed, a step placing an item that is not a
    station runs until its achievement is unlocked: what later rounds collect is kept."""
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources

    steps = [
        ("collect_sapling", 'def act(ctx):\n    yield from ctx.collect("grass")\n'),
        ("place_plant", 'def act(ctx):\n    yield from ctx.place("plant")\n'),
    ]
    unguarded = (
        'def act(ctx):\n    yield from ctx.collect("grass")\n    yield from ctx.place("plant")\n'
    )

    def after_rounds(source: str) -> tuple[list[bool], list[int]]:
        """Each world's place_plant unlocked, and its saplings, after 8 calls."""
        action = validate(COMPOSED_PLAN, source)
        world = CraftaxWorld(num_envs=4, seed=3)
        world.reset(3)
        try:
            for _ in range(8):
                _, after, _ = run_one_call_each(world, action)
        finally:
            world.close()
        placed = ["place_plant" in view.achievements for view in after]
        return placed, [view.inventory.get("sapling", 0) for view in after]

    placed, saplings = after_rounds(unguarded)  # a sapling placed each round it got one
    assert sum(placed) >= 3 and max(saplings) <= 1, (placed, saplings)
    placed, saplings = after_rounds(compose_sources(steps))
    assert sum(placed) >= 3, placed
    assert sum(saplings) >= 8 and min(saplings) >= 1, saplings


def test_make_walks_back_to_a_table_left_out_of_sight() -> None:
    """A 1.5B model's make_stone_pickaxe pressed the action wherever its search for stone
    had led it. ``ctx.make`` first walks back to the table seen earlier in the episode:
    with the table out of sight, the helper makes the pickaxe where pressing the action
    does not."""
    walk_off = code(  # no table, or still in sight: the call idles to its step budget
        """
        def act(ctx):
            for _ in range(4):
                yield from ctx.collect("tree")
            placed = yield from ctx.place("table")
            for _ in range(12):
                if not placed or ctx.nearest("table") is None:
                    break
                yield from ctx.explore(4)
            while not placed or ctx.nearest("table") is not None:
                yield Action.NOOP
        """
    )

    def made(finish: str) -> list[bool]:
        """For each world where the table went out of sight: was the pickaxe made?"""
        source = walk_off + f"    {finish}\n    return ctx.has('wood_pickaxe')\n"
        limits = CodedActionLimits(max_steps=300, seconds=60)
        action = validate("make_far", source, limits=limits)
        _, after, records = one_call_in_new_worlds(action, 8, 3)
        return [
            after[i].inventory.get("wood_pickaxe", 0) > 0
            for i, r in enumerate(records)
            if r.end is CallEnd.RETURNED
        ]

    pressed = made("yield Action.MAKE_WOOD_PICKAXE")
    helped = made("yield from ctx.make('wood_pickaxe')")
    assert len(helped) >= 4 and len(pressed) >= 4, (helped, pressed)
    assert not any(pressed)
    assert sum(helped) >= len(helped) - 1, helped


def test_a_step_that_restores_a_stat_runs_when_the_stat_is_low() -> None:
    """Run every round, a 1.5B model's go_to_water sent the player back to water between
    every two steps of its crafter_score plan (Crafter score 14.0-16.8 against 18.5 without
    it). Composed with the world's recipes, a step that restores a stat (collect_drink:
    drink) runs only when the stat is low (4 or less), or not full (7 or less) with water in
    sight; the other steps get the rounds in between."""
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.library.compose import COMPOSED_PLAN, compose_sources
    from rlgpt_tui.rl.config import CodedActionSpec, RLConfig
    from rlgpt_tui.rl.evaluation import evaluate

    drink = (  # notes the stat it started at, and whether water was in sight
        "def act(ctx):\n"
        "    ctx.log(f\"drink {ctx.view.drink}, water seen {ctx.nearest('water') is not None}\")\n"
        '    yield from ctx.collect("water")\n'
    )
    steps = [("collect_drink", drink)]
    steps.append(("collect_wood", 'def act(ctx):\n    yield from ctx.collect("tree")\n'))

    def run(source: str) -> tuple[dict[str, int], list[tuple[int, bool]]]:
        """Each step's calls begun, and each collect_drink call's (drink, water seen)."""
        action = validate(COMPOSED_PLAN, source)
        config = RLConfig(
            task="place_table",  # never placed: the plan runs round after round
            coded_actions=[CodedActionSpec.of(action)],
            num_envs=4,
            horizon=250,
        )
        result = evaluate(config, only_coded=COMPOSED_PLAN, episodes=4, seed=11)
        started = []
        for note, count in result.notes[COMPOSED_PLAN].items():
            level, seen = note.removeprefix("drink ").split(", water seen ")
            started += [(int(level), seen == "True")] * count
        return result.calls[COMPOSED_PLAN]["begun"], started

    every_round, started = run(compose_sources(steps))
    assert every_round["collect_drink"] >= every_round["collect_wood"], every_round
    assert max(level for level, _ in started) == 9, started  # also at a full drink
    begun, started = run(compose_sources(steps, craftax_classic_documentation().recipes))
    assert 4 <= begun["collect_drink"] <= begun["collect_wood"] // 2, begun
    assert all(level <= 4 or (level <= 7 and seen) for level, seen in started), started
