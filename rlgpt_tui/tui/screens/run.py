"""The run screen: live panes over a session's engine, or a read-only replay of its events.

Live: the engine runs in a thread worker; its events arrive as messages after the store
has recorded them, frames too. A second worker watches the session's code files, so an
external editor's saves are validated and handed to the engine. Pause, stop and edits
take effect at the engine's next safe point.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.screen import Screen
from textual.widgets import Footer

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine.engine import ProposalRejected
from rlgpt_tui.session import Session
from rlgpt_tui.skills.runtime import CodedAction
from rlgpt_tui.skills.sandbox import CodeValidationError
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.messages import CodeFileChanged, EngineEvent, FrameReady, SessionEnded
from rlgpt_tui.tui.screens.dialogs import (
    ApproveDialog,
    EditCodeDialog,
    EditPlanDialog,
    EditRLConfigDialog,
)
from rlgpt_tui.tui.widgets.agent_view import AgentView
from rlgpt_tui.tui.widgets.code import CodePane
from rlgpt_tui.tui.widgets.critic import CriticPane
from rlgpt_tui.tui.widgets.header import SessionHeader
from rlgpt_tui.tui.widgets.log import LogPane
from rlgpt_tui.tui.widgets.plan import PlanPane
from rlgpt_tui.tui.widgets.training import TrainingPane

LIVE_ONLY = {"pause", "stop", "edit_plan", "toggle_mode", "edit_code", "edit_rl", "approval"}
REPLAY_ONLY = {"step", "step_all"}


class _StopWhen:
    """Ends the file watcher when asked to, or when the app is no longer running."""

    def __init__(self, event: threading.Event, app: Any) -> None:
        self.event, self.app = event, app

    def is_set(self) -> bool:
        return self.event.is_set() or not self.app.is_running


class RunScreen(Screen):
    """Six panes and a header; ``session`` for a live run, ``replay_id`` for a replay."""

    BINDINGS = [
        Binding("p", "pause", "Pause/resume"),
        Binding("s", "stop", "Stop"),
        Binding("e", "edit_plan", "Edit plan"),
        Binding("t", "toggle_mode", "Code/RL"),
        Binding("c", "edit_code", "Edit code"),
        Binding("r", "edit_rl", "RL config"),
        Binding("d", "diff", "Diff"),
        Binding("a", "approval", "Approval"),
        # replay only (disabled while live, so the keys reach the tables and editors)
        Binding("right", "step(1)", "Next event", priority=True),
        Binding("left", "step(-1)", "Previous", priority=True),
        Binding("end", "step_all", "All events", priority=True),
        Binding("escape", "back", "Sessions"),
    ]

    def __init__(
        self,
        store: SessionStore,
        session: Session | None = None,
        replay_id: int | None = None,
        approval: bool = False,
    ) -> None:
        super().__init__()
        self.store = store
        self.session = session
        self.session_id = session.id if session else replay_id
        self.live = session is not None
        self.approval = approval
        self.ended = not self.live
        self.replay_events: list[dict[str, Any]] = []
        self.position = 0
        self._stop_watching = threading.Event()
        self._shutting_down = threading.Event()

    def compose(self) -> ComposeResult:
        yield SessionHeader(self.session_id, id="session-header")
        with Grid(id="panes"):
            yield PlanPane(id="plan", classes="pane")
            yield CodePane(id="code", classes="pane")
            yield TrainingPane(id="training", classes="pane")
            yield CriticPane(id="critic", classes="pane")
            yield AgentView(id="agent-view", classes="pane")
            yield LogPane(id="log", classes="pane")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LIVE_ONLY:
            return self.live
        if action in REPLAY_ONLY:
            return not self.live
        return True

    def on_mount(self) -> None:
        if self.live:
            self.start()
        else:
            self.replay_events = self.store.events(self.session_id)
            self.log_pane.note(
                f"replay of session {self.session_id}: {len(self.replay_events)} events "
                "(right: next, left: previous, end: all)"
            )
            self.header.freeze(0.0)

    # -- panes ------------------------------------------------------------------------------
    @property
    def header(self) -> SessionHeader:
        return self.query_one(SessionHeader)

    @property
    def plan_pane(self) -> PlanPane:
        return self.query_one(PlanPane)

    @property
    def code_pane(self) -> CodePane:
        return self.query_one(CodePane)

    @property
    def log_pane(self) -> LogPane:
        return self.query_one(LogPane)

    def show(self, event: dict[str, Any]) -> None:
        """Hand one event to every pane (the same path for live runs and replays)."""
        self.header.show(event)
        self.plan_pane.show(event)
        self.code_pane.show(event)
        self.query_one(TrainingPane).show(event)
        self.query_one(CriticPane).show(event)
        self.log_pane.show(event)

    @on(EngineEvent)
    def on_engine_event(self, message: EngineEvent) -> None:
        self.show(message.event)

    @on(FrameReady)
    def on_frame_ready(self, message: FrameReady) -> None:
        self.query_one(AgentView).show_frame(message.frame)

    @on(SessionEnded)
    def on_session_ended(self, message: SessionEnded) -> None:
        self.ended = True
        self._stop_watching.set()
        self.header.freeze()
        if message.error:
            self.log_pane.note(f"ERROR: {message.error}")
            self.notify(message.error, severity="error", timeout=10)
        else:
            self.notify("session finished; escape: back to the sessions")

    # -- the live run -----------------------------------------------------------------------
    def start(self) -> None:
        engine = self.session.engine
        engine.on_frame = lambda frame: self.post_message(FrameReady(frame))
        engine.approver = self._approve if self.approval else None
        self.log_pane.note(
            f"session {self.session.id} ({self.session.label}); approval mode "
            f"{'on' if self.approval else 'off'}; code files: {self.code_folder}"
        )
        self.run_worker(self._run_engine, thread=True, name="engine")
        self.run_worker(self._watch_code_files, thread=True, name="code-watcher")

    @property
    def code_folder(self) -> Path:
        return self.store.session_dir(self.session_id) / "code"

    def _run_engine(self) -> None:
        error = None
        try:
            self.session.run(lambda event: self.post_message(EngineEvent(event.to_dict())))
        except Exception as failure:  # shown in the app; what was recorded stays recorded
            error = f"{type(failure).__name__}: {failure}".splitlines()[0]
        self.post_message(SessionEnded(error))

    def _watch_code_files(self) -> None:
        from watchfiles import watch

        self.code_folder.mkdir(parents=True, exist_ok=True)
        stop = _StopWhen(self._stop_watching, self.app)
        for changes in watch(self.code_folder, stop_event=stop, debounce=200, rust_timeout=500):
            for _, name in changes:
                path = Path(name)
                if path.suffix == ".py" and not path.name.startswith(".") and path.exists():
                    self.post_message(CodeFileChanged(path.stem, path.read_text()))

    @on(CodeFileChanged)
    def on_code_file_changed(self, message: CodeFileChanged) -> None:
        if message.code == self.code_pane.latest(message.subaction):
            return  # the engine's own write
        try:
            CodedAction.from_source(message.subaction, message.code)
        except CodeValidationError as error:
            self.log_pane.note(f"{message.subaction}.py changed on disk, not used: {error}")
            self.notify(f"{message.subaction}.py: {error}", severity="error", timeout=8)
            return
        self.session.engine.edit_code(message.subaction, message.code)
        self.log_pane.note(
            f"{message.subaction}.py changed on disk: valid, used from the next safe point"
        )
        self.notify(f"reloaded {message.subaction}.py")

    def _approve(self, kind: str, target: str, proposal: Any) -> Any:
        """Engine thread: block until the person approves or rejects in a dialog."""
        text = (
            proposal if isinstance(proposal, str) else json.dumps(proposal.model_dump(), indent=2)
        )
        answered = threading.Event()
        answer: dict[str, bool] = {}

        def got(approved: bool | None) -> None:
            answer["approved"] = bool(approved)
            answered.set()

        self.app.call_from_thread(
            lambda: self.app.push_screen(ApproveDialog(kind, target, text), got)
        )
        while not answered.wait(0.2):
            if self._shutting_down.is_set():
                raise ProposalRejected("the app closed")
        if not answer["approved"]:
            raise ProposalRejected("rejected in the app")
        return proposal

    # -- actions ----------------------------------------------------------------------------
    def action_pause(self) -> None:
        engine = self.session.engine
        if engine.paused:
            engine.resume()
        else:
            engine.pause()
            self.notify("pausing at the next safe point")

    def action_stop(self) -> None:
        self.session.engine.stop()
        self.notify("stopping at the next safe point (the session can be resumed)")

    def action_approval(self) -> None:
        self.approval = not self.approval
        self.session.engine.approver = self._approve if self.approval else None
        self.notify(f"approval mode {'on' if self.approval else 'off'}")

    def action_edit_plan(self) -> None:
        plan = self.plan_pane.plan
        if plan is None:
            self.notify("no plan yet", severity="warning")
            return
        self.app.push_screen(EditPlanDialog(plan), self._plan_edited)

    def _plan_edited(self, plan: Plan | None) -> None:
        if plan is None:
            return
        self.session.engine.edit_plan(plan)
        self.log_pane.note(f"plan edited: {plan.summary()} (used for the next iteration)")
        self.notify("plan edit queued for the next iteration")

    def action_toggle_mode(self) -> None:
        name = self.plan_pane.selected_subaction()
        if name is None:
            self.notify("select a sub-action of the latest plan", severity="warning")
            return
        plan = Plan.model_validate(self.plan_pane.plan)
        for sub in plan.subactions:
            if sub.name == name:
                sub.mode = "rl" if sub.mode == "code" else "code"
        self._plan_edited(plan)

    def action_edit_code(self) -> None:
        pane = self.code_pane
        if not pane.versions:
            self.notify("no code yet", severity="warning")
            return
        table = pane.query_one("#code-versions")
        version = pane.versions[min(table.cursor_row, len(pane.versions) - 1)]
        name = version.subaction
        self.app.push_screen(
            EditCodeDialog(name, pane.latest(name) or ""),
            lambda code: self._code_edited(name, code),
        )

    def _code_edited(self, name: str, code: str | None) -> None:
        if code is None:
            return
        self.session.engine.edit_code(name, code)
        self.log_pane.note(f"code of {name} edited in the app (used from the next safe point)")
        self.notify(f"code edit of {name} queued")

    def action_edit_rl(self) -> None:
        """Override RLConfig fields of the selected (or first) learned sub-action."""
        plan = self.plan_pane.plan
        learned = [s["name"] for s in (plan or {}).get("subactions", []) if s["mode"] == "rl"]
        if not learned:
            self.notify("the latest plan has no learned sub-action", severity="warning")
            return
        selected = self.plan_pane.selected_subaction()
        name = selected if selected in learned else learned[0]
        current = self.query_one(TrainingPane).configs.get(name, {})
        self.app.push_screen(
            EditRLConfigDialog(name, current), lambda changes: self._rl_edited(name, changes)
        )

    def _rl_edited(self, name: str, changes: dict[str, Any] | None) -> None:
        if not changes:
            return
        self.session.engine.edit_rl_config(name, changes)
        self.log_pane.note(f"RL config of {name} edited: {json.dumps(changes)} (next training)")
        self.notify(f"RL config edit of {name} queued")

    def action_diff(self) -> None:
        self.code_pane.toggle_diff()

    async def action_step(self, delta: int) -> None:
        target = max(0, min(len(self.replay_events), self.position + delta))
        if target < self.position:
            await self.recompose()  # replays cannot run backwards: rebuild, then re-apply
            for event in self.replay_events[:target]:
                self.show(event)
        else:
            for event in self.replay_events[self.position : target]:
                self.show(event)
        self.position = target
        self._replay_clock()

    async def action_step_all(self) -> None:
        await self.action_step(len(self.replay_events) - self.position)

    def _replay_clock(self) -> None:
        if self.position and self.replay_events:
            first = self.replay_events[0]["time"]
            self.header.freeze(self.replay_events[self.position - 1]["time"] - first)
        self.header.state = f"replay: event {self.position}/{len(self.replay_events)}"
        self.header.refresh_text()

    def action_back(self) -> None:
        if self.live and not self.ended:
            self.notify("the session is running: stop it (s) first", severity="warning")
            return
        self.dismiss()

    def on_unmount(self) -> None:
        self.shut_down()

    def shut_down(self) -> None:
        """Stop the watcher and (at its next safe point) a running engine."""
        self._shutting_down.set()
        self._stop_watching.set()
        if self.live and not self.ended:
            self.session.engine.stop()
