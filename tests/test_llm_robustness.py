"""Every LLM answer survivable: structured output, repair, misbehaving servers, bad settings.

Real HTTP against the scripted local server (tests/llm_server.py) through the real ``openai``
client; the assertions are outcomes: the answer used, the one-line error, what was recorded.
"""

from __future__ import annotations

import json
import time

import pytest
from pydantic import ValidationError

from rlgpt_tui.agents.llm_team import LLMTeam
from rlgpt_tui.agents.schemas import (
    CodeAnswer,
    Plan,
    PlanAnswer,
    RLAnswerStrict,
    SubAction,
    TaskPlanAnswer,
    VerdictAnswer,
)
from rlgpt_tui.llm.client import LLMAnswerError, LLMClient
from rlgpt_tui.llm.settings import LLMError, LLMSettings
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.tasks.catalog import get_task
from tests.llm_server import ScriptedLLMServer
from tests.test_agents_engine import PLAN, RL_ANSWER, VERDICT_OK, scripted_agent

TASK = get_task("collect_wood")
ANSWERS = (PlanAnswer, CodeAnswer, RLAnswerStrict, VerdictAnswer, TaskPlanAnswer)


def client_for(server: ScriptedLLMServer, **settings) -> LLMClient:
    values = dict(backoff=0.01, max_retries=1) | settings
    return LLMClient(LLMSettings.resolve(server.base_url, server.model, **values))


@pytest.mark.parametrize("schema", ANSWERS, ids=lambda s: s.__name__)
def test_an_echoed_schema_or_an_empty_object_is_not_an_answer(schema) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        schema.model_validate(schema.model_json_schema())
    with pytest.raises(ValidationError):
        schema.model_validate({})
    schema.model_validate_json(schema.EXAMPLE)  # the example the repair prompt quotes is valid


def test_prompt_examples_are_for_tasks_outside_the_catalog() -> None:
    from rlgpt_tui import ASSETS_DIR
    from rlgpt_tui.tasks.catalog import load_catalog

    catalog = set(load_catalog())
    examples = [s.EXAMPLE for s in ANSWERS]
    prompts = [p.read_text() for p in (ASSETS_DIR / "prompts").glob("*.md")]
    for text in examples + prompts:
        named = {t for t in catalog if t in text}
        assert not named, (named, text[:200])


def test_structured_output_is_sent_and_remembered_when_the_server_takes_it() -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        team = LLMTeam(client_for(server))
        plan = team.slow.plan(TASK, [])
        team.critic.judge_rl(TASK, plan.learned()[0], EvaluationSummary(success_rate=0.5), 0.9)
    assert [s.name for s in plan.subactions] == ["go_to_tree", "collect_wood"]
    formats = [r.get("response_format") for r in server.requests]
    assert all(f and f["type"] == "json_schema" for f in formats)
    sent = formats[0]["json_schema"]
    assert sent["strict"] is True and sent["schema"]["additionalProperties"] is False
    assert set(sent["schema"]["required"]) == {"subactions", "notes"}
    calls = team.client.calls
    assert [(c.mode, c.validated, c.repair_round) for c in calls] == [("json_schema", True, 0)] * 2
    # the prompt text carries the answer's keys and an example, not the JSON Schema
    prompt = server.requests[0]["messages"][-1]["content"]
    assert '"subactions": [{"name": string' in prompt and "$defs" not in prompt


def test_the_sample_budget_is_not_asked_for_and_an_old_answer_giving_one_still_parses() -> None:
    from rlgpt_tui.agents.schemas import SubAction

    old = json.dumps({"high_level_actions": ["go_to_tree"], "samples": 5, "observation": None})
    old_strict = old[:-1] + ', "reward_code": null, "primitives": null}'
    with ScriptedLLMServer() as server:
        server.script = [{"content": old_strict}]
        team = LLMTeam(client_for(server))
        sub = SubAction(name="collect_wood", description="chop", mode="rl")
        answer = team.fast.write_rl(TASK, sub, ["go_to_tree"])
    assert answer.high_level_actions == ["go_to_tree"] and "samples" not in answer.model_dump()
    assert team.client.calls[0].validated and team.client.calls[0].repair_round == 0
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert "samples" not in schema["properties"]  # one meaning: the engine's budget
    assert "samples" not in server.requests[0]["messages"][-1]["content"].split("# Answer")[1]


def test_a_server_refusing_response_format_gets_plain_prompts_from_then_on() -> None:
    with ScriptedLLMServer(responder=scripted_agent, response_format="reject") as server:
        team = LLMTeam(client_for(server))
        team.slow.plan(TASK, [])
        team.slow.plan(TASK, [])
    assert team.client.mode == "plain"
    carried = ["response_format" in r for r in server.requests]
    assert carried == [True, False, False]  # detected once, remembered
    first, *rest = team.client.calls
    assert not first.ok and "response_format refused" in first.error
    assert [(c.mode, c.validated) for c in rest] == [("plain", True)] * 2


def test_repair_quotes_the_error_and_an_example_never_the_schema() -> None:
    echoed = json.dumps(PlanAnswer.model_json_schema())
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": echoed}, {"content": json.dumps(PLAN)}]
        team = LLMTeam(client_for(server, structured="off"))
        plan = team.slow.plan(TASK, [])
    assert plan.subactions[0].name == "go_to_tree"
    repair = server.requests[1]["messages"][-1]["content"]
    assert "the JSON Schema itself" in repair and PlanAnswer.EXAMPLE in repair
    assert '"properties"' not in repair and "$defs" not in repair
    calls = team.client.calls
    assert [(c.validated, c.repair_round) for c in calls] == [(False, 0), (True, 1)]
    assert calls[0].ok and "invalid answer" in calls[0].error


def test_an_answer_failing_every_repair_round_is_an_answer_error() -> None:
    answers = iter(['{"verdict": "fine"}', '{"verdict": "good"}', '{"verdict": "ok"}'])
    with ScriptedLLMServer(responder=lambda m: next(answers)) as server:
        team = LLMTeam(client_for(server, repair_rounds=2))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        with pytest.raises(LLMAnswerError, match="critic answer failed validation 3 times"):
            team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=0.1), 0.9)
    assert [(c.validated, c.repair_round) for c in team.client.calls] == [
        (False, 0),
        (False, 1),
        (False, 2),
    ]
    repair = server.requests[1]["messages"][-1]["content"]
    assert "success: this key is missing" in repair and "verdict: this key is not allowed" in repair


def test_a_repair_answered_with_the_refused_answer_ends_the_repairs() -> None:
    """A 1.5B model answered 7 of 11 plan repairs in six sessions with the refused answer
    word for word, and no later round of those ever passed. The same answer again ends the
    repairs at once (one call saved, about 4,500 tokens of a plan), saying so; a changed
    answer gets its next round."""
    same = '{"verdict": "fine"}'
    with ScriptedLLMServer(responder=lambda m: same) as server:
        team = LLMTeam(client_for(server, repair_rounds=2))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        with pytest.raises(LLMAnswerError, match="critic answer repeated its refused answer"):
            team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=0.1), 0.9)
    assert len(server.requests) == 2
    assert [(c.validated, c.repair_round) for c in team.client.calls] == [(False, 0), (False, 1)]


