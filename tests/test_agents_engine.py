"""The two loops with LLM agents over real HTTP (scripted server) and with the builtin agent."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from rlgpt_tui.agents.builtin_team import builtin_team
from rlgpt_tui.agents.grounding import view_things
from rlgpt_tui.agents.llm_team import LLMTeam
from rlgpt_tui.cli import main
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import EditRefused
from rlgpt_tui.engine.engine import Engine, EngineSettings
from rlgpt_tui.library.shelf import folder_shelf
from rlgpt_tui.library.templates import template_code
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.llm.settings import LLMError, LLMSettings
from rlgpt_tui.skills.validation import validate
from tests.llm_server import ScriptedLLMServer
from tests.settings import tiny_settings
from tests.waiting import wait_for

#: the hand-written skill files the tests use
SKILLS = Path(__file__).resolve().parent / "skills"

GO_TO_TREE = (SKILLS / "go_to_tree.py").read_text()
PLAN = {
    "subactions": [
        {
            "name": "go_to_tree",
            "description": "walk next to a tree and face it",
            "mode": "code",
            "reason": "navigation is easy to code",
            "high_level_actions": [],
        },
        {
            "name": "collect_wood",
            "description": "chop the tree",
            "mode": "rl",
            "reason": "learn when to press do",
            "high_level_actions": ["go_to_tree"],
        },
    ],
    "notes": "navigation coded, chopping learned",
}
RL_ANSWER = {
    "observation": None,
    "reward_code": None,
    "primitives": None,
    "high_level_actions": ["go_to_tree"],
    "samples": None,
}
VERDICT_OK = {"success": True, "reason": "the player ends facing a tree", "suggestion": ""}


def role_of(messages: list[dict[str, str]]) -> str:
    system = messages[0]["content"]
    return system.split("acting as the ")[1].split(" agent")[0]


def scripted_agent(messages: list[dict[str, str]]) -> str:
    """A well-behaved model: answers each role with valid JSON."""
    role = role_of(messages)
    if role == "slow":
        return "Here is my plan:\n```json\n" + json.dumps(PLAN) + "\n```"
    if role == "fast":
        if "Write the RL configuration" in messages[-1]["content"]:
            return json.dumps(RL_ANSWER)
        return json.dumps({"code": GO_TO_TREE, "explanation": "walk to the nearest tree"})
    if role == "critic":
        return json.dumps(VERDICT_OK)
    return json.dumps({"subtasks": ["collect_wood"]})


def small_settings(**overrides) -> EngineSettings:
    values = dict(
        num_envs=16,
        samples_per_iteration=3000,
        max_samples=12_000,
        eval_episodes=16,
        critic_runs=4,
        target=0.5,
    )
    return tiny_settings(**(values | overrides))


def llm_team(server: ScriptedLLMServer, monkeypatch, **settings) -> LLMTeam:
    monkeypatch.setenv("RLGPT_TEST_KEY", "sk-secret-test-key")
    s = LLMSettings.resolve(
        server.base_url, server.model, api_key_env="RLGPT_TEST_KEY", backoff=0.01, **settings
    )
    return LLMTeam(LLMClient(s))


@pytest.mark.slow
def test_two_loop_run_with_llm_over_http(monkeypatch) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        team = llm_team(server, monkeypatch)
        events: list[ev.Event] = []
        # a target no run reaches: both iterations run, whatever PPO scores on this machine
        result = Engine(small_settings(target=1.01), team, events.append).run()
    kinds = [e.kind for e in events]
    assert kinds[0] == "session_started" and kinds[-1] == "session_finished"
    assert {
        "plan_proposed",
        "code_written",
        "verdict",
        "training_progress",
        "evaluation",
        "iteration_done",
    } <= set(kinds)
    assert all(e.agent == "llm:scripted-model" for e in events)
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.config["coded_actions"] == ["go_to_tree"]
    assert result.reason == "iterations used up" and len(result.history) == 2
    assert result.best == max(h.value for h in result.history)
    assert result.tokens > 0 and team.client.calls
    roles = {c.role for c in team.client.calls}
    assert {"slow", "fast", "critic"} <= roles
    # the key travels in the Authorization header only, never in what is recorded
    assert server.headers[0]["authorization"] == "Bearer sk-secret-test-key"
    recorded = json.dumps([asdict(c) for c in team.client.calls] + [e.to_dict() for e in events])
    assert "sk-secret-test-key" not in recorded


def test_malformed_json_is_repaired(monkeypatch) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"content": "I think we should chop trees."},
            {"content": json.dumps({"subactions": []})},
            {"content": json.dumps(PLAN)},
        ]
        team = llm_team(server, monkeypatch)
        plan = team.slow.plan(
            __import__("rlgpt_tui.tasks.catalog").tasks.catalog.get_task("collect_wood"), []
        )
    assert [s.name for s in plan.subactions] == ["go_to_tree", "collect_wood"]
    assert len(team.client.calls) == 3
    repair = server.requests[1]["messages"][-1]["content"]
    assert "could not be used" in repair and "not JSON" in repair
    assert "subactions" in server.requests[2]["messages"][-1]["content"]


@pytest.mark.slow
def test_invalid_code_is_repaired_by_the_fast_agent(monkeypatch) -> None:
    bad = json.dumps(
        {"code": "import os\ndef act(ctx):\n    yield os.getpid()\n", "explanation": "pid"}
    )
    good = json.dumps({"code": GO_TO_TREE, "explanation": "walk to a tree"})
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(PLAN)}, {"content": bad}, {"content": good}]
        team = llm_team(server, monkeypatch)
        events: list[ev.Event] = []
        Engine(small_settings(max_iterations=1), team, events.append).run()
    failed = [e for e in events if isinstance(e, ev.CodeValidationFailed)]
    assert failed and "import of 'os' is not allowed" in failed[0].error
    written = [e for e in events if isinstance(e, ev.CodeWritten)]
    assert [w.attempt for w in written[:2]] == [0, 1]
    # the repair request carried the validation error back to the model
    assert "import of 'os' is not allowed" in server.requests[2]["messages"][-1]["content"]
    verdict = next(e for e in events if isinstance(e, ev.VerdictGiven))
    assert verdict.subaction == "go_to_tree" and verdict.success


@pytest.mark.slow
def test_rate_limits_server_errors_and_timeouts_are_retried(monkeypatch) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"status": 429},
            {"status": 503},
            {"delay": 5, "content": "late"},  # past the timeout, however slow the machine
            {"content": json.dumps(VERDICT_OK)},
        ]
        team = llm_team(server, monkeypatch, timeout=2, max_retries=4)
        text = team.client.chat("critic", [{"role": "user", "content": "judge"}])
    assert json.loads(text) == VERDICT_OK
    assert team.client.calls[-1].attempts == 4


def test_retries_give_up_with_a_clear_error(monkeypatch) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"status": 500}] * 3
        team = llm_team(server, monkeypatch, max_retries=2)
        with pytest.raises(LLMError, match="kept failing .* after 3 tries"):
            team.client.chat("slow", [{"role": "user", "content": "plan"}])


@pytest.mark.slow
def test_endpoint_going_down_mid_run_ends_cleanly(monkeypatch) -> None:
    server = ScriptedLLMServer(responder=scripted_agent).__enter__()
    team = llm_team(server, monkeypatch, max_retries=1)
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.IterationDone):
            server.stop()  # the endpoint disappears after the first iteration

    result = Engine(small_settings(target=1.01, max_iterations=3), team, on_event).run()
    assert result.reason.startswith("error: cannot reach the LLM endpoint")
    assert isinstance(events[-1], ev.SessionFinished)
    errors = [i for i, e in enumerate(events) if isinstance(e, ev.EngineError)]
    last_done = max(i for i, e in enumerate(events) if isinstance(e, ev.IterationDone))
    assert errors and errors[-1] > last_done  # the error ended the run after iteration 1
    chosen = [e for e in events if isinstance(e, ev.SolutionChosen)]  # no LLM needed
    assert len(chosen) == 1 and events[-1].result == chosen[0].result
    done = [e for e in events if isinstance(e, ev.IterationDone)]
    assert len(done) == 1 and len(result.history) == 1  # the finished iteration is kept


def test_wrong_model_and_unreachable_endpoint_errors(monkeypatch, capsys) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        code = main(
            [
                "run",
                "--task",
                "collect_wood",
                "--llm-base-url",
                server.base_url,
                "--llm-model",
                "no-such-model",
            ]
        )
    assert code == 2
    assert "model 'no-such-model' not found" in capsys.readouterr().err
    code = main(
        [
            "run",
            "--task",
            "collect_wood",
            "--llm-base-url",
            "http://127.0.0.1:9/v1",
            "--llm-model",
            "m",
        ]
    )
    assert code == 2 and "cannot reach the LLM endpoint" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["run", "--task", "collect_wood", "--llm-model", "gpt-4o"]) == 2
    assert "missing API key: export OPENAI_API_KEY" in capsys.readouterr().err


@pytest.mark.slow
def test_builtin_agent_learns_collect_wood_with_the_papers_pattern() -> None:
    events: list[ev.Event] = []
    settings = small_settings(
        num_envs=32,
        samples_per_iteration=6000,
        max_samples=30_000,
        eval_episodes=64,
        target=0.9,
        max_iterations=4,
    )
    result = Engine(settings, builtin_team(), events.append).run()
    plans = [e for e in events if isinstance(e, ev.PlanProposed)]
    first = plans[0].plan.subactions
    assert [s.mode for s in first] == ["rl"]  # iteration 0 learns everything with RL
    second = plans[1].plan.subactions
    assert second[-1].mode == "rl"  # with coded navigation and the task's own code
    assert second[-1].high_level_actions == ["go_to_tree", "code_collect_wood"]
    rates = [h.value for h in result.history]
    assert rates[-1] > rates[0] and rates[-1] >= 0.9, rates
    assert result.reason == "target reached" and result.total_samples <= 30_000
    assert all(e.agent == "builtin" for e in events)


@pytest.mark.slow
def test_task_planner_chains_sub_task_solutions(capsys) -> None:
    code = main(
        [
            "run",
            "--task",
            "place_table",
            "--chain",
            "--num-envs",
            "16",
            "--samples-per-iteration",
            "2000",
            "--max-samples",
            "20000",
            "--iterations",
            "3",
            "--eval-episodes",
            "16",
            "--final-episodes",
            "16",
            "--target",
            "0.8",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["agent"] == "builtin"
    assert summary["subtasks"] == ["collect_wood", "place_table"]
    assert summary["solved_stages"] == ["collect_wood", "place_table"]
    # share of episodes that finished stage 0 and went on to place_table
    assert summary["stage_reached"]["place_table"] >= summary["success_rate"]
    assert summary["success_rate"] >= 0.8 and summary["training_samples"] <= 20_000


def held_at_safe_point(thread) -> bool:
    """Is ``thread`` parked in ``ControlPlane.safe_point``'s wait (paused, not running)?"""
    frame = sys._current_frames().get(thread.ident)
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return "safe_point" in names and names[0] == "wait"  # innermost: the lock's wait


