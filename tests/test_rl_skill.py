"""RL that the records assign (code fell short at the session's task) is trained over
primitive actions only, so that its policy, measured fresh, is a skill code calls by the
task's name; the calls code makes of a policy skill are counted on its library row and shown
by ``skills list``. Real Craftax, real SB3 at a tiny budget, real SQLite, real sandbox
workers; the LLM client is only built, never asked (the fast agent reuses the library)."""

from __future__ import annotations

import json

import pytest

from rlgpt_tui.agents.fast.llm import LLMFastAgent
from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.agents.slow.records import (
    MeasuredRecords,
    SubActionRecord,
    learned_as_skill,
    own_skill,
)
from rlgpt_tui.engine import events as ev
from rlgpt_tui.envs.knowledge import craftax_classic_documentation
from rlgpt_tui.library.compose import COMPOSED_PLAN, policy_call
from rlgpt_tui.library.shelf import weights_ref
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.policyskill import proven
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tasks.catalog import get_task
from tests.llm_server import ScriptedLLMServer
from tests.settings import tiny_settings
from tests.test_agents_engine import role_of, scripted_agent
from tests.test_library_store import cli as skills_cli
from tests.test_policy_skill import library_with, saved, tree_seeker

WOOD = "collect_wood"


def failed_by_code() -> MeasuredRecords:
    """Records of one earlier session whose code measured 0.20 on collect_wood."""
    return MeasuredRecords(0.9, {WOOD: SubActionRecord(WOOD, code_tries=1, code_best=0.2)})


def fast_agent(library: SkillLibrary) -> LLMFastAgent:
    """The LLM fast agent over the user's library (its client never asked here)."""
    client = LLMClient(LLMSettings(base_url="http://127.0.0.1:9", model="none", max_retries=0))
    return LLMFastAgent(client, craftax_classic_documentation(), library.offer("user", "craftax"))


@pytest.mark.slow
def test_rl_the_records_assign_trains_a_policy_skill_under_the_tasks_name(tmp_path) -> None:
    library = library_with(tmp_path, saved(tree_seeker(), horizon=150))  # code 2/20 as well
    store = SessionStore(tmp_path / "sessions")  # the library's database
    imported = store.policies()[0]
    store.db.execute("DELETE FROM policies WHERE id = ?", [imported.id])  # code alone
    store.db.conn.commit()
    settings = tiny_settings(
        task=WOOD, max_iterations=1, samples_per_iteration=512, eval_episodes=8, final_episodes=8
    )
    session = Session.create(store, settings, None, library="user", records=failed_by_code())
    events: list[ev.Event] = []
    outcome = session.run(events.append)
    assert outcome.result is not None

    plan = next(e for e in events if isinstance(e, ev.PlanProposed)).plan
    assert [(s.name, s.mode) for s in plan.subactions] == [(WOOD, "rl")]
    assert learned_as_skill(plan.subactions[0], WOOD)  # the records' reason
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.rl_config["coded_actions"] == []  # primitive actions only
    trained = [e for e in events if isinstance(e, ev.PolicyTrained)]
    assert trained and trained[0].subaction == WOOD

    # the library holds it as a policy skill under the task's name, with its record
    (policy,) = store.policies("craftax")
    assert policy.task == WOOD and policy.actions == [] and policy.episodes
    called, measured = library.policy_skills("craftax")[WOOD]
    assert called.name == WOOD and called.label.endswith(f"#{policy.id}")
    listed = skills_cli("list", sessions=tmp_path / "sessions")
    assert listed.returncode == 0, listed.stderr
    assert "policy" in listed.stdout and f"#{policy.id}" in listed.stdout

    # the library's choice of collect_wood: the better proven of the code and the policy
    code = library.best("craftax", WOOD)[WOOD].record.proven(WOOD)
    chosen = {p.name for p in library.callable_skills("craftax")[1]}
    assert (WOOD in chosen) == (measured > code), (measured, code)
    # a better record makes the policy the chosen version, and the fast agent's code calls it
    store.db.execute("UPDATE policies SET value = 0.95, episodes = 64 WHERE id = ?", [policy.id])
    store.db.conn.commit()
    assert proven(store.saved_policies("craftax")[0]) > code
    code_skills, policies = library.callable_skills("craftax")
    assert WOOD not in code_skills and [p.name for p in policies] == [WOOD]
    coded = SubAction(name=WOOD, description="gather wood", mode="code", reason="the library")
    agent = fast_agent(library)
    assert agent.write_code(get_task(WOOD), coded) == policy_call(WOOD)
    assert agent.origin == "library:PPO (trained by rlgpt)"


