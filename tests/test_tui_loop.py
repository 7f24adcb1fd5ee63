"""The person in the loop, driven through the app with Pilot (real engine, tiny budgets):
edits during training are the code that later calls ran, bad RL edits are refused in the
dialog, and a resumed session shows its record before any new event."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.rl.progress import TrainingMetrics
from rlgpt_tui.rl.summary import EvaluationSummary
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.dialogs import EditCodeDialog, EditRLConfigDialog
from rlgpt_tui.tui.screens.run import RunScreen
from tests.settings import tiny_settings
from tests.test_tui import replay_shown, run_screen, session_rows
from tests.waiting import until

SIZE = (160, 50)


def applied_code_versions(store: SessionStore, session_id: int) -> list[int]:
    rows = store.rows("human_edits", session_id)
    return [r["version"] for r in rows if r["outcome"] == "applied" and r["what"] == "code"]


def editor_error(app: RlgptApp) -> str:
    """The error line of the dialog on top, as shown."""
    return str(app.screen.query_one("#editor-error").render())


def coded_calls(store: SessionStore, session_id: int, iteration: int, name: str) -> list[dict]:
    """Per rollout of ``iteration``'s training: coded action ``name``'s calls per version."""
    rows = [r for r in store.rows("training_metrics", session_id) if r["iteration"] == iteration]
    return [json.loads(r["metrics"])["coded_actions"][name]["versions"] for r in rows]


EDITED = "code_collect_wood"


@pytest.mark.slow
def test_code_edits_in_the_dialog_and_on_disk_are_the_code_later_calls_ran(tmp_path) -> None:
    """Iteration 2 trains collect_wood with go_to_tree and the task's own code as coded
    actions, starting from that code. During that training: a bad RL edit is refused in
    its dialog (one escape closes it), a code edit from the dialog and then a file saved on
    disk are swapped in between rollouts, and the recorded calls per code version show each
    one running after it."""
    store = SessionStore(tmp_path)
    from_dialog = "# edited in the app\n"
    from_disk = "# saved in an editor\n"

    async def scenario() -> None:
        settings = tiny_settings(samples_per_iteration=8192)
        app = RlgptApp(tmp_path, settings=settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            training = screen.training_pane
            await until(pilot, lambda: training.current == "it2 collect_wood", 300, "it2 PPO")
            await pilot.press("p")
            await until(pilot, lambda: screen.header.state == "paused", 120, "the pause")

            await pilot.press("r")  # RL config: refused in the dialog, nothing queued
            await until(pilot, lambda: isinstance(app.screen, EditRLConfigDialog), 10, "dialog")
            editor = app.screen.query_one("#editor")
            editor.load_text(json.dumps({"samples": -5, "ppo": {"gamma": "high"}}))
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, EditRLConfigDialog)
            error = str(app.screen.query_one("#editor-error").render())
            assert "samples: Input should be greater than or equal to 1" in error
            await pilot.press("escape")  # one escape closes it, even from the editor
            assert app.screen is screen
            assert screen.control.pending() == []

            await pilot.press("c")  # the selected version: the newest, code_collect_wood's
            await until(pilot, lambda: isinstance(app.screen, EditCodeDialog), 10, "code dialog")
            editor = app.screen.query_one("#editor")
            editor.load_text("import os\ndef act(ctx):\n    yield 0\n")
            await pilot.press("ctrl+s")  # validation is a round trip to a sandbox worker
            await until(pilot, lambda: "not applied" in editor_error(app), 30, "the refusal")
            assert "import of 'os' is not allowed" in editor_error(app)
            assert isinstance(app.screen, EditCodeDialog)  # refused: the dialog stays open
            editor.load_text(screen.code_pane.latest(EDITED) + from_dialog)
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.screen is screen, 30, "the dialog to close")
            await until(pilot, lambda: screen.header.pending == 1, 10, "the pending edit")
            await pilot.press("p")
            await until(pilot, lambda: applied_code_versions(store, 1), 120, "the swap")
            await pilot.press("p")
            await until(pilot, lambda: screen.header.state == "paused", 120, "a second pause")

            path = tmp_path / "1" / "code" / f"{EDITED}.py"
            path.write_text(screen.code_pane.latest(EDITED) + from_disk)
            await until(pilot, lambda: screen.header.pending == 1, 20, "the file's edit")
            await pilot.press("p")
            await until(pilot, lambda: screen.ended, 300, "the session to end")
            header = str(screen.header.render())
            assert "0 edits pending" in header

    asyncio.run(scenario())
    rows = store.rows("human_edits", 1)
    # refused in their dialogs, the bad ones never became edits: nothing queued or recorded
    assert [(r["what"], r["outcome"]) for r in rows] == [("code", "applied"), ("code", "applied")]
    assert not [e for e in store.events(1) if e["kind"] == "edit_queued" and e["what"] != "code"]
    dialog_version, disk_version = applied_code_versions(store, 1)
    versions = {r["event_seq"]: r["code"] for r in store.rows("code_versions", 1)}
    assert versions[dialog_version].endswith(from_dialog)
    assert versions[disk_version].endswith(from_disk)
    calls = coded_calls(store, 1, 1, EDITED)  # the code the policy starts from: it runs
    assert str(dialog_version) not in calls[0]  # before the first swap
    # the dialog's version ran between the two swaps; the file's version ran after
    disk_from = next(i for i, c in enumerate(calls) if str(disk_version) in c)
    assert calls[disk_from - 1].get(str(dialog_version), 0) > 0
    assert calls[-1][str(disk_version)] > calls[disk_from][str(disk_version)]
    applied = [e for e in store.events(1) if e["kind"] == "edit_applied"]
    assert all(e["at"].startswith("between PPO rollouts") for e in applied)


@pytest.mark.slow
def test_a_resumed_session_shows_its_record_before_any_new_event(tmp_path, monkeypatch) -> None:
    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings())

    def stop_after_iteration_0(event: ev.Event) -> None:
        if isinstance(event, ev.IterationDone):
            session.control.stop()

    session.run(stop_after_iteration_0)
    recorded = store.events(session.id)
    plan = next(e for e in recorded if e["kind"] == "plan_proposed")["plan"]
    progress = [e for e in recorded if e["kind"] == "training_progress"]
    samples = recorded[-1]["total_samples"]
    assert samples > 0 and store.get(session.id).status == "stopped"

    seen: dict = {}
    start = RunScreen.start

    def look_then_start(screen: RunScreen) -> None:  # the panes just before the engine runs
        seen["plan"] = screen.plan_pane.plan
        seen["points"] = screen.training_pane.points
        seen["curves"] = list(screen.training_pane.curves)
        seen["header"] = str(screen.header.render())
        start(screen)

    monkeypatch.setattr(RunScreen, "start", look_then_start)

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: session_rows(app) == 1, 30, "the stopped session")
            await pilot.press("enter")  # resume it
            screen = await run_screen(pilot, app)
            await until(pilot, lambda: screen.ended, 300, "the resumed session to end")
            seen["points after"] = screen.training_pane.points
            seen["curves after"] = list(screen.training_pane.curves)
            seen["log"] = [line.text for line in screen.log_pane.lines]
            seen["critic"] = [line.text for line in screen.query_one("#critic").lines]

    asyncio.run(scenario())
    assert seen["plan"] is not None and seen["plan"].model_dump() == plan
    assert seen["points"] == len(progress) and seen["curves"] == ["it1 collect_wood"]
    assert "collect_wood on craftax" in seen["header"]
    # stopped before its second iteration, where it resumes
    assert "iteration 2/2" in seen["header"] and f"samples {samples:,}/" in seen["header"]
    # the log and critic begin with the recorded lines, at their recorded times
    stamp = time.strftime("%H:%M:%S", time.localtime(recorded[0]["time"]))
    assert seen["log"][0].startswith(f"{stamp} session started")
    log = " ".join(seen["log"])
    assert log.index("finished: stopped by you") < log.index("resumed at iteration 2")
    assert seen["critic"][0].startswith("it 1 eval collect_wood (RL policy)")
    # the resumed run went on in the same panes
    assert seen["curves after"] == ["it1 collect_wood", "it2 collect_wood"]
    assert seen["points after"] > seen["points"]


@pytest.mark.slow
def test_session_list_shows_samples_of_a_run_cut_off_in_training(tmp_path) -> None:
    """A run cut off before its first iteration ended (as by kill -9) lists its samples."""
    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings(samples_per_iteration=4096))
    totals: list[int] = []

    def stop_in_training(event: ev.Event) -> None:
        if isinstance(event, ev.TrainingProgress):
            totals.append(event.total_samples)
            if len(totals) == 2:
                session.control.stop()

    session.run(stop_in_training)
    listed = store.list_sessions()[0]
    assert listed.total_samples == totals[-1] > 0
    assert not any(e["kind"] == "iteration_done" for e in store.events(session.id))


def _recorded_session(store: SessionStore) -> int:
    """A small finished session with fixed times, for the snapshot."""
    settings = tiny_settings()
    sid = store.create_session("collect_wood", "craftax", "builtin", settings.__dict__)
    t = 1_700_000_000.0
    plan = {
        "subactions": [
            {
                "name": "go_to_tree",
                "description": "walk next to the nearest tree and face it",
                "mode": "code",
                "reason": "navigation is easy to code",
            },
            {
                "name": "collect_wood",
                "description": "chop",
                "mode": "rl",
                "reason": "learn when to press do",
                "high_level_actions": ["go_to_tree"],
            },
        ]
    }
    config = {"samples": 4096, "coded_actions": ["go_to_tree"]}
    events: list[ev.Event] = [
        ev.SessionStarted(
            iteration=0,
            agent="builtin",
            task="collect_wood",
            env="craftax",
            settings=settings.__dict__,
            time=t,
        ),
        ev.PlanProposed(iteration=0, agent="builtin", plan=Plan.model_validate(plan), time=t + 1),
        ev.CodeWritten(
            iteration=0,
            agent="builtin",
            subaction="go_to_tree",
            code="def act(ctx):\n    yield from ctx.go_to('tree')\n",
            attempt=0,
            time=t + 2,
        ),
        ev.VerdictGiven(
            iteration=0,
            agent="builtin",
            subaction="go_to_tree",
            success=True,
            reason="the player ends next to a tree in 2 of 2 runs",
            suggestion="",
            time=t + 3,
        ),
        ev.TrainingStarted(
            iteration=0, agent="builtin", subaction="collect_wood", config=config, time=t + 4
        ),
    ]
    for k in range(1, 9):
        metrics = TrainingMetrics(
            samples=512 * k,
            elapsed=0.6 * k,
            fps=900.0,
            episodes=4 * k,
            ep_return_mean=0.1 * k,
            ep_length_mean=None,
            success_rate=min(1.0, 0.1 * k),
            value=min(1.0, 0.1 * k),
            coded_decision_share=0.25,
            coded_sample_share=0.5,
            coded_actions={},
        )
        events.append(
            ev.TrainingProgress(
                iteration=0,
                agent="builtin",
                subaction="collect_wood",
                metrics=metrics,
                total_samples=512 * k,
                time=t + 4 + k,
            )
        )
    result = EvaluationSummary(
        success_rate=0.75, ci95=(0.41, 0.93), episodes=8, training_samples=4096
    )
    events += [
        ev.EvaluationDone(
            iteration=0,
            agent="builtin",
            subject="collect_wood (RL policy)",
            result=result,
            time=t + 14,
        ),
        ev.VerdictGiven(
            iteration=0,
            agent="builtin",
            subaction="collect_wood",
            success=True,
            reason="success 0.75 in evaluation, above the random policy",
            suggestion="more samples",
            time=t + 15,
        ),
        ev.IterationDone(
            iteration=0,
            agent="builtin",
            plan="go_to_tree [code]; collect_wood [rl]",
            value=0.75,
            samples=4096,
            total_samples=4096,
            tokens=0,
            time=t + 16,
        ),
        ev.SessionFinished(
            iteration=0,
            agent="builtin",
            reason="iterations used up",
            best=0.75,
            total_samples=4096,
            tokens=0,
            time=t + 17,
        ),
    ]
    for event in events:
        store.record(sid, event)
    store.finish(sid, "finished", "iterations used up")
    return sid


def test_snapshot_run_screen_at_100x30(snap_compare, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    _recorded_session(SessionStore("sessions"))

    async def open_replay(pilot) -> None:
        await pilot.press("enter")
        await replay_shown(pilot, await run_screen(pilot, pilot.app))

    try:
        assert snap_compare(RlgptApp("sessions"), terminal_size=(100, 30), run_before=open_replay)
    finally:
        os.environ.pop("TZ", None)
        time.tzset()


def test_help_lists_every_key_and_one_escape_closes_it(tmp_path: Path) -> None:
    from rlgpt_tui.tui.screens.dialogs import KEYS, HelpScreen
    from rlgpt_tui.tui.screens.sessions import SessionsScreen

    names = {"slash": "/", "question_mark": "?"}
    listed = set(" ".join(key for key, _ in KEYS).split())
    for binding in RunScreen.BINDINGS + SessionsScreen.BINDINGS:
        assert names.get(binding.key, binding.key) in listed, binding.key

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = str(app.screen.query_one("#help-text").render())
            assert all(what in text for _, what in KEYS)
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(scenario())


def test_search_finds_lines_in_the_critic_and_the_log(tmp_path: Path) -> None:
    from rlgpt_tui.tui.widgets.critic import CriticPane

    _recorded_session(SessionStore(tmp_path))

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter")  # the finished session's replay
            screen = await run_screen(pilot, app)
            critic = screen.query_one(CriticPane)
            critic.focus()
            await pilot.press("slash", *"SUGGESTION", "enter")
            assert critic.matches and critic.border_subtitle.startswith("/suggestion: 1 of 1")
            assert "suggestion" in critic.lines[critic.matches[0]].text
            await pilot.press("tab")  # log pane? search the log when it is not focused
            screen.log_pane.focus()
            await pilot.press("slash", *"finished", "enter")
            assert len(screen.log_pane.matches) == 1
            await pilot.press("escape")  # back to the sessions
            assert not isinstance(app.screen, RunScreen)

    asyncio.run(scenario())


def test_plot_ticks_are_integers_and_iterations_share_one_sample_axis() -> None:
    from rlgpt_tui.curves import sample_offsets
    from rlgpt_tui.ticks import nice_ticks

    assert nice_ticks(32_780, count=5) == [0, 10_000, 20_000, 30_000, 40_000]
    iterations = [
        {"iteration": 0, "total_samples": 16_384},
        {"iteration": 1, "total_samples": 32_780},
    ]
    assert sample_offsets(iterations) == {0: 0, 1: 16_384, 2: 32_780}