@pytest.mark.slow
def test_pause_then_human_plan_and_code_edits_take_effect_on_resume() -> None:
    import threading

    from rlgpt_tui.agents.schemas import Plan, SubAction
    from rlgpt_tui.library.templates import template_code

    events: list[ev.Event] = []
    engine = Engine(small_settings(max_iterations=1), builtin_team(), events.append)
    engine.control.pause()
    human_code = "# Human edit: the tech-tree routine\n" + template_code("collect_wood")
    engine.control.edit_plan(
        Plan(
            subactions=[
                SubAction(
                    name="collect_wood",
                    description="chop a tree",
                    mode="code",
                    reason="a person said so",
                )
            ]
        )
    )
    engine.control.edit_code("collect_wood", human_code)
    worker = threading.Thread(target=engine.run)
    worker.start()
    wait_for(lambda: held_at_safe_point(worker), 120, "the engine to hold at a safe point")
    # held: parked in the safe point's wait, which only resume() ends; nothing came after
    # its "paused" event, and no plan was asked for
    last = events[-1]
    assert isinstance(last, ev.ControlChanged) and last.state == "paused", events[-3:]
    assert not any(isinstance(e, ev.PlanProposed) for e in events)
    assert held_at_safe_point(worker) and events[-1] is last
    engine.control.resume()
    worker.join(timeout=300)
    assert not worker.is_alive()
    plan = next(e for e in events if isinstance(e, ev.PlanProposed))
    assert plan.source == "human" and plan.plan.subactions[0].mode == "code"
    edits = {e.what: e for e in events if isinstance(e, ev.EditApplied)}
    assert edits["plan"].after == "collect_wood [code]"  # recorded as a human edit
    assert edits["code"].target == "collect_wood" and "Human edit" in edits["code"].after
    written = next(e for e in events if isinstance(e, ev.CodeWritten))
    assert written.source == "human"
    assert isinstance(events[-1], ev.SessionFinished) and events[-1].best >= 0.5


