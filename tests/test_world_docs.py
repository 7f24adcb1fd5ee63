"""The world speaks for itself: prompts, the builtin agent and the critic take what they know
of a world from its documentation (real HTTP to the scripted local LLM server)."""

from __future__ import annotations

import pytest

from rlgpt_tui.agents.schemas import Plan, SubAction, Verdict
from rlgpt_tui.agents.slow import IterationFeedback
from rlgpt_tui.envs import world_info
from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.envs.crafter_world import CrafterWorld
from rlgpt_tui.envs.minedojo.world import MineDojoWorld
from rlgpt_tui.library.shelf import ShelfSkill, SkillShelf
from rlgpt_tui.llm.client import LLMAnswerError
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.session import make_team
from rlgpt_tui.tasks.catalog import get_task
from tests.llm_server import ScriptedLLMServer
from tests.test_agents_engine import role_of, scripted_agent

CRAFTER_ONLY = ("Crafter (2D", "Collecting (do on the faced block)", "Zombies appear on grass")


def prompts_of(
    world: str, task: str, judge: bool = True, shelf: SkillShelf | None = None
) -> dict[str, str]:
    """The prompt text each role sends for a session in ``world`` starting from ``shelf``
    (the session's own team; the critic's too with ``judge``)."""
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        team = make_team(llm, world, shelf)
        the_task = get_task(task)
        plan = team.slow.plan(the_task, [])
        team.fast.write_code(the_task, plan.coded()[0])
        sub = SubAction(name=task, description="the task", mode="rl")
        if judge:
            evaluation = EvaluationSummary(success_rate=0.5, episodes=8)
            team.critic.judge_rl(the_task, sub, evaluation, 0.9)
        return {role_of(r["messages"]): r["messages"][-1]["content"] for r in server.requests}


def test_a_minedojo_session_prompts_minedojo_text_and_not_crafters() -> None:
    prompts = prompts_of("minedojo", "collect_wood")
    assert set(prompts) == {"slow", "fast", "critic"}
    for role, text in prompts.items():
        assert "World: MineDojo (Minecraft" in text, role
        assert "3x3x3 blocks around it" in text and "craft:planks" in text, role
        assert not [line for line in CRAFTER_ONLY if line in text], role
    crafter = prompts_of("craftax", "collect_wood")
    for role, text in crafter.items():
        assert all(line in text for line in CRAFTER_ONLY) and "MineDojo" not in text, role


def test_worlds_answer_documentation_crafter_and_craftax_share_theirs() -> None:
    crafter = world_info("crafter").documentation()
    craftax = world_info("craftax").documentation()
    assert craftax == CraftaxWorld.documentation() and CrafterWorld.documentation() == crafter
    assert craftax.text() == crafter.text()  # one text; Craftax amends a few recipes
    assert crafter.recipes.place["furnace"][0] == {"stone": 4}  # Crafter's data file
    assert craftax.recipes.place["furnace"][0] == {"stone": 1}  # Craftax's game logic
    assert craftax.recipes.make["iron_pickaxe"][0]["stone"] == 1
    minedojo = world_info("minedojo").documentation()
    assert minedojo == MineDojoWorld.documentation() and minedojo.text() != crafter.text()
    for docs in (crafter, minedojo):  # every section filled
        assert all((docs.rules, docs.actions, docs.achievements, docs.observation))
    # the builtin agent plans and judges with the session world's tech tree (assets/worlds)
    team = make_team(None, "minedojo")
    assert team.slow.tree is minedojo.tech_tree and team.critic.tree is minedojo.tech_tree
    assert crafter.tech_tree.targets["collect_wood"] == "tree"
    deaths = {"killed_by_zombie": 30, "horizon": 2}
    verdict = team.critic.judge_rl(
        get_task("crafter_score"),
        SubAction(name="crafter_score", description="play", mode="rl"),
        EvaluationSummary(value=10.0, episode_ends=deaths),
        50.0,
    )
    assert crafter.tech_tree.deaths["killed_by_zombie"][1] in verdict.suggestion


def test_prompts_give_the_goals_steps_ordered_from_the_worlds_recipes() -> None:
    """A stone pickaxe needs a table before anything is made near it, a wood pickaxe
    before stone, and four wood in all: the slow and fast agents read those steps, in
    that order, from the world's recipes (Crafter's data file), not from our tables."""
    prompts = prompts_of("craftax", "make_stone_pickaxe", judge=False)
    for role in ("slow", "fast"):
        section = prompts[role].split("(from the world's recipes)\n")[1].split("\n# ")[0]
        names = [line.split(":")[0].split(". ")[1] for line in section.strip().splitlines()]
        assert names == [
            "collect_wood",
            "place_table",
            "make_wood_pickaxe",
            "collect_stone",
            "make_stone_pickaxe",
        ], role
        assert "collect_wood: `do` facing tree, 4 times" in section, role
        assert "(needs 1 wood_pickaxe in the inventory)" in section, role
    recipes = world_info("craftax").documentation().recipes
    diamond = [s.name for s in recipes.steps_to("collect_diamond")]
    assert diamond.index("place_furnace") < diamond.index("make_iron_pickaxe") < len(diamond) - 1
    assert recipes.steps_to("eat_cow") == []  # no recipe: the prompt says so
    no_steps = "The world's recipes do not list steps for this goal."
    assert no_steps in prompts_of("minedojo", "collect_wood")["slow"]


