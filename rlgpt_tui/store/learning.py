"""Lifelong learning's records in the sessions database (SQL only in rlgpt_tui/store).

A learn record (``learn_runs``) holds what ``rlgpt-tui learn`` started from and its budgets;
each choice of its curriculum (``learn_choices``) names the task, the reason, who chose it and
the ordinary session that ran it, with that session's figures once it ended; people's
requests (``learn_commands``: pin a task next, skip one, stop, run a reached one again) wait
there until the learn loop takes them, before its next choice.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rlgpt_tui.store.lifecycle import SessionStore, StoreError, owner_alive
from rlgpt_tui.store.tables import inserted_id, table_of

#: what a person may ask of a learn run
COMMANDS = ("pin", "skip", "stop", "retry")


@dataclass
class LearnRun:
    """One learn record: its start, settings, budgets and where it stands."""

    id: int
    env: str
    library: str
    settings: dict[str, Any]
    budgets: dict[str, Any]
    threshold: float
    curriculum: str
    llm: dict[str, Any]
    status: str  # running, interrupted (its process is gone), stopped, finished, failed
    reason: str
    elapsed_s: float
    created_at: float
    updated_at: float


@dataclass
class LearnChoice:
    """One choice of the curriculum and, once its session ended, that session's figures."""

    id: int
    learn_id: int
    position: int
    task: str
    reason: str
    chooser: str
    fallback: str
    curriculum_tokens: int
    curriculum_s: float
    session_id: int | None
    status: str  # running, reached, failed, stopped
    result: float | None
    result_ci: tuple[float, float] | None
    result_kind: str | None
    tokens: int
    samples: int
    wall_s: float
    created_at: float
    finished_at: float | None
    facts: dict[str, Any] = field(default_factory=dict)  # what the choice stood on

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "task": self.task,
            "reason": self.reason,
            "chooser": self.chooser,
            "fallback": self.fallback,
            "session": self.session_id,
            "status": self.status,
            "result": self.result,
            "ci95": list(self.result_ci) if self.result_ci else None,
            "kind": self.result_kind,
            "tokens": self.tokens,
            "curriculum_tokens": self.curriculum_tokens,
            "samples": self.samples,
            "wall_s": round(self.wall_s, 1),
            "facts": self.facts,
        }


@dataclass
class LearnCommand:
    id: int
    kind: str
    task: str
    created_at: float


@dataclass
class TaskRecord:
    """What the store knows of one task in one world: its sessions' figures."""

    task: str
    tries: int = 0
    tokens: int = 0
    samples: int = 0
    best: float | None = None  # the best fresh result of a finished session
    best_ci: tuple[float, float] | None = None
    best_kind: str | None = None
    best_session: int | None = None
    last_session: int | None = None
    running_session: int | None = None  # a session on it that runs now
    sessions: list[int] = field(default_factory=list)  # newest first
    # finished sessions by what their chosen solution was: code, or RL (RL + code too)
    code_tries: int = 0
    code_best: float | None = None
    rl_tries: int = 0
    rl_best: float | None = None


