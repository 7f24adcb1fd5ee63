"""SessionStore: the sessions database (SQLite, WAL) and a folder of artifacts per session.

This module opens and migrates the database and keeps each session's lifecycle (created,
claimed on resume, finished, deleted; listed with its summary and whether its process
lives). Every engine event is written in one transaction: the event log row, its rows in
the typed tables and the session's summary (:mod:`rlgpt_tui.store.projection`) and the
skill library's rows (:mod:`rlgpt_tui.store.library`). A kill -9 loses at most the event in
flight. The code a session writes is also kept as files (:mod:`rlgpt_tui.store.code_files`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlite_utils import Database

from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.phases import SessionPhases, session_phases
from rlgpt_tui.library.storage import LibraryPolicy, LibrarySkill
from rlgpt_tui.store.code_files import write_code_file
from rlgpt_tui.store.library import (
    insert_imported,
    insert_policy,
    list_policies,
    list_skills,
    policy_weights,
    project,
)
from rlgpt_tui.store.projection import project_event
from rlgpt_tui.store.schema import MIGRATIONS, SCHEMA_VERSION
from rlgpt_tui.store.tables import inserted_id, table_of
from rlgpt_tui.tasks.measure import Measure
from rlgpt_tui.text import safe_data

if TYPE_CHECKING:
    from rlgpt_tui.library.skillfile import SkillFile
    from rlgpt_tui.rl.policyfile import SavedPolicy

ENV_SESSIONS_DIR = "RLGPT_SESSIONS_DIR"
DB_NAME = "rlgpt.db"
BUSY_TIMEOUT_MS = 5_000


class StoreError(Exception):
    """The sessions database cannot be used; the message is one line naming the fix."""


class UnknownSessionError(StoreError):
    """No session has this id."""


def default_sessions_dir() -> Path:
    return Path(os.environ.get(ENV_SESSIONS_DIR) or "sessions")


@dataclass
class SessionSummary:
    """One row of the session browser."""

    id: int
    task: str
    env: str
    agent: str
    status: str  # running, interrupted, finished, stopped, failed
    reason: str
    best: float | None  # the best value of the task's measure
    total_samples: int
    tokens: int
    iterations: int
    chain: bool
    created_at: float
    updated_at: float
    settings: dict[str, Any]
    llm: dict[str, Any]
    measure: Measure = Measure.SUCCESS_RATE
    run_score: float | None = None  # scored tasks: Crafter's score over all training episodes
    # the chosen solution's fresh evaluation (value, 95% interval, kind); None: not yet
    result: float | None = None
    result_ci: tuple[float, float] | None = None
    result_kind: str | None = None

    @property
    def best_text(self) -> str:
        """The session's figure in its measure: the fresh result with its interval once the
        run chose its solution (``0.94 [0.85-0.98] code``), else the best of the run's own
        evaluations (``0.85 (run's own)``: optimistic, it made the run's decisions); '-':
        none yet."""
        prefix = "" if self.measure is Measure.SUCCESS_RATE else "score "
        fmt = self.measure.show
        if self.result is not None:
            low, high = self.result_ci or (self.result, self.result)
            return f"{prefix}{fmt(self.result)} [{fmt(low)}-{fmt(high)}] {self.result_kind}"
        if self.best is None:
            return "-"
        return f"{prefix}{fmt(self.best)} (run's own)"


class SessionStore:
    """Sessions in ``<sessions_dir>/rlgpt.db``; artifacts in ``<sessions_dir>/<id>/``."""

    def __init__(self, sessions_dir: Path | str | None = None):
        self.dir = Path(sessions_dir) if sessions_dir else default_sessions_dir()
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"cannot create the sessions folder {self.dir}: {error.strerror}; pass "
                f"--sessions-dir or set {ENV_SESSIONS_DIR} to a writable folder"
            ) from None
        self.path = self.dir / DB_NAME
        self._lock = threading.RLock()  # one connection, shared by the engine and UI threads
        with self._errors():
            conn = sqlite3.connect(
                self.path, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1e3
            )
            self.db = Database(conn)
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._use_wal()
            self.db.execute("PRAGMA synchronous = NORMAL")  # durable across process kills
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()

    # -- opening ------------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn SQLite's errors into one-line StoreErrors that name the fix."""
        try:
            with self._lock:
                yield
        except sqlite3.OperationalError as error:
            text = str(error)
            if "locked" in text or "busy" in text:
                raise StoreError(
                    f"the sessions database {self.path} is locked by another process: close "
                    "the other rlgpt-tui or wait, then try again"
                ) from None
            if "full" in text:
                raise StoreError(
                    f"the disk holding {self.path} is full: free some space, then resume the "
                    "session (what was recorded is intact)"
                ) from None
            if "readonly" in text or "unable to open" in text:
                raise StoreError(
                    f"cannot write the sessions database {self.path}: make it writable or "
                    f"pass --sessions-dir / set {ENV_SESSIONS_DIR}"
                ) from None
            raise StoreError(f"sessions database {self.path}: {text}") from None
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"the sessions database {self.path} is corrupt ({error}): move it aside "
                "(it is left untouched) or pass --sessions-dir for a new one"
            ) from None

    def _use_wal(self) -> None:
        """Switch to WAL (readers never block the writer), waiting out other openers.

        Switching a new database's journal mode answers "locked" at once, without SQLite's
        busy handler, while another process switches it too: retry until the busy timeout.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1e3
        while True:
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        """Apply the missing migrations as one transaction that holds SQLite's write lock.

        Two processes opening the same new database at once (a run and a reader) would both
        see version 0 and create the tables twice; with the lock taken first, the second one
        waits, then finds the schema done. A kill mid-migration leaves the old version intact.
        """
        if self.schema_version() == SCHEMA_VERSION:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            version = self.schema_version()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the sessions database {self.path} has schema version {version}, newer "
                    f"than this rlgpt-tui knows ({SCHEMA_VERSION}): upgrade rlgpt-tui"
                )
            for number in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[number - 1](self.db)
            if version < SCHEMA_VERSION:
                self.db.execute("DELETE FROM schema_version")
                self.db.execute("INSERT INTO schema_version (version) VALUES (?)", [SCHEMA_VERSION])
        except BaseException:
            self.db.rollback()
            raise
        self.db.commit()

    def schema_version(self) -> int:
        """The last migration applied to this database (0 for a new file)."""
        if not self.db["schema_version"].exists():
            return 0
        row = self.db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return row[0] or 0

    def close(self) -> None:
        self.db.conn.close()

    # -- sessions -----------------------------------------------------------------------------
    def create_session(
        self,
        task: str,
        env: str,
        agent: str,
        settings: dict[str, Any],
        llm: dict[str, Any] | None = None,
        chain: bool = False,
    ) -> int:
        """A new session row owned by this process, and its artifacts folder."""
        if llm and any("key" in k and k != "api_key_env" for k in llm):
            raise ValueError("LLM settings passed to the store must not hold a key")
        now = time.time()
        with self._errors(), self.db.atomic():
            table = table_of(self.db, "sessions")
            table.insert(
                {
                    "task": task,
                    "env": env,
                    "agent": agent,
                    "settings": json.dumps(settings),
                    "llm": json.dumps(llm or {}),
                    "chain": int(chain),
                    "status": "running",
                    "reason": "",
                    "best": None,
                    "total_samples": 0,
                    "tokens": 0,
                    "iterations": 0,
                    "created_at": now,
                    "updated_at": now,
                    "owner_pid": os.getpid(),
                    "owner_host": socket.gethostname(),
                }
            )
            session_id = inserted_id(table.last_pk)
        self.session_dir(session_id).mkdir(parents=True, exist_ok=True)
        return session_id

    def session_dir(self, session_id: int) -> Path:
        return self.dir / str(session_id)

    def get(self, session_id: int) -> SessionSummary:
        with self._errors():
            rows = list(self.db.query("SELECT * FROM sessions WHERE id = ?", [session_id]))
        if not rows:
            raise UnknownSessionError(
                f"no session {session_id} in {self.path}: see `rlgpt-tui sessions list`"
            )
        return self._summary(rows[0])

    def list_sessions(self) -> list[SessionSummary]:
        with self._errors():
            rows = list(self.db.query("SELECT * FROM sessions ORDER BY id DESC"))
        return [self._summary(r) for r in rows]

    def _summary(self, row: dict[str, Any]) -> SessionSummary:
        status = row["status"]
        if status == "running" and not owner_alive(row.get("owner_pid"), row.get("owner_host")):
            status = "interrupted"
        return SessionSummary(
            id=row["id"],
            task=row["task"],
            env=row["env"],
            agent=row["agent"],
            status=status,
            reason=row["reason"] or "",
            best=row["best"],
            total_samples=row["total_samples"] or 0,
            tokens=row["tokens"] or 0,
            iterations=row["iterations"] or 0,
            chain=bool(row["chain"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            settings=json.loads(row["settings"] or "{}"),
            llm=json.loads(row["llm"] or "{}"),
            measure=Measure(row.get("measure") or Measure.SUCCESS_RATE),
            run_score=row.get("run_score"),
            result=row.get("result"),
            result_ci=None
            if row.get("result_low") is None
            else (row["result_low"], row["result_high"]),
            result_kind=row.get("result_kind"),
        )

    def claim(self, session_id: int) -> None:
        """Mark the session as run by this process (on resume)."""
        self.get(session_id)
        with self._errors(), self.db.atomic():
            table_of(self.db, "sessions").update(
                session_id,
                {
                    "status": "running",
                    "owner_pid": os.getpid(),
                    "owner_host": socket.gethostname(),
                    "updated_at": time.time(),
                },
            )

    def update_llm(self, session_id: int, llm: dict[str, Any]) -> None:
        """Replace the recorded LLM settings (never a key) of a session."""
        if any("key" in k and k != "api_key_env" for k in llm):
            raise ValueError("LLM settings passed to the store must not hold a key")
        with self._errors(), self.db.atomic():
            table_of(self.db, "sessions").update(session_id, {"llm": json.dumps(llm)})

    def finish(self, session_id: int, status: str, reason: str) -> None:
        with self._errors(), self.db.atomic():
            table_of(self.db, "sessions").update(
                session_id, {"status": status, "reason": reason, "updated_at": time.time()}
            )

    def delete(self, session_id: int) -> None:
        """Remove the session's rows and its artifacts folder."""
        self.get(session_id)
        with self._errors(), self.db.atomic():
            for table in self.db.table_names():
                if table not in ("sessions", "schema_version") and "session_id" in (
                    self.db[table].columns_dict
                ):
                    self.db.execute(f"DELETE FROM [{table}] WHERE session_id = ?", [session_id])
            self.db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
        shutil.rmtree(self.session_dir(session_id), ignore_errors=True)

    # -- the skill library's storage (rlgpt_tui.library.storage.SkillStorage) -----------------
    def skills(self, world: str | None = None, name: str | None = None) -> list[LibrarySkill]:
        """The library's skills (every version), each with its measured record."""
        with self._errors():
            return list_skills(self.db, world, name)

    def policies(self, world: str | None = None) -> list[LibraryPolicy]:
        """The library's trained policies (without their weights)."""
        with self._errors():
            return list_policies(self.db, world)

    def saved_policies(self, world: str) -> list[SavedPolicy]:
        """The library's trained policies for ``world``, weights included (a session's
        shelf)."""
        with self._errors():
            return [
                replace(p, weights=policy_weights(self.db, p.id))
                for p in list_policies(self.db, world)
            ]

    def add_skills(
        self, skills: Sequence[SkillFile], policies: Sequence[SavedPolicy], origin: str
    ) -> list[int]:
        """Add checked skill files and trained policies in one transaction (all or none)."""
        with self._errors(), self.db.atomic():
            ids = [insert_imported(self.db, skill, origin) for skill in skills]
            for policy in policies:
                insert_policy(self.db, policy, origin=origin)
        return ids

    # -- events -------------------------------------------------------------------------------
    def record(self, session_id: int, event: ev.Event) -> int:
        """Write ``event`` and what it carries in one transaction; returns its sequence.

        Text is made safe first (surrogates replaced, NUL removed, length bounded): an LLM's
        answer can hold anything, and SQLite must take all of it."""
        data = event.to_dict()
        safe = safe_data(data)
        if safe != data:
            data, event = safe, ev.event_from_dict(safe)
        with self._errors(), self.db.atomic():
            cursor = self.db.execute(
                "INSERT INTO events (session_id, kind, iteration, agent, time, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    session_id,
                    event.kind,
                    event.iteration,
                    event.agent,
                    event.time,
                    json.dumps(data, default=str),
                ],
            )
            seq = inserted_id(cursor.lastrowid)
            project_event(self.db, session_id, seq, event)
            project(self.db, session_id, seq, event)  # the skill library
        if isinstance(event, ev.CodeWritten):
            write_code_file(self.session_dir(session_id), event.subaction, event.code)
        return seq

    def events(self, session_id: int, after_seq: int = 0) -> list[dict[str, Any]]:
        """The session's events after ``after_seq``, oldest first, each with its ``seq``."""
        with self._errors():
            rows = self.db.execute(
                "SELECT seq, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq",
                [session_id, after_seq],
            ).fetchall()
        return [json.loads(data) | {"seq": seq} for seq, data in rows]

    def phase_times(self, session_id: int) -> SessionPhases:
        """Where the session's wall time went: seconds per phase and iteration (from its
        events; see :mod:`rlgpt_tui.engine.phases`)."""
        return session_phases(self.events(session_id))

    def rows(self, table: str, session_id: int) -> list[dict[str, Any]]:
        """A record table's rows for one session (plans, verdicts, training_metrics...)."""
        if table not in self.db.table_names() or table in ("sessions", "schema_version"):
            raise StoreError(f"no table {table!r}: use one of {self.db.table_names()}")
        with self._errors():
            return list(
                self.db.query(
                    f"SELECT * FROM [{table}] WHERE session_id = ? ORDER BY rowid",
                    [session_id],
                )
            )


def owner_alive(pid: int | None, host: str | None) -> bool:
    """Is the process that runs a session still there? (Another host's: assume so.)"""
    if host is not None and host != socket.gethostname():
        return True
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
