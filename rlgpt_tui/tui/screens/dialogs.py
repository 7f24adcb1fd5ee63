"""Modal dialogs: edit the plan, edit code, approve an agent proposal."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.skills.runtime import CodedAction
from rlgpt_tui.skills.sandbox import CodeValidationError


class EditorDialog(ModalScreen):
    """A titled editor; ctrl+s checks the text with ``check`` and closes with its result."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Apply"),
        Binding("escape", "cancel", "Cancel"),
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

    def __init__(self, plan: dict[str, Any]) -> None:
        super().__init__(
            "Edit the plan (JSON). mode: code or rl; order = execution order. Takes effect at "
            "the engine's next safe point.",
            json.dumps(plan, indent=2),
            None,  # tree-sitter-json crashes the process here; plain text is fine
        )

    def check(self, text: str) -> Plan:
        try:
            return Plan.model_validate(json.loads(text))
        except json.JSONDecodeError as error:
            raise ValueError(f"not JSON: {error}") from None
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "plan"
            raise ValueError(f"{where}: {first['msg']}") from None


class EditCodeDialog(EditorDialog):
    """A sub-action's code; validated like agent code before it is sent to the engine."""

    def __init__(self, subaction: str, code: str) -> None:
        super().__init__(
            f"Edit the code of {subaction} (validated, then used at the next safe point)",
            code,
            "python",
        )
        self.subaction = subaction

    def check(self, text: str) -> str:
        try:
            CodedAction.from_source(self.subaction, text)
        except CodeValidationError as error:
            raise ValueError(str(error)) from None
        return text


class EditRLConfigDialog(EditorDialog):
    """RLConfig fields to override for a learned sub-action's next training run."""

    def __init__(self, subaction: str, current: dict[str, Any]) -> None:
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
        from rlgpt_tui.rl.config import RLConfig

        try:
            changes = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not JSON: {error}") from None
        if not isinstance(changes, dict):
            raise ValueError("write a JSON object of RLConfig fields")
        unknown = sorted(set(changes) - set(RLConfig.model_fields))
        if unknown:
            raise ValueError(f"unknown RLConfig field(s) {unknown}")
        return changes


class ApproveDialog(ModalScreen[bool]):
    """Approval mode: shows an agent's proposal; y approves, n rejects."""

    BINDINGS = [
        Binding("y", "answer(True)", "Approve"),
        Binding("n", "answer(False)", "Reject"),
    ]

    def __init__(self, kind: str, target: str, text: str) -> None:
        super().__init__()
        self.kind, self.target, self.text = kind, target, text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            what = f"{self.kind} for {self.target}" if self.target else self.kind
            yield Label(f"The agent proposes a {what}. Use it?", classes="dialog-title")
            language = "python" if self.kind == "code" else None
            yield TextArea.code_editor(self.text, language=language, read_only=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Approve (y)", variant="success", id="approve")
                yield Button("Reject (n)", variant="error", id="reject")

    def action_answer(self, approved: bool) -> None:
        self.dismiss(approved)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "approve")
