"""Modal dialogs: edit the plan, code or RL configuration, approve an agent proposal, the
key help, and the search box. One escape closes any of them."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine.control import check_code, check_rl_changes
from rlgpt_tui.library.shelf import SkillShelf
from rlgpt_tui.skills.validation import ValidatedAction


class EditorDialog(ModalScreen):
    """A titled editor; ctrl+s checks the text with ``check`` and closes with its result."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Apply", priority=True),
        # priority: the code editor would otherwise take the first escape to leave focus
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, title: str, text: str, language: str | None) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.language = language

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield TextArea.code_editor(self.text, language=self.language, id="editor")
            yield Static("", id="editor-error", classes="error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply (ctrl+s)", variant="primary", id="apply")
                yield Button("Cancel (esc)", id="cancel")

    def check(self, text: str) -> Any:
        """The result to return, or raise ValueError with a one-line message."""
        raise NotImplementedError

    def action_save(self) -> None:
        text = self.query_one("#editor", TextArea).text
        try:
            result = self.check(text)
        except ValueError as error:
            self.query_one("#editor-error", Static).update(f"not applied: {error}")
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_save()
        else:
            self.action_cancel()


class EditPlanDialog(EditorDialog):
    """The plan as JSON: switch modes, edit text, add, remove or reorder sub-actions."""

    def __init__(self, plan: Plan) -> None:
        super().__init__(
            "Edit the plan (JSON). mode: code or rl; order = execution order. Takes effect at "
            "the engine's next safe point.",
            json.dumps(plan.model_dump(), indent=2),
            None,  # tree-sitter-json crashes the process here; plain text is fine
        )

    def check(self, text: str) -> Plan:
        return check_plan_text(text)


class EditCodeDialog(EditorDialog):
    """A sub-action's code; validated like agent code before it is sent to the engine."""

    def __init__(self, subaction: str, code: str, library: SkillShelf | None = None) -> None:
        """``library``: the session's shelf, whose code or policy ``yield from
        ctx.skill("name")`` runs."""
        super().__init__(
            f"Edit the code of {subaction} (validated, then used at the next safe point)",
            code,
            "python",
        )
        self.subaction, self.library = subaction, library

    def check(self, text: str) -> ValidatedAction:
        # EditRefused is a ValueError: shown here
        return check_code(self.subaction, text, self.library)

    def action_save(self) -> None:
        """Validation takes a round trip to a sandbox worker: it runs in a thread while the
        dialog says so; the dialog closes with the validated action, or shows the error."""
        if self.validating:
            return
        self.validating = True
        self.query_one("#editor-error", Static).update("validating...")
        self._validate(self.query_one("#editor", TextArea).text)

    validating = False

    @work(thread=True, exclusive=True, group="validate-code")
    def _validate(self, text: str) -> None:
        try:
            result: ValidatedAction | str = self.check(text)
        except ValueError as error:
            result = f"not applied: {error}"
        self.app.call_from_thread(self._validated, result)

    def _validated(self, result: ValidatedAction | str) -> None:
        self.validating = False
        if isinstance(result, str):
            self.query_one("#editor-error", Static).update(result)
        else:
            self.dismiss(result)


class EditRLConfigDialog(EditorDialog):
    """RLConfig fields to override for a learned sub-action's next training run."""

    def __init__(self, subaction: str, current: dict[str, Any]) -> None:
        self.current = current  # the configuration the changes apply to
        shown = {
            k: current[k] for k in ("samples", "observation", "primitives", "ppo") if k in current
        }
        super().__init__(
            f"RL configuration changes for {subaction} (JSON object of RLConfig fields, e.g. "
            '{"samples": 50000, "ppo": {"ent_coef": 0.02}}); used for its next training run',
            json.dumps(shown, indent=2),
            None,
        )

    def check(self, text: str) -> dict[str, Any]:
        try:
            changes = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not JSON: {error}") from None
        check_rl_changes(changes, self.current)  # the whole config must validate
        return changes


