"""The Textual app driven by Pilot: real sessions (builtin agent, craftax, tiny budgets)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest

from rlgpt_tui.engine.events import events_from_records
from rlgpt_tui.engine.printer import finished_text
from rlgpt_tui.report.session_markdown import session_markdown
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.dialogs import EditPlanDialog, EditRLConfigDialog
from rlgpt_tui.tui.screens.new_session import NewSessionScreen
from rlgpt_tui.tui.screens.run import RunScreen
from rlgpt_tui.tui.widgets.agent_view import AgentView
from rlgpt_tui.tui.widgets.critic import CriticPane
from rlgpt_tui.tui.widgets.training import TrainingPane
from tests.settings import tiny_settings
from tests.waiting import until

SIZE = (160, 50)


def session_rows(app: RlgptApp) -> int:
    """How many sessions the browser lists (0 before it is shown)."""
    tables = app.screen.query("#sessions")
    return tables.first().row_count if tables else 0


async def run_screen(pilot, app: RlgptApp) -> RunScreen:
    """The run screen once it is shown (a dialog may already sit on top of it)."""

    def composed(s: RunScreen) -> bool:  # its panes and their tables can be queried
        return bool(s.query(TrainingPane)) and bool(s.query("#plan-table"))

    def shown() -> list[RunScreen]:
        return [s for s in app.screen_stack if isinstance(s, RunScreen) and composed(s)]

    await until(pilot, shown, 60, "the run screen")
    return shown()[-1]


async def replay_shown(pilot, screen: RunScreen) -> RunScreen:
    """``screen``, a replay, once every recorded event is shown and its panes drawn."""

    def drawn() -> bool:  # the log writes its lines once it knows its width
        return screen.position == len(screen.replay_events) and bool(screen.log_pane.lines)

    await until(pilot, drawn, 30, "the replay's panes")
    await pilot.pause()  # the messages that drawing them queued
    return screen


def kinds(store: SessionStore, session_id: int) -> list[dict]:
    return store.events(session_id)


@pytest.mark.slow
def test_live_session_fills_every_pane(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = RlgptApp(tmp_path, settings=tiny_settings())
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            shown: set[str] = set()

            def ended() -> bool:
                shown.add(screen.header.state_text())
                return screen.ended

            await until(pilot, ended, 240, "the session to end")
            # the header named each phase with the time it had run
            timed = {s.rsplit(" ", 1)[0] for s in shown if re.search(r" \d\d:\d\d$", s)}
            assert any(s.startswith("training collect_wood ") for s in timed), shown
            assert any(s.startswith(("evaluating ", "final evaluation ")) for s in timed), shown
            assert screen.plan_pane.table.row_count == 4  # it0: RL; it1: code, code + RL
            names = [v.subaction for v in screen.code_pane.versions]
            assert names == ["go_to_tree", "code_collect_wood"]
            assert screen.query_one(TrainingPane).points >= 2
            verdicts = screen.query_one(CriticPane).verdicts
            assert {v.subaction for v in verdicts} == {
                "collect_wood",
                "go_to_tree",
                "code_collect_wood",
            }
            assert screen.query_one(AgentView).frames_shown >= 1
            header = str(screen.header.render())
            assert "builtin agent (no LLM)" in header and "finished" in header
            await pilot.press("d")  # diff view of the code
            assert screen.code_pane.show_diff
            await pilot.press("escape")
            assert not isinstance(app.screen, RunScreen)

    asyncio.run(scenario())
    store = SessionStore(tmp_path)
    assert store.get(1).status == "finished" and store.get(1).iterations == 2


@pytest.mark.slow
def test_rl_the_engine_trains_from_short_code_shows_in_the_plan_and_takes_rl_edits(
    tmp_path: Path,
) -> None:
    """The builtin agent's third plan is the task's code alone; below the target (1.01)
    the engine trains RL from it. The plan pane shows that training as a row of the
    iteration, and the RL-config key opens its editor (not "no learned sub-action")."""

    async def scenario() -> None:
        app = RlgptApp(tmp_path, settings=tiny_settings(max_iterations=3))
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            table = screen.plan_pane.table

            def engine_row() -> list | None:
                rows = [table.get_row_at(r) for r in range(table.row_count)]
                return next((r for r in rows if r[:2] == ["3", "learn_collect_wood"]), None)

            await until(pilot, engine_row, 240, "the engine's RL row")
            row = engine_row()
            assert (row[2], row[4]) == ("rl", "collect_wood") and row[3] != "pending"
            assert screen.plan_pane.learned() == ["learn_collect_wood"]
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, EditRLConfigDialog), 10, "editor")
            assert "for learn_collect_wood" in str(app.screen.title_text)
            await pilot.press("escape")
            await until(pilot, lambda: screen.ended, 240, "the session to end")

    asyncio.run(scenario())


@pytest.mark.slow
def test_pause_edit_plan_resume_uses_the_edit(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = RlgptApp(tmp_path, settings=tiny_settings(samples_per_iteration=4096))
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            await until(pilot, lambda: screen.plan_pane.plan is not None, 120, "a plan")
            await pilot.press("p")
            await until(pilot, lambda: screen.header.state == "paused", 120, "the pause")
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditPlanDialog), 10, "the editor")
            plan = {
                "subactions": [
                    {
                        "name": "go_to_tree",
                        "description": "walk to a tree",
                        "mode": "code",
                        "reason": "person: navigation is code",
                    },
                    {
                        "name": "collect_wood",
                        "description": "chop",
                        "mode": "rl",
                        "reason": "person: learn the rest",
                        "high_level_actions": ["go_to_tree"],
                    },
                ]
            }
            editor = app.screen.query_one("#editor")
            editor.load_text("{ not json")
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, EditPlanDialog)  # invalid: shown, not applied
            assert "not JSON" in str(app.screen.query_one("#editor-error").render())
            editor.load_text(json.dumps(plan))
            await pilot.press("ctrl+s")
            assert app.screen is screen
            await pilot.press("p")
            await until(pilot, lambda: screen.ended, 240, "the session to end")

    asyncio.run(scenario())
    events = SessionStore(tmp_path).events(1)
    human = [e for e in events if e["kind"] == "plan_proposed" and e["source"] == "human"]
    assert len(human) == 1 and human[0]["iteration"] == 1
    assert [s["reason"] for s in human[0]["plan"]["subactions"]][0] == "person: navigation is code"
    edit = next(e for e in events if e["kind"] == "edit_applied")
    assert edit["what"] == "plan" and edit["after"] == "go_to_tree [code]; collect_wood [rl]"
    assert SessionStore(tmp_path).rows("human_edits", 1)[0]["what"] == "plan"


@pytest.mark.slow
def test_code_file_edited_on_disk_is_reloaded(tmp_path: Path) -> None:
    async def scenario() -> None:
        # 4 rollouts in iteration 1: safe points to pause at before iteration 2 codes
        settings = tiny_settings(max_iterations=3, samples_per_iteration=4096)
        app = RlgptApp(tmp_path, settings=settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            await until(pilot, lambda: screen.code_pane.versions, 240, "go_to_tree's code")
            await pilot.press("p")
            await until(pilot, lambda: screen.header.state == "paused", 120, "the pause")
            # iteration 2 of the builtin agent codes collect_wood: its file, written by an
            # external editor now, must be validated, reported and used there
            path = tmp_path / "1" / "code" / "collect_wood.py"
            path.write_text("import os\n\ndef act(ctx):\n    yield Action.NOOP\n")
            await until(
                pilot,
                lambda: any("refused" in str(line.text) for line in screen.log_pane.lines),
                20,
                "the invalid edit to be reported",
            )
            edited = screen.code_pane.latest("go_to_tree") + "\n# edited on disk\n"
            path.write_text(edited)
            await until(
                pilot,
                lambda: any(
                    "queued (saved on disk)" in line.text for line in screen.log_pane.lines
                ),
                20,
                "the valid edit to be taken",
            )
            await pilot.press("p")
            await until(pilot, lambda: screen.ended, 240, "the session to end")

    asyncio.run(scenario())
    events = SessionStore(tmp_path).events(1)
    written = [e for e in events if e["kind"] == "code_written" and e["source"] == "human"]
    assert len(written) == 1 and written[0]["code"].endswith("# edited on disk\n")
    assert written[0]["subaction"] == "collect_wood" and written[0]["iteration"] == 2
    assert "import os" not in json.dumps(events)  # the invalid version never reached the engine


@pytest.mark.slow
def test_open_and_resume_a_saved_session_then_replay_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings())
    session.control.stop()  # stopped at its first safe point: a saved, unfinished session
    session.run()
    assert store.get(session.id).status == "stopped"
    finished = [e for e in events_from_records(store.events(1)) if e.kind == "session_finished"]
    assert "finished: stopped by you; nothing evaluated yet" in finished_text(finished[0])
    assert "ended before its first evaluation" in session_markdown(store, 1, None)

    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: session_rows(app) == 1, 30, "the stopped session's row")
            table = app.screen.query_one("#sessions")
            assert table.row_count == 1 and "stopped" in table.get_row_at(0)
            await pilot.press("enter")  # resume it
            screen = await run_screen(pilot, app)
            assert screen.live
            await until(pilot, lambda: screen.ended, 240, "the resumed session to end")
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, RunScreen), 10, "browser")
            assert "finished" in app.screen.query_one("#sessions").get_row_at(0)
            await pilot.press("enter")  # finished: a read-only replay
            replay = await run_screen(pilot, app)
            assert not replay.live and replay.replay_events
            assert replay.position == len(replay.replay_events)  # opens with every event shown
            assert replay.query_one(TrainingPane).points >= 2
            await pilot.press("home")
            assert replay.position == 0 and replay.query_one(TrainingPane).points == 0
            await pilot.press("right", "right", "right")
            assert replay.position == 3
            await pilot.press("left")
            assert replay.position == 2
            await pilot.press("end")
            assert replay.position == len(replay.replay_events)
            assert replay.query_one(TrainingPane).points >= 2
            assert "replay" in replay.header.state

    asyncio.run(scenario())
    assert store.get(session.id).status == "finished"


def form_error(app: RlgptApp) -> str:
    return str(app.screen.query_one("#form-error").render())


def test_new_session_form_rejects_bad_numbers_and_libraries(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n")
            assert isinstance(app.screen, NewSessionScreen)
            app.screen.query_one("#env").value = "minedojo"
            num_envs = app.screen.query_one("#num_envs")
            # one Minecraft per env
            await until(pilot, lambda: num_envs.value == "1", 10, "num_envs to follow the env")
            app.screen.query_one("#target").value = "1.5"
            await pilot.press("ctrl+s")
            error = str(app.screen.query_one("#form-error").render())
            assert "target 1.5 is not a success rate: use a number in (0, 1]" in error
            app.screen.query_one("#task").value = "crafter_score"  # judged by a score
            app.screen.query_one("#target").value = "120"
            await pilot.press("ctrl+s")
            error = str(app.screen.query_one("#form-error").render())
            assert "target 120.0 is not a Crafter score: use a number in (0, 100]" in error
            app.screen.query_one("#target").value = ""
            app.screen.query_one("#library").value = str(tmp_path / "no-such-folder")
            await pilot.press("ctrl+s")  # the session is created in a worker: wait for it
            await until(pilot, lambda: "no such folder" in form_error(app), 10, "the error")
            assert "use empty, builtin, user, own or a folder" in form_error(app)
            assert SessionStore(tmp_path).list_sessions() == []

    asyncio.run(scenario())


@pytest.fixture
def fixed_dir(tmp_path: Path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)  # a relative sessions folder: the same text on every machine
    return "sessions"


def test_snapshot_session_browser(snap_compare, fixed_dir) -> None:
    assert snap_compare(RlgptApp(fixed_dir), terminal_size=(120, 30))


def test_snapshot_new_session_form(snap_compare, fixed_dir) -> None:
    assert snap_compare(RlgptApp(fixed_dir), terminal_size=(120, 40), press=["n"])


@pytest.mark.slow
def test_approval_mode_asks_before_each_proposal(tmp_path: Path) -> None:
    from rlgpt_tui.tui.screens.dialogs import ApproveDialog

    asked: list[str] = []

    async def scenario() -> None:
        app = RlgptApp(tmp_path, settings=tiny_settings(), approval=True)
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            deadline = time.monotonic() + 240
            while not screen.ended:
                assert time.monotonic() < deadline, f"the session did not end; asked {asked}"
                if isinstance(app.screen, ApproveDialog):
                    asked.append(app.screen.kind)
                    await pilot.press("n" if len(asked) == 1 else "y")  # reject the first plan
                await pilot.pause(0.1)

    asyncio.run(scenario())
    # it1's plan (rejected, asked again), it2's plan: approved as a whole, its code with it
    assert asked == ["plan", "plan", "plan"]
    events = SessionStore(tmp_path).events(1)
    rejected = [e for e in events if e["kind"] == "error"]
    assert rejected and "plan rejected by a person" in rejected[0]["message"]
    assert [e["iteration"] for e in events if e["kind"] == "plan_proposed"] == [0, 1]
    assert SessionStore(tmp_path).get(1).status == "finished"


def test_the_header_of_a_session_recorded_under_a_gguf_path_names_the_model() -> None:
    from rlgpt_tui.engine import events as ev
    from rlgpt_tui.tui.widgets.header import SessionHeader

    header = SessionHeader(3)
    agent = "llm:/home/me/models/qwen2.5-coder-1.5b.gguf"  # older sessions recorded the path
    header.show(
        ev.SessionStarted(iteration=0, agent=agent, task="collect_wood", env="craftax", settings={})
    )
    shown = str(header.render())
    assert "qwen2.5-coder-1.5b" in shown and "/home/me" not in shown
