"""A session's code calls the library's best collect_wood, a trained policy: ``yield from
ctx.skill("collect_wood")`` written by the (scripted) fast agent runs the policy in the
sandbox workers, its calls counted in the recorded evaluations, and still runs it once the
session is stopped and resumed. Real SQLite, real Craftax, real sandbox workers, real HTTP."""

from __future__ import annotations

import json

import pytest

from rlgpt_tui.engine import events as ev
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.config import CodedActionSpec
from rlgpt_tui.session import Session
from rlgpt_tui.skills.validation import validate
from rlgpt_tui.store import SessionStore
from tests.llm_server import ScriptedLLMServer
from tests.settings import tiny_settings
from tests.test_agents_engine import role_of, scripted_agent
from tests.test_policy_skill import library_with, saved, tree_seeker

GATHER = (
    "def act(ctx):\n"
    '    """Gather wood by the library\'s collect_wood skill."""\n'
    '    got = yield from ctx.skill("collect_wood")\n'
    "    return got\n"
)
PLAN = {
    "subactions": [
        {
            "name": "gather_wood",
            "description": "gather wood with the library's collect_wood skill",
            "mode": "code",
            "reason": "the library has a skill for it",
            "high_level_actions": [],
        }
    ],
    "notes": "one coded step",
}


def answer(messages: list[dict[str, str]]) -> str:
    if role_of(messages) == "slow":
        return json.dumps(PLAN)
    if role_of(messages) == "fast":
        return json.dumps({"code": GATHER, "explanation": "the library's skill"})
    return scripted_agent(messages)


def policy_calls(events: list[ev.Event]) -> list[int]:
    """Each recorded evaluation's calls of gather_wood that ran the policy."""
    found = []
    for event in events:
        if isinstance(event, ev.EvaluationDone):
            ran = (event.result.coded_calls or {}).get("gather_wood") or {}
            found.append(int((ran.get("begun") or {}).get("policy:collect_wood", 0)))
    return found


@pytest.mark.slow
def test_a_sessions_code_runs_the_librarys_policy_skill_and_again_once_resumed(tmp_path) -> None:
    library = library_with(tmp_path, saved(tree_seeker(), horizon=150))  # code 2/20, policy 0.9
    assert library.callable_skills("craftax")[0].get("collect_wood") is None
    store = SessionStore(tmp_path / "sessions")
    settings = tiny_settings(max_iterations=1, target=0.2, critic_runs=2)
    with ScriptedLLMServer(responder=answer) as server:
        llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
        session = Session.create(store, settings, llm, library="user")
        first: list[ev.Event] = []

        def stop_once_judged(event: ev.Event) -> None:
            first.append(event)
            if isinstance(event, ev.SubActionDone):
                session.control.stop()

        session.run(stop_once_judged)
        assert store.get(session.id).status == "stopped"
        done = [e for e in first if isinstance(e, ev.SubActionDone)]
        assert done and done[0].code == GATHER  # the call stays: the worker runs the policy
        resumed = Session.resume(store, session.id, llm)
        later: list[ev.Event] = []
        outcome = resumed.run(later.append)
    assert outcome.result is not None
    calls = policy_calls(later)
    assert calls and all(n > 0 for n in calls), calls  # the resumed session ran the policy
    recorded = policy_calls(list(ev.events_from_records(store.events(session.id))))
    assert sum(recorded) >= sum(calls) > 0  # counted in the store

    # its spec, as a recorded RL config keeps it, names the policy by reference (a digest of
    # the weights, not the weights) and reloads it from the library when read back
    shelf = library.offer("user", "craftax")
    linked, used = shelf.link(GATHER, leave_out="gather_wood")
    spec = CodedActionSpec.of(validate("gather_wood", linked, policies=used))
    data = json.loads(spec.model_dump_json())
    assert data["policies"] == {"collect_wood": used[0].ref} and len(used[0].ref) == 16
    back = CodedActionSpec.model_validate(data).load_policies(shelf.policies_called)
    assert [p.ref for p in back.validated().policies] == [used[0].ref]
