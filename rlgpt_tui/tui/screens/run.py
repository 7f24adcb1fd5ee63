"""The run screen: live panes over a session's engine, or a read-only replay of its events.

Both begin by showing the session's recorded events (a resumed session shows its plan,
code, curves, critic and log as they were), then a live run goes on with the engine's new
events, which arrive as messages after the store has recorded them. The engine runs in a
thread of its own, so escape goes back to the browser while it runs (enter returns), and
quitting returns the terminal at once while the run stops at its next safe point. A
second thread watches the session's code files: a save in any editor becomes an edit.
Pause, stop and edits go to the session's control plane (``engine/control.py``).
Keys 1-6 focus the panes and z zooms the focused one to the whole screen (and back).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import DataTable, Footer
from watchfiles import watch

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.control import CodeEdit, ControlPlane, EditRefused, check_code
from rlgpt_tui.engine.engine import ProposalRejected
from rlgpt_tui.session import Session
from rlgpt_tui.skills.validation import ValidatedAction
from rlgpt_tui.store import SessionStore
from rlgpt_tui.tui.messages import CodeFileChanged, EngineEvent, FrameReady, SessionEnded
from rlgpt_tui.tui.screens.actions import app_actions
from rlgpt_tui.tui.screens.dialogs import (
    ApproveDialog,
    EditCodeDialog,
    EditPlanDialog,
    EditRLConfigDialog,
    HelpScreen,
    SearchDialog,
    check_plan_text,
)
from rlgpt_tui.tui.widgets.agent_view import AgentView
from rlgpt_tui.tui.widgets.code import CodePane
from rlgpt_tui.tui.widgets.critic import CriticPane
from rlgpt_tui.tui.widgets.header import SessionHeader
from rlgpt_tui.tui.widgets.log import LogPane
from rlgpt_tui.tui.widgets.plan import PlanPane
from rlgpt_tui.tui.widgets.searchable import SearchableLog
from rlgpt_tui.tui.widgets.training import TrainingPane

LIVE_ONLY = {"pause", "stop", "edit_plan", "toggle_mode", "edit_code", "edit_rl", "approval"}
PANES = ("plan", "code", "training", "critic", "agent-view", "log")  # keys 1-6
REPLAY_ONLY = {"step", "step_all", "step_first"}


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
        Binding("slash", "search", "Search"),
        Binding("n", "next_match(1)", "Next match", show=False),
        Binding("N", "next_match(-1)", "Previous match", show=False),
        Binding("z", "zoom", "Zoom pane"),
        Binding("x", "export", "Export report"),
        *[
            Binding(str(k + 1), f"focus_pane({k})", f"Pane {k + 1}", show=False)
            for k in range(len(PANES))
        ],
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit", show=False),
        # replay only (disabled while live, so the keys reach the tables and editors)
        Binding("right", "step(1)", "Next event", priority=True),
        Binding("left", "step(-1)", "Previous", priority=True),
        Binding("home", "step_first", "First", show=False, priority=True),
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
        if session is not None:
            session_id = session.id
        elif replay_id is not None:
            session_id = replay_id
        else:
            raise ValueError("a run screen shows a live session or replays a recorded one")
        self.store = store
        self.session = session
        self.session_id = session_id
        self.live = session is not None
        self.approval = approval
        self.ended = not self.live
        self.replay_events: list[ev.Event] = []
        self.recorded = 0  # events shown from the store before the live ones
        self.position = 0
        self.engine_thread: threading.Thread | None = None
        self._search_pane: SearchableLog | None = None
        self._stop_watching = threading.Event()
        self._shutting_down = threading.Event()
        self._awaiting: set[threading.Event] = set()  # approvals the engine waits on
        self._approved_plans: dict[tuple[int, int], set[str]] = {}  # (engine, it) -> names

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
            return self.live and not self.ended
        if action in REPLAY_ONLY:
            return not self.live
        return True

    def on_mount(self) -> None:
        self.header.live = self.live
        self.header.approval = self.approval
        recorded = ev.events_from_records(self.store.events(self.session_id))
        self.recorded = len(recorded)
        if self.live:
            self.show_all(recorded)  # a resumed session: its history first
            self.start()
        else:
            self.replay_events = recorded
            self.show_all(recorded)
            self.position = len(recorded)
            self._replay_state()
            self.log_pane.add(  # no time stamp: the others are the recorded times
                f"replay of session {self.session_id}: {len(recorded)} events "
                "(left/right: step, home: first, end: all)"
            )

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

    @property
    def training_pane(self) -> TrainingPane:
        return self.query_one(TrainingPane)

    def show(self, event: ev.Event) -> None:
        """Hand one event to every pane (the same path for live runs and replays)."""
        self.header.show(event)
        self.plan_pane.show(event)
        self.code_pane.show(event)
        self.training_pane.show(event)
        self.query_one(CriticPane).show(event)
        self.log_pane.show(event)

    def show_all(self, events: list[ev.Event]) -> None:
        """Show many recorded events at once (the code viewer and the plot drawn once)."""
        code = self.code_pane
        code.filling_at_once = True
        try:
            for event in events:
                self.show(event)
        finally:
            code.filling_at_once = False
        if code.versions:
            code.display_version(len(code.versions) - 1)
        self.training_pane.redraw()

    @on(EngineEvent)
    def on_engine_event(self, message: EngineEvent) -> None:
        self.show(message.event)

    @on(FrameReady)
    def on_frame_ready(self, message: FrameReady) -> None:
        self.query_one(AgentView).show_frame(message.frame)

    @on(SessionEnded)
    def on_session_ended(self, message: SessionEnded) -> None:
        self.ended = True
        self.header.live = False
        self.refresh_bindings()
        self._stop_watching.set()
        self.header.refresh()
        if message.error:
            self.log_pane.note(f"ERROR: {message.error}")
            self.notify(message.error, severity="error", timeout=10)
        elif self.is_current:
            self.notify("session finished; escape: back to the sessions")
        else:
            self.notify(f"session {self.session_id} finished (enter on it shows it)")

    # -- the live run -----------------------------------------------------------------------
    @property
    def live_session(self) -> Session:
        """The session this screen runs (a replay has none)."""
        if self.session is None:
            raise RuntimeError(f"session {self.session_id} is a replay here, not a live run")
        return self.session

    @property
    def control(self) -> ControlPlane:
        return self.live_session.control

    def start(self) -> None:
        session = self.live_session
        engine = session.engine

        def show_frame(frame: Any) -> None:  # engine thread: env 0's frame for the agent view
            self.post_message(FrameReady(frame))

        engine.on_frame = show_frame
        engine.approver = self._approve if self.approval else None
        self.log_pane.note(
            f"session {session.id} ({session.label}); approval mode "
            f"{'on' if self.approval else 'off'}; code files: {self.code_folder}"
        )
        # threads of our own: the app's exit does not wait for them (see RlgptApp.run)
        self.engine_thread = threading.Thread(
            target=self._run_engine, name=f"engine-{self.session_id}"
        )
        self.engine_thread.start()
        watcher = threading.Thread(target=self._watch_code_files, daemon=True, name="watcher")
        watcher.start()

    @property
    def code_folder(self) -> Path:
        return self.store.session_dir(self.session_id) / "code"

    def _run_engine(self) -> None:
        def emit(event: ev.Event) -> None:
            self.post_message(EngineEvent(event))

        error = None
        try:
            self.live_session.run(emit)
        except Exception as failure:  # shown in the app; what was recorded stays recorded
            error = f"{type(failure).__name__}: {failure}".splitlines()[0]
        self.post_message(SessionEnded(error))

    def _watch_code_files(self) -> None:
        self.code_folder.mkdir(parents=True, exist_ok=True)
        stop = _StopWhen(self._stop_watching, self.app)
        for changes in watch(self.code_folder, stop_event=stop, debounce=200, rust_timeout=500):
            for _, name in changes:
                path = Path(name)
                if path.suffix == ".py" and not path.name.startswith(".") and path.exists():
                    self.post_message(CodeFileChanged(path.stem, path.read_text()))

    @on(CodeFileChanged)
    def on_code_file_changed(self, message: CodeFileChanged) -> None:
        """A file saved in an editor: the same path as an edit in the app."""
        if self.ended or message.code == self.code_pane.latest(message.subaction):
            return  # the engine's own write, or nothing to use it
        queued = [
            e.code
            for e in self.control.pending()
            if isinstance(e, CodeEdit) and e.target == message.subaction
        ]
        if message.code in queued:
            return
        self.notify(f"{message.subaction}.py changed: validating...")
        self._use_code_file(message.subaction, message.code)

    @work(thread=True, group="code-files")
    def _use_code_file(self, subaction: str, code: str) -> None:
        """Validate and queue a saved file off the UI thread (a sandbox round trip)."""
        try:
            self.control.edit_code(subaction, code, origin="file")
        except EditRefused as error:
            message, severity = f"{subaction}.py not used: {error}", "error"
        else:
            message, severity = f"{subaction}.py: valid, used at the next safe point", "information"
        self.app.call_from_thread(self.notify, message, severity=severity, timeout=8)

    def _approve(self, kind: str, target: str, proposal: Any) -> Any:
        """Engine thread: block until the person answers in a dialog (the header says it
        waits). A plan is approved as a whole: its sub-actions' code is then used without
        asking again in that iteration (recorded as covered by the plan's approval)."""
        engine = self.live_session.engine
        where = (id(engine), engine.iteration)
        if kind == "code" and target in self._approved_plans.get(where, set()):
            self.control.approval("code", target, "covered by the plan's approval")
            return proposal
        check: Callable[[str], object]  # the edited text -> the proposal (ValueError: unusable)
        if kind == "plan":
            text, check = json.dumps(proposal.model_dump(), indent=2), check_plan_text
        else:
            text = proposal

            def check(code: str) -> str:
                # EditRefused is a ValueError: shown in the dialog
                check_code(target, code, self.control.library)
                return code

        answered = threading.Event()
        answer: dict[str, Any] = {}

        def got(result: tuple[str, Any] | None) -> None:
            answer["answer"], answer["edited"] = result or ("rejected", None)
            self.header.waiting = False
            self.header.refresh()
            answered.set()

        def ask() -> None:
            self.header.waiting = True
            self.header.refresh()
            self.app.push_screen(ApproveDialog(kind, target, text, check), got)

        self._awaiting.add(answered)  # shutting down sets it too: no wait outlives the app
        try:
            if not self._shutting_down.is_set():
                self.app.call_from_thread(ask)
                answered.wait()
        finally:
            self._awaiting.discard(answered)
        if "answer" not in answer:
            raise ProposalRejected("the app closed")
        said = answer["answer"]
        if said == "approval off":  # approved, and no more questions
            self.control.approval(kind, target, "approved (approval mode turned off)")
            self.app.call_from_thread(self.set_approval, False)
        else:
            self.control.approval(kind, target, said)
        if said == "rejected":
            raise ProposalRejected("rejected in the app")
        approved = answer["edited"] if answer["edited"] is not None else proposal
        if kind == "plan":
            self._approved_plans[where] = {sub.name for sub in approved.coded()}
        return approved

    # -- actions ----------------------------------------------------------------------------
    def action_pause(self) -> None:
        if self.control.paused:
            self.control.resume()
        else:
            self.control.pause()
            self.notify("pausing at the next safe point")

    def action_stop(self) -> None:
        self.control.stop()
        self.notify("stopping within one PPO rollout (the session can be resumed)")

    def action_approval(self) -> None:
        self.set_approval(not self.approval)

    def set_approval(self, on: bool) -> None:
        """Approval mode on or off (recorded, shown in the header and the log)."""
        self.approval = self.header.approval = on
        self.live_session.engine.approver = self._approve if on else None
        self.control.approval("mode", "", "on" if on else "off")
        self.notify(f"approval mode {'on' if on else 'off'}")

    def action_edit_plan(self) -> None:
        plan = self.plan_pane.plan
        if plan is None:
            self.notify("no plan yet", severity="warning")
            return
        self.app.push_screen(EditPlanDialog(plan), self._plan_edited)

    def _plan_edited(self, plan: Plan | None) -> None:
        if plan is None:
            return
        try:
            self.control.edit_plan(plan)
        except EditRefused as error:
            self.notify(f"plan edit not used: {error}", severity="error")
            return
        self.notify("plan edit queued for the next iteration")

    def action_toggle_mode(self) -> None:
        name = self.plan_pane.selected_subaction()
        if name is None:
            self.notify("select a sub-action of the latest plan", severity="warning")
            return
        shown = self.plan_pane.plan
        if shown is None:
            return
        plan = Plan.model_validate(shown.model_dump())  # checked, as a person's edit is
        for sub in plan.subactions:
            if sub.name == name:
                sub.mode = "rl" if sub.mode == "code" else "code"
        self._plan_edited(plan)

    def action_edit_code(self) -> None:
        pane = self.code_pane
        if not pane.versions:
            self.notify("no code yet", severity="warning")
            return
        table = pane.query_one("#code-versions", DataTable)
        version = pane.versions[min(table.cursor_row, len(pane.versions) - 1)]
        name = version.subaction
        self.app.push_screen(
            EditCodeDialog(name, pane.latest(name) or "", self.control.library),
            lambda code: self._code_edited(name, code),
        )

    def _code_edited(self, name: str, code: ValidatedAction | None) -> None:
        if code is None:
            return
        try:
            self.control.edit_code(name, code)  # validated in the dialog: not again
        except EditRefused as error:
            self.notify(f"code edit of {name} not used: {error}", severity="error")
            return
        self.notify(f"code edit of {name} queued (used at the next safe point)")

    def action_edit_rl(self) -> None:
        """Override RLConfig fields of the selected (or first) learned sub-action."""
        learned = self.plan_pane.learned()
        if not learned:
            self.notify("the latest plan has no learned sub-action", severity="warning")
            return
        selected = self.plan_pane.selected_subaction()
        name = selected if selected in learned else learned[0]
        current = self.control.rl_base(name)
        self.app.push_screen(
            EditRLConfigDialog(name, current), lambda changes: self._rl_edited(name, changes)
        )

    def _rl_edited(self, name: str, changes: dict[str, Any] | None) -> None:
        if not changes:
            return
        try:
            self.control.edit_rl_config(name, changes)
        except EditRefused as error:
            self.notify(f"RL config edit not used: {error}", severity="error")
            return
        self.notify(f"RL config edit of {name} queued for its next training")

    def action_diff(self) -> None:
        self.code_pane.toggle_diff()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_search(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, SearchableLog) else self.log_pane
        if self._search_pane is not None and self._search_pane is not pane:
            self._search_pane.search("")  # one search at a time: the other pane's ends
        where = "critic" if isinstance(pane, CriticPane) else "log"

        def found(text: str | None) -> None:
            if text:
                self._search_pane = pane
                count = pane.search(text)
                self.notify(
                    f"{count} match{'es' if count != 1 else ''} for {text!r} in the {where}"
                )

        self.app.push_screen(SearchDialog(where), found)

    def action_next_match(self, step: int = 1) -> None:
        if self._search_pane is not None:
            self._search_pane.next_match(step)
        else:
            self.notify("search first (/)", severity="warning")

    # -- panes: focus, zoom ---------------------------------------------------------------------
    def action_focus_pane(self, index: int) -> None:
        """Focus pane ``index`` (0: plan ... 5: log); a zoomed screen shows that pane."""
        pane = self.query_one(f"#{PANES[index]}")
        target = next((w for w in pane.query("*") if w.focusable), None)
        self.set_focus(target or pane)  # at once: a z right after it zooms this pane
        if self.zoomed is not None and self.zoomed is not pane:
            self._zoom(pane)

    @property
    def zoomed(self) -> Any:
        """The pane that fills the screen (None: all six show)."""
        found = self.query(".pane.-zoomed")
        return found.first() if found else None

    def focused_pane(self) -> Any:
        node: DOMNode | None = self.focused
        while node is not None and not node.has_class("pane"):
            node = node.parent
        return node

    def action_zoom(self) -> None:
        """The focused pane fills the screen; again: the six panes."""
        if self.zoomed is not None:
            self._zoom(None)
            return
        pane = self.focused_pane()
        if pane is None:
            self.notify("focus a pane first (1-6, or tab)", severity="warning")
            return
        self._zoom(pane)

    def _zoom(self, pane: Any) -> None:
        grid = self.query_one("#panes", Grid)
        for other in self.query(".pane"):
            other.set_class(other is pane, "-zoomed")
        grid.set_class(pane is not None, "-zoomed")
        if pane is not None and isinstance(pane, TrainingPane):
            self.call_after_refresh(pane.redraw)

    def action_export(self) -> None:
        app_actions(self).export_report(self.session_id)

    def commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """Every action of this screen, for the command palette (title, help, callable)."""
        live = [
            ("Pause or resume", "at the engine's next safe point (p)", self.action_pause),
            ("Stop the session", "within one PPO rollout; it can be resumed (s)", self.action_stop),
            (
                "Edit the plan",
                "JSON editor, used for the next iteration (e)",
                self.action_edit_plan,
            ),
            (
                "Switch code/RL",
                "the selected sub-action, next iteration (t)",
                self.action_toggle_mode,
            ),
            ("Edit code", "the selected version's sub-action (c)", self.action_edit_code),
            ("Change the RL configuration", "of the next training run (r)", self.action_edit_rl),
            ("Toggle approval mode", "ask before each agent proposal (a)", self.action_approval),
        ]
        both = [
            ("Diff to the previous version", "of the selected code (d)", self.action_diff),
            ("Search the log or critic", "the focused pane (/)", self.action_search),
            ("Next match", "of the search (n)", lambda: self.action_next_match(1)),
            ("Previous match", "of the search (N)", lambda: self.action_next_match(-1)),
            ("Zoom the focused pane", "to the whole screen and back (z)", self.action_zoom),
            ("Export the report", "markdown and curves.png, path shown (x)", self.action_export),
            ("Back to the sessions", "a running session goes on (escape)", self.action_back),
            ("Keys", "every key of the app (?)", self.action_help),
        ]
        for k, name in enumerate(PANES):
            both.append(
                (f"Focus the {name.replace('-', ' ')} pane", f"({k + 1})", self._focuser(k))
            )
        yield from (live if self.live and not self.ended else []) + both

    def _focuser(self, index: int) -> Callable[[], None]:
        return lambda: self.action_focus_pane(index)

    async def action_step(self, delta: int) -> None:
        target = max(0, min(len(self.replay_events), self.position + delta))
        if target < self.position:
            await self.recompose()  # replays cannot run backwards: rebuild, then re-apply
            self.header.live = False
            self.show_all(self.replay_events[:target])
        else:
            for event in self.replay_events[self.position : target]:
                self.show(event)
            self.training_pane.redraw()
        self.position = target
        self._replay_state()

    async def action_step_first(self) -> None:
        await self.action_step(-self.position)

    async def action_step_all(self) -> None:
        await self.action_step(len(self.replay_events) - self.position)

    def _replay_state(self) -> None:
        self.header.state = f"replay: event {self.position}/{len(self.replay_events)}"

    def action_back(self) -> None:
        """Back to the sessions; a running session goes on (enter on it returns here)."""
        if self.live and not self.ended:
            self.app.pop_screen()  # installed by the app: kept, with its engine running
            self.app.notify(f"session {self.session_id} goes on; enter on it returns to it")
            return
        app_actions(self).close_run(self)

    def on_unmount(self) -> None:
        self.shut_down()

    def shut_down(self) -> None:
        """Stop the watcher and (at its next safe point) a running engine."""
        self._shutting_down.set()
        for waiting in list(self._awaiting):
            waiting.set()
        self._stop_watching.set()
        if self.live and not self.ended:
            self.control.stop()