def test_the_goals_steps_point_at_the_library_skills_that_do_them() -> None:
    """A second session reuses what the first made when its plan names the steps' skills:
    each step the shelf has a skill for says so (with its author and record), those skills
    head the library section, and steps the shelf lacks carry no note. Craftax's steps use
    Craftax's recipes (its furnace takes 1 stone, Crafter's 4)."""
    made = [
        ShelfSkill("collect_wood", "Collect wood.", "def act(ctx):\n    yield 5\n", "llm:m", "ok"),
        ShelfSkill("place_table", "Place a table.", "def act(ctx):\n    yield 8\n", "llm:m"),
    ]
    unrelated = [
        ShelfSkill(f"dance_{i}", "Dance about wood.", "def act(ctx):\n    yield 0\n", "person")
        for i in range(20)
    ]
    slow = prompts_of("craftax", "make_wood_pickaxe", False, SkillShelf("f", unrelated + made))[
        "slow"
    ]
    steps = slow.split("(from the world's recipes)\n")[1].split("\n# ")[0].strip().splitlines()
    assert steps[0].endswith(
        "[the library's `collect_wood` (llm:m) does this step: "
        "a code sub-action named `collect_wood` reuses it]"
    )
    assert "the library's `place_table` (llm:m) does this step" in steps[1]
    assert steps[2].startswith("3. make_wood_pickaxe") and "library" not in steps[2]
    library = slow.split("with its measured record)\n")[1].split("\n# ")[0].splitlines()
    assert library[0] == "- collect_wood (llm:m; ok): Collect wood."  # the record, once
    assert [line.split(" ")[1] for line in library[:2]] == ["collect_wood", "place_table"]
    # the skills that do no step: after a line that says so, without records
    assert library[2].startswith("Other skills, none of them a step of this goal")
    assert library[3] == "- dance_0 (person): Dance about wood."
    assert library[-1] == "(6 more not shown)"  # 16 of the 22 shown
    furnace = prompts_of("craftax", "place_furnace", judge=False)["slow"]
    assert "place_furnace action (uses 1 stone)" in furnace


def test_a_scored_task_lists_a_step_for_every_achievement_in_tech_tree_order() -> None:
    """crafter_score has no recipe of its own: a 1.5B model's plan for it, told only "the
    recipes do not list steps", was 22 made-up steps (collect_zombie, make_iron_pickaxe
    next to the stone pickaxe). The world's documentation gives a step for every
    achievement, each after what it needs (a table before a pickaxe, a stone pickaxe
    before iron), those whose moment may not come (nothing to fight, nothing ripe) last,
    and for a step without a recipe what the tech tree says it does; a model whose plans
    all fail gets those steps, coded, to write."""
    docs = world_info("craftax").documentation()
    task = get_task("crafter_score")
    prompts = prompts_of("craftax", "crafter_score", judge=False)
    section = prompts["slow"].split("(from the world's recipes)\n")[1].split("\n# ")[0]
    names = [line.split(":")[0].split(". ")[1] for line in section.strip().splitlines()]
    assert sorted(names) == sorted(ACHIEVEMENTS)
    order = [
        "collect_wood",
        "place_table",
        "make_wood_pickaxe",
        "collect_stone",
        "make_stone_pickaxe",
        "collect_iron",
        "make_iron_pickaxe",
        "collect_diamond",
    ]
    assert [n for n in names if n in order] == order
    assert names.index("place_furnace") < names.index("make_iron_pickaxe")
    assert set(names[-4:]) == set(docs.tech_tree.situational)
    assert f"eat_cow: {docs.tech_tree.skills['eat_cow']}" in section
    # a 1.5B model's collect_drink waited for drink in the inventory
    assert "collect_drink: `do` facing water, once (drink is a stat, ctx.view.drink," in section
    assert "recipes do not list steps" not in prompts["slow"]
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        team = make_team(llm, "craftax")
        fallback = team.slow.fallback_plan(task)
        assert [s.name for s in fallback.subactions] == names
        assert all(s.mode == "code" for s in fallback.subactions)
        eat = next(s for s in fallback.subactions if s.name == "eat_cow")
        team.fast.write_code(task, eat)
        request = server.requests[-1]["messages"][-1]["content"]
    assert "What this step does in this world: find a cow" in request
    assert "`yield from ctx.collect('cow')` reaches the nearest cow and hits it" in request
    assert [s.name for s in task.steps(docs)] == names
    assert get_task("collect_stone").steps(docs)[-1].name == "collect_stone"


