"""What the app's screens ask of the app (the app implements it; mypy checks that in
``tui/app.py``). A screen reaches it as ``app_actions(self)``: ``Screen.app`` is typed as a
plain Textual ``App``, and importing the app here would make an import cycle."""

from __future__ import annotations

from typing import Any, Protocol, cast

from textual.screen import Screen

from rlgpt_tui.engine.settings import EngineSettings
from rlgpt_tui.library.shelf import USER
from rlgpt_tui.llm.settings import LLMSettings


class AppActions(Protocol):
    """The app's session actions that its screens call."""

    @property
    def llm_defaults(self) -> LLMSettings:
        """What the new-session form offers for the LLM."""
        ...

    def action_new_session(self) -> None: ...

    def start_session(
        self,
        settings: EngineSettings,
        base_url: str | None = None,
        model: str | None = None,
        chain: bool = False,
        approval: bool = False,
        library: str = USER,
        timeout: float | None = None,
    ) -> None: ...

    def close_run(self, screen: Screen) -> None: ...

    def action_frontier(self) -> None: ...

    def open_session(self, session_id: int) -> None: ...

    def replay_session(self, session_id: int) -> None: ...

    def export_report(self, session_id: int) -> None: ...

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
    ) -> None: ...


def app_actions(screen: Screen) -> AppActions:
    """``screen``'s app, as the actions it offers its screens."""
    return cast(AppActions, screen.app)
