"""``rlgpt-tui``: the Textual app. Sessions browser, new-session form, live and replay panes.

The engine never imports Textual: the app runs a Session (engine + store) in a thread
worker and shows the events it records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from rlgpt_tui.engine.engine import EngineSettings
from rlgpt_tui.llm.client import LLMError, LLMSettings
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.tui.screens.new_session import NewSessionScreen
from rlgpt_tui.tui.screens.run import RunScreen
from rlgpt_tui.tui.screens.sessions import SessionsScreen


class RlgptApp(App):
    """Open on the session browser; ``settings`` starts a session right away."""

    CSS_PATH = "app.tcss"
    TITLE = "rlgpt-tui"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(
        self,
        sessions_dir: str | Path | None = None,
        settings: EngineSettings | None = None,
        approval: bool = False,
    ) -> None:
        super().__init__()
        self.store = SessionStore(sessions_dir)
        self.initial_settings = settings
        self.approval = approval

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(self.store))
        if self.initial_settings is not None:
            self.start_session(self.initial_settings, approval=self.approval)

    def on_unmount(self) -> None:
        """Let the worker threads end: stop running engines and the file watchers."""
        for screen in self.screen_stack:
            if isinstance(screen, RunScreen):
                screen.shut_down()

    # -- what screens ask for -----------------------------------------------------------------
    def action_new_session(self) -> None:
        self.push_screen(NewSessionScreen())

    def start_session(
        self,
        settings: EngineSettings,
        base_url: str | None = None,
        model: str | None = None,
        chain: bool = False,
        approval: bool = False,
    ) -> None:
        """Create the session in a worker (an LLM endpoint is checked first), then show it."""

        def create() -> Session:
            llm = LLMSettings.resolve(base_url, model)
            if llm.base_url and not llm.configured:
                raise LLMError("an LLM base URL without a model: fill in the model")
            return Session.create(self.store, settings, llm, chain=chain)

        self._open_in_worker(create, approval, (LLMError, StoreError, ValueError))

    def _open_in_worker(
        self,
        build: Callable[[], Session],
        approval: bool,
        errors: tuple[type[Exception], ...],
    ) -> None:
        """Build a session off the UI thread (it may call the LLM), then show it live."""

        def work() -> None:
            try:
                session = build()
            except errors as error:
                self.call_from_thread(self._creation_failed, str(error))
                return
            self.call_from_thread(self._show_live, session, approval)

        self.run_worker(work, thread=True, name="open-session")

    def _creation_failed(self, message: str) -> None:
        if isinstance(self.screen, NewSessionScreen):
            self.screen.show_error(message)
        self.notify(message, severity="error", timeout=10)

    def _show_live(self, session: Session, approval: bool) -> None:
        if isinstance(self.screen, NewSessionScreen):
            self.pop_screen()
        self.push_screen(RunScreen(self.store, session=session, approval=approval))

    def resume_session(self, session_id: int) -> None:
        self._open_in_worker(
            lambda: Session.resume(self.store, session_id), self.approval, (LLMError, StoreError)
        )

    def replay_session(self, session_id: int) -> None:
        self.push_screen(RunScreen(self.store, replay_id=session_id))

    # -- the command palette ------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("New session", "Start an RL-GPT session", self.action_new_session)
        if isinstance(screen, RunScreen) and screen.live:
            for title, help_text, action in (
                ("Pause or resume", "at the engine's next safe point", screen.action_pause),
                ("Stop the session", "it can be resumed later", screen.action_stop),
                (
                    "Edit the plan",
                    "JSON editor, used for the next iteration",
                    screen.action_edit_plan,
                ),
                ("Edit code", "the selected version's sub-action", screen.action_edit_code),
                ("Toggle approval mode", "ask before each agent proposal", screen.action_approval),
            ):
                yield SystemCommand(title, help_text, action)
