"""``rlgpt-tui``: the Textual app. Sessions browser, new-session form, live and replay panes.

The engine never imports Textual: the app runs a Session (engine + store) in a thread and
shows the events it records. Each live session's run screen (and so its control plane) is
held once, in ``live_runs``: escape leaves it running behind the browser, enter on it
returns. Quitting asks every live run to stop at its next safe point and gives the terminal
back at once; the process then waits for those safe points (saying so).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

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
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("question_mark", "help", "Help"),
    ]

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
        self.live_runs: dict[int, RunScreen] = {}  # session id -> its live run screen

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(self.store))
        if self.initial_settings is not None:
            self.start_session(self.initial_settings, approval=self.approval)

    def on_unmount(self) -> None:
        """Let the threads end: stop running engines and the file watchers."""
        for screen in list(self.live_runs.values()):
            screen.shut_down()

    def running(self) -> list[RunScreen]:
        """Live runs whose engine has not ended."""
        return [s for s in self.live_runs.values() if not s.ended]

    async def action_quit(self) -> None:
        """Stop live runs at their next safe point; the terminal comes back at once."""
        for screen in self.running():
            screen.control.stop()
        self.exit()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().run(*args, **kwargs)
        finally:
            self.wait_for_runs()

    def wait_for_runs(self) -> None:
        """After the app closed: wait (saying so) for stopping runs to reach a safe point."""
        for session_id, screen in self.live_runs.items():
            thread = screen.engine_thread
            if thread is not None and thread.is_alive():
                print(
                    f"rlgpt-tui: session {session_id} stops at its next safe point (resume it "
                    f"with `rlgpt-tui resume {session_id}`)...",
                    file=sys.stderr,
                    flush=True,
                )
                thread.join()

    def action_help(self) -> None:
        from rlgpt_tui.tui.screens.dialogs import HelpScreen

        self.push_screen(HelpScreen())

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
        screen = RunScreen(self.store, session=session, approval=approval)
        self.live_runs[session.id] = screen
        self.install_screen(screen, f"run-{session.id}")  # kept while the browser shows
        self.push_screen(f"run-{session.id}")

    def open_session(self, session_id: int) -> None:
        """Return to a live run, resume an unfinished session, or replay a finished one."""
        if session_id in self.live_runs:
            self.push_screen(f"run-{session_id}")
        elif self.store.get(session_id).status in ("interrupted", "stopped", "failed"):
            self.resume_session(session_id)
        else:
            self.replay_session(session_id)

    def close_run(self, screen: RunScreen) -> None:
        """Leave a run screen for good (a replay, or a live run that ended)."""
        self.pop_screen()
        if self.live_runs.get(screen.session_id) is screen:
            del self.live_runs[screen.session_id]
            self.uninstall_screen(f"run-{screen.session_id}")
            screen.remove()

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