def test_rl_answer_is_checked_against_the_world_with_the_allowed_names() -> None:
    bad = RL_ANSWER | {"observation": ["pixels"], "primitives": ["jump"]}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(bad)}, {"content": json.dumps(RL_ANSWER)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        answer = team.fast.write_rl(TASK, sub, ["go_to_tree"], env="craftax")
    assert answer.high_level_actions == ["go_to_tree"]
    repair = server.requests[1]["messages"][-1]["content"]
    assert "observation: unknown name(s) pixels: use map, inventory" in repair


def test_start_from_must_be_an_offered_coded_action_or_the_answer_is_repaired() -> None:
    bad = RL_ANSWER | {"start_from": "chop_everything"}
    good = RL_ANSWER | {"start_from": "go_to_tree"}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(bad)}, {"content": json.dumps(good)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        answer = team.fast.write_rl(TASK, sub, ["go_to_tree"], env="craftax")
    assert answer.start_from == "go_to_tree"
    repair = server.requests[1]["messages"][-1]["content"]
    assert "start_from: 'chop_everything' is not a high-level action: use one of go_to_tree" in (
        repair
    )


def test_the_rl_answers_names_are_constrained_in_the_schema_sent_to_the_server() -> None:
    """A grammar-constrained server (llama.cpp, vLLM) cannot answer a name the world or the
    plan lacks: the JSON Schema lists the allowed names. (A 1.5B model answered its own
    sub-action as a high-level action three times when they were free strings.)"""
    with ScriptedLLMServer(responder=scripted_agent) as server:
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        team.fast.write_rl(TASK, sub, ["go_to_tree"], env="craftax")
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]["properties"]

    def names(key: str) -> list[str]:
        branch = next(b for b in schema[key]["anyOf"] if b["type"] != "null")
        return branch["items"]["enum"] if branch["type"] == "array" else branch["enum"]

    assert names("high_level_actions") == ["go_to_tree"]
    assert names("start_from") == ["go_to_tree"]
    assert "collect_wood" not in names("high_level_actions")
    assert names("primitives")[:2] == ["noop", "move_left"] and "jump" not in names("primitives")
    assert "map" in names("observation")


def test_with_no_coded_actions_the_schema_leaves_no_high_level_action_to_name() -> None:
    """When every coded sub-action failed, the RL answer can name none: the schema sent
    allows only an empty list and null. (With no names the enum was once left out, and a
    1.5B model named the prompt example's `go_to_grass` in all three repair rounds.)"""
    answer = RL_ANSWER | {"high_level_actions": None, "start_from": None}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(answer)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        written = team.fast.write_rl(TASK, sub, [], env="craftax")
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]["properties"]
    listed = next(b for b in schema["high_level_actions"]["anyOf"] if b["type"] == "array")
    assert listed["maxItems"] == 0
    assert schema["start_from"]["anyOf"] == [{"type": "null"}]
    assert written.high_level_actions is None and written.start_from is None


def test_names_a_model_repeats_are_kept_once() -> None:
    """A 1.5B model listed its coded action twice; PPO's action table needs each name once
    (the repeat once ended a session with a validation error)."""
    twice = RL_ANSWER | {"high_level_actions": ["go_to_tree", "go_to_tree"], "primitives": None}
    twice |= {"observation": ["map", "inventory", "map"]}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(twice)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        answer = team.fast.write_rl(TASK, sub, ["go_to_tree"], env="craftax")
    assert answer.high_level_actions == ["go_to_tree"]
    assert answer.observation == ["map", "inventory"]
    again = PlanAnswer.model_validate(PLAN | {"subactions": [*PLAN["subactions"]] * 2})
    assert [s.name for s in again.subactions] == [s["name"] for s in PLAN["subactions"]]
    coded, learned = PLAN["subactions"]
    with pytest.raises(ValidationError, match="sub-action names must be distinct"):
        Plan.model_validate(PLAN | {"subactions": [coded, coded, learned]})  # a person's
    learned = PLAN["subactions"][1] | {"high_level_actions": ["go_to_tree", "go_to_tree"]}
    plan = PlanAnswer.model_validate(PLAN | {"subactions": [PLAN["subactions"][0], learned]})
    assert plan.subactions[1].high_level_actions == ["go_to_tree"]


def test_a_code_alone_plan_out_of_the_goals_order_is_repaired() -> None:
    """A 1.5B model planned go_to_table, make_wood_pickaxe, place_table for
    make_wood_pickaxe, and go_to_table, make_wood_pickaxe in another session: code alone
    runs its steps in turn, so the pickaxe step never had a table. Such plans are refused
    naming the order; so is the goal's last step planned alone (its code never had a
    pickaxe); one routine of another name may do the whole goal; with RL the order is free."""

    def step(name: str, mode: str = "code") -> dict:
        return {"name": name, "description": f"do {name}", "mode": mode, "reason": ""} | {
            "high_level_actions": []
        }

    wrong = {"subactions": [step("go_to_table"), step("make_wood_pickaxe"), step("place_table")]}
    right = {"subactions": [step("collect_wood"), step("place_table"), step("make_wood_pickaxe")]}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(wrong)}, {"content": json.dumps(right)}]
        team = LLMTeam(client_for(server))
        plan = team.slow.plan(get_task("make_wood_pickaxe"), [])
        assert [s.name for s in plan.subactions] == [s["name"] for s in right["subactions"]]
        repair = server.requests[1]["messages"][-1]["content"]
        assert (
            "make_wood_pickaxe (step 2) needs wood, table, which no earlier step (go_to_table) "
            "makes and the player does not start with: plan collect_wood, place_table before it"
        ) in repair
        # the next session's plan: a walk to a table, then the pickaxe (no wood, no table)
        short = {"subactions": [step("go_to_table"), step("make_wood_pickaxe")]}
        server.script = [{"content": json.dumps(short)}, {"content": json.dumps(right)}]
        team.slow.plan(get_task("make_wood_pickaxe"), [])
        repair = server.requests[-1]["messages"][-1]["content"]
        assert (
            "subactions: make_wood_pickaxe (step 2) needs wood, table, which no earlier step "
            "(go_to_table) makes"
        ) in repair
        # collect_stone's plan that stops at the pickaxe (the library held those three)
        stops = {"subactions": right["subactions"]}
        server.script = [{"content": json.dumps(stops)}, {"content": json.dumps(stops)}] * 2
        with pytest.raises(LLMAnswerError):
            team.slow.plan(get_task("collect_stone"), [])
        assert (
            "subactions: no step reaches the goal collect_stone (the plan ends at "
            "make_wood_pickaxe): add collect_stone"
        ) in server.requests[-1]["messages"][-1]["content"]
        # a 1.5B model's first collect_stone plan, in 5 sessions: the last step alone
        alone = {"subactions": [step("collect_stone")]}
        server.script = [{"content": json.dumps(alone)}] * 3
        with pytest.raises(LLMAnswerError):
            team.slow.plan(get_task("collect_stone"), [])
        assert (
            "subactions: collect_stone (step 1) needs wood_pickaxe, which no earlier step "
            "makes and the player does not start with: plan collect_wood, place_table, "
            "make_wood_pickaxe before it"
        ) in server.requests[-1]["messages"][-1]["content"]
        one = {"subactions": [step("pickaxe_from_scratch")]}  # one routine may do it all
        server.script = [{"content": json.dumps(one)}]
        assert len(team.slow.plan(get_task("make_wood_pickaxe"), []).subactions) == 1
        learned = {"subactions": [*wrong["subactions"][1:], step("learn", "rl")]}
        server.script = [{"content": json.dumps(learned)}]
        plan = team.slow.plan(get_task("make_wood_pickaxe"), [])
    assert [s.name for s in plan.subactions] == ["make_wood_pickaxe", "place_table", "learn"]