class LearnStore:
    """The learn tables of a :class:`SessionStore`'s database."""

    def __init__(self, store: SessionStore):
        self.store = store
        self.db = store.db

    # -- learn records --------------------------------------------------------------------------
    def create(
        self,
        env: str,
        library: str,
        settings: dict[str, Any],
        budgets: dict[str, Any],
        threshold: float,
        curriculum: str,
        llm: dict[str, Any] | None = None,
    ) -> int:
        """A new learn record, owned by this process."""
        if llm and any("key" in k and k != "api_key_env" for k in llm):
            raise ValueError("LLM settings passed to the store must not hold a key")
        now = time.time()
        with self.store._errors(), self.db.atomic():
            table = table_of(self.db, "learn_runs")
            table.insert(
                {
                    "env": env,
                    "library": library,
                    "settings": json.dumps(settings),
                    "budgets": json.dumps(budgets),
                    "threshold": threshold,
                    "curriculum": curriculum,
                    "llm": json.dumps(llm or {}),
                    "status": "running",
                    "reason": "",
                    "elapsed_s": 0.0,
                    "created_at": now,
                    "updated_at": now,
                    "owner_pid": os.getpid(),
                    "owner_host": socket.gethostname(),
                }
            )
            return inserted_id(table.last_pk)

    def latest(self) -> LearnRun | None:
        """The newest learn record in this sessions folder (None: none)."""
        with self.store._errors():
            rows = list(self.db.query("SELECT * FROM learn_runs ORDER BY id DESC LIMIT 1"))
        return _run(rows[0]) if rows else None

    def get(self, learn_id: int) -> LearnRun:
        with self.store._errors():
            rows = list(self.db.query("SELECT * FROM learn_runs WHERE id = ?", [learn_id]))
        if not rows:
            raise StoreError(f"no learn record {learn_id} in {self.store.path}")
        return _run(rows[0])

    def claim(self, learn_id: int, **changes: Any) -> None:
        """Mark the record as run by this process, with ``changes`` (settings, budgets...)."""
        values = {
            k: json.dumps(v) if k in ("settings", "budgets", "llm") else v
            for k, v in changes.items()
        }
        with self.store._errors(), self.db.atomic():
            table_of(self.db, "learn_runs").update(
                learn_id,
                values
                | {
                    "status": "running",
                    "reason": "",
                    "owner_pid": os.getpid(),
                    "owner_host": socket.gethostname(),
                    "updated_at": time.time(),
                },
            )

    def add_elapsed(self, learn_id: int, seconds: float) -> None:
        with self.store._errors(), self.db.atomic():
            self.db.execute(
                "UPDATE learn_runs SET elapsed_s = elapsed_s + ?, updated_at = ? WHERE id = ?",
                [seconds, time.time(), learn_id],
            )

    def finish(self, learn_id: int, status: str, reason: str) -> None:
        with self.store._errors(), self.db.atomic():
            table_of(self.db, "learn_runs").update(
                learn_id, {"status": status, "reason": reason, "updated_at": time.time()}
            )

    # -- choices --------------------------------------------------------------------------------
    def add_choice(
        self,
        learn_id: int,
        task: str,
        reason: str,
        chooser: str,
        fallback: str = "",
        curriculum_tokens: int = 0,
        curriculum_s: float = 0.0,
        facts: dict[str, Any] | None = None,
    ) -> int:
        """A new choice; ``facts``: what it stood on (the task's tries, best figure, ...)."""
        with self.store._errors(), self.db.atomic():
            position = self.db.execute(
                "SELECT COUNT(*) FROM learn_choices WHERE learn_id = ?", [learn_id]
            ).fetchone()[0]
            table = table_of(self.db, "learn_choices")
            table.insert(
                {
                    "learn_id": learn_id,
                    "position": position + 1,
                    "task": task,
                    "reason": reason,
                    "chooser": chooser,
                    "fallback": fallback,
                    "curriculum_tokens": curriculum_tokens,
                    "curriculum_s": curriculum_s,
                    "session_id": None,
                    "status": "running",
                    "tokens": 0,
                    "samples": 0,
                    "wall_s": 0.0,
                    "created_at": time.time(),
                    "facts": json.dumps(facts or {}),
                }
            )
            return inserted_id(table.last_pk)

    def attach_session(self, choice_id: int, session_id: int) -> None:
        with self.store._errors(), self.db.atomic():
            table_of(self.db, "learn_choices").update(choice_id, {"session_id": session_id})

    def finish_choice(self, choice_id: int, status: str, wall_s: float) -> None:
        """The choice ended ``status``; its figures are its session's (fresh result, tokens,
        samples); ``wall_s``: seconds this process spent on it (added to earlier ones')."""
        with self.store._errors(), self.db.atomic():
            row = self.db.execute(
                "SELECT c.wall_s, s.result, s.result_low, s.result_high, s.result_kind, "
                "s.tokens, s.total_samples FROM learn_choices c LEFT JOIN sessions s "
                "ON s.id = c.session_id WHERE c.id = ?",
                [choice_id],
            ).fetchone()
            if row is None:
                raise StoreError(f"no learn choice {choice_id}")
            before, result, low, high, kind, tokens, samples = row
            table_of(self.db, "learn_choices").update(
                choice_id,
                {
                    "status": status,
                    "result": result,
                    "result_low": low,
                    "result_high": high,
                    "result_kind": kind,
                    "tokens": tokens or 0,
                    "samples": samples or 0,
                    "wall_s": (before or 0.0) + wall_s,
                    "finished_at": time.time(),
                },
            )

    def add_wall(self, choice_id: int, seconds: float) -> None:
        with self.store._errors(), self.db.atomic():
            self.db.execute(
                "UPDATE learn_choices SET wall_s = wall_s + ? WHERE id = ?", [seconds, choice_id]
            )

    def choices(self, learn_id: int) -> list[LearnChoice]:
        with self.store._errors():
            rows = list(
                self.db.query(
                    "SELECT * FROM learn_choices WHERE learn_id = ? ORDER BY position",
                    [learn_id],
                )
            )
        return [_choice(r) for r in rows]

    # -- people's requests ----------------------------------------------------------------------
    def add_command(self, learn_id: int, kind: str, task: str = "") -> int:
        if kind not in COMMANDS:
            raise ValueError(f"unknown learn command {kind!r}: use one of {', '.join(COMMANDS)}")
        with self.store._errors(), self.db.atomic():
            table = table_of(self.db, "learn_commands")
            table.insert(
                {"learn_id": learn_id, "kind": kind, "task": task, "created_at": time.time()}
            )
            return inserted_id(table.last_pk)

    def pending_commands(self, learn_id: int) -> list[LearnCommand]:
        with self.store._errors():
            rows = list(
                self.db.query(
                    "SELECT id, kind, task, created_at FROM learn_commands WHERE learn_id = ? "
                    "AND done_at IS NULL ORDER BY id",
                    [learn_id],
                )
            )
        return [LearnCommand(r["id"], r["kind"], r["task"] or "", r["created_at"]) for r in rows]

    def take_command(self, command_id: int) -> None:
        with self.store._errors(), self.db.atomic():
            table_of(self.db, "learn_commands").update(command_id, {"done_at": time.time()})

    def skipped(self, learn_id: int) -> list[str]:
        """Tasks a person asked to skip (taken or not), oldest first, each once."""
        with self.store._errors():
            rows = self.db.execute(
                "SELECT task FROM learn_commands WHERE learn_id = ? AND kind = 'skip' ORDER BY id",
                [learn_id],
            ).fetchall()
        return list(dict.fromkeys(r[0] for r in rows))

    # -- what the curriculum reads --------------------------------------------------------------
    def task_records(self, env: str) -> dict[str, TaskRecord]:
        """Per task, the figures of this world's sessions: tries, tokens, samples, the best
        fresh result of a finished session (with its interval, kind and session)."""
        with self.store._errors():
            rows = list(
                self.db.query(
                    "SELECT id, task, status, owner_pid, owner_host, tokens, total_samples, "
                    "result, result_low, result_high, result_kind FROM sessions WHERE env = ? "
                    "AND chain = 0 ORDER BY id DESC",
                    [env],
                )
            )
        records: dict[str, TaskRecord] = {}
        for row in rows:
            record = records.setdefault(row["task"], TaskRecord(row["task"]))
            record.tries += 1
            record.tokens += row["tokens"] or 0
            record.samples += row["total_samples"] or 0
            record.sessions.append(row["id"])
            if record.last_session is None:
                record.last_session = row["id"]
            if row["status"] == "running" and owner_alive(row["owner_pid"], row["owner_host"]):
                record.running_session = record.running_session or row["id"]
            result = row["result"]
            if row["status"] == "finished" and row["result_kind"]:
                if row["result_kind"] == "code":
                    record.code_tries += 1
                    record.code_best = _higher(record.code_best, result)
                else:
                    record.rl_tries += 1
                    record.rl_best = _higher(record.rl_best, result)
            if (
                row["status"] == "finished"
                and result is not None
                and (record.best is None or result > record.best)
            ):
                record.best = result
                low, high = row["result_low"], row["result_high"]
                record.best_ci = None if low is None else (low, high)
                record.best_kind = row["result_kind"]
                record.best_session = row["id"]
        return records

    def episode_ends(self, session_ids: list[int]) -> Counter[str]:
        """How the evaluation episodes of these sessions ended (episode end -> count)."""
        ends: Counter[str] = Counter()
        if not session_ids:
            return ends
        marks = ", ".join("?" for _ in session_ids)
        with self.store._errors():
            rows = self.db.execute(
                f"SELECT result FROM evaluations WHERE session_id IN ({marks})", session_ids
            ).fetchall()
        for (text,) in rows:
            try:
                counts = json.loads(text or "{}").get("episode_ends") or {}
            except (json.JSONDecodeError, AttributeError):
                continue
            for end, n in counts.items():
                if isinstance(n, int):
                    ends[str(end)] += n
        return ends

    def code_authors(self, session_id: int) -> list[str]:
        """Who wrote the skills a session's evaluations ran (library authors), sorted."""
        with self.store._errors():
            rows = self.db.execute(
                "SELECT DISTINCT s.author FROM skill_uses u JOIN skills s ON s.id = u.skill_id "
                "WHERE u.use_session = ? ORDER BY s.author",
                [session_id],
            ).fetchall()
        return [r[0] for r in rows if r[0]]


