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
    # the empty library and no deaths yet: the tech tree's first task, then the next open one
    assert choices[0]["task"] == "collect_wood"
    assert choices[0]["reason"].startswith("next in the tech tree")
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
    store: SessionStore, task: str, result: float, ends: dict[str, int], samples: int = 1024
) -> int:
    """A finished session on ``task`` whose evaluation episodes ended as ``ends`` and whose
    fresh result is ``result``, recorded event by event as the engine records them."""
    session = store.create_session(task, "craftax", "builtin", {"task": task})
    evaluation = EvaluationSummary(
        value=result, episodes=sum(ends.values()), success_rate=result, episode_ends=ends
    )
    store.record(session, ev.EvaluationDone(0, "builtin", "RL policy", evaluation))
    chosen = ChosenSolution(
        evaluation=EvaluationSummary(
            value=result, ci95=(max(0.0, result - 0.2), min(1.0, result + 0.1))
        ),
        kind="RL",
        iteration=0,
        subject="RL policy (RL, iteration 1)",
        stop_value=None,
        seed=30_000,
    )
    store.record(session, ev.SolutionChosen(0, "builtin", [], chosen))
    store.record(
        session, ev.SessionFinished(0, "builtin", "iterations used up", result, samples, 0)
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
    # order (once what comes before it is out of the way)
    assert not state.waiting("place_table")
    for task in ("collect_sapling", "collect_drink", "place_plant", "survive_night"):
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