def test_reward_code_failing_its_dry_run_is_repaired_by_the_model() -> None:
    """Reward code indexing a View like a dict fails its dry run (in the validation worker);
    the model gets the error and its fixed code is what the answer holds."""
    broken = RL_ANSWER | {"reward_code": "def reward(prev, now): return now['inventory']['wood']"}
    fixed = RL_ANSWER | {
        "reward_code": "def reward(prev, now):\n    return now.inventory.get('wood', 0) - "
        "prev.inventory.get('wood', 0)\n"
    }
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(broken)}, {"content": json.dumps(fixed)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        answer = team.fast.write_rl(TASK, sub, ["go_to_tree"], env="craftax")
    assert answer.reward_code == fixed["reward_code"]
    repair = server.requests[1]["messages"][-1]["content"]
    assert "reward_code:" in repair and "not subscriptable" in repair


def test_a_repair_answering_the_failing_code_unchanged_ends_the_ask_at_once() -> None:
    """A 1.5B model answered a repair with the failing code itself (only its layout
    changed), and asked again it did so again: 51 such answers in one crafter_score session
    (half its 350,000 tokens), of which a further round changed one in 20. Such an answer
    fails the ask at once, without repair rounds (the engine keeps the code it has); a
    changed answer is taken as before."""
    failing = "def act(ctx):\n    yield from ctx.place('wood_pickaxe')\n"
    same = "def act(ctx):\n\n    yield from ctx.place(  'wood_pickaxe' )  # again\n"
    fixed = "def act(ctx):\n    yield from ctx.make('wood_pickaxe')\n"
    sub = SubAction(name="make_wood_pickaxe", description="make a pickaxe", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"content": json.dumps({"code": same, "explanation": "the same"})},
            {"content": json.dumps({"code": fixed, "explanation": "make it"})},
        ]
        team = LLMTeam(client_for(server))
        with pytest.raises(LLMAnswerError, match="previous code unchanged, which failed: the"):
            team.fast.write_code(TASK, sub, previous=failing, problem="it is made, not placed")
        assert len(server.requests) == 1  # no repair round asked
        code = team.fast.write_code(TASK, sub, previous=failing, problem="it is made, not placed")
    assert code == fixed
    assert [c.validated for c in team.fast.client.calls] == [False, True]


def test_place_code_that_looks_for_what_it_is_to_place_is_repaired() -> None:
    """A 1.5B model's place_table walked to `ctx.nearest("table")` in each of 6 versions:
    there is no table until the step places one. Such code is refused naming the fix; the
    model's next answer places it. place_stone may look for stone (it is mined first)."""
    walks = (
        "def act(ctx):\n    table = ctx.nearest('table')\n    if table is None:\n"
        "        yield from ctx.explore(6)\n        return False\n"
        "    yield from ctx.go_to(table)\n    yield from ctx.face(table)\n"
        "    yield from ctx.place('table')\n"
    )
    places = "def act(ctx):\n    yield from ctx.place('table')\n"
    mines = (
        "def act(ctx):\n    yield from ctx.collect('stone')\n    yield from ctx.place('stone')\n"
    )
    table = SubAction(name="place_table", description="place a table", mode="code")
    stone = SubAction(name="place_stone", description="mine, then place stone", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"content": json.dumps({"code": walks, "explanation": "walk to the table"})},
            {"content": json.dumps({"code": places, "explanation": "place it"})},
            {"content": json.dumps({"code": mines, "explanation": "mine, then place"})},
        ]
        team = LLMTeam(client_for(server))
        assert team.fast.write_code(TASK, table) == places
        assert team.fast.write_code(TASK, stone) == mines
    first = server.requests[0]["messages"][-1]["content"]
    assert CodeAnswer.PLACE_EXAMPLE in first and CodeAnswer.EXAMPLE not in first
    repair = server.requests[1]["messages"][-1]["content"]
    assert (
        "code: place_table looks for a table (ctx.nearest('table')), but there is none until "
        "this step places it: do not look for one; face a free tile and `yield from "
        "ctx.place('table')`"
    ) in repair


def answered_code(task: str, sub: SubAction, *codes: str) -> tuple[str, list[str]]:
    """The code the fast agent keeps for ``sub`` when the model answers ``codes`` in turn,
    and each request it sent (the refusals are in the repair requests)."""
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"content": json.dumps({"code": code, "explanation": "x"})} for code in codes
        ]
        code = LLMTeam(client_for(server)).fast.write_code(get_task(task), sub)
    return code, [r["messages"][-1]["content"] for r in server.requests]


def test_code_calling_a_helper_that_does_not_exist_is_repaired() -> None:
    """A 1.5B model's eat_cow walked to the cow and called `ctx.do()`, which is no helper:
    each call ended in an AttributeError after the walk, and the crafter_score plan that
    ran it starved. Such code is refused naming the primitive (or the closest helpers), and
    the model's next answer is what the step gets."""
    walk = "def act(ctx):\n    cow = ctx.nearest('cow')\n    yield from ctx.go_to(cow)\n"
    does = walk + "    yield from ctx.face(cow)\n    yield from ctx.do()\n"
    goto = does.replace("ctx.go_to(", "ctx.goto(")
    hits = does.replace("yield from ctx.do()", "yield Action.DO")
    eat = SubAction(name="eat_cow", description="find a cow and eat it", mode="code")
    code, asks = answered_code("eat_cow", eat, does, goto, hits)
    assert code == hits
    assert "code: ctx.do is no helper; do is a primitive action: `yield Action.DO`" in asks[1]
    assert "code: ctx.goto is no helper; did you mean go_to?" in asks[2]
    # its survive drank with Action.DRINK, which only failed where its dry run got that far
    water = "def act(ctx):\n    yield from ctx.go_to(ctx.nearest('water'))\n"
    drinks = water + "    yield Action.DRINK\n"
    hits = water + "    yield Action.DO\n"
    drink = SubAction(name="collect_drink", description="drink water", mode="code")
    code, asks = answered_code("collect_drink", drink, drinks, hits)
    assert code == hits
    assert (
        "code: Action.DRINK is no primitive action (drinking, eating and hitting are Action.DO, "
        "facing water, a cow or a mob)"
    ) in asks[1]


def test_code_reading_a_stat_from_the_inventory_is_repaired() -> None:
    """A 1.5B model's survive slept `while ctx.inventory.get('energy', 0) < 9`: energy is no
    inventory item, so the loop slept to the end of every call, and 62 of 64 players were
    killed by a zombie in their sleep. Such code is refused naming where the stat is, and
    the model's next answer is what the step gets."""
    sleeps = (
        "def act(ctx):\n    while ctx.inventory.get('energy', 0) < 9:\n        yield Action.SLEEP\n"
    )
    eats = (
        "def act(ctx):\n    if ctx.inventory['food'] < 5:\n        yield from ctx.collect('cow')\n"
    )
    rests = sleeps.replace("ctx.inventory.get('energy', 0)", "ctx.view.energy")
    survive = SubAction(name="survive", description="sleep when tired", mode="code")
    code, asks = answered_code("survive_night", survive, sleeps, eats, rests)
    assert code == rests
    assert "code: energy is a stat, not an inventory item: read ctx.view.energy (0-9)" in asks[1]
    assert "code: food is a stat, not an inventory item: read ctx.view.food (0-9)" in asks[2]