@pytest.mark.slow
def test_rl_config_edits_are_checked_when_made_and_apply_at_the_next_training() -> None:
    events: list[ev.Event] = []
    engine = Engine(small_settings(max_iterations=1), builtin_team(), events.append)
    # a bad edit is refused at once with a one-line reason; nothing is queued
    bad = {"samples": -5, "ppo": {"gamma": "high"}}
    with pytest.raises(EditRefused, match="samples: Input should be greater than or equal to 1"):
        engine.control.edit_rl_config("collect_wood", bad)
    with pytest.raises(EditRefused, match="unknown RLConfig field"):
        engine.control.edit_rl_config("collect_wood", {"sampels": 10})
    assert engine.control.pending() == []
    refused = [e for e in events if isinstance(e, ev.EditRefused)]
    assert [e.what for e in refused] == ["rl_config", "rl_config"]

    engine.control.edit_rl_config("collect_wood", {"samples": 2048, "ppo": {"ent_coef": 0.05}})
    engine.run()
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.config["samples"] == 2048 and started.config["ppo"]["ent_coef"] == 0.05
    assert started.config["ppo"]["n_steps"] == 64  # the rest of ppo kept
    edit = next(e for e in events if isinstance(e, ev.EditApplied))
    assert edit.what == "rl_config" and json.loads(edit.after)["samples"] == 2048
    assert edit.at == "start of iteration 1's training of collect_wood"
    assert not any(isinstance(e, ev.CodeValidationFailed) for e in events)  # never "code"
    with pytest.raises(EditRefused, match="the session ended"):  # after the end: refused
        engine.control.edit_rl_config("collect_wood", {"samples": 4096})


@pytest.mark.slow
def test_vision_critic_gets_frames_and_the_record_keeps_no_image_data(monkeypatch) -> None:
    import base64
    import io

    from PIL import Image

    with ScriptedLLMServer(responder=scripted_agent) as server:
        team = llm_team(server, monkeypatch, vision=True)
        Engine(small_settings(max_iterations=1), team, lambda e: None).run()
    critic = [r for r in server.requests if role_of(r["messages"]) == "critic"][0]
    parts = critic["messages"][-1]["content"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    labels = [p["text"] for p in parts if p["type"] == "text"][1:]
    assert len(images) == 6 and labels[:2] == ["Run 1 before:", "Run 1 after:"]
    png = base64.b64decode(images[0].removeprefix("data:image/png;base64,"))
    assert Image.open(io.BytesIO(png)).mode == "RGB"
    recorded = json.dumps([asdict(c) for c in team.client.calls])
    assert "base64" not in recorded and "<image, " in recorded


def test_a_plan_with_two_rl_subactions_is_refused_with_the_fix() -> None:
    from pydantic import ValidationError

    from rlgpt_tui.agents.schemas import Plan

    two = {
        "subactions": [
            {"name": "find_tree", "description": "walk", "mode": "rl"},
            {"name": "collect_wood", "description": "chop", "mode": "rl"},
        ]
    }
    with pytest.raises(ValidationError, match="at most one rl sub-action"):
        Plan.model_validate(two)


@pytest.mark.slow
def test_chained_coded_stages_share_what_they_remember() -> None:
    """A later stage's code sees what an earlier stage's code kept in ``ctx.memory`` (the
    tech-tree code keeps its map of the episode there), so a hand-over loses nothing."""
    from rlgpt_tui.engine.chain import StageSolution, evaluate_chain
    from rlgpt_tui.library.templates import template_code

    wood = template_code("collect_wood").replace(
        "def act(ctx):\n", "def act(ctx):\n    ctx.memory['wood stage ran'] = True\n"
    )
    table = template_code("place_table").replace(
        "def act(ctx):\n",
        "def act(ctx):\n    if not ctx.memory.get('wood stage ran'):\n"
        "        yield Action.NOOP\n        return False\n",
    )
    stages = [
        StageSolution("collect_wood", coded=validate("collect_wood", wood)),
        StageSolution("place_table", coded=validate("place_table", table)),
    ]
    result = evaluate_chain(stages, "place_table", "craftax", episodes=16, seed=3)
    # seeded: measured 1.00 and 1.00 (16 of 16 episodes) on every run
    assert (result.stage_reached or {})["place_table"] == pytest.approx(1.0, abs=0.05)
    assert result.success_rate == pytest.approx(1.0, abs=0.05), result


@pytest.mark.slow
def test_code_edit_during_training_is_the_code_later_calls_run(tmp_path) -> None:
    """A code edit made while PPO trains is swapped in between two rollouts: the recorded
    per-version usage shows the new version's calls after it; a plan edit made in the last
    iteration, after its plan, is refused at once (no later plan would use it)."""
    from rlgpt_tui import sandbox
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.report.record import final_code
    from rlgpt_tui.session import Session
    from rlgpt_tui.store import SessionStore

    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings(samples_per_iteration=4096))
    edited = template_code("go_to_tree") + "\n# a person's version\n"
    made: list[int] = []
    validated_before = sandbox.validation_round_trips["go_to_tree"]
    refused: list[str] = []

    def during_training(event: ev.Event) -> None:
        if isinstance(event, ev.TrainingProgress) and event.iteration == 1 and not made:
            made.append(session.control.edit_code("go_to_tree", edited).id)
            try:
                session.control.edit_plan(Plan.model_validate(LAST_PLAN))
            except EditRefused as why:
                refused.append(str(why))

    session.run(during_training)
    # one round trip each: the agent's code (the critic's runs, training and evaluation take
    # it as it is) and the person's edit (validated when made; the swap takes it as it is)
    assert sandbox.validation_round_trips["go_to_tree"] - validated_before == 2
    events = store.events(session.id)
    applied = [e for e in events if e["kind"] == "edit_applied"]
    assert [(e["edit_id"], e["what"], e["rollout"]) for e in applied] == [(made[0], "code", 1)]
    version = applied[0]["version"]
    row = next(r for r in store.rows("code_versions", session.id) if r["event_seq"] == version)
    assert row["code"] == edited and row["source"] == "human" and row["iteration"] == 1
    metrics = [r for r in store.rows("training_metrics", session.id) if r["iteration"] == 1]
    usage = [json.loads(r["metrics"])["coded_actions"]["go_to_tree"]["versions"] for r in metrics]
    assert str(version) not in usage[0]  # rollout 1 ran before the swap
    calls = [u.get(str(version), 0) for u in usage]  # per version, so far: it only grows
    assert calls == sorted(calls) and calls[-1] > 0  # later calls ran the person's version
    assert final_code(store, session.id)["go_to_tree"] == edited
    assert refused == [
        "iteration 2 is the session's last and its plan is made: no later plan would use this edit"
    ]
    outcomes = [(r["what"], r["outcome"]) for r in store.rows("human_edits", session.id)]
    assert sorted(outcomes) == [("code", "applied"), ("plan", "refused")]
    assert not [e for e in events if e["kind"] == "edit_discarded"]


