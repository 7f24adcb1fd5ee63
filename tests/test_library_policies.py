"""Trained policies in the skill library: a session's evaluated policy is kept (weights and
configuration) in the sessions database, listed, exported, and a later session on the same
task starts PPO from it. Real SQLite files, real Craftax, real PPO, real HTTP for the LLM."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import DataTable, Static

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.ends import EndKind
from rlgpt_tui.engine.provenance import solution_provenance
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.storage import LibraryError
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.report.session_markdown import session_markdown
from rlgpt_tui.rl.policyfile import SavedPolicy, read_weights
from rlgpt_tui.rl.weights import policy_weights
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.sessions import SessionsScreen
from rlgpt_tui.tui.widgets.plan import PlanPane
from tests.llm_server import ScriptedLLMServer
from tests.settings import tiny_settings
from tests.test_agents_engine import RL_ANSWER, role_of, scripted_agent
from tests.test_library_store import cli as skills_cli
from tests.test_provenance import replayed
from tests.waiting import until

#: the hand-written skill files the tests use
SKILLS = Path(__file__).resolve().parent / "skills"

COLLECT_WOOD = (SKILLS / "collect_wood.py").read_text()
PLAN = {  # a coded routine that chops, and RL over it for the task
    "subactions": [
        {
            "name": "chop",
            "description": "walk to a tree and chop it",
            "mode": "code",
            "reason": "chopping is easy to code",
            "high_level_actions": [],
        },
        {
            "name": "collect_wood",
            "description": "collect wood",
            "mode": "rl",
            "reason": "learn when to chop",
            "high_level_actions": ["chop"],
        },
    ],
    "notes": "chop, with RL over it",
}
ASK_RL = "Write the RL configuration"


def model(messages: list[dict[str, str]]) -> str:
    if role_of(messages) == "slow":
        return json.dumps(PLAN)
    if ASK_RL in messages[-1]["content"]:
        return json.dumps(RL_ANSWER | {"high_level_actions": ["chop"], "start_from": "chop"})
    if role_of(messages) == "fast":
        return json.dumps({"code": COLLECT_WOOD, "explanation": "chop a tree"})
    return scripted_agent(messages)


def run_session(
    store: SessionStore,
    server: ScriptedLLMServer,
    library: str,
    target: float = 0.75,
    stop_in_training: bool = False,
    eval_episodes: int = 8,
):
    """A session of one iteration; ``stop_in_training``: a person stops it at its first
    rollout, and it is resumed (its result and events are the resumed run's)."""
    llm = LLMSettings.resolve(server.base_url, server.model, backoff=0.01, max_retries=1)
    settings = tiny_settings(
        max_iterations=1, samples_per_iteration=2048, target=target, eval_episodes=eval_episodes
    )
    session = Session.create(store, settings, llm, library=library)
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if stop_in_training and isinstance(event, ev.TrainingProgress):
            session.control.stop()

    outcome = session.run(on_event)
    if stop_in_training:
        assert store.get(session.id).status == "stopped"
        session = Session.resume(store, session.id, llm)
        outcome = session.run(events.append)
    return session, outcome.result, events


def evaluated(events: list[ev.Event]) -> dict[str, dict]:
    return {e.subject: e.result.to_dict() for e in events if isinstance(e, ev.EvaluationDone)}


@pytest.mark.slow
def test_a_later_session_starts_from_the_librarys_trained_policy_and_spends_no_samples(
    tmp_path: Path,
) -> None:
    """Session 1 trains PPO over the model's chop routine (2,048 samples) and reaches the
    target: its policy (weights and configuration) joins the library. Session 2 on the same
    task, from that library, takes the policy whole: it asks the model for no RL answer,
    records chop as reused from the library by its author, measures the policy before any
    training, at the target, and ends with the library's weights as its solution and no
    sample spent. A third session, whose target the policy does not reach, trains on from
    it (the same actions, no RL answer asked), is stopped in training and resumed, and keeps
    the result with its training in all. The app's library screen and `skills list` show
    the policy, `skills export` writes it and `skills import` adds it to another database;
    a damaged policy file is refused in one line by both `skills import` (nothing added)
    and `--library FOLDER`."""
    store = SessionStore(tmp_path / "sessions")
    with ScriptedLLMServer(responder=model) as server:
        first, result1, events1 = run_session(store, server, "empty")
        asked_first = sum(ASK_RL in r["messages"][-1]["content"] for r in server.requests)
        [kept] = store.policies("craftax")
        assert (kept.task, kept.actions, kept.made_in) == (
            "collect_wood",
            ["chop"],
            f"session {first.id}, iteration 1",
        )
        assert kept.samples == result1.total_samples >= 2048
        assert kept.authors == {"chop": f"llm:{server.model}"}
        trained = evaluated(events1)["collect_wood (RL policy)"]
        assert trained["value"] >= 0.75 and kept.value == trained["value"]
        before = len(server.requests)
        second, result2, events2 = run_session(store, server, "own")
        # a third session whose target the policy does not reach trains on from it, over
        # 8 envs, measured first over 16 (a learn run crashed when they differed)
        third, result3, events3 = run_session(
            store, server, "own", target=1.01, stop_in_training=True, eval_episodes=16
        )
    asked = [r["messages"][-1]["content"] for r in server.requests[before:]]
    assert asked_first == 1 and not [a for a in asked if ASK_RL in a]  # no RL answer asked
    started, resumed = [e for e in events3 if isinstance(e, ev.TrainingStarted)]
    assert resumed.config["high_level_actions_note"] == "continues its checkpoint"
    assert started.config["coded_actions"] == resumed.config["coded_actions"] == ["chop"]
    assert (
        "PPO starts from the library's policy for collect_wood"
        in (started.config["high_level_actions_note"])
    )
    [again] = [e for e in events3 if isinstance(e, ev.PolicyTrained)]
    # its training in all: the library's, and this session's before and after its resume
    assert again.samples == kept.samples + result3.total_samples >= kept.samples + 2048
    reused = [e for e in events2 if isinstance(e, ev.CodeWritten) and e.subaction == "chop"]
    assert [e.source for e in reused][-1] == f"library:llm:{server.model}"
    measured = evaluated(events2)["collect_wood (the library's policy, before training)"]
    # the same weights on the same evaluation worlds act as they did in session 1
    assert {k: measured[k] for k in ("value", "episodes", "episode_ends")} == {
        k: trained[k] for k in ("value", "episodes", "episode_ends")
    }
    assert not [e for e in events2 if isinstance(e, ev.TrainingStarted)]
    report = session_markdown(store, second.id, None)  # `sessions export`
    assert "`collect_wood`: chop; PPO starts from the library's policy for collect_wood" in report
    assert result2.total_samples == 0 and result2.end.kind is EndKind.TARGET
    solution = read_weights(policy_weights(result2.final.chosen.model))
    library = read_weights(store.saved_policies("craftax")[0].weights)  # session 1's
    assert solution.keys() == library.keys()
    assert all(np.array_equal(solution[k], library[k]) for k in library)
    assert len(store.policies("craftax")) == 2  # session 2 kept none: it did not train

    def plan_rows(screen) -> None:  # the run screen's panes, replaying session 2
        table = screen.query_one(PlanPane).table
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert ["1", "collect_wood", "rl", "ok", "chop"] in rows
        status = str(screen.query_one("#training-status", Static).render())
        assert "collect_wood: the library's trained policy (coded actions: chop)" in status

    replayed(tmp_path / "replay", events2, plan_rows)
    chosen = next(e for e in events2 if isinstance(e, ev.SolutionChosen))
    credit = solution_provenance(events2, chosen.result)  # who wrote what the policy runs
    assert credit.authors == {"chop": f"llm:{server.model}"} and credit.llm_share == 1.0

    async def library_screen() -> list:  # the app's library browser (l from the sessions)
        app = RlgptApp(tmp_path / "sessions")
        async with app.run_test(size=(160, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SessionsScreen), 10, "browser")
            await pilot.press("l")
            await until(pilot, lambda: app.screen.query("#policies"), 10, "the library")
            table = app.screen.query_one("#policies", DataTable)
            await until(pilot, lambda: table.row_count > 0, 10, "the policies' rows")
            return [table.get_row_at(i) for i in range(table.row_count)]

    row = asyncio.run(library_screen())[0]
    assert row[1:4] == ["craftax", "collect_wood", "chop"] and row[4] == f"{kept.samples:,}"

    # shared as files: `skills list` shows it, `skills export` writes it
    listed = skills_cli("list", sessions=tmp_path / "sessions")
    assert "Trained policies" in listed.stdout and "collect_wood" in listed.stdout
    folder = tmp_path / "shared"
    exported = skills_cli("export", str(folder), sessions=tmp_path / "sessions")
    assert "2 trained policy(ies)" in exported.stdout, exported.stderr
    header = folder / "policies" / "collect_wood-craftax-p1.json"
    assert json.loads(header.read_text())["task"] == "collect_wood"
    fresh = SessionStore(tmp_path / "fresh")  # `skills import` into another database
    added, _, policies = SkillLibrary(fresh).import_folder(folder)
    assert [s.name for s in added] == ["chop"] and policies == 2
    assert SkillLibrary(fresh).import_folder(folder)[2] == 0  # again: not added twice
    assert fresh.saved_policies("craftax")[0].weights == store.saved_policies("craftax")[0].weights
    header.with_suffix(".npz").write_bytes(b"not weights")
    other = SessionStore(tmp_path / "other")
    try:
        SkillLibrary(other).import_folder(folder)
    except LibraryError as error:
        refused = str(error)
    assert "not a trained policy" in refused and refused.endswith("nothing was imported")
    assert other.skills() == [] and other.policies() == []
    try:
        Session.create(other, tiny_settings(), library=str(folder))
    except StoreError as error:
        message = str(error)
    assert "\n" not in message and "collect_wood-craftax-p1.json: not a trained policy" in message


def test_the_best_policy_for_the_task_is_offered_and_never_one_that_never_succeeded() -> None:
    """Of a shelf's policies, the one for the task that measured best; one measured at 0
    (an eat_cow session's RL over a model's broken go_to_cow) is no start at all."""

    def policy(task: str, value: float, made_in: str) -> SavedPolicy:
        return SavedPolicy(
            task, "craftax", task, {}, {}, 1000, "success_rate", value, None, 64, None, made_in
        )

    shelf = SkillShelf(
        "own",
        policies=[
            policy("collect_coal", 0.64, "session 1"),
            policy("collect_coal", 0.72, "session 3"),
            policy("collect_wood", 0.95, "session 2"),
            policy("eat_cow", 0.0, "session 4"),
        ],
    )
    assert shelf.policy_for("collect_coal").made_in == "session 3"
    assert shelf.policy_for("eat_cow") is None and shelf.policy_for("collect_iron") is None