def test_step_code_is_held_to_the_worlds_recipe() -> None:
    """A 1.5B model's place_table for collect_stone waited for 2 stone in every version (the
    recipe uses 2 wood) and its make_stone_pickaxe hit the table with `do`. The request
    gives the step's recipe and helper; code checking for an item the recipe does not
    involve, or never doing a place or make step, is refused quoting the recipe, and the
    model's next answer (sampled hotter) is what the step gets."""
    stone_wait = "def act(ctx):\n    if not ctx.has('stone', 2):\n        return False\n" + (
        "    return (yield from ctx.place('table'))\n"
    )
    wood_wait = stone_wait.replace("'stone'", "'wood'")
    hits = (
        "def act(ctx):\n    table = ctx.nearest('table')\n    if table is None:\n"
        "        return False\n    yield from ctx.go_to(table)\n    yield from ctx.face(table)\n"
        "    yield Action.DO\n"
    )
    makes = hits.replace("yield Action.DO", "return (yield from ctx.make('stone_pickaxe'))")
    table = SubAction(name="place_table", description="place a table", mode="code")
    pickaxe = SubAction(name="make_stone_pickaxe", description="make it", mode="code")
    task = get_task("collect_stone")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"content": json.dumps({"code": code, "explanation": "x"})}
            for code in (stone_wait, wood_wait, hits, makes)
        ]
        team = LLMTeam(client_for(server))
        assert team.fast.write_code(task, table) == wood_wait
        assert team.fast.write_code(get_task("make_stone_pickaxe"), pickaxe) == makes
    asks = [r["messages"][-1]["content"] for r in server.requests]
    # each repair round samples hotter: at 0.2 the model answered the same code 3 times
    assert [r["temperature"] for r in server.requests] == [0.2, 0.6, 0.2, 0.6]
    assert (
        "The world's recipe for this step: place_table: face a free tile (grass, sand, path) "
        "and use the place_table action (uses 2 wood). The helper that does it once: "
        "`yield from ctx.place('table')`."
    ) in asks[0]
    assert (
        "code: place_table checks for stone (ctx.has('stone')), which its recipe does not "
        "involve: place_table: face a free tile"
    ) in asks[1]
    from rlgpt_tui.agents.fast.checks import recipe_check

    tooled = "def act(ctx):\n    if not ctx.has('wood_pickaxe'):\n        return False\n" + (
        "    yield from ctx.collect('stone')\n    yield from ctx.place('stone')\n"
    )
    recipe_check(team.fast.docs.step("place_stone"))(CodeAnswer(code=tooled, explanation=""))
    # the model's collect_stone, copied from the library's collect_wood down to its return
    copied = "def act(ctx):\n    yield from ctx.collect('stone')\n    return ctx.has('wood')\n"
    recipe_check(team.fast.docs.step("collect_stone"))(CodeAnswer(code=copied, explanation=""))
    assert (
        "code: make_stone_pickaxe never does the step: make_stone_pickaxe: within a few tiles "
        "of table, use the make_stone_pickaxe action (uses 1 wood, 1 stone); the helper: "
        "`yield from ctx.make('stone_pickaxe')`"
    ) in asks[3]


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ({"raw": b"hello", "content_type": "text/plain"}, "content type 'text/plain'"),
        ({"body": {"id": "x", "object": "chat.completion"}}, "without choices"),
        ({"body": {"choices": [{"index": 0, "message": None}]}}, "message is null"),
        ({"raw": b"[" * 100_000 + b"]" * 100_000}, "nested deeper than"),
        ({"body": {"choices": [{"message": {"content": 7}}]}}, "content of type int"),
        (
            {"content": "{}", "usage": {"prompt_tokens": "many", "completion_tokens": 1}},
            "usage.prompt_tokens = 'many'",
        ),
    ],
    ids=["text-plain", "no-choices", "null-message", "deep-body", "int-content", "str-usage"],
)
def test_malformed_responses_give_one_line_naming_the_endpoint(step, expected) -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [step]
        client = client_for(server)
        with pytest.raises(LLMAnswerError) as caught:
            client.chat("critic", [{"role": "user", "content": "judge"}])
    message = str(caught.value)
    assert expected in message and server.base_url in message and "\n" not in message
    assert len(server.requests) == 1  # not retried: a retry cannot fix a broken server
    assert client.calls[-1].error == message


def test_token_counts_as_digit_strings_are_read_and_odd_text_is_made_safe() -> None:
    text = "ok [/] \ud800 end\x00"
    usage = {"prompt_tokens": "12", "completion_tokens": "3"}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": text, "usage": usage}]
        client = client_for(server)
        answer = client.chat("critic", [{"role": "user", "content": "judge"}])
    assert answer == "ok [/] \ufffd end"
    assert (client.calls[-1].prompt_tokens, client.calls[-1].completion_tokens) == (12, 3)


def test_an_answer_nested_40000_deep_is_refused_before_parsing() -> None:
    deep = "[" * 40_000 + "]" * 40_000
    with ScriptedLLMServer(responder=lambda m: deep) as server:
        client = client_for(server, repair_rounds=0, structured="off")
        with pytest.raises(LLMAnswerError, match="failed validation 1 times"):
            client.structured("critic", [{"role": "user", "content": "judge"}], VerdictAnswer)
    assert "nested deeper than 32" in client.calls[-1].error


@pytest.mark.slow
def test_a_server_dripping_bytes_hits_the_total_deadline() -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"drip": 0.5}]
        client = client_for(server, timeout=2, max_retries=0)
        started = time.monotonic()
        with pytest.raises(
            LLMError, match=r"timed out after 2 s \(1 try\): raise the timeout .*--llm-timeout"
        ):
            client.chat("slow", [{"role": "user", "content": "plan"}])
        assert time.monotonic() - started < 5  # a per-read timeout would never fire


def test_a_rate_limit_with_retry_after_is_waited_out_by_the_sdk() -> None:
    """HTTP retries are the openai SDK's: a 429 saying Retry-After: 2 is tried again after
    two seconds (its own backoff would be under one), and the call then succeeds."""
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [
            {"status": 429, "headers": {"Retry-After": "2"}},
            {"content": json.dumps(VERDICT_OK)},
        ]
        client = client_for(server, timeout=10, max_retries=2)
        text = client.chat("critic", [{"role": "user", "content": "judge"}])
        waited = server.arrived[1] - server.arrived[0]
    assert json.loads(text) == VERDICT_OK
    assert client.calls[-1].attempts == 2 and client.calls[-1].ok
    assert 1.9 <= waited < 5, waited
    assert [h["x-stainless-retry-count"] for h in server.headers] == ["0", "1"]


def test_a_rate_limit_past_the_retries_is_one_line_naming_the_tries() -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"status": 429, "headers": {"Retry-After": "0.1"}}] * 2
        client = client_for(server, max_retries=1)
        with pytest.raises(LLMError, match=r"kept failing \(RateLimitError\) after 2 tries"):
            client.chat("critic", [{"role": "user", "content": "judge"}])
        assert len(server.requests) == 2