LAST_PLAN = {
    "subactions": [
        {"name": "collect_wood", "description": "chop", "mode": "rl", "reason": "a person"}
    ]
}


@pytest.mark.slow
def test_rl_starts_from_the_best_code_of_an_earlier_iteration(monkeypatch) -> None:
    """An LLM plans code alone first, then RL with navigation only: PPO gets the earlier
    code as one more action and starts from it; the run ends with its fresh result."""
    from rlgpt_tui.library.templates import template_code

    code_plan = {
        "subactions": [
            {
                "name": "chop_tree",
                "description": "walk to a tree and chop it",
                "mode": "code",
                "reason": "code it all",
                "high_level_actions": [],
            }
        ],
        "notes": "code first",
    }
    plans = [code_plan, PLAN]

    def answer(messages: list[dict[str, str]]) -> str:
        role, request = role_of(messages), messages[-1]["content"]
        if role == "slow":
            return json.dumps(plans.pop(0) if plans else PLAN)
        if role == "fast" and "`chop_tree`" in request:
            return json.dumps({"code": template_code("collect_wood"), "explanation": "chop"})
        return scripted_agent(messages)

    with ScriptedLLMServer(responder=answer) as server:
        team = llm_team(server, monkeypatch)
        events: list[ev.Event] = []
        result = Engine(small_settings(target=1.01), team, events.append).run()
    # iteration 1's code alone fell short: RL started from it there; iteration 2's plan
    # learns with navigation alone, and PPO gets the earlier code too and starts from it
    first, started = (e for e in events if isinstance(e, ev.TrainingStarted))
    assert (first.iteration, first.config["coded_actions"]) == (0, ["chop_tree"])
    assert started.iteration == 1
    assert started.config["coded_actions"] == ["go_to_tree", "chop_tree"]
    assert started.rl_config["start"]["action"] == "chop_tree"
    assert "starts from chop_tree" in started.config["high_level_actions_note"]
    chosen = next(e for e in events if isinstance(e, ev.SolutionChosen))
    assert {c.kind for c in chosen.candidates} == {"code", "RL + code"}
    # tiny settings: 8 fresh episodes each, or fewer for one that could no longer win
    assert all((c.planned or c.episodes) == 8 for c in chosen.candidates)
    assert chosen.result.value == max(c.value for c in chosen.candidates)
    assert result.final is not None and result.final.chosen.kind == chosen.result.kind
    finished = events[-1]
    assert isinstance(finished, ev.SessionFinished) and finished.result == chosen.result


CODE_PLAN = {"subactions": PLAN["subactions"][:1], "notes": "code alone"}  # go_to_tree


