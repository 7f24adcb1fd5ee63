"""A recorded session: an engine run whose every event goes to the store first.

``Session.create`` starts a new one, ``Session.resume`` continues a recorded one from its
events (finished iterations kept, cut-off training continued from its checkpoint). The
CLI and the TUI both drive sessions through this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from rlgpt_tui.agents.builtin_team import builtin_team
from rlgpt_tui.agents.llm_team import LLMTeam
from rlgpt_tui.agents.slow.records import MeasuredRecords
from rlgpt_tui.agents.team import AgentTeam
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.chain import run_task_chain
from rlgpt_tui.engine.control import ControlPlane
from rlgpt_tui.engine.ends import RunEnd
from rlgpt_tui.engine.engine import Engine, EngineSettings
from rlgpt_tui.engine.result import ChainResult, EngineResult
from rlgpt_tui.engine.resume import ResumeState
from rlgpt_tui.engine.settings import session_tensorboard
from rlgpt_tui.library.shelf import EMPTY, USER, SkillShelf
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.library.storage import LibraryError
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.tasks.results import result_text

EventHandler = Callable[[ev.Event], None]


def make_team(
    llm: LLMSettings | None,
    env: str = "craftax",
    shelf: SkillShelf | None = None,
    earlier_ends: Mapping[str, int] | None = None,
    records: MeasuredRecords | None = None,
) -> AgentTeam:
    """The builtin agent, or LLM agents when a model is configured (checked first); their
    prompts describe world ``env`` (from the world registry), offer ``shelf``'s skills and
    say how earlier sessions' episodes ended (``earlier_ends``; the builtin agent plans
    from its own evaluations); their slow agent plans with the sub-actions' measured
    ``records`` (RL where code fell short)."""
    if llm is None or not llm.configured:
        return builtin_team(env, records)
    client = LLMClient(llm)
    client.check()
    return LLMTeam(client, env, shelf, earlier_ends, records)


def session_shelf(store: SessionStore | None, choice: str, env: str) -> SkillShelf:
    """What a session starts from (``--library``: :meth:`SkillLibrary.offer`); a bad choice
    raises StoreError naming the fix."""
    try:
        return SkillLibrary(store).offer(choice, env)
    except LibraryError as error:
        raise StoreError(str(error)) from None


def _llm_record(llm: LLMSettings | None) -> dict[str, Any]:
    """What the store keeps of the LLM settings: never the key, only its variable's name."""
    if llm is None or not llm.configured:
        return {}
    return dataclasses.asdict(llm)


@dataclasses.dataclass(frozen=True)
class RunOutcome:
    """How a session's run ended (``end``; ``reason``: the text its session records), with
    what it returned: the engine's result, or a chain session's."""

    end: RunEnd
    reason: str
    result: EngineResult | None = None
    chain: ChainResult | None = None

    @classmethod
    def of_run(cls, result: EngineResult) -> RunOutcome:
        return cls(result.end, result.end.text, result=result)

    @classmethod
    def of_chain(cls, chain: ChainResult) -> RunOutcome:
        """A stopped chain ends as its stage did; a finished one records its result."""
        if chain.stopped_at is not None:
            return cls(chain.end, chain.end.text, chain=chain)
        return cls(chain.end, f"chain {result_text(chain.to_dict())}", chain=chain)