def test_policy_calls_are_counted_on_the_policy_that_ran_and_shown(tmp_path) -> None:
    """Evaluations whose coded calls ran the policy skill (``policy:collect_wood`` marks,
    the policy named by its reference) add those calls to that policy's library row, which
    ``skills list`` shows; calls naming another policy count on none; code that only calls
    the policy skill of its own name is no code version of it."""
    library_with(tmp_path, saved(tree_seeker(), horizon=150))
    store = SessionStore(tmp_path / "sessions")  # the library's database
    (policy,) = store.policies("craftax")
    ref = weights_ref(store.saved_policies("craftax")[0].weights)
    assert policy.calls == 0
    session = store.create_session("collect_wood", "craftax", "builtin", {"task": WOOD})

    def evaluated(subject: str, calls: dict, actions: dict | None = None) -> None:
        result = EvaluationSummary(
            value=0.5, episodes=8, success_rate=0.5, coded_calls=calls, coded_actions=actions
        )
        store.record(
            session, ev.EvaluationDone(iteration=0, agent="builtin", subject=subject, result=result)
        )

    ran = {"calls": 5, "steps": 40, "begun": {"policy:collect_wood": 3}}
    evaluated("gather_wood (code only)", {"gather_wood": ran | {"policies": {WOOD: ref}}})
    # an RL policy's evaluation counts its training's calls (as code skills' uses do)
    evaluated("learn (RL policy)", {}, {"gather_wood": ran | {"policies": {WOOD: ref}}})
    evaluated("other (code only)", {"other": ran | {"policies": {WOOD: "0" * 16}}})
    evaluated("plan (no code alone)", {"gather_wood": ran})  # no use of code: nothing counted
    assert store.policies("craftax")[0].calls == 6
    listed = skills_cli("list", sessions=tmp_path / "sessions")
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if "policy " in line and WOOD in line)
    assert " 6 " in row, listed.stdout

    store.record(
        session,
        ev.SubActionDone(
            iteration=0,
            agent="builtin",
            subaction=WOOD,
            mode="code",
            code=policy_call(WOOD),
            success=True,
            reason="ran it",
            suggestion="",
        ),
    )
    assert [s.name for s in store.skills("craftax")] == [WOOD]  # the imported code alone


PLACE = (
    'def act(ctx):\n    """Place a table."""\n'
    '    placed = yield from ctx.place("table")\n    return placed\n'
)
WOOD_AND_TABLE = {
    "subactions": [
        {
            "name": WOOD,
            "description": "gather wood",
            "mode": "code",
            "reason": "a tree is easy to find",
            "high_level_actions": [],
        },
        {
            "name": "place_table",
            "description": "place a table",
            "mode": "code",
            "reason": "one action once wood is held",
            "high_level_actions": [],
        },
    ],
    "notes": "two coded steps",
}


def wood_and_table(messages: list[dict[str, str]]) -> str:
    """The scripted model: a plan of two coded steps, code for place_table (collect_wood's
    code is never asked: the policy skill is reused), and the well-behaved answers else."""
    if role_of(messages) == "slow":
        return json.dumps(WOOD_AND_TABLE)
    if role_of(messages) == "fast" and "Write the RL configuration" not in messages[-1]["content"]:
        return json.dumps({"code": PLACE, "explanation": "place it"})
    return scripted_agent(messages)


@pytest.mark.slow
def test_a_step_code_fell_short_at_is_learned_as_its_own_skill_and_the_code_calls_it(
    tmp_path,
) -> None:
    """RL-GPT's split per sub-action: in a session on place_table, the records say code fell
    short at collect_wood twice; the step stays in the plan, its policy is trained first over
    primitive actions on collect_wood's own task (reward, evaluation and library entry
    collect_wood's), and the step's code is the call of that policy, which the plan's
    evaluation runs."""
    store = SessionStore(tmp_path / "sessions")
    records = MeasuredRecords(0.9, {WOOD: SubActionRecord(WOOD, code_tries=2, code_best=0.3)})
    settings = tiny_settings(
        task="place_table", max_iterations=1, samples_per_iteration=512, critic_runs=2
    )
    with ScriptedLLMServer(responder=wood_and_table) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        session = Session.create(store, settings, llm, library="own", records=records)
        events: list[ev.Event] = []
        outcome = session.run(events.append)
    assert outcome.result is not None

    plan = next(e for e in events if isinstance(e, ev.PlanProposed)).plan
    assert [(s.name, s.mode) for s in plan.subactions] == [(WOOD, "code"), ("place_table", "code")]
    assert own_skill(plan.subactions[0]) and "own skill" in plan.notes
    started = next(e for e in events if isinstance(e, ev.TrainingStarted))
    assert started.rl_config["task"] == WOOD and started.rl_config["coded_actions"] == []
    # first, before any code: collect_wood's policy (the code-alone plan, short of the
    # target, is then RL's start for place_table, as in any session)
    trained = next(e for e in events if isinstance(e, ev.PolicyTrained))
    assert trained.subaction == WOOD and trained.rl_config["task"] == WOOD
    assert trained.result.episodes == settings.eval_episodes  # measured fresh on collect_wood
    first_code = next(i for i, e in enumerate(events) if isinstance(e, ev.CodeWritten))
    assert events.index(trained) < first_code
    (policy,) = [p for p in store.policies("craftax") if p.task == WOOD]
    assert policy.actions == [] and policy.subaction == WOOD

    written = {e.subaction: e.code for e in events if isinstance(e, ev.CodeWritten)}
    assert written[WOOD] == policy_call(WOOD) and written["place_table"] == PLACE
    ran = [
        (e.result.coded_calls or {}).get(COMPOSED_PLAN, {}).get("begun", {})
        for e in events
        if isinstance(e, ev.EvaluationDone) and "RL policy" not in e.subject
    ]
    assert any(b.get(f"policy:{WOOD}", 0) > 0 for b in ran), ran  # the plan ran the policy
    # the session counts the skill's samples with its own training's
    spent = sum(e.samples for e in events if isinstance(e, ev.PolicyTrained))
    assert store.get(session.id).total_samples == spent > trained.samples > 0
