"""Resume that carries everything, driven through the app with Pilot (real engine, craftax,
builtin agent): pause during training, an RL-config edit with r, a code edit saved on disk,
stop with s, then resume from the session browser."""

from __future__ import annotations

import asyncio
import json

import pytest

from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.dialogs import EditRLConfigDialog
from rlgpt_tui.tui.screens.run import RunScreen
from tests.settings import tiny_settings
from tests.test_tui import run_screen
from tests.waiting import until

SIZE = (160, 50)
EDITED = "code_collect_wood"
FROM_DISK = "\n# saved in an editor while the session was paused\n"


def events_of(store: SessionStore, kind: str) -> list[dict]:
    return [e for e in store.events(1) if e["kind"] == kind]


@pytest.mark.slow
def test_pause_rl_edit_code_on_disk_stop_then_resume_from_the_browser(tmp_path) -> None:
    store = SessionStore(tmp_path)

    async def scenario() -> None:
        settings = tiny_settings(samples_per_iteration=8192, checkpoint_every=1, max_iterations=3)
        app = RlgptApp(tmp_path, settings=settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_screen(pilot, app)
            training = screen.training_pane
            await until(pilot, lambda: training.current == "it2 collect_wood", 300, "it2 PPO")
            await pilot.press("p")
            await until(pilot, lambda: screen.header.state == "paused", 120, "the pause")

            await pilot.press("r")  # the person's RL config: a larger budget
            await until(pilot, lambda: isinstance(app.screen, EditRLConfigDialog), 10, "dialog")
            app.screen.query_one("#editor").load_text(json.dumps({"samples": 12_288}))
            await pilot.press("ctrl+s")
            await until(pilot, lambda: screen.header.pending == 1, 10, "the RL edit")

            code = screen.code_pane.latest(EDITED)  # the code the policy starts from: it runs
            (tmp_path / "1" / "code" / f"{EDITED}.py").write_text(code + FROM_DISK)
            await until(pilot, lambda: screen.header.pending == 2, 60, "the file's edit")

            await pilot.press("s")
            await until(pilot, lambda: screen.ended, 120, "the stop")
            assert store.get(1).status == "stopped"
            await pilot.press("escape")  # back to the browser: enter resumes it
            await until(pilot, lambda: not isinstance(app.screen, RunScreen), 10, "browser")
            await pilot.press("enter")
            resumed = await run_screen(pilot, app)
            assert resumed is not screen and resumed.live
            await until(pilot, lambda: resumed.ended, 300, "the resumed session to end")
            assert "ERROR" not in "\n".join(line.text for line in resumed.log_pane.lines)
            assert resumed.header.pending == 0

    asyncio.run(scenario())
    assert store.get(1).status == "finished"
    progress = [e for e in events_of(store, "training_progress") if e["iteration"] == 1]
    resumed_at = next(e for e in store.events(1) if e["kind"] == "session_resumed")
    before = [e for e in progress if e["seq"] < resumed_at["seq"]]
    after = [e for e in progress if e["seq"] > resumed_at["seq"]]
    # it continues from the checkpoint taken where it stopped: nothing trained twice
    done = resumed_at["training_samples_done"]
    assert done == before[-1]["metrics"]["samples"] > 0
    assert after and after[0]["metrics"]["samples"] > done
    assert all(e["metrics"]["fps"] > 0 for e in after)  # live fps, not 0
    # the person's edits, pending at the stop, are in force in the resumed run
    assert sorted(resumed_at["edits_carried"]) == sorted(
        e["edit_id"] for e in events_of(store, "edit_queued")
    )
    started = [e for e in events_of(store, "training_started") if e["iteration"] == 1]
    assert started[-1]["seq"] > resumed_at["seq"]
    assert started[-1]["rl_config"]["samples"] == 12_288  # the recorded config
    assert after[-1]["metrics"]["samples"] >= 12_288
    applied = {e["what"]: e for e in events_of(store, "edit_applied")}
    assert set(applied) == {"rl_config", "code"}
    version = applied["code"]["version"]
    code = {r["event_seq"]: r["code"] for r in store.rows("code_versions", 1)}
    assert code[version].endswith(FROM_DISK)
    spec = next(c for c in started[-1]["rl_config"]["coded_actions"] if c["name"] == EDITED)
    assert spec["version"] != version  # recorded as cut off; the edit swapped in before PPO
    calls = [json.loads(json.dumps(e["metrics"]["coded_actions"][EDITED])) for e in after]
    assert calls[-1]["versions"].get(str(version), 0) > 0  # the edited code is what ran