@pytest.mark.slow
def test_a_plan_of_code_alone_below_its_target_trains_rl_from_that_code(monkeypatch) -> None:
    """A model plans code alone (a walk to a tree: it chops nothing) and never asks for RL.
    The code alone measures below the target, so RL trains in the same iteration over the
    plan's coded action, starting as the code; the iteration keeps the better measurement,
    the slow agent's next prompt says what RL did, and the final choice measures both kinds
    on fresh worlds. With no samples allowed (``--max-samples 0``) nothing trains."""

    def model(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "slow":
            prompts.append(messages[-1]["content"])
            return json.dumps(CODE_PLAN)
        return scripted_agent(messages)

    for max_samples in (6000, 0):
        prompts: list[str] = []
        with ScriptedLLMServer(responder=model) as server:
            events: list[ev.Event] = []
            settings = small_settings(max_samples=max_samples, eval_episodes=8, target=1.01)
            Engine(settings, llm_team(server, monkeypatch), events.append).run()
        started = [e for e in events if isinstance(e, ev.TrainingStarted)]
        done = [e for e in events if isinstance(e, ev.IterationDone)]
        chosen = next(e for e in events if isinstance(e, ev.SolutionChosen))
        if max_samples == 0:
            assert not started and [d.samples for d in done] == [0, 0]
            assert {c.kind for c in chosen.candidates} == {"code"}
            continue
        assert [(e.iteration, e.config["coded_actions"]) for e in started] == [
            (0, ["go_to_tree"]),
            (1, ["go_to_tree"]),
        ]
        assert started[0].rl_config["start"]["action"] == "go_to_tree"
        assert "the plan's code alone measured" in started[0].config["high_level_actions_note"]
        assert all(3000 <= d.samples < 3100 for d in done)  # a coded call ends past it
        measured = {
            e.subject: e.result.value
            for e in events
            if isinstance(e, ev.EvaluationDone) and e.iteration == 0
        }
        code_alone = measured["go_to_tree (code only)"]
        policy = max(v for k, v in measured.items() if k.startswith("collect_wood (RL policy"))
        assert code_alone == 0.0  # it never presses do
        assert done[0].value == max(code_alone, policy)
        assert f"after {done[0].samples:,} samples it measured" in prompts[1]
        assert {c.kind for c in chosen.candidates} == {"code", "RL + code"}


def library_skill(folder, name: str, served: str, body: str) -> None:
    """A skill file whose record says it served ``served`` as a task (as an export writes)."""
    (folder / f"{name}-craftax-v1.py").write_text(
        f'# /// rlgpt-skill\n# name = "{name}"\n# world = "craftax"\n# version = 1\n'
        f'# author = "llm:earlier-model"\n# docstring = "{name.replace("_", " ")}"\n'
        f'# [record]\n# calls = 12\n# tasks = {{{served} = {{measure = "success_rate", '
        f"evaluations = 1, successes = 7, episodes = 8, best = 0.875}}}}\n# ///\n{body}"
    )


@pytest.mark.slow
def test_rl_from_short_code_gets_the_library_skills_that_answer_how_the_code_died(
    tmp_path, monkeypatch
) -> None:
    """A model's survive stands still through the night and its players die (killed by
    zombies). RL trains from it, and PPO also gets the library's skill measured serving
    defeat_zombie (an answer to zombie deaths, by the world's documentation), though the
    model's RL answer offered only its own code; the drink skill answers no death and
    stays out. The added skill is recorded as reused from the library, by its author."""
    library_skill(tmp_path, "swing_at_zombie", "defeat_zombie", template_code("defeat_zombie"))
    library_skill(tmp_path, "go_to_water", "collect_drink", template_code("go_to_water"))
    plan = {
        "subactions": [
            {
                "name": "survive",
                "description": "wait where the player is",
                "mode": "code",
                "reason": "nothing to do",
                "high_level_actions": [],
            }
        ],
        "notes": "wait",
    }

    def model(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "slow":
            return json.dumps(plan)
        if "Write the RL configuration" in messages[-1]["content"]:
            return json.dumps(RL_ANSWER | {"high_level_actions": ["survive"]})
        if role_of(messages) == "fast":
            code = "def act(ctx):\n    yield Action.NOOP\n    return True\n"
            return json.dumps({"code": code, "explanation": "wait"})
        return scripted_agent(messages)

    monkeypatch.setenv("RLGPT_TEST_KEY", "sk-secret-test-key")
    with ScriptedLLMServer(responder=model) as server:
        s = LLMSettings.resolve(server.base_url, server.model, api_key_env="RLGPT_TEST_KEY")
        team = LLMTeam(LLMClient(s), "craftax", folder_shelf(tmp_path, "craftax"))
        events: list[ev.Event] = []
        settings = small_settings(
            task="survive_night", max_samples=3000, max_iterations=1, eval_episodes=8
        )
        Engine(settings, team, events.append).run()
    code_alone = next(e for e in events if isinstance(e, ev.EvaluationDone))
    ends = code_alone.result.episode_ends or {}
    assert ends.get("killed_by_zombie", 0) >= 1 and "success" not in ends  # they died
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.config["coded_actions"] == ["survive", "swing_at_zombie"]
    note = started.config["high_level_actions_note"]
    zombies, failed = ends["killed_by_zombie"], sum(ends.values())
    assert (  # the ways of dying it answers, with their episodes
        f"PPO also gets the library's swing_at_zombie, which answer killed_by_zombie in "
        f"{zombies} of the code's {failed} failed episodes" in note
    )
    added = [e for e in events if isinstance(e, ev.CodeWritten) and e.subaction != "survive"]
    assert [(e.subaction, e.source) for e in added] == [
        ("swing_at_zombie", "library:llm:earlier-model")
    ]


@pytest.mark.slow
def test_rl_started_from_a_navigation_routine_is_measured_as_it_acted_in_training(
    monkeypatch,
) -> None:
    """A model names its navigation routine as start_from (a 1.5B model did): the
    policy's mode only walks to trees, while in training it sampled `do` and chopped.
    (A person's RL edit keeps PPO from updating the policy, so its mode stays the
    routine.) The iteration's measurement and the final choice are the policy as it
    acted in training, sampled, and both figures are on record."""
    code = (  # the model's own go_to_tree, word for word: it returns None
        'def act(ctx):\n    tree = ctx.nearest("tree")\n    if tree is None:\n        yield '
        "from ctx.explore(6)\n        return\n    if (yield from ctx.go_to(tree)):\n        "
        "yield from ctx.face(tree)\n"
    )

    def model(messages: list[dict[str, str]]) -> str:
        if "Write the RL configuration" in messages[-1]["content"]:
            return json.dumps(RL_ANSWER | {"start_from": "go_to_tree"})
        if role_of(messages) == "fast":
            return json.dumps({"code": code, "explanation": "walk to the nearest tree"})
        return scripted_agent(messages)

    with ScriptedLLMServer(responder=model) as server:
        events: list[ev.Event] = []
        settings = small_settings(max_samples=3000, eval_episodes=8, target=1.01)
        engine = Engine(settings, llm_team(server, monkeypatch), events.append)
        engine.control.edit_rl_config("collect_wood", {"critic_warmup": 100})
        engine.run()
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.rl_config["start"]["action"] == "go_to_tree"
    evaluated = {e.subject: e.result.value for e in events if isinstance(e, ev.EvaluationDone)}
    assert evaluated["collect_wood (RL policy, its mode: mostly go_to_tree)"] == 0.0
    sampled = evaluated["collect_wood (RL policy, sampled as trained)"]
    assert sampled > 0.0
    done = next(e for e in events if isinstance(e, ev.IterationDone))
    assert done.value == sampled
    chosen = next(e for e in events if isinstance(e, ev.SolutionChosen))
    assert chosen.result.subject == "RL policy, sampled (RL + code, iteration 1)"
    assert chosen.result.value is not None and chosen.result.value > 0.0


@pytest.mark.slow
def test_a_pause_between_iterations_takes_a_plan_edit_for_the_last_iteration() -> None:
    """Paused at the top of the last iteration (nothing of it planned yet), a person's plan
    is accepted and is the plan that iteration uses."""
    import threading

    from rlgpt_tui.agents.schemas import Plan

    events: list[ev.Event] = []
    engine: Engine

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.IterationDone) and event.iteration == 0:
            engine.control.pause()  # held at the next safe point: the top of iteration 2

    engine = Engine(tiny_settings(samples_per_iteration=512), builtin_team(), on_event)
    runner = threading.Thread(target=engine.run)
    runner.start()
    try:

        def held() -> bool:
            return any(isinstance(e, ev.ControlChanged) and e.state == "paused" for e in events)

        wait_for(held, 240, "the pause")
        plan = Plan.model_validate(
            {
                "subactions": [
                    {"name": "collect_wood", "description": "a person's plan", "mode": "rl"}
                ]
            }
        )
        engine.control.edit_plan(plan)  # not refused: iteration 2's plan is not made yet
    finally:
        engine.control.resume()
        runner.join(timeout=300)
    proposed = [e for e in events if isinstance(e, ev.PlanProposed)]
    assert proposed[-1].iteration == 1 and proposed[-1].source == "human"
    assert proposed[-1].plan.subactions[0].description == "a person's plan"
    assert not any(isinstance(e, ev.EditRefused) for e in events)


def test_code_the_session_ran_before_is_judged_on_its_recorded_runs() -> None:
    """Code planned again unchanged (a later iteration, or a repair that returns it as it
    was) is not validated or run again: the critic judges the session's recorded runs of
    it and gives the verdict the fresh runs gave; the phases say from which iteration;
    changed code is validated and runs afresh."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.engine.steps.code import Sampled, code_step
    from rlgpt_tui.tasks.catalog import get_task

    events: list[ev.Event] = []
    engine = Engine(tiny_settings(), builtin_team(), events.append)
    task = get_task("collect_wood")
    plan = Plan.model_validate(
        {"subactions": [{"name": "go_to_tree", "description": "walk to a tree", "mode": "code"}]}
    )
    sampled: dict[str, Sampled] = {}
    first = code_step(engine._context(task), plan, {}, sampled)
    sampled |= first.sampled  # the engine keeps the step's sample runs
    ran = sampled["go_to_tree"]
    assert (
        ran.iteration == 0 and len(ran.runs) == 2 and ran.source == first.coded["go_to_tree"].source
    )

    engine.iteration = 1
    events.clear()
    again = code_step(engine._context(task), plan, {}, sampled)
    assert again.sampled == {}  # nothing run again
    phases = [
        e.detail for e in events if isinstance(e, ev.PhaseStarted) and e.phase == "critic runs"
    ]
    assert phases == ["go_to_tree: reused, iteration 1's runs"]
    assert again.verdicts == first.verdicts and sampled["go_to_tree"] is ran
    # its validation is kept too (the code passed it in iteration 1)
    validating = [
        e.detail for e in events if isinstance(e, ev.PhaseStarted) and e.phase == "validating"
    ]
    assert validating == ["go_to_tree: kept, validated in iteration 1"]
    assert again.coded["go_to_tree"].validation == first.coded["go_to_tree"].validation
    verdicts = [e for e in events if isinstance(e, ev.VerdictGiven)]
    assert [(v.success, v.reason) for v in verdicts] == [
        (first.verdicts["go_to_tree"].success, first.verdicts["go_to_tree"].reason)
    ]

    changed = validate("go_to_tree", ran.source + "\n# changed\n", "walk to a tree")
    sampled["go_to_tree"] = Sampled(changed, 0, [])  # code that has changed since
    events.clear()
    afresh = code_step(engine._context(task), plan, {}, sampled)
    assert sampled["go_to_tree"].iteration == 0  # the session's runs are not changed
    sampled |= afresh.sampled
    phases = [
        e.detail for e in events if isinstance(e, ev.PhaseStarted) and e.phase == "critic runs"
    ]
    # validated and run afresh in this iteration's worlds (code alone: in the plan's rounds)
    assert phases == ["go_to_tree (up to 4 rounds of the plan)"]
    started = [(e.phase, e.detail) for e in events if isinstance(e, ev.PhaseStarted)]
    assert ("validating", "go_to_tree") in started
    assert sampled["go_to_tree"].iteration == 1 and len(sampled["go_to_tree"].runs) == 2


def test_in_a_plan_of_code_alone_each_steps_runs_begin_where_the_steps_before_left_off() -> None:
    """Code alone runs its steps in order, so the critic sees a step where its turn comes:
    place_table's sample runs begin after a call of collect_wood (wood in hand). In a plan
    with RL the coded steps are options, sampled from fresh worlds."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.engine.steps.code import Sampled, code_step
    from rlgpt_tui.tasks.catalog import get_task

    events: list[ev.Event] = []
    engine = Engine(tiny_settings(), builtin_team(), events.append)
    task = get_task("place_table")
    steps = [
        {"name": "collect_wood", "description": "chop a tree", "mode": "code"},
        {"name": "place_table", "description": "place a table", "mode": "code"},
    ]
    sampled: dict[str, Sampled] = {}
    plan = Plan.model_validate({"subactions": steps})
    sampled |= code_step(engine._context(task), plan, {}, sampled).sampled
    wood = [run.before.inventory.get("wood", 0) for run in sampled["place_table"].runs]
    assert wood and all(n >= 1 for n in wood), wood
    phases = [e.detail for e in events if isinstance(e, ev.PhaseStarted)]
    assert "place_table after collect_wood (up to 4 rounds of the plan)" in phases
    learned = {"name": "place", "description": "place it", "mode": "rl"}
    with_rl = Plan.model_validate({"subactions": [*steps, learned]})
    sampled = {}
    engine.iteration = 1
    sampled |= code_step(engine._context(task), with_rl, {}, sampled).sampled
    assert all(not run.before.inventory.get("wood") for run in sampled["place_table"].runs)


CHOP = 'def act(ctx):\n    yield from ctx.collect("tree")\n'  # one call: one tree's wood


def code_step_over_http(monkeypatch, responder, steps: list[dict], task: str, **settings):
    """One code step of a plan of ``steps`` with an LLM team answering from ``responder``
    over HTTP: the sample runs of each sub-action, the requests the server got, and the
    step's results (verdicts, notes for the slow agent)."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.engine.steps.code import Sampled, code_step
    from rlgpt_tui.tasks.catalog import get_task

    with ScriptedLLMServer(responder=responder) as server:
        team = llm_team(server, monkeypatch)
        engine = Engine(tiny_settings(critic_runs=4, **settings), team, lambda e: None)
        sampled: dict[str, Sampled] = {}
        plan = Plan.model_validate({"subactions": steps})
        step = code_step(engine._context(get_task(task)), plan, {}, sampled)
    return sampled | step.sampled, server.requests, step


def test_a_code_alone_plans_step_is_judged_in_the_round_its_turn_comes(monkeypatch) -> None:
    """A code-alone plan runs its steps again each time its routine returns, so a 1.5B
    model's one-wood collect_wood made place_table's 2 wood in its second round; judged
    after one call of it, that place_table never placed a table, and the loop rewrote
    working code. The critic now sees each step's call of the first round that gained (the
    step is named put_table here: a place_table whose runs placed tables passes by its runs
    without a critic)."""
    code = {
        "collect_wood": 'def act(ctx):\n    yield from ctx.collect("tree")\n',
        "put_table": 'def act(ctx):\n    yield from ctx.place("table")\n',
    }

    def responder(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "fast":
            name = next(n for n in code if f"coded sub-action `{n}`" in messages[-1]["content"])
            return json.dumps({"code": code[name], "explanation": "a try"})
        return json.dumps({"success": True, "reason": "the runs did it", "suggestion": ""})

    steps = [
        {"name": "collect_wood", "description": "chop a tree once", "mode": "code"},
        {"name": "put_table", "description": "place a table", "mode": "code"},
    ]
    sampled, requests, _ = code_step_over_http(monkeypatch, responder, steps, "place_table")
    critic = [m for m in requests if role_of(m["messages"]) == "critic"]
    runs = sampled["put_table"].runs
    placed = [r for r in runs if "place_table" in r.after.achievements]
    assert len(placed) >= 3, [(r.round, r.after.inventory) for r in runs]
    assert all(r.round == 2 and r.before.inventory.get("wood") == 2 for r in placed)
    assert "Run 1 (round 2 of the plan, " in critic[-1]["messages"][-1]["content"]
    assert all(r.round == 1 for r in sampled["collect_wood"].runs)  # it gained at once


def first_repair_request(monkeypatch, code: dict[str, str], task: str, reason: str) -> str:
    """The fast agent's first repair request for the last of ``code``'s sub-actions, in a
    code step of a plan of them (each answered with its code), the critic failing each
    with ``reason``."""

    def responder(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "fast":
            asked = messages[-1]["content"]
            name = next((n for n in code if f"sub-action `{n}`" in asked), list(code)[-1])
            return json.dumps({"code": code[name], "explanation": "a try"})
        return json.dumps({"success": False, "reason": reason, "suggestion": ""})

    steps = [{"name": n, "description": n.replace("_", " "), "mode": "code"} for n in code]
    _, requests, _ = code_step_over_http(monkeypatch, responder, steps, task, max_repairs=1)
    last = f"sub-action `{list(code)[-1]}`"
    asked = [m["messages"][-1]["content"] for m in requests if role_of(m["messages"]) == "fast"]
    return next(a for a in asked if last in a and "Your previous code" in a)


def test_an_error_in_the_runs_reaches_the_repair_request(monkeypatch) -> None:
    """A 1.5B model's make step called ``ctx.place("wood_pickaxe")``, which raises only
    where wood is at hand; the critic's verdict did not mention the error, so the repairs
    never heard of it. The repair request now quotes the runs' error, which names the fix."""
    make = (
        "def act(ctx):\n"
        "    if ctx.view.inventory.get('wood', 0) == 1:\n"
        "        yield from ctx.place('wood_pickaxe')\n"
        "    yield Action.NOOP\n"
    )
    code = {"chop": CHOP, "make_pickaxe": make}
    repair = first_repair_request(monkeypatch, code, "make_wood_pickaxe", "no pickaxe was made")
    assert "Your previous code was rejected or failed: no pickaxe was made." in repair
    assert "runs ended with this error: " in repair
    assert "wood_pickaxe is made, not placed: use `yield from ctx.make('wood_pickaxe')`" in repair


