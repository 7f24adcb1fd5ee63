"""The new-session form: task, world, agent (builtin or an LLM endpoint), budgets."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from rlgpt_tui.engine.engine import EngineSettings
from rlgpt_tui.envs import WORLDS
from rlgpt_tui.library.shelf import USER
from rlgpt_tui.rl.train import require_tensorboard
from rlgpt_tui.tasks import get_task, load_catalog
from rlgpt_tui.tui.screens.actions import app_actions

NUMBER_FIELDS = {
    # field: (label, default); an empty optional field takes the task's default
    "max_iterations": ("iterations (max)", "4"),
    "samples_per_iteration": ("PPO samples per iteration", ""),
    "max_samples": ("total sample budget", "200000"),
    "target": ("target (task's measure)", ""),
    "num_envs": ("parallel envs", "64"),
    "seed": ("seed", "0"),
}
Number = TypeVar("Number", int, float)
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
                yield Select([(w, w) for w in WORLDS], value="craftax", id="env")
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
                for name, (label, default) in NUMBER_FIELDS.items():
                    yield Label(label)
                    yield Input(default, placeholder=OPTIONAL.get(name, ""), id=name)
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

    def settings(self) -> EngineSettings:
        """The form as EngineSettings; raises ValueError with a one-line message."""
        iterations = self._number("max_iterations", int)
        per_iteration = self._optional_number("samples_per_iteration", int)
        budget = self._number("max_samples", int)
        target = self._optional_number("target", float)
        num_envs = self._number("num_envs", int)
        seed = self._number("seed", int)
        counts = {
            "max_iterations": iterations,
            "samples_per_iteration": per_iteration,
            "max_samples": budget,
            "num_envs": num_envs,
        }
        for name, count in counts.items():
            if count is not None and count < 1:
                raise ValueError(f"{NUMBER_FIELDS[name][0]} must be at least 1")
        task = self.query_one("#task", Select).value
        env = self.query_one("#env", Select).value
        if task is Select.BLANK or env is Select.BLANK:
            raise ValueError("choose a task and a world")
        if target is not None:
            get_task(str(task)).measure.check_target(target)
        board = self.query_one("#tb", Input).value.strip() or None
        if board:
            require_tensorboard()  # a ValueError naming the install
        return EngineSettings(
            task=str(task),
            env=str(env),
            num_envs=num_envs,
            seed=seed,
            max_iterations=iterations,
            target=target,
            samples_per_iteration=per_iteration,
            max_samples=budget,
            tensorboard_dir=board,
        )

    def _number(self, name: str, kind: Callable[[str], Number]) -> Number:
        """The field ``name`` read as ``kind``; ValueError naming the field."""
        text = self.query_one(f"#{name}", Input).value.strip()
        try:
            return kind(text)
        except ValueError:
            raise ValueError(f"{NUMBER_FIELDS[name][0]}: {text!r} is not a number") from None

    def _optional_number(self, name: str, kind: Callable[[str], Number]) -> Number | None:
        """An optional field read as ``kind``; None when left empty (the task's default)."""
        if not self.query_one(f"#{name}", Input).value.strip():
            return None
        return self._number(name, kind)

    def action_start(self) -> None:
        try:
            settings = self.settings()
        except ValueError as error:
            self.query_one("#form-error", Static).update(str(error))
            return
        text = self.query_one("#llm_timeout", Input).value.strip()
        try:
            timeout = float(text) if text else None
        except ValueError:
            self.show_error(f"LLM timeout (s): {text!r} is not a number")
            return
        self.query_one("#form-error", Static).update("starting...")
        if self.query_one("#learn", Switch).value:
            self.start_learning(settings, timeout)
            return
        app_actions(self).start_session(
            settings,
            base_url=self.query_one("#url", Input).value.strip() or None,
            model=self.query_one("#model", Input).value.strip() or None,
            chain=self.query_one("#chain", Switch).value,
            approval=self.query_one("#approval", Switch).value,
            library=self.query_one("#library", Input).value.strip() or USER,
            timeout=timeout,
        )

    def start_learning(self, settings: EngineSettings, timeout: float | None) -> None:
        """The learn switch: the form's world, library, LLM and session budgets start (or
        continue) the sessions folder's learn record; the task field is the curriculum's."""
        text = self.query_one("#learn_hours", Input).value.strip()
        try:
            hours = float(text) if text else None
        except ValueError:
            self.show_error(f"learn budget (hours): {text!r} is not a number")
            return
        if hours is not None and hours <= 0:
            self.show_error("learn budget (hours) must be more than 0")
            return
        if settings.target is not None and not 0 < settings.target <= 1:
            self.show_error("target: a learn run's target is a success rate in (0, 1]")
            return
        app_actions(self).start_learn(
            env=settings.env,
            library=self.query_one("#library", Input).value.strip() or USER,
            plan={
                "iterations": settings.max_iterations,
                "samples_per_iteration": settings.samples_per_iteration,
                "session_samples": settings.max_samples,
                "num_envs": settings.num_envs,
                "seed": settings.seed,
            },
            budgets={"max_hours": hours} if hours is not None else {},
            threshold=settings.target,
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
        self.query_one("#form-error", Static).update(message)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_start()