def test_an_endless_body_is_cut_at_the_size_cap() -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"flood": True}]
        client = client_for(server, timeout=30)
        started = time.monotonic()
        with pytest.raises(LLMAnswerError, match="sent more than 4,000,000 bytes"):
            client.chat("slow", [{"role": "user", "content": "plan"}])
        assert time.monotonic() - started < 20


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('timeout = "soon"', "LLM setting timeout = 'soon' is invalid: it must be seconds"),
        ("max_tokens = -5", "max_tokens = -5 is invalid"),
        ("temperature = nan", "temperature = nan is invalid"),
        ('structured = "maybe"', "auto or json_schema or off"),
        ("vision = 1", "vision = 1 is invalid: it must be true or false"),
        ("color = 3", "unknown LLM setting(s) color"),
    ],
)
def test_bad_llm_settings_are_one_line(tmp_path, table, expected) -> None:
    path = tmp_path / "llm.toml"
    path.write_text(f'[llm]\nmodel = "m"\n{table}\n')
    with pytest.raises(LLMError) as caught:
        LLMSettings.resolve(config_file=path, environ={})
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_missing_binary_or_odd_llm_config_files_are_errors(tmp_path) -> None:
    with pytest.raises(LLMError, match="cannot read --llm-config"):
        LLMSettings.resolve(config_file=tmp_path / "nope.toml", environ={})
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(LLMError, match="is not a text file"):
        LLMSettings.resolve(config_file=binary, environ={})
    odd = tmp_path / "odd.toml"
    odd.write_text('llm = "gpt"\n')
    with pytest.raises(LLMError, match="must be a table"):
        LLMSettings.resolve(config_file=odd, environ={})


def test_a_frequency_penalty_from_the_config_file_reaches_the_server(tmp_path) -> None:
    """A 1.5B model's code answers looped on one line until max_tokens; `[llm]
    frequency_penalty` is sent with every request (never when 0), and a value out of
    OpenAI's range is one line naming it."""
    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nfrequency_penalty = 0.5\n")
    for settings, sent in (({"config_file": config}, 0.5), ({}, None)):
        with ScriptedLLMServer(responder=scripted_agent) as server:
            values = dict(backoff=0.01, max_retries=1, environ={}) | settings
            llm = LLMSettings.resolve(server.base_url, server.model, **values)
            LLMTeam(LLMClient(llm)).slow.plan(TASK, [])
        assert [r.get("frequency_penalty") for r in server.requests] == [sent]
    config.write_text("[llm]\nfrequency_penalty = 5\n")
    with pytest.raises(LLMError, match=r"frequency_penalty.*\[-2, 2\]"):
        LLMSettings.resolve(config_file=config, environ={})


def test_verdict_ok_is_a_valid_answer() -> None:
    verdict = VerdictAnswer.model_validate(VERDICT_OK)  # no ValidationError: it is valid
    assert verdict.model_dump(include=set(VERDICT_OK)) == VERDICT_OK  # taken as it was written


def test_free_comments_may_be_left_out_but_an_rl_sub_action_names_its_actions() -> None:
    from pydantic import ValidationError

    code = {"name": "go_to_grass", "description": "walk to grass", "mode": "code"}
    rl = {"name": "collect_sapling", "description": "search grass", "mode": "rl"}
    plan = PlanAnswer.model_validate({"subactions": [code, rl | {"high_level_actions": []}]})
    assert plan.notes == "" and plan.subactions[0].high_level_actions == []
    with pytest.raises(ValidationError, match="high_level_actions is required for an rl"):
        PlanAnswer.model_validate({"subactions": [code, rl]})
    VerdictAnswer.model_validate({"success": True, "reason": "it works"})
    with pytest.raises(ValidationError):
        VerdictAnswer.model_validate({"success": True, "reason": ""})


def test_the_first_object_is_taken_when_a_second_one_follows() -> None:
    from rlgpt_tui.llm.answers import extract_json

    assert extract_json('{"a": 1}\n{"a": 2}\nDone.') == {"a": 1}
    with pytest.raises(ValueError, match="not JSON"):
        extract_json('{"a": ')


def test_a_web_page_instead_of_an_api_gives_one_line_not_a_traceback() -> None:
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.models_page = (b"<html>hello</html>", "text/html")
        server.script = [{"raw": b"<html>hello</html>", "content_type": "text/html"}]
        client = client_for(server)
        client.check()  # a model list it cannot read: the first call tells
        with pytest.raises(LLMAnswerError, match="content type 'text/html', not JSON"):
            client.chat("slow", [{"role": "user", "content": "plan"}])


# -- answers grounded in evidence ------------------------------------------------------------
def test_a_verdict_repeating_the_prompts_example_is_repaired() -> None:
    copied = json.loads(VerdictAnswer.EXAMPLE)
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(copied)}, {"content": json.dumps(VERDICT_OK)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        verdict = team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=0.95), 0.9)
    assert verdict.reason == VERDICT_OK["reason"]
    repair = server.requests[1]["messages"][-1]["content"]
    assert "repeats the prompt's example" in repair
    assert "what the runs show with their counts" in repair


def test_a_verdict_naming_what_its_evidence_lacks_is_repaired() -> None:
    grass = {"success": False, "reason": "the policy wanders in the grass", "suggestion": ""}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(grass)}, {"content": json.dumps(VERDICT_OK)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=0.95), 0.9)
    repair = server.requests[1]["messages"][-1]["content"]
    assert "the reason names grass, which the evidence does not show" in repair


@pytest.mark.parametrize(
    ("said", "rate", "passed", "expected"),
    [
        (False, 1.0, True, "success rate 1.00 reaches the target 0.90 (the critic said fail: "),
        (True, 0.25, False, "success rate 0.25 is below the target 0.90 (the critic said pass: "),
    ],
    ids=["fail-at-target", "pass-below-target"],
)
def test_the_measured_figure_overrules_a_verdict_that_contradicts_it(
    said, rate, passed, expected
) -> None:
    answer = {"success": said, "reason": "the player did not collect any wood", "suggestion": ""}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(answer)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        verdict = team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=rate), 0.9)
    assert verdict.success is passed
    assert verdict.reason.startswith("overruled by the measured figure: " + expected)
    assert verdict.reason.endswith("the player did not collect any wood)")


def test_an_rl_verdict_denying_what_the_evaluation_shows_is_overruled() -> None:
    """A 1.5B critic said "did not collect any coal" of a collect_coal policy whose
    evaluation collected coal in 69% of its episodes (below the 0.90 target): the verdict
    stays a fail, by the measured figure, and the recorded reason says what the evaluation
    showed. A denial of an amount ("not enough coal") stands."""
    task = get_task("collect_coal")
    sub = SubAction(name="learn_collect_coal", description="collect coal", mode="rl")
    evaluation = EvaluationSummary(
        success_rate=0.69,
        achievement_rates={"collect_wood": 1.0, "collect_coal": 0.69, "eat_cow": 0.0},
    )
    said = "The sub-action 'learn_collect_coal' did not collect any coal."
    for reason, overruled in ((said, True), ("it found not enough coal", False)):
        answer = {"success": False, "reason": reason, "suggestion": ""}
        with ScriptedLLMServer(responder=scripted_agent) as server:
            server.script = [{"content": json.dumps(answer)}]
            verdict = LLMTeam(client_for(server)).critic.judge_rl(task, sub, evaluation, 0.9)
        assert verdict.success is False
        expected = (
            "overruled by the evaluation: collect_coal in 69% of its episodes, which the "
            "critic's reason denies; the measured figure: success rate 0.69 is below the "
            f"target 0.90 (the critic said fail: {said})"
        )
        assert verdict.reason == (expected if overruled else reason)


