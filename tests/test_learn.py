"""``rlgpt-tui learn``: real sessions (builtin agent, tiny budgets) in real processes, the
curriculum's choices on real store records, and the LLM curriculum over HTTP (a scripted
OpenAI-compatible server, the real openai client)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlgpt_bench.results import load_results
from rlgpt_tui.curriculum import BuiltinCurriculum, LLMCurriculum
from rlgpt_tui.curriculum.frontier import curriculum_state
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.chosen import ChosenSolution
from rlgpt_tui.labels import agent_labels
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.learning import LearnStore
from tests.llm_server import ScriptedLLMServer

ROOT = Path(__file__).resolve().parent.parent
TINY = [
    "--iterations",
    "1",
    "--samples-per-iteration",
    "1024",
    "--num-envs",
    "8",
    "--eval-episodes",
    "8",
    "--final-episodes",
    "8",
    "--threshold",
    "0.3",
]


def cli(folder: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from rlgpt_tui.cli import main; sys.exit(main())",
        "--sessions-dir",
        str(folder),
        *args,
    ]


def run_cli(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        cli(folder, *args), capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def status_json(folder: Path) -> dict:
    done = run_cli(folder, "learn", "--status", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


# -- the whole loop, as a person runs it --------------------------------------------------------
@pytest.mark.slow
def test_learn_runs_two_chosen_tasks_as_listed_sessions_and_reports_them(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "learn", "--max-tasks", "2", *TINY)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "task budget spent (2 of 2 tasks)" in done.stderr
    data = status_json(tmp_path)
    choices = data["choices"]
    assert [c["position"] for c in choices] == [1, 2]
    # the empty library and no deaths yet: the cheapest open task, then the next open one
    assert choices[0]["task"] == "collect_wood"
    assert choices[0]["reason"].startswith("collect_wood: never tried")
    assert choices[0]["reason"].endswith("the cheapest open task")
    assert all(c["chooser"] == "builtin" and c["reason"] for c in choices)
    assert choices[1]["task"] != "collect_wood" or choices[0]["status"] != "reached"
    store = SessionStore(tmp_path)
    for choice in choices:
        summary = store.get(choice["session"])  # an ordinary session of the store
        assert summary.task == choice["task"] and summary.status == "finished"
        assert choice["samples"] == summary.total_samples == 1024
        assert choice["result"] == summary.result and choice["wall_s"] > 0
        assert choice["status"] in ("reached", "failed")
        assert (choice["status"] == "reached") == (summary.result >= 0.3)
    listed = run_cli(tmp_path, "sessions", "list")
    assert listed.returncode == 0
    for choice in choices:
        assert choice["task"] in listed.stdout
    rows = {r["task"]: r for r in data["frontier"]}
    assert len(rows) == 23  # 22 achievements and survive_night
    first = rows[choices[0]["task"]]
    assert first["tries"] == 1 and first["samples"] == 1024 and first["best"] is not None
    assert rows["collect_diamond"]["status"] == "not tried"
    assert data["status"] == "finished" and data["samples"] == 2048
    table = run_cli(tmp_path, "learn", "--status")
    assert "collect_wood" in table.stdout and "not tried" in table.stdout
    # the frontier as a results file: a row per tried task, as the results page reads it
    recorded = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "learn_frontier.py"), "--sessions-dir"]
        + [str(tmp_path), "--record", "learn", "--results-dir", str(tmp_path / "results")],
        capture_output=True,
        text=True,
    )
    assert recorded.returncode == 0, recorded.stderr
    (results,) = load_results(tmp_path / "results").values()
    assert {r.task for r in results} == {c["task"] for c in choices}
    for result in results:
        assert result.value == rows[result.task]["best"] and result.budget == 1024
        assert result.command.startswith("rlgpt-tui learn --env craftax --library empty")


@pytest.mark.slow
def test_a_learn_killed_mid_session_continues_its_record_without_repeating(
    tmp_path: Path,
) -> None:
    process = subprocess.Popen(
        cli(tmp_path, "learn", "--max-tasks", "3", *TINY),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    store = SessionStore(tmp_path)
    learn = LearnStore(store)
    deadline = time.monotonic() + 240
    second = None
    try:
        while time.monotonic() < deadline and process.poll() is None:
            run = learn.latest()
            choices = learn.choices(run.id) if run else []
            started = len(choices) >= 2 and choices[1].session_id is not None
            if started and store.events(choices[1].session_id):  # its session is under way
                second = choices[1]
                break
            time.sleep(0.05)
        assert second is not None, "the learn never reached its second session"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert learn.latest().status == "interrupted"
    assert store.get(second.session_id).status == "interrupted"
    first = learn.choices(second.learn_id)[0]
    done = run_cli(tmp_path, "learn", *TINY)  # no budget flag: the recorded one holds
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"continuing choice 2: {second.task}" in done.stderr
    choices = learn.choices(second.learn_id)
    assert len(choices) == 3 and learn.latest().id == second.learn_id
    assert choices[1].session_id == second.session_id  # resumed, not started again
    assert store.get(second.session_id).status == "finished"
    assert choices[1].status in ("reached", "failed")
    reached = [c.task for c in choices if c.status == "reached"]
    assert len(reached) == len(set(reached))
    if first.status == "reached":
        assert first.task not in [c.task for c in choices[1:]]
    # the budget is spent; a larger one and a person's --retry run the first task again
    again = run_cli(tmp_path, "learn", "--max-tasks", "4", "--retry", first.task, *TINY)
    assert again.returncode == 0, again.stderr[-3000:]
    fourth = learn.choices(second.learn_id)[3]
    assert (fourth.task, fourth.chooser) == (first.task, "person")
    assert "asked again" in fourth.reason and fourth.session_id > choices[2].session_id


def test_learn_status_without_a_record_says_how_to_start_one(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "learn", "--status")
    assert done.returncode == 2
    assert "no learn record" in done.stderr and "rlgpt-tui learn" in done.stderr
    assert json.loads(run_cli(tmp_path, "learn", "--status", "--json").stdout)["learn"] is None


def test_bad_learn_flags_get_one_line(tmp_path: Path) -> None:
    for flags, words in (
        (["--max-hours", "0"], "--max-hours"),
        (["--threshold", "1.5"], "--threshold"),
        (["--retry", "colect_wood"], "colect_wood"),
        (["--library", str(tmp_path / "nowhere")], "no such folder"),
    ):
        done = run_cli(tmp_path / "s", "learn", *flags)
        assert done.returncode == 2, flags
        assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, flags


# -- the curriculum's choices on real records ---------------------------------------------------
def recorded_session(
    store: SessionStore,
    task: str,
    result: float,
    ends: dict[str, int],
    samples: int = 1024,
    kind: str = "RL",
) -> int:
    """A finished session on ``task`` whose evaluation episodes ended as ``ends`` and whose
    fresh result is ``result``, recorded event by event as the engine records them."""
    session = store.create_session(task, "craftax", "builtin", {"task": task})
    evaluation = EvaluationSummary(
        value=result, episodes=sum(ends.values()), success_rate=result, episode_ends=ends
    )
    store.record(
        session,
        ev.EvaluationDone(iteration=0, agent="builtin", subject="RL policy", result=evaluation),
    )
    chosen = ChosenSolution(
        evaluation=EvaluationSummary(
            value=result, ci95=(max(0.0, result - 0.2), min(1.0, result + 0.1))
        ),
        kind=kind,
        iteration=0,
        subject="RL policy (RL, iteration 1)",
        stop_value=None,
        seed=30_000,
    )
    store.record(
        session, ev.SolutionChosen(iteration=0, agent="builtin", candidates=[], result=chosen)
    )
    store.record(
        session,
        ev.SessionFinished(
            iteration=0,
            agent="builtin",
            reason="iterations used up",
            best=result,
            total_samples=samples,
            tokens=0,
        ),
    )
    store.finish(session, "finished", "iterations used up")
    return session


def learn_record_with(store: SessionStore, *runs: tuple[str, float, dict[str, int]]) -> int:
    """A learn record whose choices ran ``runs`` (task, fresh result, episode ends)."""
    learn = LearnStore(store)
    learn_id = learn.create("craftax", "empty", {}, {}, 0.9, "builtin")
    for task, result, ends in runs:
        choice = learn.add_choice(learn_id, task, "recorded", "builtin")
        session = recorded_session(store, task, result, ends)
        learn.attach_session(choice, session)
        learn.finish_choice(choice, "reached" if result >= 0.9 else "failed", 1.0)
    learn.finish(learn_id, "finished", "task budget spent")
    return learn_id


def test_zombie_deaths_propose_a_survival_task(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(
        store,
        ("collect_wood", 0.95, {"success": 30, "killed_by_zombie": 2}),
        ("place_table", 0.5, {"success": 16, "killed_by_zombie": 14, "time_limit": 2}),
    )
    proposal = BuiltinCurriculum().propose(curriculum_state(store, learn_id))
    assert proposal is not None and proposal.task == "defeat_zombie"
    assert "16/64 recent evaluation episodes ended killed_by_zombie" in proposal.reason


def test_hunger_proposes_eating_and_a_failed_task_waits_for_something_new(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(
        store,
        ("collect_wood", 0.95, {"success": 8}),
        ("place_table", 0.4, {"success": 3, "starved": 5}),
    )
    state = curriculum_state(store, learn_id)
    assert state.waiting("place_table") and not state.eligible("collect_wood")
    proposal = BuiltinCurriculum().propose(state)
    assert proposal.task == "eat_cow" and "starved" in proposal.reason
    # eat_cow reached: hunger still ends recent episodes; eat_plant answers it, and its
    # weak prerequisites come first
    learn = LearnStore(store)
    choice = learn.add_choice(learn_id, "eat_cow", "recorded", "builtin")
    learn.attach_session(choice, recorded_session(store, "eat_cow", 0.95, {"success": 8}))
    learn.finish_choice(choice, "reached", 1.0)
    state = curriculum_state(store, learn_id)
    proposal = BuiltinCurriculum().propose(state)
    assert proposal.task == "collect_sapling"
    assert "starved" in proposal.reason and "prerequisites are weak" in proposal.reason
    # something new was reached since place_table failed: it comes back in the tech tree's
    # order, once the open tasks never tried are out of the way (they come first)
    assert not state.waiting("place_table")
    for task in ("collect_sapling", "collect_drink", "place_plant", "survive_night"):
        learn.add_command(learn_id, "skip", task)
    proposal = BuiltinCurriculum().propose(curriculum_state(store, learn_id))
    assert proposal.task == "defeat_zombie" and "never tried" in proposal.reason
    for task in ("defeat_zombie", "wake_up"):
        learn.add_command(learn_id, "skip", task)
    proposal = BuiltinCurriculum().propose(curriculum_state(store, learn_id))
    assert proposal.task == "place_table"
    assert "reached since its last try: eat_cow" in proposal.reason


def test_weak_prerequisites_are_proposed_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(store, ("collect_wood", 0.95, {"success": 8}))
    learn = LearnStore(store)
    for task in ("eat_cow", "collect_sapling", "collect_drink", "place_table", "place_plant"):
        learn.add_command(learn_id, "skip", task)
    # make_wood_pickaxe is next, but place_table (skipped: not open) is weak: it waits for
    # nothing else; with place_table open again it comes first
    state = curriculum_state(store, learn_id)
    state.skipped.discard("place_table")
    proposal = BuiltinCurriculum().propose(state)
    assert proposal.task == "place_table"
    state.tasks = [t for t in state.tasks if t != "place_table"]  # asked about a later task
    proposal = BuiltinCurriculum().next_in_tree(state)
    assert proposal.task == "place_table" and "prerequisites are weak" in proposal.reason


# -- the LLM curriculum over HTTP ---------------------------------------------------------------
def llm_client(server: ScriptedLLMServer) -> LLMClient:
    settings = LLMSettings(
        base_url=server.base_url, model=server.model, max_retries=0, repair_rounds=1
    )
    return LLMClient(settings)


def test_the_llm_curriculum_proposes_and_a_bad_answer_falls_back(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(
        store, ("collect_wood", 0.95, {"success": 6, "killed_by_zombie": 2})
    )
    state = curriculum_state(store, learn_id)
    with ScriptedLLMServer() as server:
        server.script = [{"content": json.dumps({"task": "collect_drink", "reason": "water"})}]
        proposal = LLMCurriculum(llm_client(server)).propose(state)
        assert (proposal.task, proposal.reason) == ("collect_drink", "water")
        assert proposal.chooser == "llm:scripted-model" and proposal.fallback == ""
        assert proposal.tokens > 0
        prompt = server.requests[0]["messages"][1]["content"]
        assert "killed_by_zombie 2" in prompt and "collect_wood: reached" in prompt
        # the static part (world, tasks) comes first and is the same in the next prompt
        static = prompt.split("# Where the agent stands now")[0]
        assert "needs first: collect_wood" in static
        # a reached task, then prose: both refused; the builtin choice is used, with why
        server.script = [
            {"content": json.dumps({"task": "collect_wood", "reason": "again"})},
            {"content": "I think the agent should drink."},
        ]
        proposal = LLMCurriculum(llm_client(server)).propose(state)
        assert proposal.chooser == "builtin" and proposal.task == "defeat_zombie"
        assert "the model's answer was not used" in proposal.fallback
        assert server.requests[-1]["messages"][1]["content"].startswith(static)


def test_learn_pin_skip_and_stop_are_recorded_for_the_learn_run(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn = LearnStore(store)
    learn_id = learn.create("craftax", "empty", {}, {}, 0.9, "builtin")
    learn.finish(learn_id, "stopped", "stopped by a person")
    done = run_cli(tmp_path, "learn", "--pin", "collect_coal", "--skip", "eat_cow", "--stop")
    assert done.returncode == 0, done.stderr
    pending = [(c.kind, c.task) for c in learn.pending_commands(learn_id)]
    assert pending == [("pin", "collect_coal"), ("skip", "eat_cow"), ("stop", "")]
    bad = run_cli(tmp_path, "learn", "--pin", "colect_coal")
    assert bad.returncode == 2 and "colect_coal" in bad.stderr
    assert len(learn.pending_commands(learn_id)) == 3


@pytest.mark.slow  # whole learn sessions, one after another
def test_a_learn_sessions_llm_agents_see_how_earlier_sessions_episodes_ended(
    tmp_path: Path,
) -> None:
    from rlgpt_tui.curriculum.loop import Learner
    from rlgpt_tui.session import Session
    from tests.test_agents_engine import role_of, scripted_agent

    store = SessionStore(tmp_path)
    learn_record_with(
        store,
        ("collect_wood", 0.95, {"success": 30, "killed_by_zombie": 2}),
        ("place_table", 0.5, {"success": 16, "killed_by_zombie": 14, "time_limit": 2}),
    )
    plan = {"iterations": 1, "samples_per_iteration": 1024, "num_envs": 8, "eval_episodes": 8}
    plan |= {"final_episodes": 8, "session_samples": 1024}
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings(base_url=server.base_url, model=server.model, max_retries=0)
        learner = Learner.open(
            store, None, None, plan, {"max_tasks": 3}, None, llm, curriculum="builtin", say=str
        )
        learner.run()
        slow = [r for r in server.requests if role_of(r["messages"]) == "slow"]
        assert slow, "the session's slow agent was never asked"
        first = slow[0]["messages"][-1]["content"]
        feedback = first.split("# Feedback so far")[1]
        assert "None yet: this is the first plan. Earlier sessions (other tasks) ended" in feedback
        assert "killed_by_zombie 16/64" in feedback  # the record's two sessions, commonest first
        # recorded with the session's settings: a resumed session's agents see the same
        learn = LearnStore(store)
        session_id = learn.choices(learn.latest().id)[-1].session_id
        recorded = store.get(session_id).settings
        assert recorded["earlier_ends"] == {"success": 46, "killed_by_zombie": 16, "time_limit": 2}
        store.finish(session_id, "stopped", "stopped")
        resumed = Session.resume(store, session_id)
        assert resumed.team.slow.earlier_ends == recorded["earlier_ends"]


def test_the_llm_curriculum_chooses_at_the_frontier_not_past_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(store, ("collect_wood", 0.95, {"success": 8}))
    state = curriculum_state(store, learn_id)
    with ScriptedLLMServer() as server:
        # a 1.5B model chose collect_iron with only collect_wood reached: not offered
        server.script = [{"content": json.dumps({"task": "collect_iron", "reason": "iron"})}] * 3
        proposal = LLMCurriculum(llm_client(server)).propose(state)
        prompt = server.requests[0]["messages"][1]["content"]
    offered = prompt.split("Open tasks now")[1].splitlines()[0]
    assert "place_table" in offered and "collect_sapling" in offered
    assert "collect_iron" not in offered and "make_wood_pickaxe" not in offered
    assert proposal.chooser == "builtin" and "not open now" in proposal.fallback
    assert proposal.task == BuiltinCurriculum().propose(state).task


def test_a_record_of_a_gguf_path_shows_the_models_name(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn = LearnStore(store)
    learn_id = learn.create("craftax", "empty", {}, {}, 0.9, "llm:/home/me/qwen2.5-coder-1.5b.gguf")
    learn.finish(learn_id, "stopped", "stopped by a person")
    assert status_json(tmp_path)["curriculum"] == "llm:qwen2.5-coder-1.5b"
    store.create_session("collect_wood", "craftax", "llm:/home/me/qwen2.5-coder-1.5b.gguf", {})
    listed = run_cli(tmp_path, "sessions", "list")
    assert "llm:qwen2.5-coder-1.5b" in listed.stdout and "/home/me" not in listed.stdout


def test_code_written_by_one_model_under_two_labels_names_it_once() -> None:
    # a record continued across the renaming holds the GGUF path and the model's name
    older, newer = "llm:/home/me/qwen2.5-coder-1.5b.gguf", "llm:qwen2.5-coder-1.5b"
    assert agent_labels([older, newer, "builtin"]) == ["llm:qwen2.5-coder-1.5b", "builtin"]
    # a plan composed from both versions' code was recorded as written by two authors
    assert agent_labels([f"several authors ({older}, {newer})"]) == [newer]
    assert agent_labels([f"several authors ({older}, person)"]) == [
        "several authors (llm:qwen2.5-coder-1.5b, person)"
    ]


def test_a_task_whose_session_was_stopped_shows_stopped_not_failed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    learn_id = learn_record_with(store, ("collect_wood", 0.95, {"success": 8}))
    learn = LearnStore(store)
    choice = learn.add_choice(learn_id, "place_table", "next", "builtin")
    session = store.create_session("place_table", "craftax", "builtin", {"task": "place_table"})
    learn.attach_session(choice, session)
    store.finish(session, "stopped", "stopped")
    learn.finish_choice(choice, "stopped", 1.0)
    rows = {r["task"]: r for r in status_json(tmp_path)["frontier"]}
    assert rows["place_table"]["status"] == "stopped"
    assert rows["collect_wood"]["status"] == "reached"


# -- where the hours go: the cap on tries, cheap open tasks first, grounded reasons ------------
def test_a_task_failed_max_tries_times_waits_while_others_are_open(tmp_path: Path) -> None:
    """eat_cow took five tries and a third of a record's tokens: a task tried --max-tries
    times (3) is not chosen again while other tasks are open, by the rules or by a model
    (whose choice is overridden, the reason recorded); with nothing else open it comes back."""
    store = SessionStore(tmp_path)
    failed = ("eat_cow", 0.38, {"success": 3, "time_limit": 5})
    learn_id = learn_record_with(
        store, failed, failed, failed, ("collect_wood", 0.95, {"success": 8})
    )
    state = curriculum_state(store, learn_id)
    assert state.max_tries == 3 and state.tries("eat_cow") == 3
    assert not state.waiting("eat_cow") and not state.eligible("eat_cow")
    assert "tried 3x (best 0.38), the cap is 3" in state.held_back("eat_cow")
    assert BuiltinCurriculum().propose(state).task != "eat_cow"
    with ScriptedLLMServer() as server:
        server.script = [{"content": json.dumps({"task": "eat_cow", "reason": "food"})}]
        proposal = LLMCurriculum(llm_client(server)).propose(state)
        prompt = server.requests[0]["messages"][1]["content"]
    assert "Held back (not to be chosen now): eat_cow was tried 3x" in prompt
    assert proposal.chooser == "builtin" and proposal.task != "eat_cow"
    assert proposal.fallback.startswith("the model chose eat_cow (food), overridden: eat_cow")
    assert "the cap is 3" in proposal.fallback
    learn = LearnStore(store)
    for task in state.tasks:
        if task != "eat_cow" and not state.reached(task):
            learn.add_command(learn_id, "skip", task)
    alone = curriculum_state(store, learn_id)
    assert alone.eligible("eat_cow") and BuiltinCurriculum().propose(alone).task == "eat_cow"


def test_open_tasks_never_tried_come_first_cheapest_first(tmp_path: Path) -> None:
    """The record reached collect_stone, then never proposed make_wood_sword, place_stone,
    make_stone_pickaxe or place_furnace: untried open tasks come first, fewest steps first,
    and a failed task waits for them."""
    store = SessionStore(tmp_path)
    reached = {"success": 8}
    learn_id = learn_record_with(
        store,
        ("collect_wood", 0.95, reached),
        ("place_table", 0.95, reached),
        ("eat_cow", 0.38, {"success": 3, "time_limit": 5}),
        ("make_wood_pickaxe", 0.95, reached),
        ("collect_stone", 0.95, reached),
    )
    learn = LearnStore(store)
    for task in ("collect_sapling", "collect_drink"):
        learn.add_command(learn_id, "skip", task)
    state = curriculum_state(store, learn_id)
    assert state.untried()[:3] == ["make_wood_sword", "collect_coal", "place_stone"]
    assert "while open tasks never tried wait: make_wood_sword" in state.held_back("eat_cow")
    proposal = BuiltinCurriculum().propose(state)
    assert proposal.task == "make_wood_sword"
    assert "never tried, its prerequisites reached (collect_wood, place_table)" in proposal.reason
    with ScriptedLLMServer() as server:
        server.script = [{"content": json.dumps({"task": "eat_cow", "reason": "hungry"})}]
        proposal = LLMCurriculum(llm_client(server)).propose(state)
        offered = server.requests[0]["messages"][1]["content"].split("Open tasks now")[1]
    assert "eat_cow" not in offered.splitlines()[0]
    assert proposal.task == "make_wood_sword" and "overridden" in proposal.fallback
    assert "while open tasks never tried wait" in proposal.fallback


def test_a_models_reason_that_contradicts_the_record_is_marked(tmp_path: Path) -> None:
    """The frontier showed "a fresh success rate of 0.67 ..., which is above the threshold of
    0.9 ... not tried this task yet" for a task tried once: each choice keeps the facts it
    stood on, and a model's words that contradict them are marked, in `learn --status` too."""
    from rlgpt_tui.curriculum.frontier import choice_facts, frontier

    store = SessionStore(tmp_path)
    learn_id = learn_record_with(
        store, ("collect_wood", 0.95, {"success": 8}), ("place_table", 0.67, {"success": 8})
    )
    state = curriculum_state(store, learn_id)
    learn = LearnStore(store)
    words = (
        "place_table has a fresh success rate of 0.67, which is above the threshold of 0.9, "
        "and I have not tried this task yet"
    )
    learn.add_choice(
        learn_id, "place_table", words, "llm:m", facts=choice_facts(state, "place_table")
    )
    learn.add_choice(  # before any try, a figure the record does not hold
        learn_id,
        "collect_drink",
        "collect_drink has a fresh success rate of 0.95",
        "llm:m",
        facts=choice_facts(state, "collect_drink"),
    )
    learn.add_choice(  # the rules' words come from the record
        learn_id,
        "eat_cow",
        "next in the tech tree: eat_cow, not tried yet",
        "builtin",
        facts=choice_facts(state, "eat_cow"),
    )
    learn.add_choice(  # a figure of a task it names: the record's
        learn_id,
        "make_wood_pickaxe",
        "collect_wood reached 0.95 and place_table is at 0.67, so a pickaxe is near",
        "llm:m",
        facts=choice_facts(state, "make_wood_pickaxe"),
    )
    choices = frontier(store)["choices"]
    assert choices[5]["mark"] == ""
    assert choices[0]["facts"] == {}  # recorded before facts were: nothing to mark
    assert choices[2]["facts"]["tries"] == 1 and choices[2]["facts"]["best"] == 0.67
    assert choices[2]["facts_text"] == ("tried 1x, best 0.67; prerequisites reached: collect_wood")
    assert choices[2]["mark"] == (
        "⚠ contradicts the record: tried 1x, best 0.67 (says not tried; says above the threshold)"
    )
    assert choices[3]["mark"] == (
        "⚠ contradicts the record: not tried (cites 0.95, no figure of the record)"
    )
    assert choices[4]["mark"] == "" and choices[4]["facts_text"].startswith("not tried")
    done = run_cli(tmp_path, "learn", "--status")
    assert done.returncode == 0, done.stderr
    assert "⚠ contradicts the record: tried 1x, best 0.67" in done.stdout
    assert "tried 1x, best 0.67; prerequisites reached: collect_wood" in done.stdout


