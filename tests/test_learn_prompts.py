"""Prompts put what never changes first (the world's rules, the skill API, the rules of each
role), so that a server's prompt cache (llama.cpp's ``cache_prompt``) reuses it from one
request to the next, also across sessions on different tasks of a learn run."""

from __future__ import annotations

import contextlib

from rlgpt_tui.agents.llm_team import LLMTeam
from rlgpt_tui.agents.schemas import SubAction
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.llm.client import LLMAnswerError, LLMClient
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.skills.api import SKILL_API_DOC
from rlgpt_tui.tasks.catalog import get_task
from tests.llm_server import ScriptedLLMServer
from tests.test_agents_engine import role_of, scripted_agent


def shared_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def test_prompts_of_two_tasks_share_the_world_and_the_api_as_their_first_part() -> None:
    tasks = ("collect_wood", "make_wood_pickaxe")
    with ScriptedLLMServer(responder=scripted_agent) as server:
        client = LLMClient(LLMSettings(base_url=server.base_url, model=server.model))
        team = LLMTeam(client, "craftax")
        for name in tasks:
            task = get_task(name)
            team.slow.plan(task, [])
            sub = SubAction(name="go_to_tree", description="walk to the nearest tree", mode="code")
            team.fast.write_code(task, sub)
        prompts: dict[str, list[str]] = {}
        for request in server.requests:
            text = "\n".join(m["content"] for m in request["messages"])
            prompts.setdefault(role_of(request["messages"]), []).append(text)
    world = world_info("craftax").documentation().text()
    for role in ("slow", "fast"):
        first, second = prompts[role]
        common = shared_prefix(first, second)
        assert world in common and SKILL_API_DOC.strip() in common, role
        # what they share runs up to the task's section: the task comes after it
        assert len(common) - 20 <= common.find("\n# Task\n") < len(common), role
        assert len(common) > 0.75 * len(second), (role, len(common), len(second))


def test_the_critic_and_the_planner_see_how_episodes_ended() -> None:
    ends = {"success": 20, "killed_by_zombie": 40, "starved": 4}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        client = LLMClient(LLMSettings(base_url=server.base_url, model=server.model))
        team = LLMTeam(client, "craftax", earlier_ends=ends)
        task = get_task("collect_diamond")
        team.planner.subtasks(task)
        sub = SubAction(name="collect_wood", description="learn to collect wood", mode="rl")
        evaluation = EvaluationSummary(success_rate=0.31, episodes=64, episode_ends=ends)
        with contextlib.suppress(LLMAnswerError):  # its scripted verdict names a tree
            team.critic.judge_rl(task, sub, evaluation, 0.9)
        prompts: dict[str, str] = {}  # each role's first request
        for request in server.requests:
            prompts.setdefault(role_of(request["messages"]), request["messages"][-1]["content"])
    ended = "killed_by_zombie 40/64, success 20/64, starved 4/64"
    assert (
        "# How earlier episodes ended\nEarlier sessions (other tasks) ended their evaluation "
        f"episodes {ended}" in prompts["planner"]
    )
    assert f"- how episodes ended: {ended}" in prompts["critic"]
    # without earlier sessions the planner's prompt has no such section
    with ScriptedLLMServer(responder=scripted_agent) as server:
        client = LLMClient(LLMSettings(base_url=server.base_url, model=server.model))
        LLMTeam(client, "craftax").planner.subtasks(task)
        assert "How earlier episodes ended" not in server.requests[0]["messages"][-1]["content"]
