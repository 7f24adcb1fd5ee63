"""A trained policy is a skill that code calls: ``yield from ctx.skill("collect_wood")``
runs the library's best-proven version, here a policy, as a numpy forward pass over the
observation computed from the View, in real sandbox workers on a real Craftax world."""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3.common.policies import ActorCriticPolicy

from rlgpt_tui.envs.base import (
    BLOCK_NAMES,
    MAP_FEATURES,
    MOB_NAMES,
    OBSERVATION_SEGMENTS,
    OBSERVATION_SIZE,
    VIEW_COLS,
    decode_views,
    encode_views,
    view_observations,
)
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.skillfile import SkillFile, format_skill_file
from rlgpt_tui.library.storage import LibraryError
from rlgpt_tui.rl.episodes import run_one_call_each
from rlgpt_tui.rl.policyfile import POLICY_FOLDER, SavedPolicy, write_policy
from rlgpt_tui.rl.policyskill import policy_skill
from rlgpt_tui.skills.guard import SURVIVAL_GUARD, SurvivalGuard
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.skills.runtime import CodedActionLimits, recorded_views
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.store import SessionStore

CHANNELS = len(BLOCK_NAMES) + len(MOB_NAMES)
TREE = BLOCK_NAMES.index("tree")
DIRECTION = OBSERVATION_SEGMENTS["direction"].start
LEFT, RIGHT, UP, DOWN, DO = 1, 2, 3, 4, 5
# neighbour cell (row, col) of each direction, in the observation's direction order
NEIGHBOURS = [(3, 3), (3, 5), (2, 4), (4, 4)]
CALLER = (
    "def act(ctx):\n"
    '    done = yield from ctx.skill("collect_wood")\n'
    '    ctx.log("collect_wood returned " + str(done))\n'
)