def test_a_task_failed_by_code_is_next_learned_with_rl(tmp_path: Path) -> None:
    """A session whose chosen code measured below the threshold: the learn's next session on
    that task gets the record, and its slow agent assigns the task's sub-action to RL: the
    builtin one by rule, the LLM one told the record in its prompt and, when it insists on
    code, turned to RL by a guard with the reason in the plan's notes."""
    from rlgpt_tui.agents.llm_team import LLMTeam
    from rlgpt_tui.agents.slow import BuiltinSlowAgent, IterationFeedback
    from rlgpt_tui.agents.slow.records import learned_as_skill
    from rlgpt_tui.curriculum.loop import Learner
    from rlgpt_tui.envs.knowledge import craftax_classic_documentation
    from rlgpt_tui.tasks.catalog import get_task

    store = SessionStore(tmp_path)
    recorded_session(store, "collect_wood", 0.95, {"success": 8}, kind="code")
    recorded_session(store, "place_table", 0.40, {"success": 3, "time_limit": 5}, kind="code")
    learner = Learner.open(store, None, None, {}, {"max_tasks": 1}, None, None, "builtin")
    records = learner.records()
    assert records.subactions["place_table"].code_tries == 1
    assert records.code_failed("collect_wood", "place_table") == ""  # reached by code
    why = records.code_failed("place_table", "place_table")
    assert why == "code fell short at place_table (1x by code, best 0.40 < 0.9)"
    # once by code is no rule against a step of another task: twice is
    assert records.code_failed("place_table", "make_wood_pickaxe") == ""
    task = get_task("place_table")
    docs = craftax_classic_documentation()
    builtin = BuiltinSlowAgent(docs.tech_tree, records)
    history: list[IterationFeedback] = []
    builtin_plans = []
    for _ in range(3):  # without the record, the third plan codes the task whole
        plan = builtin.plan(task, history)
        builtin_plans.append(plan)
        assert [(s.name, s.mode) for s in plan.subactions] == [("place_table", "rl")]
        history.append(IterationFeedback(len(history), plan, {}, 0.0, 0))
    assert why in plan.notes
    coded = BuiltinSlowAgent(docs.tech_tree).plan(task, history[:2])
    assert [(s.name, s.mode) for s in coded.subactions] == [("place_table", "code")]

    def step(name: str) -> dict:
        return {"name": name, "description": f"do {name}", "mode": "code", "reason": "easy"}

    insisting = {"subactions": [step("collect_wood"), step("place_table")]}
    with ScriptedLLMServer() as server:
        server.script = [{"content": json.dumps(insisting)}]
        settings = LLMSettings(base_url=server.base_url, model=server.model, max_retries=0)
        team = LLMTeam(LLMClient(settings), "craftax", records=records)
        plan = team.slow.plan(task, [])
        prompt = server.requests[0]["messages"][-1]["content"]
    assert "- place_table: by code 1 try, best 0.40; by RL 0 tries" in prompt
    assert f"Learn these with RL, not code: {why}" in prompt
    # the task itself is learned over primitive actions: its policy is a skill code calls
    assert [(s.name, s.mode) for s in plan.subactions] == [("place_table", "rl")]
    assert plan.subactions[0].high_level_actions == []
    assert learned_as_skill(plan.subactions[0], "place_table")
    assert (
        f"guard: place_table turned to RL over primitive actions (a skill code calls), {why}; "
        "dropped collect_wood"
    ) in plan.notes
    assert all(learned_as_skill(p.subactions[0], "place_table") for p in builtin_plans)