class Session:
    """One engine run (or task chain) recorded in a SessionStore."""

    def __init__(
        self,
        store: SessionStore,
        session_id: int,
        settings: EngineSettings,
        team: AgentTeam,
        chain: bool = False,
        resume: ResumeState | None = None,
        shelf: SkillShelf | None = None,
    ):
        """``shelf``: the session's library, which ``ctx.skill`` in a person's code runs."""
        self.store = store
        self.id = session_id
        self.settings = settings
        self.team = team
        self.chain = chain
        self.on_event: EventHandler = lambda event: None
        self.control = ControlPlane(settings.task)  # pause, stop, edits: every stage's
        self.control.library = shelf
        self.engine = Engine(settings, team, self._record, resume=resume, control=self.control)

    @property
    def label(self) -> str:
        return self.team.label

    @classmethod
    def create(
        cls,
        store: SessionStore,
        settings: EngineSettings,
        llm: LLMSettings | None = None,
        chain: bool = False,
        library: str = USER,
        earlier_ends: Mapping[str, int] | None = None,
        records: MeasuredRecords | None = None,
    ) -> Session:
        """A new session; ``library``: what its agents start from (see
        :func:`session_shelf`); ``earlier_ends``: how earlier sessions' evaluation episodes
        ended (a learn record's), for its LLM agents' first plan. Both are recorded with its
        settings and used again on resume, as are ``records`` (the sub-actions' measured
        records, for its slow agent)."""
        shelf = session_shelf(store, library, settings.env)
        team = make_team(llm, settings.env, shelf, earlier_ends, records)
        extra: dict[str, Any] = {"library": library}
        if earlier_ends:
            extra["earlier_ends"] = dict(earlier_ends)
        if records is not None:
            extra["subaction_records"] = records.as_dict()
        session_id = store.create_session(
            settings.task,
            settings.env,
            team.label,
            dataclasses.asdict(settings) | extra,
            _llm_record(llm),
            chain=chain,
        )
        settings = dataclasses.replace(
            settings,
            artifacts_dir=str(store.session_dir(session_id)),
            tensorboard_dir=session_tensorboard(settings, session_id),
        )
        return cls(store, session_id, settings, team, chain, shelf=shelf)

    @classmethod
    def resume(
        cls, store: SessionStore, session_id: int, llm: LLMSettings | None = None
    ) -> Session:
        """Continue a recorded session where its events end (same settings and agent).

        ``llm`` replaces the recorded endpoint settings (e.g. the server moved); the model
        must stay the same, so the session keeps one agent.
        """
        summary = store.get(session_id)
        if summary.status == "running":
            raise StoreError(
                f"session {session_id} is running in another process: wait for it or stop it"
            )
        if summary.status == "finished":
            raise StoreError(
                f"session {session_id} finished ({summary.reason}): start a new session, or "
                f"export it with `rlgpt-tui sessions export {session_id}`"
            )
        if llm is not None:
            if llm.model != summary.llm.get("model"):
                raise StoreError(
                    f"session {session_id} was run by {summary.agent}: resume it with the same "
                    "model, or start a new session"
                )
            store.update_llm(session_id, _llm_record(llm))
        else:
            llm = LLMSettings(**summary.llm) if summary.llm else None
        recorded = dict(summary.settings)
        library = recorded.pop("library", EMPTY)
        earlier_ends = recorded.pop("earlier_ends", None)
        records = MeasuredRecords.from_dict(recorded.pop("subaction_records", None))
        settings = EngineSettings.from_recorded(recorded)
        shelf = session_shelf(store, library, settings.env)
        team = make_team(llm, settings.env, shelf, earlier_ends, records)
        settings = dataclasses.replace(
            settings,
            artifacts_dir=str(store.session_dir(session_id)),
            tensorboard_dir=session_tensorboard(settings, session_id),
        )
        events = ev.events_from_records(store.events(session_id))
        store.claim(session_id)
        if summary.chain:
            session = cls(store, session_id, settings, team, chain=True, shelf=shelf)
            session.recorded = events
        else:
            resume = ResumeState.from_events(events)
            session = cls(store, session_id, settings, team, resume=resume, shelf=shelf)
        # edit numbering, RL-edit bases and the edits pending when it was cut off
        session.control.restore(events)
        return session

    recorded: list[ev.Event] | None = None  # a chain's events, when it is resumed

    def _use_engine(self, engine: Engine) -> None:
        """A chain runs one engine per stage (all share the session's control plane)."""
        previous, self.engine = self.engine, engine
        engine.approver, engine.on_frame = previous.approver, previous.on_frame

    def _record(self, event: ev.Event) -> int:
        """Record ``event`` (first the database, then the views); its sequence number."""
        seq = self.store.record(self.id, event)
        self.on_event(event)
        return seq

    def run(self, on_event: EventHandler | None = None) -> RunOutcome:
        """Run to the end (blocking); ``on_event`` sees each event after it is recorded."""
        self.on_event = on_event or (lambda event: None)
        status, reason = "failed", "crashed"  # unless the run ends with a RunEnd
        try:
            if self.chain:
                chain = run_task_chain(
                    self.settings,
                    self.team,
                    self._record,
                    self.recorded,
                    self._use_engine,
                    self.control,
                )
                outcome = RunOutcome.of_chain(chain)
            else:
                outcome = RunOutcome.of_run(self.engine.run())
            status, reason = outcome.end.status, outcome.reason
            return outcome
        except KeyboardInterrupt:
            status, reason = "stopped", "interrupted (ctrl+c)"
            raise
        finally:
            # if the database itself failed (e.g. disk full), that error is on its way up
            with contextlib.suppress(StoreError):
                self.store.finish(self.id, status, reason)
