"""The learn loop: lifelong learning of a world from a library, one ordinary session per task.

:class:`Learner` opens the sessions folder's learn record (or starts one), then, until a
budget is spent or nothing is left to propose: takes people's requests (pin, skip, stop,
retry), asks its curriculum agent for the next task, records that choice with its reason,
runs an ordinary :class:`~rlgpt_tui.session.Session` for it (listed, exported and resumable
like any other; what validated and was measured joins the library as in every session), and
records the session's figures. Started again after a stop, a kill -9 or a crash, it continues
the same record: an unfinished choice's session is resumed, reached tasks are not run again.
No Textual here: the CLI and the app both drive it.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rlgpt_tui.agents.slow.records import MeasuredRecords, SubActionRecord
from rlgpt_tui.curriculum.agents import (
    PERSON,
    BuiltinCurriculum,
    CurriculumAgent,
    LLMCurriculum,
    Proposal,
)
from rlgpt_tui.curriculum.frontier import (
    REACHED,
    CurriculumState,
    choice_facts,
    curriculum_state,
    curriculum_tasks,
    world_tree,
)
from rlgpt_tui.engine.settings import EngineSettings
from rlgpt_tui.envs.registry import world_info
from rlgpt_tui.library.shelf import BUILTIN, EMPTY, OWN, USER
from rlgpt_tui.library.skill_library import SkillLibrary
from rlgpt_tui.llm.client import LLMClient
from rlgpt_tui.llm.settings import LLMSettings
from rlgpt_tui.session_settings import LearnBudgets, LearnTarget, SessionPlan
from rlgpt_tui.store import SessionStore, StoreError
from rlgpt_tui.store.learning import LearnChoice, LearnRun, LearnStore
from rlgpt_tui.tasks.catalog import get_task

#: seconds between the watcher's looks at the store while a session runs
WATCH_S = 1.0


class Budgets(LearnBudgets):
    """Totals over the whole learn record (every process that ran it); None: no limit."""

    def spent(self, elapsed_s: float, tokens: int, samples: int, tasks: int) -> str:
        """Which budget is spent ('' for none), as the record's end says it."""
        if self.max_tasks is not None and tasks >= self.max_tasks:
            return f"task budget spent ({tasks} of {self.max_tasks} tasks)"
        if self.max_hours is not None and elapsed_s >= self.max_hours * 3600:
            return f"time budget spent ({elapsed_s / 3600:.3g} of {self.max_hours:g} h)"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget spent ({tokens:,} of {self.max_tokens:,} tokens)"
        if self.max_samples is not None and samples >= self.max_samples:
            return f"sample budget spent ({samples:,} of {self.max_samples:,} samples)"
        return ""


def session_library(library: str) -> str:
    """The ``--library`` each session of a learn run gets: the store's growing library
    (``own``), after the builtin templates where the run started from them (``user``)."""
    return USER if library in (BUILTIN, USER) else OWN


def _llm_record(llm: LLMSettings | None) -> dict[str, Any]:
    return dataclasses.asdict(llm) if llm is not None and llm.configured else {}


class LearnError(StoreError):
    """A learn run cannot start or continue; one line naming the fix."""