def test_runs_that_return_before_acting_tell_the_repair_what_the_inventory_held(
    monkeypatch,
) -> None:
    """A 1.5B model's place_table checked for 2 stone in worlds that held 2 wood, and each
    repair kept the check: the critic said only "no table was placed". The repair request
    now says the runs returned before a single action, and what they held (a check of
    stone is refused before it runs, naming the recipe; a wrong count is seen in the runs)."""
    stone = (
        "def act(ctx):\n    if not ctx.has('wood', 9):\n        return False\n"
        "    return (yield from ctx.place('table'))\n"
    )
    code = {"collect_wood": CHOP, "place_table": stone}
    repair = first_repair_request(monkeypatch, code, "place_table", "no table was placed")
    assert "runs returned before a single action: a check at the start of the code was false" in (
        repair
    )
    assert "of them held wood " in repair


def test_a_goal_step_whose_runs_lack_what_it_needs_tells_the_slow_agent_which_steps_make_it(
    monkeypatch,
) -> None:
    """A 1.5B model planned collect_stone alone: its code walked to stone and hit it, and
    no run ever held a pickaxe, which the critic's "did not collect any stone" never said.
    The slow agent's feedback now names what the recipes say the step needs, how many runs
    started without it, and the goal's steps that make it."""
    hit = (
        "def act(ctx):\n    stone = ctx.nearest('stone')\n    if stone is None:\n"
        "        yield from ctx.explore(6)\n        return False\n"
        "    yield from ctx.collect('stone')\n"
    )

    def responder(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "fast":
            return json.dumps({"code": hit, "explanation": "a try"})
        return json.dumps({"success": False, "reason": "no stone collected", "suggestion": ""})

    steps = [{"name": "collect_stone", "description": "mine a stone", "mode": "code"}]
    sampled, _, step = code_step_over_http(
        monkeypatch, responder, steps, "collect_stone", max_repairs=0
    )
    notes = step.notes
    runs = sampled["collect_stone"].runs
    assert runs and not any(r.before.inventory.get("wood_pickaxe") for r in runs)
    assert (
        f"collect_stone needs 1 wood_pickaxe (the world's recipes), which {len(runs)} of its "
        f"{len(runs)} runs started without: the goal's steps before it make that "
        "(collect_wood, place_table, make_wood_pickaxe): plan them first, in order, each coded"
    ) in notes
    chop = [{"name": "collect_wood", "description": "chop a tree", "mode": "code"}]
    _, _, step = code_step_over_http(monkeypatch, responder, chop, "collect_stone", max_repairs=0)
    notes = step.notes
    assert not any("needs" in note for note in notes)  # it needs nothing: no such note


def test_a_step_that_waits_on_an_earlier_failed_step_is_neither_judged_nor_repaired(
    monkeypatch,
) -> None:
    """A 1.5B model's place_table got no valid code; the make steps after it, whose runs
    never had a table, were judged and rewritten three times each (about 30,000 tokens).
    Their runs now say the step waits on place_table: no critic call, no repair, the code
    kept; with the table placed first, the same code is judged and passes."""
    make = "def act(ctx):\n    yield from ctx.make('wood_pickaxe')\n"
    fast_asked: list[str] = []

    def responder(place: str):
        def answer(messages: list[dict[str, str]]) -> str:
            if role_of(messages) != "fast":
                return json.dumps({"success": False, "reason": "no pickaxe", "suggestion": ""})
            asked = next(m["content"] for m in messages if "Write the code of" in m["content"])
            name = asked.split("coded sub-action `")[1].split("`")[0]
            fast_asked.append(name)
            code = {"collect_wood": CHOP, "place_table": place, "make_wood_pickaxe": make}
            return json.dumps({"code": code[name], "explanation": "a try"})

        return answer

    steps = [
        {"name": n, "description": n.replace("_", " "), "mode": "code"}
        for n in ("collect_wood", "place_table", "make_wood_pickaxe")
    ]
    never = "def act(ctx):\n    yield Action.NOOP\n"  # places nothing: fails its critic
    sampled, requests, step = code_step_over_http(
        monkeypatch, responder(never), steps, "make_wood_pickaxe", max_repairs=2
    )
    assert step.verdicts["make_wood_pickaxe"].reason == (
        f"not judged: {len(sampled['make_wood_pickaxe'].runs)} of "
        f"{len(sampled['make_wood_pickaxe'].runs)} runs started without a table in view, made by "
        "place_table, which failed before it; make_wood_pickaxe's code is kept as it is until then"
    )
    assert "make_wood_pickaxe" in step.coded  # the code kept
    runs = sampled["make_wood_pickaxe"].runs
    assert runs and not any("table" in view_things(r.before) for r in runs)
    assert fast_asked.count("make_wood_pickaxe") == 1  # not repaired
    critic = [m["messages"][-1]["content"] for m in requests if role_of(m["messages"]) == "critic"]
    assert not any("`make_wood_pickaxe`" in c for c in critic)  # not judged
    assert fast_asked.count("place_table") >= 2  # the failing step itself is repaired
    fast_asked.clear()
    table = "def act(ctx):\n    yield from ctx.place('table')\n"
    sampled, requests, _ = code_step_over_http(
        monkeypatch, responder(table), steps, "make_wood_pickaxe", max_repairs=2
    )
    made = [
        r for r in sampled["make_wood_pickaxe"].runs if "make_wood_pickaxe" in r.after.achievements
    ]
    assert made and fast_asked.count("make_wood_pickaxe") == 1  # passed by its runs


def test_when_no_version_passes_the_critic_the_one_whose_runs_gained_most_is_kept(
    monkeypatch,
) -> None:
    """A weak critic failed working code and the repairs broke it: with no version passed,
    the loop keeps the version whose sample runs added to the inventory or achievements
    most often (the measured outcome), not the last one, and its verdict says so."""
    from rlgpt_tui.agents.schemas import Plan
    from rlgpt_tui.engine.steps.code import Sampled, code_step
    from rlgpt_tui.tasks.catalog import get_task

    chop = 'def act(ctx):\n    yield from ctx.collect("tree")\n'
    wait = "def act(ctx):\n    yield Action.NOOP\n"
    versions = iter([chop, wait, wait.replace("NOOP", "MOVE_LEFT")])

    def responder(messages: list[dict[str, str]]) -> str:
        if role_of(messages) == "fast":
            return json.dumps({"code": next(versions), "explanation": "a try"})
        return json.dumps({"success": False, "reason": "not good enough", "suggestion": ""})

    with ScriptedLLMServer(responder=responder) as server:
        team = llm_team(server, monkeypatch)
        engine = Engine(tiny_settings(max_repairs=2), team, lambda e: None)
        plan = Plan.model_validate(
            {"subactions": [{"name": "chop", "description": "chop a tree", "mode": "code"}]}
        )
        sampled: dict[str, Sampled] = {}
        step = code_step(engine._context(get_task("collect_wood")), plan, {}, sampled)
    assert step.coded["chop"].source == chop
    assert not step.verdicts["chop"].success
    reason = step.verdicts["chop"].reason
    assert "try 1 kept, whose runs added to the inventory or achievements most often" in reason
    assert "(runs that did: try 1: 2, try 2: 0, try 3: 0)" in reason