def test_a_steps_code_example_is_a_library_skill_of_its_kind() -> None:
    """A 1.5B model's collect_stone copied the library's shortest skill, its place_table
    ("no wood held? return; place"), as "no stone held? return; collect". A step's example
    is a skill of its own kind; a place or make step gets no other kind (a make step shown
    a walk and three `do`s hit the table), any other step no place skill (the made-up
    world's example of its kind where none fits)."""
    from rlgpt_tui.library.shelf import ShelfSkill, SkillShelf

    def skill(name: str, body: str) -> ShelfSkill:
        return ShelfSkill(name, name, f"def act(ctx):\n    {body}\n", "llm:m")

    chop = skill("collect_wood", 'yield from ctx.collect("tree")\n    yield Action.DO')
    place = skill("place_table", 'return (yield from ctx.place("table"))')
    shelf = SkillShelf(skills=[chop, place])
    assert json.loads(shelf.code_example("collect_stone"))["code"] == chop.source
    assert json.loads(shelf.code_example("place_furnace"))["code"] == place.source
    assert json.loads(shelf.code_example("go_to_stone"))["code"] == chop.source
    assert SkillShelf(skills=[chop]).code_example("place_table") is None
    assert SkillShelf(skills=[place]).code_example("collect_stone") is None
    # a make step gets no walk-and-hit routine: the made-up world's make example instead
    assert shelf.code_example("make_stone_pickaxe") is None
    assert CodeAnswer.example_for("make_stone_pickaxe") == CodeAnswer.MAKE_EXAMPLE
    assert 'ctx.make(\\"brick\\")' in CodeAnswer.MAKE_EXAMPLE


def test_a_copied_library_skill_that_does_another_step_is_told_what_to_change() -> None:
    """A 1.5B model's place_furnace (curriculum session, library with its own place_stone)
    was the library's place_stone word for word in 3 of 3 answers, each refused only as a
    copy of the example. The recipe's line comes first; adapted to the furnace, the
    model's own skill is an answer."""
    from rlgpt_tui.library.shelf import ShelfSkill, SkillShelf

    stone = ShelfSkill(
        "place_stone",
        "place a stone",
        "def act(ctx):\n    if not ctx.has('stone'):\n        return False\n"
        "    return (yield from ctx.place('stone'))\n",
        "llm:m",
    )
    shelf = SkillShelf(skills=[stone])
    copied = {"code": stone.source, "explanation": "place it"}
    adapted = {"code": stone.source.replace("'stone'", "'furnace'", 2), "explanation": "x"}
    adapted["code"] = adapted["code"].replace("ctx.has('furnace')", "ctx.has('stone')")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(copied)}, {"content": json.dumps(adapted)}]
        team = LLMTeam(client_for(server), shelf=shelf)
        sub = SubAction(name="place_furnace", description="place a furnace", mode="code")
        code = team.fast.write_code(get_task("place_furnace"), sub)
    repair = server.requests[1]["messages"][-1]["content"]
    assert "place_furnace never does the step" in repair and "ctx.place('furnace')" in repair
    assert "ctx.place('furnace')" in code and code != stone.source
    # copied in every round, whatever the repair line says: asked once more with the
    # made-up world's example of its kind instead of the library's skill
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(copied)}] * 3 + [{"content": json.dumps(adapted)}]
        team = LLMTeam(client_for(server), shelf=shelf)
        code = team.fast.write_code(get_task("place_furnace"), sub)
    assert "ctx.place('furnace')" in code
    last = server.requests[-1]["messages"][1]["content"]
    assert CodeAnswer.PLACE_EXAMPLE in last and json.dumps(copied["code"])[1:-1] not in last


def test_code_repeating_the_example_is_repaired_and_the_example_comes_from_the_library() -> None:
    from rlgpt_tui.library.shelf import builtin_shelf

    shelf = builtin_shelf()
    shown = json.loads(shelf.code_example("chop_tree"))
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(shown)}]  # then the scripted agent's own code
        team = LLMTeam(client_for(server), shelf=shelf)
        sub = PlanAnswer.model_validate(PLAN).subactions[0].model_copy(update={"name": "chop_tree"})
        code = team.fast.write_code(TASK, sub)
    assert code != shown["code"] and "def act(ctx)" in code
    prompt = server.requests[0]["messages"][-1]["content"]
    assert json.dumps(shown) in prompt  # a validated library skill, not the fixed example
    assert "nearest grass" not in prompt
    repair = server.requests[1]["messages"][-1]["content"]
    assert "repeats the prompt's example" in repair


def test_a_pass_for_code_whose_every_run_failed_is_overruled() -> None:
    from rlgpt_tui.agents.runs import Execution
    from rlgpt_tui.envs.craftax_world import CraftaxWorld
    from rlgpt_tui.rl.episodes import run_one_call_each
    from rlgpt_tui.skills.validation import validate

    code = "def act(ctx):\n    yield 0\n    raise KeyError('x')\n"
    broken = validate("go_to_tree", code, dry_run=False)  # it would fail its dry run
    world = CraftaxWorld(num_envs=4, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, broken)
    world.close()
    runs = [Execution(b, a, r.steps, r.end) for b, a, r in zip(before, after, records, strict=True)]
    with ScriptedLLMServer(responder=scripted_agent) as server:  # the critic says: pass
        team = LLMTeam(client_for(server))
        verdict = team.critic.judge_code(TASK, PlanAnswer.model_validate(PLAN).subactions[0], runs)
    assert not verdict.success
    assert verdict.reason == (
        "overruled by the runs: every run failed (error) (the critic said pass: "
        f"{VERDICT_OK['reason']})"
    )
    # the critic judged from measured counts first, then the runs themselves
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "Measured over the 4 runs: ended error 4; facing at the end: " in prompt
    assert "inventory or achievements changed in 0 of 4; health lost in 0 of 4." in prompt


def _chop_runs(envs: int = 2, code: str = 'yield from ctx.collect("tree")') -> list:
    """Real runs of one call of a routine that chops the nearest tree (each gains wood),
    or of ``code`` (the body of ``act``)."""
    from rlgpt_tui.agents.runs import Execution
    from rlgpt_tui.envs.craftax_world import CraftaxWorld
    from rlgpt_tui.rl.episodes import run_one_call_each
    from rlgpt_tui.skills.validation import validate

    chop = validate("routine", f"def act(ctx):\n    {code}\n")
    world = CraftaxWorld(num_envs=envs, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, chop)
    world.close()
    return [Execution(b, a, r.steps, r.end) for b, a, r in zip(before, after, records, strict=True)]