def _higher(best: float | None, value: float | None) -> float | None:
    if value is None:
        return best
    return value if best is None else max(best, value)


def _run(row: dict[str, Any]) -> LearnRun:
    status = row["status"]
    if status == "running" and not owner_alive(row.get("owner_pid"), row.get("owner_host")):
        status = "interrupted"
    return LearnRun(
        id=row["id"],
        env=row["env"],
        library=row["library"],
        settings=json.loads(row["settings"] or "{}"),
        budgets=json.loads(row["budgets"] or "{}"),
        threshold=row["threshold"],
        curriculum=row["curriculum"],
        llm=json.loads(row["llm"] or "{}"),
        status=status,
        reason=row["reason"] or "",
        elapsed_s=row["elapsed_s"] or 0.0,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _choice(row: dict[str, Any]) -> LearnChoice:
    low, high = row["result_low"], row["result_high"]
    return LearnChoice(
        id=row["id"],
        learn_id=row["learn_id"],
        position=row["position"],
        task=row["task"],
        reason=row["reason"] or "",
        chooser=row["chooser"] or "",
        fallback=row["fallback"] or "",
        curriculum_tokens=row["curriculum_tokens"] or 0,
        curriculum_s=row["curriculum_s"] or 0.0,
        session_id=row["session_id"],
        status=row["status"],
        result=row["result"],
        result_ci=None if low is None else (low, high),
        result_kind=row["result_kind"],
        tokens=row["tokens"] or 0,
        samples=row["samples"] or 0,
        wall_s=row["wall_s"] or 0.0,
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        facts=_facts(row.get("facts")),
    )


def _facts(text: str | None) -> dict[str, Any]:
    """A choice's recorded facts (none for a choice recorded before they were)."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
