"""The skill library for open-ended play: valid skills, the builtin plan and its revision,
the critic's reasons, and the fixed script unlocking achievements in a real craftax world."""

from __future__ import annotations

import numpy as np

from rlgpt_tui.agents.critic import BuiltinCritic
from rlgpt_tui.agents.prompts import open_ended_text, render
from rlgpt_tui.agents.runs import Execution
from rlgpt_tui.agents.schemas import Plan, PlanAnswer, SubAction, Verdict
from rlgpt_tui.agents.slow import BuiltinSlowAgent, IterationFeedback
from rlgpt_tui.agents.slow.builtin import SCRIPT_SKILL, library_for
from rlgpt_tui.envs.base import ACHIEVEMENTS
from rlgpt_tui.envs.craftax_world import CraftaxWorld
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.rl.episodes import (
    ActionEntry,
    EpisodeRunner,
    code_alone,
    run_episodes,
    run_one_call_each,
)
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.skills.outcomes import CallEnd
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.tasks.catalog import get_task
from rlgpt_tui.tasks.measure import Measure

SCORED = get_task("crafter_score")


def feedback(plan: Plan, evaluation: dict) -> IterationFeedback:
    return IterationFeedback(
        iteration=0,
        plan=plan,
        verdicts={},
        value=evaluation["value"],
        samples=100_000,
        measure=Measure.CRAFTER_SCORE,
        evaluation=EvaluationSummary.from_dict(evaluation),
    )


def test_every_library_skill_and_the_script_pass_validation() -> None:
    names = library_for(SCORED) + [SCRIPT_SKILL]
    assert set(ACHIEVEMENTS) <= set(names)
    for name in names:
        validate(name, template_code(name))  # raises when invalid


def test_the_first_plan_offers_the_library_to_one_rl_subaction() -> None:
    plan = BuiltinSlowAgent().plan(SCORED, [])
    learned = plan.learned()
    assert len(learned) == 1 and learned[0].name == SCORED.name
    coded = [s.name for s in plan.coded()]
    assert set(ACHIEVEMENTS) <= set(coded) and "survive" in coded
    assert learned[0].high_level_actions == coded
    PlanAnswer.model_validate(plan.model_dump())  # an LLM could answer the same plan
    # non-scored tasks keep their small plans
    assert len(BuiltinSlowAgent().plan(get_task("collect_wood"), []).subactions) == 1


def test_a_revision_adds_skills_for_achievements_at_zero_and_against_deaths() -> None:
    first = BuiltinSlowAgent().plan(SCORED, [])
    rates = dict.fromkeys(ACHIEVEMENTS, 1.0) | {"collect_diamond": 0.0, "eat_cow": 0.0}
    calls = {s.name: {"calls": 5, "steps": 100} for s in first.coded()}
    calls["place_table"] = {"calls": 0, "steps": 0}
    evaluation = {
        "measure": "crafter_score",
        "value": 30.0,
        "achievement_rates": rates,
        "episode_ends": {"killed_by_zombie": 31, "starved": 1, "horizon": 32},
        "coded_actions": calls,
    }
    plan = BuiltinSlowAgent().plan(SCORED, [feedback(first, evaluation)])
    coded = {s.name: s for s in plan.coded()}
    assert "tunnel_for_ores" in coded and "collect_diamond" in coded["tunnel_for_ores"].reason
    assert "explore" in coded and "eat_cow" in coded["explore"].reason
    assert "place_table" not in coded  # never chosen, reached anyway
    assert "31/64 episodes ended killed_by_zombie" in plan.notes
    assert plan.learned()[0].high_level_actions == list(coded)