def test_a_goal_without_recipe_steps_is_told_what_it_takes_whatever_the_sub_action() -> None:
    """A 1.5B model's wake_up session, told nothing of the goal, looked for a 'sleep' block
    three times and ended with no valid code; its eat_cow session's go_to_cow walked to the
    cow and called ctx.do. For a goal the recipes give no steps (eat_cow, wake_up), the slow
    agent reads what the world's documentation says it takes, and the fast agent gets that
    for a sub-action of any name, with the helper that reaches the creature."""
    docs = world_info("craftax").documentation()
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        team = make_team(llm, "craftax")
        asked = {}
        for task, sub in (("eat_cow", "go_to_cow"), ("wake_up", "go_to_sleep")):
            walk = SubAction(name=sub, description="the first part", mode="code")
            team.fast.write_code(get_task(task), walk)
            asked[task] = server.requests[-1]["messages"][-1]["content"]
    eat, sleep = docs.tech_tree.skills["eat_cow"], docs.tech_tree.skills["wake_up"]
    assert f"What the task's goal takes in this world: eat_cow: {eat}." in asked["eat_cow"]
    assert "`yield from ctx.collect('cow')` reaches the nearest cow" in asked["eat_cow"]
    assert f"What the task's goal takes in this world: wake_up: {sleep}." in asked["wake_up"]
    slow = prompts_of("craftax", "wake_up", judge=False)["slow"]
    assert (
        f"do not list steps for this goal. What it takes in this world: wake_up: {sleep}." in slow
    )
    # a goal of several steps: a sub-action that is none of them gets no goal note
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        team = make_team(llm, "craftax")
        go = SubAction(name="go_to_iron", description="walk to iron", mode="code")
        team.fast.write_code(get_task("make_iron_pickaxe"), go)
        assert "task's goal takes" not in server.requests[-1]["messages"][-1]["content"]


def test_a_survival_goal_asks_for_the_worlds_survival_skill() -> None:
    """Told only that the recipes list no steps, a 1.5B model's plans for survive_night were
    tech-tree steps (go_to_grass, place_plant, make_wood_pickaxe), never a way to stay
    alive. The goal's one step is the world's survival skill with what it does (the
    library's `survive` named for reuse); a plan without it is refused with the fix, and a
    model whose plans all fail gets that step, coded, with the world's word on it."""
    docs = world_info("craftax").documentation()
    task = get_task("survive_night")
    survive = docs.tech_tree.skills["survive"]
    kept = ShelfSkill("survive", "Keep alive.", "def act(ctx):\n    yield 0\n", "llm:m")
    with ScriptedLLMServer(responder=scripted_agent) as server:  # its plan: go_to_tree, ...
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        team = make_team(llm, "craftax", SkillShelf("f", [kept]))
        with pytest.raises(LLMAnswerError, match="none is the goal's step `survive`"):
            team.slow.plan(task, [])
        asked = [r["messages"][-1]["content"] for r in server.requests]
        team = make_team(llm, "craftax")  # nothing to reuse: the fast agent writes it
        fallback = team.slow.fallback_plan(task)
        team.fast.write_code(task, fallback.subactions[0])
        fast = server.requests[-1]["messages"][-1]["content"]
    section = asked[0].split("(from the world's recipes)\n")[1].split("\n# ")[0].strip()
    assert section == (
        f"1. survive: {survive} [the library's `survive` (llm:m) does this step: "
        "a code sub-action named `survive` reuses it]"
    )
    assert "plan a sub-action named survive that does it" in asked[1]
    assert [(s.name, s.mode) for s in fallback.subactions] == [("survive", "code")]
    assert f"What this step does in this world: {survive}." in fast


def test_a_scored_replan_with_every_steps_verdict_stays_bounded() -> None:
    """A 1.5B model's crafter_score re-plan, with 22 coded steps' verdicts (reasons of up
    to 2,000 characters), was 8,249 tokens: over its server's 8,192-token context, so the
    plan could not be revised. Each verdict's reason and suggestion is clipped in the
    feedback, and every step still says how it did."""
    task = get_task("crafter_score")
    docs = world_info("craftax").documentation()
    subs = [SubAction(name=s.name, description=s.text(), mode="code") for s in task.steps(docs)]
    verdicts = {
        s.name: Verdict(
            success=False, reason="the runs show " + "no change " * 198, suggestion="x" * 2000
        )
        for s in subs
    }
    history = [IterationFeedback(0, Plan(subactions=subs), verdicts, 5.6, 0, measure=task.measure)]
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        make_team(llm, "craftax").slow.plan(task, history)
        prompt = server.requests[0]["messages"][-1]["content"]
    feedback = prompt.split("# Feedback so far\n")[1].split("\n# ")[0]
    assert all(f"- {s.name} failed: the runs show no change" in feedback for s in subs)
    assert len(feedback) < 22 * 700, len(feedback)  # not 22 x 4,000 characters
    assert len(prompt) < 24_000, len(prompt)  # about 6,000 tokens
