"""``rlgpt-tui``: the Textual app. Sessions browser, new-session form, live and replay panes.

The engine never imports Textual: the app runs a Session (engine + store) in a thread and
shows the events it records. Each live session's run screen (and so its control plane) is
held once, in ``live_runs``: escape leaves it running behind the browser, enter on it
returns. Quitting asks every live run to stop at its next safe point and gives the terminal
back at once; the process then waits for those safe points (saying so).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from rlgpt_tui.curriculum.loop import Learner
from rlgpt_tui.engine.engine import EngineSettings
from rlgpt_tui.library.shelf import USER
from rlgpt_tui.llm.settings import LLMError, LLMSettings
from rlgpt_tui.report.export import export_session
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.store.learning import LearnStore
from rlgpt_tui.tui.screens.actions import AppActions
from rlgpt_tui.tui.screens.dialogs import HelpScreen
from rlgpt_tui.tui.screens.frontier import FrontierScreen
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
        llm_config: str | Path | None = None,
        llm_timeout: float | None = None,
    ) -> None:
        super().__init__()
        self.store = SessionStore(sessions_dir)
        self.initial_settings = settings
        self.approval = approval
        self.llm_config = llm_config  # an [llm] table for the sessions started here
        self.llm_timeout = llm_timeout  # replaces a resumed LLM session's recorded timeout
        # what the new-session form shows (the environment, the config file, the timeout);
        # a bad file or value raises LLMError here, before the app takes the terminal
        self.llm_defaults = LLMSettings.resolve(None, None, llm_config, timeout=llm_timeout)
        self.live_runs: dict[int, RunScreen] = {}  # session id -> its live run screen
        self.learn_thread: threading.Thread | None = None  # a learn run started here
        self.last_export: Path | None = None  # the report the app wrote last

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
        self._stop_learning()
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
        if self.learn_thread is not None and self.learn_thread.is_alive():
            print(
                "rlgpt-tui: the learn run stops at its session's next safe point (continue it "
                "with `rlgpt-tui learn`)...",
                file=sys.stderr,
                flush=True,
            )
            self.learn_thread.join()

    def action_help(self) -> None:
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
        library: str = USER,
        timeout: float | None = None,
    ) -> None:
        """Create the session in a worker (an LLM endpoint is checked first), then show it;
        ``library``: what an LLM session's agents start from (``run --library``);
        ``timeout``: seconds for a whole LLM request (None: the app's, else the default)."""

        def create() -> Session:
            seconds = timeout if timeout is not None else self.llm_timeout
            llm = LLMSettings.resolve(base_url, model, self.llm_config, timeout=seconds)
            if llm.base_url and not llm.configured:
                raise LLMError("an LLM base URL without a model: fill in the model")
            return Session.create(self.store, settings, llm, chain=chain, library=library)

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

    def browser(self) -> SessionsScreen | None:
        """The session browser (the screen under every other)."""
        found = [s for s in self.screen_stack if isinstance(s, SessionsScreen)]
        return found[0] if found else None

    def select_session(self, session_id: int) -> None:
        """The browser's selection goes to ``session_id`` (shown when the browser is)."""
        browser = self.browser()
        if browser is not None:
            browser.select(session_id)

    def _show_live(self, session: Session, approval: bool) -> None:
        if isinstance(self.screen, NewSessionScreen):
            self.pop_screen()
        self.select_session(session.id)
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

    def close_run(self, screen: Screen) -> None:
        """Leave a run screen for good (a replay, or a live run that ended)."""
        assert isinstance(screen, RunScreen)  # only run screens close this way
        self.select_session(screen.session_id)
        self.pop_screen()
        if self.live_runs.get(screen.session_id) is screen:
            del self.live_runs[screen.session_id]
            self.uninstall_screen(f"run-{screen.session_id}")
            screen.remove()

    def resume_session(self, session_id: int) -> None:
        """Continue a session; an LLM session takes the app's ``--llm-timeout`` if given (one
        that failed on a slow model's timeouts goes on with the longer one)."""

        def resume() -> Session:
            recorded = self.store.get(session_id).llm
            llm = None
            if recorded and self.llm_timeout is not None:
                llm = LLMSettings.recorded(recorded, timeout=self.llm_timeout)
            return Session.resume(self.store, session_id, llm=llm)

        self._open_in_worker(resume, self.approval, (LLMError, StoreError))

    # -- lifelong learning (rlgpt-tui learn) -----------------------------------------------------
    def action_frontier(self) -> None:
        self.push_screen(FrontierScreen(self.store))

    def start_learn(
        self,
        env: str | None = None,
        library: str | None = None,
        plan: dict[str, Any] | None = None,
        budgets: dict[str, Any] | None = None,
        threshold: float | None = None,
        base_url: str | None = None,
        model: str | None = None,
        timeout: float | None = None,
    ) -> None:
        """Start (or continue) the sessions folder's learn record in a thread; the frontier
        screen shows it. Values left None keep the record's (or the defaults)."""
        if self.learn_thread is not None and self.learn_thread.is_alive():
            self.notify("a learn run is going on in this app already", timeout=5)
            return

        def say(line: str) -> None:
            if self.is_running:
                with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                    self.call_from_thread(self.notify, line, timeout=6)

        def work() -> None:
            try:
                seconds = timeout if timeout is not None else self.llm_timeout
                llm = LLMSettings.resolve(base_url, model, self.llm_config, timeout=seconds)
                learner = Learner.open(
                    self.store,
                    env,
                    library,
                    plan or {},
                    budgets or {},
                    threshold,
                    llm if llm.configured else None,
                    say=say,
                )
                learner.run()
            except (LLMError, StoreError, ValueError) as error:
                self.call_from_thread(self._creation_failed, str(error))

        self.learn_thread = threading.Thread(target=work, name="learn", daemon=True)
        self.learn_thread.start()
        if isinstance(self.screen, NewSessionScreen):
            self.pop_screen()
        if not isinstance(self.screen, FrontierScreen):
            self.push_screen(FrontierScreen(self.store))

    def _stop_learning(self) -> None:
        """Ask this app's learn run to stop (its session stops at its next safe point)."""
        if self.learn_thread is None or not self.learn_thread.is_alive():
            return
        learn = LearnStore(self.store)
        run = learn.latest()
        if run is not None:
            learn.add_command(run.id, "stop")

    def replay_session(self, session_id: int) -> None:
        self.push_screen(RunScreen(self.store, replay_id=session_id))

    def export_report(self, session_id: int) -> None:
        """Write session ``session_id``'s report (markdown and curves.png) in a worker; the
        path is shown when it is written."""
        self.notify(f"exporting the report of session {session_id}...", timeout=3)

        def work() -> None:
            try:
                path = export_session(self.store, session_id, with_gif=False)
            except (StoreError, OSError) as error:
                self.call_from_thread(
                    self.notify, f"report not written: {error}", severity="error", timeout=10
                )
                return
            self.call_from_thread(self._exported, session_id, path)

        self.run_worker(work, thread=True, name="export")

    def _exported(self, session_id: int, path: Path) -> None:
        self.last_export = path
        self.notify(
            f"report of session {session_id} written to {path} (the episode GIF: "
            f"`rlgpt-tui sessions export {session_id}`)",
            timeout=15,
        )
        screen = self.screen
        if isinstance(screen, RunScreen) and screen.session_id == session_id:
            screen.log_pane.note(f"report written to {path}")

    # -- the command palette ------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("New session", "Start an RL-GPT session", self.action_new_session)
        if isinstance(screen, SessionsScreen):
            for title, help_text, action in (
                ("Open the selected session", "resume, replay or return (enter)", "open"),
                ("Replay the selected session", "every recorded event (r)", "replay"),
                ("Export the selected session's report", "markdown and curves (x)", "export"),
                ("Skill library", "every coded action that validated and ran (l)", "library"),
                ("Frontier", "the learn record: every achievement's status (f)", "frontier"),
            ):
                yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))
        if isinstance(screen, RunScreen):
            for title, help_text, run_command in screen.commands():
                yield SystemCommand(title, help_text, run_command)


def _offers_screen_actions(app: RlgptApp) -> AppActions:
    """Never called: mypy checks here that the app offers what its screens call."""
    return app