def npz(arrays: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def tree_seeker() -> dict[str, np.ndarray]:
    """An MLP actor (SB3's parameter names) built by hand: `do` when facing a tree, else
    step toward the visible trees (each weighted by 1/distance), else step right."""
    hidden = np.zeros((8, OBSERVATION_SIZE), dtype=np.float32)
    bias = np.zeros(8, dtype=np.float32)
    for d, (r, c) in enumerate(NEIGHBOURS):  # units 0-3: facing a tree in direction d
        hidden[d, (r * VIEW_COLS + c) * CHANNELS + TREE] = 10.0
        hidden[d, DIRECTION + d] = 10.0
        bias[d] = -15.0
    for r in range(7):  # units 4-7: trees on each side, near ones weigh more
        for c in range(VIEW_COLS):
            if (r, c) == (3, 4):
                continue
            weight = 0.01 / (abs(r - 3) + abs(c - 4))
            index = (r * VIEW_COLS + c) * CHANNELS + TREE
            for d, on_side in enumerate((c < 4, c > 4, r < 3, r > 3)):
                if on_side:
                    hidden[4 + d, index] = weight
    head = np.zeros((17, 8), dtype=np.float32)
    head_bias = np.zeros(17, dtype=np.float32)
    head[DO, :4] = 50.0
    head_bias[DO] = 200.0
    for d, move in enumerate((LEFT, RIGHT, UP, DOWN)):
        head[move, 4 + d] = 100.0
    head_bias[RIGHT] = 0.05
    return {
        "mlp_extractor.policy_net.0.weight": hidden,
        "mlp_extractor.policy_net.0.bias": bias,
        "action_net.weight": head,
        "action_net.bias": head_bias,
    }


def saved(
    weights: dict[str, np.ndarray], horizon: int, task: str = "collect_wood", **config
) -> SavedPolicy:
    return SavedPolicy(
        task=task,
        world="craftax",
        subaction=task,
        rl_config={"task": task, "env": "craftax", "horizon": horizon, **config},
        authors={},
        samples=1000,
        measure="success_rate",
        value=0.9,
        ci95=(0.8, 0.95),
        episodes=64,
        deterministic=True,
        made_in="a test",
        weights=npz(weights),
    )


def library_with(
    tmp_path, policy: SavedPolicy, name: str = "collect_wood", task: str = "collect_wood"
) -> SkillLibrary:
    """A library (a real sessions database) that imported ``policy`` beside a code
    ``name`` that measured worse on ``task``, from a folder as `skills export` writes it."""
    folder = tmp_path / "shared"
    folder.mkdir()
    code = SkillFile(
        name,
        "craftax",
        'def act(ctx):\n    """Wander."""\n    yield from ctx.explore(4)\n',
        record={"tasks": {task: {"evaluations": 1, "successes": 2, "episodes": 20}}},
    )
    (folder / code.file_name).write_text(format_skill_file(code))
    write_policy(folder, policy, 1)
    library = SkillLibrary(SessionStore(tmp_path / "sessions"))
    added, _, policies = library.import_folder(folder)
    assert len(added) == 1 and policies == 1
    return library


def test_the_observation_computed_from_views_is_the_worlds_on_real_craftax_steps(
    craftax8,
) -> None:
    """The worker sees Views; a policy was trained on the world's observation. Computed
    from the Views (as the world gives them, and as they reach a worker encoded), it is
    the world's, float for float, over random play (moves, damage, crafting, night)."""
    craftax8.reset(3)
    rng = np.random.default_rng(3)
    for _ in range(150):
        result = craftax8.step(rng.integers(0, 17, craftax8.num_envs))
        world = np.asarray(result.obs)
        assert np.array_equal(view_observations(craftax8.views()), world)
        assert np.array_equal(view_observations(decode_views(*craftax8.view_rows())), world)


def test_a_policy_skills_actor_is_the_sb3_policys() -> None:
    """A real SB3 MLP policy's parameters, saved as the library saves them, give the same
    action logits in the numpy forward pass a worker runs."""
    observation = ["inventory", "intrinsics", "direction"]
    size = sum(OBSERVATION_SEGMENTS[s].stop - OBSERVATION_SEGMENTS[s].start for s in observation)
    policy = ActorCriticPolicy(
        gym.spaces.Box(0.0, 1.0, (size,), np.float32),
        gym.spaces.Discrete(5),
        lr_schedule=lambda _: 3e-4,
        net_arch=[32, 16],
    )
    arrays = {k: v.detach().numpy() for k, v in policy.state_dict().items()}
    primitives = ["noop", "move_left", "move_right", "do", "sleep"]
    skill = policy_skill(
        saved(arrays, 50, observation=observation, primitives=primitives), "a test"
    )
    view = decode_views(*encode_one())[0]
    obs = view_observations([view])[:, MAP_FEATURES : MAP_FEATURES + size]
    with torch.no_grad():
        categorical: Any = policy.get_distribution(torch.as_tensor(obs)).distribution
        expected = categorical.logits.numpy()
    logits = skill.logits(view)
    assert np.allclose(logits - logits.max(), expected[0] - expected[0].max(), atol=1e-5)
    assert skill.actions == (0, 1, 2, 5, 6)


def encode_one() -> tuple[np.ndarray, np.ndarray]:
    return encode_views(recorded_views()[:1])


def test_code_calling_a_policy_skill_returns_true_once_its_goal_is_met(craftax8, tmp_path) -> None:
    """(a) The library holds collect_wood as code (measured 2/20) and as a policy
    (measured 0.9 of 64): code's ctx.skill("collect_wood") runs the policy, in the
    sandbox workers, and gets True where the policy collected wood."""
    library = library_with(tmp_path, saved(tree_seeker(), horizon=150))
    code, policies = library.callable_skills("craftax")
    assert "collect_wood" not in code and [p.name for p in policies] == ["collect_wood"]
    linked, used = library.link(CALLER, "craftax")
    assert linked == CALLER  # the call stays: the worker runs the policy
    assert [p.label for p in used] == ["collect_wood policy #1"]
    action = validate("wood_then", linked, limits=CodedActionLimits(max_steps=200), policies=used)
    craftax8.reset(11)
    _, after, records = run_one_call_each(craftax8, action, seed=11)
    returned = [r.detail for r in records]
    assert "collect_wood returned True" in returned, returned
    for record, view in zip(records, after, strict=True):
        assert record.end is CallEnd.RETURNED, record
        got = "collect_wood" in view.achievements
        assert record.detail == f"collect_wood returned {got}"
        assert record.steps <= 150
        assert "policy:collect_wood" in record.begun  # the library counts its calls


def test_a_policy_skill_ends_at_its_step_budget_and_counts_against_the_callers(
    craftax8, tmp_path
) -> None:
    """(b) A policy that never reaches its goal returns False after its step budget (its
    training's horizon, 5); in a caller with a smaller budget (3), the caller's ends it."""
    idle = {k: np.zeros_like(v) for k, v in tree_seeker().items()}  # always noop
    library = library_with(tmp_path, saved(idle, horizon=5))
    linked, used = library.link(CALLER, "craftax")
    craftax8.reset(12)
    action = validate("wood_then", linked, policies=used)
    _, _, records = run_one_call_each(craftax8, action, seed=12)
    assert {(r.steps, r.end, r.detail) for r in records} == {
        (5, CallEnd.RETURNED, "collect_wood returned False")
    }
    short = validate("wood_then", linked, limits=CodedActionLimits(max_steps=3), policies=used)
    _, _, records = run_one_call_each(craftax8, short, seed=12)
    assert {(r.steps, r.end) for r in records} == {(3, CallEnd.STEP_BUDGET)}


def test_a_survive_policy_is_the_survive_skill_and_returns_once_survival_is_not_due(
    craftax8, tmp_path
) -> None:
    """(d) A policy trained on survive_night is the world's survive skill, the one a
    composed plan calls when survival is due: saved with the survival guard as its stop
    condition, it acts until the guard no longer holds (vitals above its levels, no hostile
    adjacent) and returns True, or returns False at its step budget (64 a call)."""
    idle = {k: np.zeros_like(v) for k, v in tree_seeker().items()}  # always noop
    library = library_with(tmp_path, saved(idle, 400, "survive_night"), "survive", "survive_night")
    code, policies = library.callable_skills("craftax")
    assert "survive" not in code and [p.name for p in policies] == ["survive"]
    (policy,) = policies
    assert policy.done == SURVIVAL_GUARD and policy.max_steps == SURVIVAL_GUARD.steps == 64
    assert policy.stop_at == {}
    caller = (
        "def act(ctx):\n"
        '    done = yield from ctx.skill("survive")\n'
        '    ctx.log("survive returned " + str(done))\n'
        "    yield Action.NOOP\n"
    )
    linked, used = library.link(caller, "craftax")
    assert linked == caller and [p.label for p in used] == ["survive_night policy #1"]
    limits = CodedActionLimits(max_steps=200)
    craftax8.reset(13)
    before, after, records = run_one_call_each(
        craftax8, validate("keep", linked, limits=limits, policies=used), seed=13
    )
    # fresh worlds: nothing to survive, so it returns at once, done
    assert not any(SURVIVAL_GUARD.holds(view) for view in before)
    assert {(r.steps, r.detail) for r in records} == {(1, "survive returned True")}
    assert all("policy:survive" in r.begun for r in records)
    # survival always due (health at or below 9): it acts its 64 steps and returns False
    due = dataclasses.replace(policy, done=SurvivalGuard(health=9))
    craftax8.reset(13)
    _, after, records = run_one_call_each(
        craftax8, validate("keep", linked, limits=limits, policies=(due,)), seed=13
    )
    for record, view in zip(records, after, strict=True):
        if record.end is CallEnd.RETURNED:
            assert (record.steps, record.detail) == (65, "survive returned False")
            assert due.done is not None and due.done.holds(view)
    assert any(r.end is CallEnd.RETURNED for r in records)


def test_a_policy_for_another_world_or_observation_is_refused_on_import_by_name(
    tmp_path,
) -> None:
    """(c) A policy whose weights take another observation, or filed under a world this
    app lacks, is refused on import by name with the fix; nothing is imported."""
    small = tree_seeker()  # as if trained on the inventory alone
    small["mlp_extractor.policy_net.0.weight"] = np.zeros((8, 12), np.float32)
    folder = tmp_path / "other"
    folder.mkdir()
    code = SkillFile("explore", "craftax", "def act(ctx):\n    yield from ctx.explore(4)\n")
    (folder / code.file_name).write_text(format_skill_file(code))
    write_policy(folder, saved(small, 50), 1)
    library = SkillLibrary(SessionStore(tmp_path / "sessions"))
    with pytest.raises(LibraryError) as refused:
        library.import_folder(folder)
    message = str(refused.value)
    assert message.startswith("collect_wood policy (craftax): mlp_extractor.policy_net.0.weight")
    assert "12 observation floats where 1345 come" in message and "export them again" in message
    assert "nothing was imported" in message and len(message.splitlines()) == 1
    assert library.skills() == [] and library.policies() == []
    header = folder / POLICY_FOLDER / "collect_wood-craftax-p1.json"
    data = json.loads(header.read_text())
    header.write_text(json.dumps(data | {"world": "minecraft"}))
    (folder / POLICY_FOLDER / "collect_wood-craftax-p1.npz").write_bytes(npz(tree_seeker()))
    with pytest.raises(
        LibraryError, match=r"^collect_wood policy \(minecraft\): world 'minecraft'"
    ):
        library.import_folder(folder)
    assert library.policies() == []


def test_a_policy_over_coded_actions_is_no_skill_and_says_why() -> None:
    """Policies whose actions include coded actions stay PPO starts; as a skill they are
    refused naming the fix (only policies over primitive actions are called for now)."""
    spec = {"name": "wander", "source": "def act(ctx):\n    yield 0\n"}
    weights = tree_seeker()
    weights["action_net.weight"] = np.zeros((18, 8), np.float32)
    weights["action_net.bias"] = np.zeros(18, np.float32)
    with pytest.raises(ValueError, match="only a policy over primitive actions"):
        policy_skill(saved(weights, 50, coded_actions=[spec]))


SECOND = (
    "def act(ctx):\n"
    '    first = yield from ctx.skill("collect_wood")\n'
    "    before = ctx.view.step\n"
    '    second = yield from ctx.skill("collect_wood")\n'
    '    ctx.log(f"{first} {second} {ctx.view.step - before}")\n'
)


def test_a_second_call_in_one_episode_is_not_met_by_the_first(craftax8, tmp_path) -> None:
    """A policy skill's goal is met since its call began: in one episode, a second
    ctx.skill("collect_wood") after the first collected wood does not return True at
    once; it acts (its achievement cannot be unlocked again) to its step budget."""
    library = library_with(tmp_path, saved(tree_seeker(), horizon=150))
    linked, used = library.link(SECOND, "craftax")
    action = validate("twice", linked, limits=CodedActionLimits(max_steps=400), policies=used)
    craftax8.reset(11)
    _, _, records = run_one_call_each(craftax8, action, seed=11)
    details = [r.detail for r in records if r.end is CallEnd.RETURNED]
    assert any(d.startswith("True ") for d in details), records
    for detail in details:
        first, second, steps = detail.split()
        assert second == "False"
        if first == "True":
            assert int(steps) == 150  # acted its whole budget, not met at once


def test_the_exported_plan_calls_the_policies_that_measured_better_than_code(
    craftax8, tmp_path
) -> None:
    """`skills export --plan` composes a step whose trained policy measured better than its
    code as a call of that policy, and the survive policy as the keeper run when survival
    is due; the benchmarks run the plan from the folder with those policies; --code-only
    exports the code alone."""
    from rlgpt_bench.skills import FolderSkills
    from tests.test_library_store import cli

    shared = tmp_path / "shared"
    shared.mkdir()
    poor = {"tasks": {"collect_wood": {"evaluations": 1, "successes": 2, "episodes": 20}}}
    wander = 'def act(ctx):\n    """Wander."""\n    yield from ctx.explore(4)\n'
    rest = 'def act(ctx):\n    """Rest."""\n    yield Action.NOOP\n    return True\n'
    for name, source, record in (("collect_wood", wander, poor), ("survive", rest, {})):
        skill = SkillFile(name, "craftax", source, record=record)
        (shared / skill.file_name).write_text(format_skill_file(skill))
    idle = {k: np.zeros_like(v) for k, v in tree_seeker().items()}
    write_policy(shared, saved(tree_seeker(), 400), 1)
    write_policy(shared, saved(idle, 400, "survive_night"), 2)
    assert cli("import", str(shared), sessions=tmp_path / "lib").returncode == 0

    folder = tmp_path / "exported"
    done = cli("export", str(folder), "--plan", "collect_wood", sessions=tmp_path / "lib")
    assert done.returncode == 0, done.stderr
    assert "wrote plan-craftax-v1.py: collect_wood by its policy\n" in done.stdout
    skills = FolderSkills(folder, "plan")
    plan = skills.sources["plan"]
    assert "ctx.skill('collect_wood')" in plan and "ctx.skill('survive')" in plan
    assert "explore" not in plan  # the code that measured worse is not in the plan
    assert sorted(skills.policies_called("plan")) == [
        "collect_wood policy",
        "survive_night policy",
    ]

    with_policies = skills.spec("plan").validated()
    craftax8.reset(13)
    _, after, records = run_one_call_each(craftax8, with_policies, seed=13)
    assert all("policy:collect_wood" in r.begun for r in records)
    assert sum("collect_wood" in v.achievements for v in after) >= 6  # the tree seeker chops

    # --code-only: no policies in the folder, the plan composed from the code alone
    done = cli(
        "export",
        str(tmp_path / "code"),
        "--plan",
        "collect_wood",
        "--code-only",
        sessions=tmp_path / "lib",
    )
    assert done.returncode == 0, done.stderr
    assert (
        "0 trained policy(ies)" in done.stdout and not (tmp_path / "code" / POLICY_FOLDER).exists()
    )
    code_only = FolderSkills(tmp_path / "code", "plan")
    assert "ctx.skill" not in code_only.sources["plan"] and "explore" in code_only.sources["plan"]
    assert code_only.policies_called("plan") == []


def test_a_folder_of_trained_policies_alone_imports_and_an_empty_one_is_refused(
    tmp_path,
) -> None:
    """`skills export` of a library that holds a trained policy and no code writes
    `policies/` alone; `skills import` takes that folder (it refused it, asking for the very
    folder `skills export` writes); a folder with neither is one line naming the fix."""
    from tests.test_library_store import cli

    only = tmp_path / "only-policies"
    write_policy(only, saved(tree_seeker(), 400), 1)
    assert not list(only.glob("*.py"))
    done = cli("import", str(only), sessions=tmp_path / "lib")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # the console wraps a long path's line
    assert "imported 0 skill(s)" in said and "1 trained policy(ies)" in said
    again = cli("export", str(tmp_path / "back"), sessions=tmp_path / "lib")
    assert "0 skill file(s) and 1 trained policy(ies)" in " ".join(again.stdout.split())
    assert (tmp_path / "back" / POLICY_FOLDER / "collect_wood-craftax-p1.npz").exists()

    (tmp_path / "empty").mkdir()
    refused = cli("import", str(tmp_path / "empty"), sessions=tmp_path / "lib")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "no .py skill files and no policies/" in refused.stderr