class ApproveDialog(ModalScreen[tuple[str, Any] | None]):
    """Approval mode: an agent's proposal (a plan as a whole, or code). y approves, n or
    escape rejects, a approves and turns approval mode off, e edits it first (then ctrl+s
    approves the edited proposal; it is checked like any edit). Dismisses with
    ``(answer, proposal)``: answer is approved, approved with edits, approval off or
    rejected."""

    BINDINGS = [
        Binding("y", "answer('approved')", "Approve", priority=True),
        Binding("n", "answer('rejected')", "Reject", priority=True),
        Binding("escape", "cancel", "Reject", priority=True),
        Binding("a", "answer('approval off')", "Approve, approval off", priority=True),
        Binding("e", "edit", "Edit first", priority=True),
        Binding("ctrl+s", "save", "Approve as edited", priority=True),
    ]

    def __init__(self, kind: str, target: str, text: str, check: Any = None) -> None:
        super().__init__()
        self.kind, self.target, self.text = kind, target, text
        self.check = check  # text -> the edited proposal (raise ValueError: not usable)
        self.editing = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            what = f"{self.kind} for {self.target}" if self.target else self.kind
            whole = (
                " (approving it approves its sub-actions' code too)" if self.kind == "plan" else ""
            )
            yield Label(f"The agent proposes a {what}{whole}.", id="approve-title")
            yield Label(
                "y: approve  n or esc: reject  a: approve, approval mode off  e: edit it first",
                id="approve-keys",
            )
            language = "python" if self.kind == "code" else None
            yield TextArea.code_editor(self.text, language=language, read_only=True, id="editor")
            yield Static("", id="editor-error", classes="error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Approve (y)", variant="success", id="approve")
                yield Button("Reject (n)", variant="error", id="reject")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save":
            return self.editing
        if action in ("answer", "edit"):
            return not self.editing  # while editing, these keys are typed
        return True

    def action_cancel(self) -> None:
        self.dismiss(("rejected", None))

    def action_answer(self, answer: str) -> None:
        self.dismiss((answer, None))

    def action_edit(self) -> None:
        editor = self.query_one("#editor", TextArea)
        editor.read_only = False
        editor.focus()
        self.editing = True
        self.query_one("#approve-keys", Label).update(
            f"Edit the {self.kind}, then ctrl+s approves it as edited (esc: reject)"
        )
        self.refresh_bindings()

    def action_save(self) -> None:
        text = self.query_one("#editor", TextArea).text
        if text == self.text:
            self.dismiss(("approved", None))
            return
        try:
            edited = self.check(text) if self.check else text
        except ValueError as error:
            self.query_one("#editor-error", Static).update(f"not usable: {error}")
            return
        self.dismiss(("approved with edits", edited))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "approve":
            if self.editing:
                self.action_save()
            else:
                self.dismiss(("approved", None))
        else:
            self.dismiss(("rejected", None))


def check_plan_text(text: str) -> Plan:
    """A plan from its JSON text, or ValueError naming the first problem (one line)."""
    try:
        return Plan.model_validate(json.loads(text))
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "plan"
        raise ValueError(f"{where}: {first['msg']}") from None


KEYS = [
    ("Sessions", ""),
    ("n", "new session"),
    ("enter", "open: resume an unfinished session, replay a finished one, return to a running one"),
    ("r", "replay (in a run, r changes the RL configuration)"),
    ("x", "export the selected session's report (markdown, curves.png); the path is shown"),
    ("l", "the skill library: every coded action that validated and ran, its record and code"),
    ("f", "the frontier of the learn record (rlgpt-tui learn): every achievement's status"),
    ("f5", "refresh"),
    ("q / ctrl+q", "quit (a running session stops at its next safe point)"),
    ("Skill library", ""),
    ("arrows", "select a skill: its author, versions, record and code are shown"),
    ("escape", "back to the sessions"),
    ("Frontier", ""),
    ("enter", "open the task's session (the running one, else its newest)"),
    ("p / s", "pin the selected task next / skip it (taken before the next choice)"),
    ("x", "stop the learn run (its session stops at its next safe point)"),
    ("c", "continue the learn record in this app"),
    ("Run", ""),
    ("p", "pause / resume at the next safe point"),
    ("s", "stop within one PPO rollout (the session can be resumed)"),
    ("e", "edit the plan (JSON), used for the next iteration"),
    ("t", "switch the selected sub-action between code and RL"),
    ("c", "edit the selected code; used at the next safe point, between PPO rollouts too"),
    ("r", "change the RL configuration of the next training run"),
    ("a", "approval mode: ask before each agent plan (as a whole) or code is used"),
    ("d", "diff of the selected code version to the previous one"),
    ("/ n N", "search the log or critic pane (the focused one), next and previous match"),
    ("1 2 3 4 5 6", "focus a pane: plan, code, training, critic, agent view, log"),
    ("z", "zoom the focused pane to the whole screen, and back"),
    ("x", "export the session's report (markdown, curves.png); the path is shown"),
    ("tab", "move between panes; arrows and page keys scroll"),
    ("escape", "back to the sessions (a running session goes on; enter returns)"),
    ("q / ctrl+q", "quit (a running session stops at its next safe point)"),
    ("right / left / home / end", "replay: next, previous, first, last event"),
    ("Approval dialog", ""),
    ("y / n / escape", "approve / reject / reject"),
    ("a", "approve and turn approval mode off"),
    ("e then ctrl+s", "edit the proposal, then approve it as edited"),
    ("ctrl+p", "command palette (every action of the screen)"),
    ("?", "this help"),
]


class HelpScreen(ModalScreen):
    """Every key of the app."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", priority=True),
        Binding("question_mark", "dismiss", "Close", priority=True),
    ]

    def compose(self) -> ComposeResult:
        lines = []
        for key, what in KEYS:
            lines.append(f"\n[b]{key}[/b]" if not what else f"  [b]{key:<10}[/b] {what}")
        with Vertical(classes="dialog", id="help"):
            yield Label("Keys (escape or ? closes)", classes="dialog-title")
            yield Static("\n".join(lines).lstrip(), id="help-text")


class SearchDialog(ModalScreen[str | None]):
    """A one-line search box; enter searches, escape closes."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True)]

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="search"):
            yield Label(f"Search the {self.where} (enter; then n for the next match)")
            yield Input(placeholder="text", id="search-input")

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
