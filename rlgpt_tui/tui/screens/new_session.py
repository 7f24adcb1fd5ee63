"""The new-session form: task, world, agent (builtin or an LLM endpoint), budgets."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from rlgpt_tui.engine.engine import EngineSettings
from rlgpt_tui.envs import WORLDS
from rlgpt_tui.library.shelf import USER
from rlgpt_tui.rl.tensorboard import require_tensorboard
from rlgpt_tui.session_settings import LearnBudgets, LearnTarget, SessionPlan, SessionSettings
from rlgpt_tui.tasks.catalog import get_task, load_catalog
from rlgpt_tui.tui.screens.actions import app_actions

FIRST_WORLD = "craftax"
NUMBER_FIELDS = {
    # field: (label, its setting in SessionSettings, whose default it shows); an empty
    # optional field takes the task's default, an empty parallel envs the world's
    "max_iterations": ("iterations (max)", "iterations"),
    "samples_per_iteration": ("PPO samples per iteration", "samples_per_iteration"),
    "max_samples": ("total sample budget", "max_samples"),
    "target": ("target (task's measure)", "target"),
    "num_envs": ("parallel envs", "num_envs"),
    "seed": ("seed", "seed"),
}
LIBRARY_HINT = "user (yours, then builtin), own (yours alone), builtin, empty, or a folder"
OPTIONAL = {
    "samples_per_iteration": "30000; scored tasks: budget / iterations",
    "target": "success rate 0.9; Crafter score 50.5",
}


class NewSessionScreen(Screen):
    """Fill in and press Start (ctrl+s); an empty model means the builtin agent."""

    BINDINGS = [
        Binding("ctrl+s", "start", "Start"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def compose(self) -> ComposeResult:
        tasks = list(load_catalog())
        with VerticalScroll(id="new-session"):
            yield Static("[b]New session[/b]", classes="dialog-title")
            with Grid(id="new-session-form"):
                yield Label("task")
                yield Select([(t, t) for t in tasks], value="collect_wood", id="task")
                yield Label("world")
                yield Select([(w, w) for w in WORLDS], value=FIRST_WORLD, id="env")
                llm = app_actions(self).llm_defaults
                yield Label("LLM base URL")
                yield Input(llm.base_url or "", placeholder="empty: builtin agent", id="url")
                yield Label("LLM model")
                yield Input(llm.model or "", placeholder="empty: builtin agent", id="model")
                yield Label("LLM timeout (s)")
                yield Input(
                    f"{llm.timeout:g}",
                    placeholder="seconds for a whole request; a slow local model needs minutes",
                    id="llm_timeout",
                )
                yield Label("skill library")
                yield Input(USER, placeholder=LIBRARY_HINT, id="library")
                for name, (label, setting) in NUMBER_FIELDS.items():
                    yield Label(label)
                    hint = OPTIONAL.get(name, "")
                    yield Input(_shown_default(setting), placeholder=hint, id=name)
                yield Label("TensorBoard folder")
                yield Input("", placeholder="empty: none (needs the tensorboard extra)", id="tb")
                yield Label("chain sub-tasks (planner)")
                yield Switch(False, id="chain")
                yield Label("approval mode")
                yield Switch(False, id="approval")
                yield Label("learn: a curriculum chooses")
                yield Switch(False, id="learn")
                yield Label("learn budget (hours)")
                yield Input("", placeholder="empty: no limit (learn only)", id="learn_hours")
            yield Static("The API key is read from the environment only.", id="form-hint")
            yield Static("", id="form-error", classes="error", markup=False)  # errors as written
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start (ctrl+s)", variant="primary", id="start")
        yield Footer()

    def typed(self) -> dict[str, str | None]:
        """The number fields as typed, by their setting (None: an optional one left empty)."""
        values: dict[str, str | None] = {}
        for name, (_, setting) in NUMBER_FIELDS.items():
            text = self.query_one(f"#{name}", Input).value.strip()
            optional = SessionSettings.default(setting) is None
            values[setting] = None if optional and not text else text
        return values

    def choices(self) -> tuple[str, str]:
        """The task and world chosen; ValueError when one is blank."""
        task = self.query_one("#task", Select).value
        env = self.query_one("#env", Select).value
        if task is Select.BLANK or env is Select.BLANK:
            raise ValueError("choose a task and a world")
        return str(task), str(env)

    def settings(self) -> EngineSettings:
        """The form as EngineSettings, checked by the settings model as ``rlgpt-tui run``
        checks its flags; raises ValueError (a SettingError: the CLI's line) otherwise."""
        given = SessionSettings(**self.typed())
        task, env = self.choices()
        given.check_target(get_task(task))
        board = self.query_one("#tb", Input).value.strip() or None
        if board:
            require_tensorboard()  # a ValueError naming the install
        return EngineSettings(
            task=task,
            env=env,
            num_envs=given.num_envs or WORLDS[env].default_num_envs,
            seed=given.seed,
            max_iterations=given.iterations,
            target=given.target,
            samples_per_iteration=given.samples_per_iteration,
            max_samples=given.max_samples,
            tensorboard_dir=board,
        )

    def action_start(self) -> None:
        text = self.query_one("#llm_timeout", Input).value.strip()
        try:
            timeout = float(text) if text else None
        except ValueError:
            self.show_error(f"LLM timeout (s): {text!r} is not a number")
            return
        try:
            if self.query_one("#learn", Switch).value:
                self.start_learning(timeout)
                return
            settings = self.settings()
        except ValueError as error:  # a SettingError among them
            self.show_error(str(error))
            return
        self.query_one("#form-error", Static).update("starting...")
        app_actions(self).start_session(
            settings,
            base_url=self.query_one("#url", Input).value.strip() or None,
            model=self.query_one("#model", Input).value.strip() or None,
            chain=self.query_one("#chain", Switch).value,
            approval=self.query_one("#approval", Switch).value,
            library=self.query_one("#library", Input).value.strip() or USER,
            timeout=timeout,
        )

    def start_learning(self, timeout: float | None) -> None:
        """The learn switch: the form's world, library, LLM and session settings start (or
        continue) the sessions folder's learn record; the task field is the curriculum's, and
        the target is the learn's threshold. Checked by the settings models as ``rlgpt-tui
        learn`` checks its flags (a SettingError, ValueError: the CLI's line)."""
        typed = self.typed()
        _, env = self.choices()
        plan: dict[str, Any] = {
            "iterations": typed["iterations"],
            "samples_per_iteration": typed["samples_per_iteration"],
            "session_samples": typed["max_samples"],
            "num_envs": typed["num_envs"],
            "seed": typed["seed"],
        }
        hours = self.query_one("#learn_hours", Input).value.strip() or None
        checked = SessionPlan(**plan)
        budgets = LearnBudgets(max_hours=hours)
        threshold = None
        if typed["target"] is not None:
            threshold = LearnTarget(threshold=typed["target"]).threshold
        self.query_one("#form-error", Static).update("starting...")
        app_actions(self).start_learn(
            env=env,
            library=self.query_one("#library", Input).value.strip() or USER,
            plan=checked.model_dump(include=set(plan)),
            budgets=budgets.model_dump(exclude_none=True),
            threshold=threshold,
            base_url=self.query_one("#url", Input).value.strip() or None,
            model=self.query_one("#model", Input).value.strip() or None,
            timeout=timeout,
        )

    def on_select_changed(self, event: Select.Changed) -> None:
        """Each world's usual number of envs (MineDojo: one Minecraft per env)."""
        if event.select.id == "env" and event.value in WORLDS:
            default = WORLDS[event.value].default_num_envs
            self.query_one("#num_envs", Input).value = str(default)

    def show_error(self, message: str) -> None:
        """One line under the form: a SettingError reads as the CLI's for the same value."""
        self.query_one("#form-error", Static).update(message)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_start()


def _shown_default(setting: str) -> str:
    """The form's text for ``setting``'s default: the model's, the first world's number of
    envs (as ``rlgpt-tui run`` takes it), empty for an optional one."""
    if setting == "num_envs":
        return str(WORLDS[FIRST_WORLD].default_num_envs)
    default = SessionSettings.default(setting)
    return "" if default is None else str(default)
