"""A session's settings are declared once (``rlgpt_tui/session_settings.py``): the CLI's flags,
the app's new-session form and the learn plan take their defaults and checks from it, so the
same bad value gets the same one-line message in each."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rlgpt_tui.cli import main
from rlgpt_tui.cli.parser import build_parser
from rlgpt_tui.curriculum.loop import Learner
from rlgpt_tui.envs import WORLDS
from rlgpt_tui.session_settings import (
    LearnTarget,
    SessionPlan,
    SessionSettings,
    SettingError,
)
from rlgpt_tui.store import SessionStore
from rlgpt_tui.store.learning import LearnStore
from rlgpt_tui.tui.app import RlgptApp
from rlgpt_tui.tui.screens.new_session import NewSessionScreen

SIZE = (160, 50)

# (setting, the CLI's flag, the form's field, the bad value, the one line every surface says)
BAD = [
    ("seed", "--seed", "seed", "-1", "--seed must be 0 or more, got -1"),
    ("num_envs", "--num-envs", "num_envs", "5000", "--num-envs must be at most 4096, got 5000"),
    ("iterations", "--iterations", "max_iterations", "0", "--iterations must be at least 1, got 0"),
]
THRESHOLD = "--threshold must be a success rate in (0, 1], got 1.5"
IDS = [setting for setting, *_ in BAD]


def cli_error(argv: list[str], capsys) -> str:
    try:
        code = main(argv)
    except SystemExit as done:
        code = int(done.code or 0)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    prefix = "rlgpt-tui: error: "
    assert err.startswith(prefix), err
    return err[len(prefix) :]


@pytest.mark.parametrize(("setting", "flag", "field", "value", "message"), BAD, ids=IDS)
def test_the_cli_the_form_and_the_learn_plan_say_the_same_line(
    setting, flag, field, value, message, tmp_path: Path, capsys
) -> None:
    folder = str(tmp_path)
    run = ["run", "--task", "collect_wood", flag, value, "--sessions-dir", folder]
    assert cli_error(run, capsys) == message
    learn = ["learn", flag, value, "--sessions-dir", folder]
    assert cli_error(learn, capsys) == message
    assert SessionStore(tmp_path).list_sessions() == []

    kind = float if setting == "threshold" else int
    with pytest.raises(SettingError) as plan_error:
        Learner.open(SessionStore(tmp_path), None, None, {setting: kind(value)}, {}, None, None)
    assert str(plan_error.value) == message
    with pytest.raises(SettingError) as model_error:
        SessionSettings(**{setting: kind(value)})
    assert str(model_error.value) == message
    assert LearnStore(SessionStore(tmp_path)).latest() is None

    for learn_switch in (False, True):
        assert form_error(tmp_path, {field: value}, learn_switch) == message


def test_a_threshold_of_one_and_a_half_is_the_same_line_everywhere(tmp_path: Path, capsys) -> None:
    argv = ["learn", "--threshold", "1.5", "--sessions-dir", str(tmp_path)]
    assert cli_error(argv, capsys) == THRESHOLD
    store = SessionStore(tmp_path)
    with pytest.raises(SettingError) as plan_error:
        Learner.open(store, None, None, {}, {}, 1.5, None)
    assert str(plan_error.value) == THRESHOLD
    assert LearnStore(store).latest() is None
    # the form's target is the learn's threshold when the learn switch is on
    assert form_error(tmp_path, {"target": "1.5"}, learn=True) == THRESHOLD


def form_error(folder: Path, values: dict[str, str], learn: bool = False) -> str:
    """The form's one line after Start with ``values`` typed into its fields."""
    seen: list[str] = []

    async def scenario() -> None:
        app = RlgptApp(folder)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n")
            screen = app.screen
            assert isinstance(screen, NewSessionScreen)
            screen.query_one("#learn").value = learn
            for field, value in values.items():
                screen.query_one(f"#{field}").value = value
            await pilot.press("ctrl+s")
            await pilot.pause()
            seen.append(str(screen.query_one("#form-error").render()))

    asyncio.run(scenario())
    return seen[0]


def test_the_form_shows_the_cli_s_defaults(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = RlgptApp(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n")
            screen = app.screen
            assert isinstance(screen, NewSessionScreen)
            typed = screen.typed()
            world = str(screen.query_one("#env").value)
            assert typed["num_envs"] == str(WORLDS[world].default_num_envs)
            for setting in ("iterations", "max_samples", "seed"):
                assert typed[setting] == str(SessionSettings.default(setting))
            settings = screen.settings()
            assert settings.max_iterations == SessionSettings.default("iterations")
            assert settings.num_envs == WORLDS[world].default_num_envs

    asyncio.run(scenario())


def test_the_flags_take_the_model_s_defaults_and_help() -> None:
    parser = build_parser()
    run = parser.parse_args(["run", "--task", "collect_wood"])
    for setting in SessionSettings.model_fields:
        assert getattr(run, setting) == SessionSettings.default(setting), setting
    learn = parser.parse_args(["learn"])
    for setting in SessionPlan.model_fields:
        assert getattr(learn, setting) is None, setting  # not given: the record's stays
    assert learn.threshold is None and LearnTarget.default("threshold") == 0.9
    assert SessionPlan.default("iterations") == 3  # a learn's sessions: 3 iterations each
    assert SessionSettings.default("iterations") == 4


def test_a_recorded_plan_loads_as_it_was_written() -> None:
    """A learn record's settings (the plan's dict, older ones lacking max_tries) load."""
    older = {
        "iterations": 2,
        "samples_per_iteration": None,
        "session_samples": 5000,
        "num_envs": 8,
        "eval_episodes": 8,
        "final_episodes": None,
        "seed": 1,
    }
    plan = SessionPlan(**older)
    assert plan.max_tries == 3
    assert plan.model_dump() == older | {"max_tries": 3}


def test_version_one_s_target_success_is_read_in_one_place() -> None:
    """Sessions of version 1 named their target ``target_success``: the engine's settings and
    the report read it through :mod:`rlgpt_tui.recorded`, as ``target``."""
    from rlgpt_tui.engine.settings import EngineSettings
    from rlgpt_tui.recorded import SCHEMA_VERSION, current_settings, recorded_target

    assert SCHEMA_VERSION == 2
    old = {"task": "collect_wood", "target_success": 0.5}
    assert current_settings(old) == {"task": "collect_wood", "target": 0.5}
    assert recorded_target(old) == 0.5
    assert recorded_target({"target": 0.7, "target_success": 0.5}) == 0.7
    assert recorded_target({}) is None
    assert EngineSettings.from_recorded(old).target == 0.5