class Learner:
    """One process's part of a learn record."""

    def __init__(
        self,
        store: SessionStore,
        run: LearnRun,
        agent: CurriculumAgent,
        llm: LLMSettings | None,
        say: Callable[[str], None] = print,
        on_session: Callable[[Any], Callable[[Any], None]] | None = None,
    ) -> None:
        """``say``: one line per choice and end; ``on_session(session)``: the event handler
        of each session (e.g. the CLI's printer)."""
        self.store = store
        self.learn = LearnStore(store)
        self.run_record = run
        self.agent = agent
        self.llm = llm
        self.say = say
        self.on_session = on_session
        self.plan = SessionPlan(**run.settings)
        self.budgets = Budgets(**run.budgets)
        self.tree = world_tree(run.env)
        self.tasks = curriculum_tasks(self.tree)
        self._tick_at = time.monotonic()
        self._choice_id: int | None = None
        self._stop_reason = ""
        self._session = None
        self._pinned: list[tuple[str, str]] = []  # (task, why) a person asked for next

    # -- opening --------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        store: SessionStore,
        env: str | None,
        library: str | None,
        plan: dict[str, Any],
        budgets: dict[str, Any],
        threshold: float | None,
        llm: LLMSettings | None,
        curriculum: str = "auto",
        retry: list[str] | None = None,
        **kwargs: Any,
    ) -> Learner:
        """The folder's learn record continued (flags given replace its settings and
        budgets), or a new one. ``plan``/``budgets``: only the values given; ``curriculum``:
        builtin, llm, or auto (the LLM when a model is given or the record used one)."""
        learn = LearnStore(store)
        plan = {k: v for k, v in plan.items() if v is not None}
        budgets = {k: v for k, v in budgets.items() if v is not None}
        # a bad value: one line (SettingError), the CLI's and the app's form's alike
        checked_plan = SessionPlan(**plan)
        checked_budgets = Budgets(**budgets)
        if threshold is not None:
            LearnTarget(threshold=threshold)
        run = learn.latest()
        if run is not None and run.status == "running":
            raise LearnError(
                f"learn record {run.id} in {store.path} is running in another process: wait "
                "for it, or stop it (`rlgpt-tui learn --stop`)"
            )
        for task in retry or []:
            get_task(task)  # a bad name: one line
        # a missing backend (MineDojo's interpreter): one line, before anything is recorded
        world_info(env or (run.env if run else "craftax")).cls.check_backend()
        if run is not None:
            if env is not None and env != run.env:
                raise LearnError(
                    f"the learn record {run.id} in {store.path} learns {run.env}, not {env}: "
                    "drop --env, or use another --sessions-dir"
                )
            if library is not None and library != run.library:
                raise LearnError(
                    f"the learn record {run.id} started from --library {run.library}: drop "
                    "--library to continue it, or use another --sessions-dir"
                )
            if llm is None and run.llm:
                llm = LLMSettings(**run.llm)
        elif library not in (None, EMPTY, BUILTIN, USER, OWN) and not Path(library).is_dir():
            raise LearnError(
                f"--library {library}: no such folder: use empty, builtin, user, own or a "
                "folder written by `rlgpt-tui skills export`"
            )
        agent = _curriculum_agent(curriculum, llm, run.curriculum if run else "")
        if run is None:
            library = library or EMPTY
            if library not in (EMPTY, BUILTIN, USER, OWN):
                SkillLibrary(store).import_folder(
                    library
                )  # the sessions grow the store's copy of it
            run_id = learn.create(
                env or "craftax",
                library,
                checked_plan.model_dump(),
                checked_budgets.model_dump(),
                threshold if threshold is not None else LearnTarget.default("threshold"),
                agent.label,
                _llm_record(llm),
            )
        else:
            changes: dict[str, Any] = {
                "settings": run.settings | plan,
                "budgets": run.budgets | budgets,
                "curriculum": agent.label,
            }
            if threshold is not None:
                changes["threshold"] = threshold
            if llm is not None:
                changes["llm"] = _llm_record(llm)
            learn.claim(run.id, **changes)
            run_id = run.id
        run = learn.get(run_id)
        learner = cls(store, run, agent, llm, **kwargs)
        for task in retry or []:
            learn.add_command(run.id, "retry", task)
        return learner

    # -- where it stands ------------------------------------------------------------------------
    def choices(self) -> list[LearnChoice]:
        return self.learn.choices(self.run_record.id)

    def state(self) -> CurriculumState:
        return curriculum_state(self.store, self.run_record.id)

    def totals(self) -> tuple[float, int, int, int]:
        """Seconds, tokens, samples and tasks spent by the record so far."""
        run = self.learn.get(self.run_record.id)
        choices = self.choices()
        tokens = sum(c.tokens + c.curriculum_tokens for c in choices)
        if self._session is not None:  # the running session's tokens so far
            tokens += self.store.get(self._session.id).tokens
        samples = sum(c.samples for c in choices)
        if self._session is not None:
            samples += self.store.get(self._session.id).total_samples
        return run.elapsed_s, tokens, samples, len(choices)

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> str:
        """Choose and run tasks until a budget is spent, a person stops it, or nothing is
        left; returns (and records) why it ended."""
        status, reason = "failed", "crashed"
        self._tick_at = time.monotonic()
        try:
            while True:
                self._take_commands()
                if self._stop_reason:
                    status, reason = "stopped", self._stop_reason
                    break
                unfinished = self._unfinished()
                seconds, tokens, samples, tasks = self.totals()
                # an unfinished choice was counted when it was made: going on with it takes
                # time, tokens and samples, not another task
                tasks -= unfinished is not None
                spent = self.budgets.spent(seconds, tokens, samples, tasks)
                if spent:
                    status, reason = "finished", spent
                    break
                if unfinished is not None:  # killed, crashed or stopped: it goes on first
                    self._continue(unfinished)
                    continue
                proposal = self._next()
                if proposal is None:
                    status, reason = "finished", "nothing left to propose: every task is "
                    reason += "reached, skipped, or waits for something new to be reached"
                    break
                self._run_choice(proposal)
                if self._stop_reason:
                    status, reason = "stopped", self._stop_reason
                    break
            return reason
        except KeyboardInterrupt:
            status, reason = "stopped", "interrupted (ctrl+c)"
            raise
        except Exception as error:  # recorded with the record's end, then on its way up
            reason = f"crashed: {str(error).splitlines()[0][:300] if str(error) else error!r}"
            raise
        finally:
            self._tick()
            self.learn.finish(self.run_record.id, status, reason)
            self.say(f"learn record {self.run_record.id}: {status}: {reason}")

    def _next(self) -> Proposal | None:
        if self._pinned:
            task, why = self._pinned.pop(0)
            return Proposal(task, why, PERSON)
        return self.agent.propose(self.state())

    def _take_commands(self) -> None:
        """People's requests since the last choice: stop ends the run; pin and retry put a
        task next; skip takes a task out of the curriculum (read by :meth:`state`)."""
        for command in self.learn.pending_commands(self.run_record.id):
            self.learn.take_command(command.id)
            if command.kind == "stop":
                self._stop_reason = "stopped by a person"
            elif command.kind == "pin":
                self._pinned.append((command.task, "pinned by a person"))
            elif command.kind == "retry":
                self._pinned.append((command.task, "asked again by a person (--retry)"))

    def _unfinished(self) -> LearnChoice | None:
        """The record's last choice when its session did not end (killed, crashed, stopped)."""
        choices = self.choices()
        if not choices:
            return None
        last = choices[-1]
        if last.status == "running":
            return last
        if last.status == "stopped" and last.task not in self.learn.skipped(last.learn_id):
            return last
        return None

    def _continue(self, choice: LearnChoice) -> None:
        """Go on with an unfinished choice: resume its session (or start it, if the process
        was killed before it began; or just record it, if it ended before the record did)."""
        # start-up: the session imports torch; the frontier (`learn --status`) needs none
        from rlgpt_tui.session import Session

        self.say(f"continuing choice {choice.position}: {choice.task} ({choice.reason})")
        self._choice_id = choice.id
        if choice.session_id is None:
            session = self._new_session(choice.task)
            self.learn.attach_session(choice.id, session.id)
        else:
            summary = self.store.get(choice.session_id)
            if summary.status == "finished":
                self._end_choice(choice.id, summary.id)
                return
            if summary.status == "failed":
                self._end_choice(choice.id, summary.id, "failed")
                return
            session = Session.resume(self.store, choice.session_id, llm=self.llm)
        self._run_session(session, choice.id)

    def _run_choice(self, proposal: Proposal) -> None:
        choice_id = self.learn.add_choice(
            self.run_record.id,
            proposal.task,
            proposal.reason,
            proposal.chooser,
            proposal.fallback,
            proposal.tokens,
            proposal.seconds,
            facts=choice_facts(self.state(), proposal.task),
        )
        position = len(self.choices())
        note = f" [{proposal.fallback}]" if proposal.fallback else ""
        self.say(
            f"choice {position}: {proposal.task} ({proposal.chooser}: {proposal.reason}){note}"
        )
        self._choice_id = choice_id
        try:
            session = self._new_session(proposal.task)
        except StoreError:
            self._end_choice(choice_id, None, "failed")
            raise
        self.learn.attach_session(choice_id, session.id)
        self._run_session(session, choice_id)

    def _new_session(self, task: str):
        from rlgpt_tui.session import Session  # start-up: torch, as in _continue

        run = self.learn.get(self.run_record.id)
        plan = self.plan
        _, tokens, samples, _ = self.totals()
        session_samples = plan.session_samples
        if self.budgets.max_samples is not None:  # never past the record's budget
            session_samples = max(1, min(session_samples, self.budgets.max_samples - samples))
        session_tokens = None
        if self.budgets.max_tokens is not None:
            session_tokens = max(1, self.budgets.max_tokens - tokens)
        settings = EngineSettings(
            task=task,
            env=run.env,
            num_envs=plan.num_envs or world_info(run.env).default_num_envs,
            seed=plan.seed,
            max_iterations=plan.iterations,
            target=run.threshold,
            samples_per_iteration=plan.samples_per_iteration,
            max_samples=session_samples,
            max_tokens=session_tokens,
            eval_episodes=plan.eval_episodes,
            final_episodes=plan.final_episodes,
        )
        return Session.create(
            self.store,
            settings,
            self.llm,
            library=session_library(run.library),
            earlier_ends=self.state().recent_ends,
            records=self.records(),
        )

    def records(self) -> MeasuredRecords:
        """Each task's sessions in this world, by code and by RL: what a session's slow agent
        reads of each sub-action named for a task (a task failed by code is next tried with
        RL)."""
        run = self.learn.get(self.run_record.id)
        return MeasuredRecords(
            run.threshold,
            {
                task: SubActionRecord(task, r.code_tries, r.code_best, r.rl_tries, r.rl_best)
                for task, r in self.learn.task_records(run.env).items()
                if r.code_tries or r.rl_tries
            },
        )

    def _run_session(self, session, choice_id: int) -> None:
        """Run ``session`` to its end while a watcher keeps the record's time and stops the
        session for a person's stop, a skip of its task, or the time budget."""
        self.say(
            f"  session {session.id}: {session.settings.task} (rlgpt-tui sessions show "
            f"{session.id})"
        )
        self._session = session
        done = threading.Event()
        watcher = threading.Thread(
            target=self._watch, args=(session, done), name="learn-watch", daemon=True
        )
        watcher.start()
        handler = self.on_session(session) if self.on_session else None
        try:
            session.run(handler)
        finally:
            done.set()
            watcher.join()
            self._session = None
        self._end_choice(choice_id, session.id)

    def _watch(self, session, done: threading.Event) -> None:
        while not done.wait(WATCH_S):
            self._tick()
            for command in self.learn.pending_commands(self.run_record.id):
                if command.kind == "stop":
                    self.learn.take_command(command.id)
                    self._stop_reason = "stopped by a person"
                    session.control.stop()
                elif command.kind == "skip" and command.task == session.settings.task:
                    self.learn.take_command(command.id)
                    session.control.stop()
            run = self.learn.get(self.run_record.id)
            hours = self.budgets.max_hours
            if hours is not None and run.elapsed_s >= hours * 3600:
                session.control.stop()

    def _tick(self) -> None:
        """Add the seconds since the last tick to the record and to the running choice."""
        now = time.monotonic()
        seconds, self._tick_at = now - self._tick_at, now
        self.learn.add_elapsed(self.run_record.id, seconds)
        if self._choice_id is not None:
            self.learn.add_wall(self._choice_id, seconds)

    def _end_choice(self, choice_id: int, session_id: int | None, status: str = "") -> None:
        self._tick()
        self._choice_id = None
        if not status:
            summary = self.store.get(session_id) if session_id else None
            run = self.learn.get(self.run_record.id)
            if summary is None or summary.status != "finished":
                status = "stopped" if summary and summary.status == "stopped" else "failed"
            elif summary.result is not None and summary.result >= run.threshold:
                status = REACHED
            else:
                status = "failed"
        self.learn.finish_choice(choice_id, status, 0.0)
        done = [c for c in self.choices() if c.id == choice_id][0]
        figure = "-" if done.result is None else f"{done.result:.2f}"
        self.say(
            f"  {done.task}: {status}, fresh {figure}, {done.samples:,} samples, "
            f"{done.tokens:,} tokens, {done.wall_s:.0f} s"
        )


def _curriculum_agent(kind: str, llm: LLMSettings | None, recorded: str) -> CurriculumAgent:
    """The curriculum agent of ``kind`` (its endpoint checked first: a bad one fails here,
    before any record is written)."""
    if kind == "auto":
        kind = (
            "llm"
            if (llm is not None and llm.configured) or recorded.startswith("llm:")
            else ("builtin")
        )
    if kind == "builtin":
        return BuiltinCurriculum()
    if llm is None or not llm.configured:
        raise LearnError(
            "the LLM curriculum needs a model: pass --llm-base-url URL --llm-model NAME"
        )
    client = LLMClient(llm)
    client.check()
    return LLMCurriculum(client)


__all__ = ["Budgets", "LearnError", "Learner", "SessionPlan"]