def test_a_code_verdict_judging_the_step_by_the_tasks_goal_is_repaired() -> None:
    """A step is judged by its own description: "no table placed" is no reason to fail a
    wood routine of the place_table task whose runs show only trees and grass (named
    gather_wood: a collect_wood whose every run gained wood passes by its runs)."""
    runs = _chop_runs()
    goal = {"success": False, "reason": "the player did not place a table", "suggestion": ""}
    step = {"success": True, "reason": "wood +1 in 2 of 2 runs", "suggestion": ""}
    sub = SubAction(name="gather_wood", description="chop a tree once", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(goal)}, {"content": json.dumps(step)}]
        team = LLMTeam(client_for(server))
        verdict = team.critic.judge_code(get_task("place_table"), sub, runs)
    repair = server.requests[1]["messages"][-1]["content"]
    assert "the reason names table, which the evidence does not show" in repair
    assert verdict.success and verdict.reason == step["reason"]


def test_a_fail_denying_what_every_run_gained_is_overruled_by_the_runs() -> None:
    """A 1.5B critic said "did not collect any wood" of a reused collect_wood whose 8 runs
    each gained wood, and the loop rewrote working code. Such a fail is overruled (and says
    so); a fail about the amount ("not 2 wood") stands. (A step named collect_wood whose
    every run gained wood is not judged at all: it passes by its runs.)"""
    runs = _chop_runs()
    assert all(r.after.inventory.get("wood", 0) > r.before.inventory.get("wood", 0) for r in runs)
    denial = {
        "success": False,
        "reason": "The sub-action did not collect any wood. The player was facing grass.",
        "suggestion": "go to a tree",
    }
    amount = {"success": False, "reason": "it did not hold 2 wood at the end", "suggestion": ""}
    sub = SubAction(name="gather_wood", description="chop trees until 2 wood", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(denial)}, {"content": json.dumps(amount)}]
        team = LLMTeam(client_for(server))
        overruled = team.critic.judge_code(get_task("make_wood_pickaxe"), sub, runs)
        kept = team.critic.judge_code(get_task("make_wood_pickaxe"), sub, runs)
    assert overruled.success
    assert overruled.reason == (
        "overruled by the runs: every run gained wood (2 of 2), which the critic's reason "
        f"denies (the critic said fail: {denial['reason']})"
    )
    assert not kept.success and kept.reason == amount["reason"]


def test_a_step_whose_runs_unlocked_its_achievement_passes_without_the_critic() -> None:
    """A 1.5B critic failed a reused make_wood_pickaxe "did not collect any wood", and
    another that made the pickaxe in 7 of 8 runs; each time the loop rewrote working code.
    A place or make step whose runs (3 in 4 or more) unlocked the achievement it is named
    for passes without asking the critic (saying so); where fewer did, the critic judges."""
    from rlgpt_tui.agents.critic.overrule import passed_by_runs

    places = _chop_runs(
        code='yield from ctx.collect("tree")\n    yield from ctx.collect("tree")\n'
        '    yield from ctx.place("table")'
    )
    assert all("place_table" in r.after.achievements for r in places)
    chops = _chop_runs()
    sub = SubAction(name="place_table", description="place a table", mode="code")
    fail = {"success": False, "reason": "the step did not do as described", "suggestion": ""}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(fail)}]
        team = LLMTeam(client_for(server))
        passed = team.critic.judge_code(TASK, sub, places * 3 + chops)
        assert server.requests == []  # the runs decided: no critic call, no tokens
        judged = team.critic.judge_code(TASK, sub, places + chops)  # 2 of 4: the critic's
    assert passed.success and passed.reason == (  # the chops, with no wood for it, left out
        "passed by the runs: 6 of 6 runs unlocked place_table, the achievement this step is "
        "named for; 2 of 8 runs started without 2 wood and did not do it: they do not count "
        "(the critic was not asked)"
    )
    assert not judged.success and judged.reason == fail["reason"]
    assert len(server.requests) == 1
    assert passed_by_runs(places * 3 + chops, "place_table").reason == (  # no recipe: all count
        "passed by the runs: 6 of 8 runs unlocked place_table, the achievement this step is "
        "named for (the critic was not asked)"
    )
    assert passed_by_runs(places + chops, "place_table") is None  # 2 of 4
    assert passed_by_runs(chops, "collect_stone") is None  # no run gained stone
    assert passed_by_runs(chops, "collect_wood").reason == (  # every run gained wood
        "passed by the runs: every run gained wood (2 of 2), which collect_wood is named for "
        "(the critic was not asked)"
    )


def _stone_runs(pickaxe_first: bool) -> list:
    """Real runs of one call of a step that finds stone and mines it, in 4 worlds of seed
    5: after a call that made a wood pickaxe in each (each then gains stone), or without
    one (none can)."""
    from rlgpt_tui.agents.runs import Execution
    from rlgpt_tui.envs.craftax_world import CraftaxWorld
    from rlgpt_tui.rl.episodes import run_one_call_each
    from rlgpt_tui.skills.validation import validate

    pickaxe = validate(
        "make_wood_pickaxe",
        "def act(ctx):\n    for _ in range(3):\n        yield from ctx.collect('tree')\n"
        "    yield from ctx.place('table')\n    yield from ctx.make('wood_pickaxe')\n",
    )
    stone = validate(
        "collect_stone",
        "def act(ctx):\n    for _ in range(6):\n        if ctx.nearest('stone') is not None:\n"
        "            return (yield from ctx.collect('stone'))\n"
        "        yield from ctx.explore(8)\n    return False\n",
    )
    world = CraftaxWorld(num_envs=4, seed=5)
    world.reset(5)
    if pickaxe_first:
        run_one_call_each(world, pickaxe)
    before, after, records = run_one_call_each(world, stone)
    world.close()
    return [Execution(b, a, r.steps, r.end) for b, a, r in zip(before, after, records, strict=True)]


def test_runs_that_started_without_what_the_step_uses_do_not_count_against_it() -> None:
    """A 1.5B critic failed a reused collect_stone "did not collect any stone in the first
    run", a run whose earlier steps had left it no pickaxe, while each run with one gained
    stone; the repair cost tokens and changed nothing. Runs that started without what the
    world's recipe says the step uses do not count: the rest decide, without the critic,
    when they are more than half; at half or fewer, the critic judges."""
    armed, bare = _stone_runs(True), _stone_runs(False)
    assert all(r.before.inventory.get("wood_pickaxe") for r in armed)
    assert all(r.after.inventory.get("stone") for r in armed)
    assert not any(r.before.inventory.get("wood_pickaxe") for r in bare)
    assert not any(r.after.inventory.get("stone") for r in bare)
    sub = SubAction(name="collect_stone", description="mine one stone", mode="code")
    fail = {"success": False, "reason": "no stone in the first run", "suggestion": ""}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(fail)}]
        team = LLMTeam(client_for(server))
        passed = team.critic.judge_code(get_task("make_stone_sword"), sub, bare[:3] + armed)
        assert server.requests == []  # the runs decided: no critic call, no tokens
        judged = team.critic.judge_code(get_task("make_stone_sword"), sub, bare + armed)
    assert passed.success and passed.reason == (
        "passed by the runs: every run that counts gained stone (4 of 4), which collect_stone "
        "is named for; 3 of 7 runs started without 1 wood_pickaxe and did not do it: they do "
        "not count (the critic was not asked)"
    )
    assert not judged.success and judged.reason == fail["reason"]  # 4 of 8: the critic's
    assert len(server.requests) == 1