def test_the_critic_reasons_on_rates_and_deaths_and_compares_the_score() -> None:
    critic = BuiltinCritic()
    sub = BuiltinSlowAgent().plan(SCORED, []).learned()[0]
    rates = dict.fromkeys(ACHIEVEMENTS, 1.0) | {"defeat_skeleton": 0.0, "collect_iron": 0.2}
    evaluation = {
        "measure": "crafter_score",
        "value": 40.0,
        "score": 40.0,
        "achievement_rates": rates,
        "episode_ends": {"killed_by_zombie": 31, "horizon": 33},
    }
    verdict = critic.judge_rl(SCORED, sub, EvaluationSummary.from_dict(evaluation), 50.5)
    assert not verdict.success
    assert "at 0: defeat_skeleton" in verdict.reason and "collect_iron 0.20" in verdict.reason
    assert "31/64 episodes ended killed_by_zombie" in verdict.suggestion
    better = EvaluationSummary.from_dict(evaluation | {"value": 51.0})
    assert critic.judge_rl(SCORED, sub, better, 50.5).success


def test_a_library_skill_is_judged_by_what_its_runs_changed() -> None:
    action = validate("collect_wood", template_code("collect_wood"))
    world = CraftaxWorld(num_envs=4, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, action)
    world.close()
    runs = [Execution(b, a, r.steps, r.end) for b, a, r in zip(before, after, records, strict=True)]
    sub = BuiltinSlowAgent().plan(SCORED, []).coded()[0]
    assert sub.name == "collect_wood"
    verdict: Verdict = BuiltinCritic().judge_code(SCORED, sub, runs)
    assert all(r.end is not CallEnd.ERROR for r in records)
    assert verdict.success, verdict.reason


def test_a_survival_tasks_code_is_judged_by_whether_the_player_is_alive() -> None:
    """The builtin critic judged every coded sub-action by a change of inventory or
    achievements, so code that only kept the player alive failed on survive_night. Real
    runs of code that waits (64 steps, one world's player killed meanwhile): on the survival
    task it passes by the three players alive; on collect_wood it fails, nothing gained."""
    action = validate("wait", "def act(ctx):\n    while True:\n        yield Action.NOOP\n")
    world = CraftaxWorld(num_envs=4, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, action)
    world.close()
    runs = [Execution(b, a, r.steps, r.end) for b, a, r in zip(before, after, records, strict=True)]
    assert [view.health > 0 for view in after] == [True, True, False, True]
    survival, wood = get_task("survive_night"), get_task("collect_wood")
    sub = SubAction(name="survive_night", description="stay alive", mode="code")
    verdict = BuiltinCritic().judge_code(survival, sub, runs)
    assert verdict.success and verdict.reason == "3/4 runs ended with the player alive"
    assert not BuiltinCritic().judge_code(wood, sub, runs).success


def test_the_play_script_unlocks_many_achievements_in_a_few_hundred_steps() -> None:
    action = validate(SCRIPT_SKILL, template_code(SCRIPT_SKILL))
    world = CraftaxWorld(num_envs=4, seed=5)
    task = SCORED.model_copy(update={"horizon": 400})
    runner = EpisodeRunner(
        world, task, [ActionEntry(SCRIPT_SKILL, coded=action)], seed=5, reset_ended=False
    )
    try:
        outcomes = run_episodes(runner, code_alone(runner, SCRIPT_SKILL), seed=5)
    finally:
        runner.close()
    unlocked = np.array([o.achievements for o in outcomes]).sum(axis=1)
    # wood, table, wood pickaxe and sword, sapling, plant, stone... within 400 steps
    assert unlocked.mean() >= 8, unlocked


def test_llm_prompts_get_the_open_ended_section_only_for_scored_tasks() -> None:
    for role in ("slow", "fast", "critic"):
        scored = render(role, open_ended=open_ended_text(role, SCORED))[-1]["content"]
        plain = render(role, open_ended=open_ended_text(role, get_task("collect_wood")))
        assert "$open_ended" not in scored and "$open_ended" not in plain[-1]["content"]
        assert len(scored) > len(plain[-1]["content"]) + 200
    assert "library of coded skills" in open_ended_text("slow", SCORED)
