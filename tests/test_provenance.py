"""Provenance: the printer and the report say who wrote each coded action of the solution,
and the share of its coded-action calls that ran LLM-written code (real store, real events
as the engine emits them)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.chosen import ChosenSolution
from rlgpt_tui.engine.printer import EventPrinter
from rlgpt_tui.library.compose import compose_sources, link_skills
from rlgpt_tui.report.session_markdown import session_markdown
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.widgets.critic import CriticPane
from tests.test_library_store import COLLECT_WOOD, GO_TO_TREE
from tests.test_tui import replay_shown, run_screen

LLM = "llm:qwen"


def run_events(kind: str, only_coded: str | None = None) -> list[ev.Event]:
    """A run whose LLM wrote go_to_tree (its repair failed validation: the first version
    stays in force) and a person wrote code_collect_wood; PPO got both."""
    plan = {
        "subactions": [
            {"name": "go_to_tree", "mode": "code", "description": "walk", "reason": ""},
            {"name": "code_collect_wood", "mode": "code", "description": "chop", "reason": ""},
            {
                "name": "collect_wood",
                "mode": "rl",
                "description": "wood",
                "reason": "",
                "high_level_actions": ["go_to_tree", "code_collect_wood"],
            },
        ]
    }
    usage = {
        "go_to_tree": {"calls": 30, "steps": 300, "end_reasons": {"returned": 30}},
        "code_collect_wood": {"calls": 10, "steps": 90, "end_reasons": {"returned": 10}},
    }
    result = {"measure": "success_rate", "value": 0.9, "ci95": [0.8, 0.95], "episodes": 64}
    return [
        ev.SessionStarted(iteration=0, agent=LLM, task="collect_wood", env="craftax", settings={}),
        ev.PlanProposed(iteration=0, agent=LLM, plan=Plan.model_validate(plan)),
        ev.CodeWritten(iteration=0, agent=LLM, subaction="go_to_tree", code=GO_TO_TREE, attempt=0),
        ev.CodeWritten(
            iteration=0, agent=LLM, subaction="go_to_tree", code="def act(ctx):\n", attempt=1
        ),
        ev.CodeValidationFailed(
            iteration=0, agent=LLM, subaction="go_to_tree", error="no yield", attempt=1
        ),
        ev.CodeWritten(
            iteration=0,
            agent=LLM,
            subaction="code_collect_wood",
            code=COLLECT_WOOD,
            attempt=0,
            source="human",
        ),
        ev.TrainingStarted(
            iteration=0,
            agent=LLM,
            subaction="collect_wood",
            config={"coded_actions": list(usage), "samples": 1},
        ),
        ev.EvaluationDone(
            iteration=0,
            agent=LLM,
            subject="collect_wood (RL policy)",
            result=EvaluationSummary.from_dict(result | {"coded_actions": usage}),
        ),
        ev.SolutionChosen(
            iteration=0,
            agent=LLM,
            candidates=[],
            result=ChosenSolution.from_dict(
                result
                | {
                    "kind": kind,
                    "iteration": 0,
                    "only_coded": only_coded,
                    "subject": f"{only_coded or 'RL policy'} ({kind}, iteration 1)",
                    "stop_value": 0.9,
                    "seed": 30_000,
                }
            ),
        ),
    ]


def printed(events: list[ev.Event]) -> str:
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=200))
    for event in events:
        printer(event)
    return out.getvalue()


def test_the_printer_says_who_wrote_each_coded_action_and_the_llm_share_of_calls() -> None:
    text = printed(run_events("RL + code"))
    assert "code for go_to_tree v1 (by llm:qwen)" in text
    assert "code for code_collect_wood v1 (by person)" in text
    assert "  go_to_tree: written by llm:qwen (30 calls)" in text
    assert "  code_collect_wood: written by person (10 calls)" in text
    assert "LLM-written code: 75% of the coded-action calls" in text
    alone = printed(run_events("code", only_coded="code_collect_wood"))
    assert "  code_collect_wood: written by person\n" in alone
    assert "LLM-written code: 0% of the coded-action calls" in alone
    # the plan's steps composed into one routine: every call runs both steps' code
    mixed = printed(run_events("code", only_coded="plan"))
    assert "LLM-written code: calls not counted" in mixed  # an LLM's step and a person's
    # recorded with each step's calls (the composed plan marks where each begins)
    events = run_events("code", only_coded="plan")
    begun = {"go_to_tree": 60, "code_collect_wood": 20}
    events[-1].result.evaluation.coded_calls = {"plan": {"calls": 60, "begun": begun}}
    counted = printed(events)
    assert "  go_to_tree: written by llm:qwen (60 calls)" in counted
    assert "  code_collect_wood: written by person (20 calls)" in counted
    assert "LLM-written code: 75% of the coded-action calls" in counted
    events = run_events("code", only_coded="plan")
    for event in events:
        if isinstance(event, ev.CodeWritten):
            event.source = "agent"
    assert "LLM-written code: 100% of the coded-action calls" in printed(events)
    # the person's code runs the library's navigation through ctx.skill: named beside it
    linked = link_skills(
        "def act(ctx):\n    if (yield from ctx.skill('go_to_tree')):\n        yield 'do'\n",
        {"go_to_tree": GO_TO_TREE},
    )
    events = run_events("RL + code")
    for event in events:
        if isinstance(event, ev.CodeWritten) and event.subaction == "code_collect_wood":
            event.code = linked
    text = printed(events)
    line = "  code_collect_wood: written by person (10 calls), running library skills go_to_tree"
    assert line in text
    assert "  go_to_tree: written by llm:qwen (30 calls)\n" in text
    counted = "(a call of code that links library skills counts as its writer's)"
    assert f"75% of the coded-action calls {counted}" in text
    # a library skill reused as it is: its author, and that it came from the library
    events = run_events("RL + code")
    events[2].source = "library:llm:other"
    text = printed(events)
    assert "code for go_to_tree v1 (by llm:other, reused from the library)" in text
    assert "code for go_to_tree v2 (by llm:qwen)" in text


def test_rl_from_a_composed_plan_credits_the_plans_steps_authors() -> None:
    """RL started from the plan's steps composed by rlgpt into one routine (no code version
    of its own): its calls are its steps' author's where they share one (a 1.5B model's
    four collect_coal steps: 100%, not the 53% that counted the plan as the builtin
    library's), and no LLM's alone where a person wrote a step."""
    plan = compose_sources([("go_to_tree", GO_TO_TREE), ("code_collect_wood", COLLECT_WOOD)])
    usage = {"go_to_tree": {"calls": 30}, "plan": {"calls": 90}}

    def rl_from_the_plan(person: bool) -> list[ev.Event]:
        events = run_events("RL + code")
        for event in events:
            if isinstance(event, ev.CodeWritten) and not person:
                event.source = "agent"
            if isinstance(event, ev.TrainingStarted):
                event.config["coded_actions"] = list(usage)
                specs = [{"name": "go_to_tree", "source": GO_TO_TREE}]
                event.rl_config = {"coded_actions": specs + [{"name": "plan", "source": plan}]}
            if isinstance(event, ev.EvaluationDone):
                event.result.coded_actions = usage
        return events

    text = printed(rl_from_the_plan(person=False))
    steps = "go_to_tree, code_collect_wood composed by rlgpt"
    assert f"  plan: {steps}, written by llm:qwen (90 calls)" in text
    assert "LLM-written code: 100% of the coded-action calls" in text
    text = printed(rl_from_the_plan(person=True))
    assert f"  plan: {steps}, written by several authors (llm:qwen, person) (90 calls)" in text
    assert "LLM-written code: 25% of the coded-action calls" in text


def test_the_report_says_who_wrote_the_solution(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", LLM, {})
    for event in run_events("code", only_coded="go_to_tree"):
        store.record(sid, event)
    report = session_markdown(store, sid, assets=None)
    assert "- who wrote the solution's coded actions:" in report
    assert (
        "  - go_to_tree: written by llm:qwen\n  - LLM-written code: 100% of the coded-action calls"
        in report
    )


def replayed(tmp_path: Path, events: list[ev.Event], look) -> None:
    """Record ``events`` as a finished session, open its replay in the app, and run
    ``look(screen)`` on the run screen once every event is shown."""
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", LLM, {})
    for event in events:
        store.record(sid, event)
    store.finish(sid, "finished", "target reached")

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.press("enter")  # the finished session's replay
            screen = await replay_shown(pilot, await run_screen(pilot, app))
            look(screen)

    asyncio.run(scenario())


def test_the_critic_pane_says_who_wrote_the_solution(tmp_path: Path) -> None:
    def look(screen) -> None:
        critic = screen.query_one(CriticPane)
        text = " ".join(" ".join(line.text for line in critic.lines).split())  # unwrapped
        assert "go_to_tree: written by llm:qwen (30 calls)" in text
        assert "LLM-written code: 75% of the coded-action calls" in text

    replayed(tmp_path, run_events("RL + code"), look)


def test_the_plan_pane_says_a_judged_step_keeps_its_code_when_its_repair_is_rejected(
    tmp_path: Path,
) -> None:
    """go_to_tree's first version failed its critic and its repair failed validation: the
    first version still runs, so its row says so ("failed, repair rejected"), not "code
    rejected" as for a step that never had valid code."""
    events = run_events("RL + code")
    verdict = ev.VerdictGiven(
        iteration=0, agent=LLM, subaction="go_to_tree", success=False, reason="far", suggestion=""
    )
    events.insert(3, verdict)  # after version 1, before the repair that fails validation

    def look(screen) -> None:
        table = screen.plan_pane.table
        rows = {row[1]: row[3] for row in map(table.get_row_at, range(table.row_count))}
        assert rows["go_to_tree"] == "failed, repair rejected"
        assert rows["code_collect_wood"] == "code written"

    replayed(tmp_path, events, look)