def test_with_no_verdict_runs_that_gained_what_the_step_is_named_for_pass_it() -> None:
    """A critic whose every answer is refused (a 1.5B model named the task's table in each
    verdict on collect_wood) leaves the runs to decide: each gained wood, so gather_wood
    passes, saying why; a step named for nothing they gained still fails."""
    from rlgpt_tui.agents.critic.overrule import measured_verdict

    runs = _chop_runs()
    table = {"success": False, "reason": "no table was placed", "suggestion": ""}
    sub = SubAction(name="gather_wood", description="chop trees until 2 wood", mode="code")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(table)}] * 3
        team = LLMTeam(client_for(server))
        with pytest.raises(LLMAnswerError) as failed:
            team.critic.judge_code(get_task("place_table"), sub, runs)
    verdict = measured_verdict(sub, runs, str(failed.value))
    assert verdict.success
    assert verdict.reason.startswith(
        "passed by the runs: every run gained wood (2 of 2), which gather_wood is named for "
        "(the critic gave no verdict: "
    )
    go = SubAction(name="go_to_table", description="walk to the table", mode="code")
    assert not measured_verdict(go, runs, "refused 3 times").success


def test_new_code_runs_library_skills_through_ctx_skill_and_unknown_ones_are_repaired() -> None:
    from rlgpt_tui.envs.craftax_world import CraftaxWorld
    from rlgpt_tui.library.shelf import builtin_shelf
    from rlgpt_tui.rl.episodes import run_one_call_each
    from rlgpt_tui.skills.validation import validate

    wrong = "def act(ctx):\n    yield from ctx.skill('fly_to_tree')\n"
    right = (
        "def act(ctx):\n"
        "    # the library walks; this code only chops\n"
        "    if (yield from ctx.skill('go_to_tree')):\n"
        "        yield Action.DO\n"
    )
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps({"code": c})} for c in (wrong, right)]
        team = LLMTeam(client_for(server), shelf=builtin_shelf())
        sub = PlanAnswer.model_validate(PLAN).subactions[0].model_copy(update={"name": "chop_tree"})
        code = team.fast.write_code(TASK, sub)
    assert "go_to_tree" in server.requests[0]["messages"][-1]["content"]  # offered by name
    repair = server.requests[1]["messages"][-1]["content"]
    assert "ctx.skill('fly_to_tree'): no library skill of that name; use one of" in repair
    # the model's text is kept as written, the library's skill appended and called
    assert code.startswith("def act(ctx):\n    # the library walks; this code only chops\n")
    assert "if (yield from skill_go_to_tree_act(ctx)):" in code
    assert "def skill_go_to_tree_act(ctx):" in code
    action = validate("chop_tree", code)
    world = CraftaxWorld(num_envs=4, seed=3)
    world.reset(3)
    before, after, records = run_one_call_each(world, action)
    world.close()
    assert all(not r.end.failure for r in records)
    moved = [b.position != a.position for b, a in zip(before, after, strict=True)]
    assert any(moved)  # the library's navigation walked the player


def test_a_plan_copying_only_the_examples_notes_keeps_its_plan_without_the_notes() -> None:
    copied = PLAN | {"notes": json.loads(PlanAnswer.EXAMPLE)["notes"]}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(copied)}]
        plan = LLMTeam(client_for(server)).slow.plan(TASK, [])
    assert [s.name for s in plan.subactions] == ["go_to_tree", "collect_wood"]
    assert plan.notes == "" and len(server.requests) == 1  # dropped, no repair round


def test_a_verdict_whose_reason_says_the_other_verdict_is_repaired() -> None:
    """A 1.5B critic passed a step with the reason "fail: the player did not place a
    table": the answer contradicts itself, so it is repaired, and the verdict that stands
    is the repaired one."""
    torn = {"success": True, "reason": "Fail: the runs placed no table", "suggestion": ""}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(torn)}, {"content": json.dumps(VERDICT_OK)}]
        team = LLMTeam(client_for(server))
        sub = PlanAnswer.model_validate(PLAN).subactions[1]
        verdict = team.critic.judge_rl(TASK, sub, EvaluationSummary(success_rate=0.95), 0.9)
    assert verdict.reason == VERDICT_OK["reason"] and verdict.success
    repair = server.requests[1]["messages"][-1]["content"]
    assert "it opens with 'fail' but success is true" in repair
    agreeing = {"success": False, "reason": "failed: no run placed a table", "suggestion": ""}
    assert VerdictAnswer.model_validate(agreeing).reason == agreeing["reason"]


def test_a_plan_is_checked_against_the_worlds_tech_tree() -> None:
    """A learn session's collect_wood plan was collect_stone, place_table, make_wood_pickaxe
    (no step collects wood; stone needs a pickaxe) and passed every one-off check: the tech
    tree's check refuses it saying both, and a plan with no step reaching the goal; it takes
    the recipes' plans, the builtin agent's plans (its templates make what they need on their
    way) and a plan with RL, whose coded steps are options."""
    from types import SimpleNamespace

    from rlgpt_tui.agents.slow import BuiltinSlowAgent, IterationFeedback
    from rlgpt_tui.agents.slow.checks import tech_tree_check
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.library.templates import template_code
    from rlgpt_tui.tasks.catalog import load_catalog

    def step(name: str, mode: str = "code") -> dict:
        return {"name": name, "description": f"do {name}", "mode": mode, "reason": ""} | {
            "high_level_actions": []
        }

    stone_first = ["collect_stone", "place_table", "make_wood_pickaxe"]
    wrong = {"subactions": [step(n) for n in stone_first]}
    right = {"subactions": [step("collect_wood")]}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        server.script = [{"content": json.dumps(wrong)}, {"content": json.dumps(right)}]
        team = LLMTeam(client_for(server))
        plan = team.slow.plan(get_task("collect_wood"), [])
        repair = server.requests[1]["messages"][-1]["content"]
    assert [s.name for s in plan.subactions] == ["collect_wood"]
    assert (
        "collect_stone (step 1) needs wood_pickaxe, which no earlier step makes and the player "
        "does not start with: plan collect_wood, place_table, make_wood_pickaxe before it"
    ) in repair
    assert "no step reaches the goal collect_wood (the plan ends at make_wood_pickaxe)" in repair
    docs = craftax_classic_documentation()
    check = tech_tree_check(docs.recipes, "make_wood_pickaxe")
    with pytest.raises(ValueError, match="no step reaches the goal make_wood_pickaxe"):
        check(Plan.model_validate({"subactions": [step("collect_wood"), step("place_table")]}))
    templates = [name for name in load_catalog() if template_code(name) is not None]
    builtin = BuiltinSlowAgent(docs.tech_tree)
    for task in load_catalog().values():
        if task.scored or task.goal.survive:
            continue
        check = tech_tree_check(docs.recipes, task.goal.achievement)
        recipes_plan = SimpleNamespace(
            subactions=[SimpleNamespace(name=s.name, mode="code") for s in task.steps(docs)]
        )
        check(recipes_plan)  # the recipes' own order passes
        history: list[IterationFeedback] = []
        for _ in range(3):
            plan = builtin.plan(task, history)
            tech_tree_check(docs.recipes, task.goal.achievement, self_contained=templates)(plan)
            history.append(IterationFeedback(len(history), plan, {}, 0.0, 0))
