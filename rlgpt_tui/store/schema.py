"""The sessions database's schema, as forward migrations numbered from 1.

``schema_version`` holds one row: the last migration applied. Opening a database runs the
missing migrations in order, in one transaction that holds the write lock; a database newer than
``SCHEMA_VERSION`` is refused rather than touched.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database

from rlgpt_tui.store.library import backfill
from rlgpt_tui.store.tables import table_of


def _v1(db: Database) -> None:
    """Sessions, the event log, and a table per kind of record the events carry."""
    table_of(db, "sessions").create(
        {
            "id": int,
            "task": str,
            "env": str,
            "agent": str,
            "settings": str,  # JSON: the engine settings
            "llm": str,  # JSON: base URL, model, the key's variable name (never the key)
            "chain": int,
            "status": str,
            "reason": str,
            "best_success": float,
            "total_samples": int,
            "tokens": int,
            "iterations": int,
            "created_at": float,
            "updated_at": float,
        },
        pk="id",
    )
    table_of(db, "events").create(
        {
            "seq": int,
            "session_id": int,
            "kind": str,
            "iteration": int,
            "agent": str,
            "time": float,
            "data": str,
        },
        pk="seq",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    table_of(db, "events").create_index(["session_id", "seq"])
    common = {"session_id": int, "event_seq": int, "iteration": int, "agent": str, "time": float}
    tables: dict[str, dict[str, type]] = {
        "plans": {"source": str, "summary": str, "plan": str},
        "code_versions": {
            "subaction": str,
            "attempt": int,
            "source": str,
            "code": str,
            "valid": int,
            "error": str,
        },
        "training_runs": {"subaction": str, "config": str, "checkpoint_dir": str},
        "training_metrics": {
            "subaction": str,
            "samples": int,
            "fps": float,
            "success_rate": float,
            "ep_return_mean": float,
            "ep_length_mean": float,
            "coded_decision_share": float,
            "metrics": str,
        },
        "evaluations": {
            "subject": str,
            "success_rate": float,
            "episodes": int,
            "result": str,
        },
        "verdicts": {"subaction": str, "success": int, "reason": str, "suggestion": str},
        "iterations": {
            "plan": str,
            "success_rate": float,
            "samples": int,
            "total_samples": int,
            "tokens": int,
        },
        "llm_calls": {
            "role": str,
            "model": str,
            "prompt": str,
            "answer": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "latency_s": float,
            "attempts": int,
            "ok": int,
            "error": str,
        },
        "human_edits": {"who": str, "what": str, "target": str, "before": str, "after": str},
    }
    for name, columns in tables.items():
        table_of(db, name).create(
            common | columns,
            pk="event_seq",
            foreign_keys=[("session_id", "sessions", "id")],
        )
        table_of(db, name).create_index(["session_id"])
    table_of(db, "subactions").create(
        {
            "session_id": int,
            "plan_seq": int,
            "position": int,
            "name": str,
            "mode": str,
            "description": str,
            "reason": str,
            "high_level_actions": str,
        },
        pk=("plan_seq", "position"),
        foreign_keys=[("session_id", "sessions", "id")],
    )
    table_of(db, "subactions").create_index(["session_id"])


def _v2(db: Database) -> None:
    """Which process runs a session, so a killed one shows as interrupted, not running."""
    table_of(db, "sessions").add_column("owner_pid", int)
    table_of(db, "sessions").add_column("owner_host", str)


def _v3(db: Database) -> None:
    """Every human edit's outcome (applied, refused, discarded): where, why, which version."""
    table_of(db, "human_edits").add_column("edit_id", int)
    table_of(db, "human_edits").add_column("outcome", str)
    table_of(db, "human_edits").add_column("detail", str)  # where it was applied, or why not
    table_of(db, "human_edits").add_column("version", int)  # the code version it became
    db.execute("UPDATE human_edits SET outcome = 'applied' WHERE outcome IS NULL")


def _v4(db: Database) -> None:
    """Each LLM call says whether its answer validated, which repair round it was, and
    whether the schema went as response_format (``mode``: json_schema or plain)."""
    table_of(db, "llm_calls").add_column("validated", int)
    table_of(db, "llm_calls").add_column("repair_round", int)
    table_of(db, "llm_calls").add_column("mode", str)


def _v5(db: Database) -> None:
    """Tasks own their measure (a success rate or Crafter's score): the best value and the
    iterations' values are in that measure; a scored session also keeps the score over all
    its training episodes (Crafter's own definition)."""
    db.execute("ALTER TABLE sessions RENAME COLUMN best_success TO best")
    table_of(db, "sessions").add_column("measure", str)
    table_of(db, "sessions").add_column("run_score", float)
    db.execute("ALTER TABLE iterations RENAME COLUMN success_rate TO value")
    table_of(db, "iterations").add_column("measure", str)
    table_of(db, "evaluations").add_column("value", float)
    table_of(db, "evaluations").add_column("measure", str)
    table_of(db, "training_metrics").add_column("value", float)
    db.execute("UPDATE evaluations SET value = success_rate, measure = 'success_rate'")
    db.execute("UPDATE iterations SET measure = 'success_rate'")
    db.execute("UPDATE training_metrics SET value = success_rate")


def _v6(db: Database) -> None:
    """A session's result: its chosen solution's fresh evaluation (value, 95% interval, and
    kind: code, RL + code or RL), beside the best of the run's own evaluations."""
    table_of(db, "sessions").add_column("result", float)
    table_of(db, "sessions").add_column("result_low", float)
    table_of(db, "sessions").add_column("result_high", float)
    table_of(db, "sessions").add_column("result_kind", str)


def _v7(db: Database) -> None:
    """The skill library: every coded action that validated and ran, by world, name and
    version, with who wrote it and where; and its uses (each evaluation it took part in:
    calls, call ends, the task's measured success). Filled from the events already recorded.
    Its columns name sessions ``made_session`` / ``use_session``: deleting a session keeps
    the library."""
    table_of(db, "skills").create(
        {
            "id": int,
            "name": str,
            "world": str,
            "version": int,
            "docstring": str,
            "source": str,
            "digest": str,  # of the source: one entry per distinct source of a name
            "author": str,  # llm:MODEL, person, builtin library
            "made_session": int,
            "made_iteration": int,
            "code_seq": int,  # the code version (event sequence) that wrote it
            "made_in": str,
            "origin": str,  # session, or import <folder>
            "created_at": float,
        },
        pk="id",
    )
    table_of(db, "skills").create_index(["world", "name", "version"], unique=True)
    table_of(db, "skills").create_index(["world", "name", "digest"], unique=True)
    table_of(db, "skill_uses").create(
        {
            "id": int,
            "skill_id": int,
            "use_session": int,
            "event_seq": int,
            "iteration": int,
            "subject": str,
            "task": str,
            "measure": str,
            "value": float,
            "ci_low": float,
            "ci_high": float,
            "episodes": int,
            "successes": int,
            "evaluations": int,  # 1; an imported record: the evaluations it pools
            "calls": int,
            "steps": int,
            "end_reasons": str,  # JSON: call end reason -> count
            "time": float,
        },
        pk="id",
        foreign_keys=[("skill_id", "skills", "id")],
    )
    table_of(db, "skill_uses").create_index(["skill_id"])
    backfill(db)


def _v8(db: Database) -> None:
    """Trained policies in the library: a training's configuration (its coded actions'
    sources included), its weights (``.npz`` of arrays, :mod:`rlgpt_tui.rl.weights`), the
    samples it was trained on, its evaluation and how it acts; by world and task. A later
    session on that task starts PPO from it."""
    table_of(db, "policies").create(
        {
            "id": int,
            "world": str,
            "task": str,
            "subaction": str,
            "rl_config": str,  # JSON: the RLConfig it was trained with
            "authors": str,  # JSON: its coded actions' authors, by name
            "weights": bytes,
            "samples": int,
            "measure": str,
            "value": float,
            "ci_low": float,
            "ci_high": float,
            "episodes": int,
            "deterministic": int,  # 1: its mode, 0: sampled, NULL: evaluate()'s default
            "made_session": int,
            "made_iteration": int,
            "made_in": str,
            "origin": str,  # session, or import <folder>
            "created_at": float,
        },
        pk="id",
    )
    table_of(db, "policies").create_index(["world", "task"])


def _v9(db: Database) -> None:
    """Lifelong learning (``rlgpt-tui learn``): a learn record (its world, library, session
    settings, budgets and curriculum agent, and which process runs it), each choice of its
    curriculum (the task, why, who chose, the session that ran it and its figures), and what
    people asked of it (pin a task next, skip one, stop), read before each choice."""
    table_of(db, "learn_runs").create(
        {
            "id": int,
            "env": str,
            "library": str,  # what it started from: empty, builtin, user, own or a folder
            "settings": str,  # JSON: each session's settings (iterations, samples, ...)
            "budgets": str,  # JSON: max_hours, max_tokens, max_samples, max_tasks (totals)
            "threshold": float,  # a task is reached at this fresh success rate
            "curriculum": str,  # builtin, or llm:MODEL
            "llm": str,  # JSON: base URL, model, the key's variable name (never the key)
            "status": str,  # running, stopped, finished, failed
            "reason": str,
            "elapsed_s": float,  # wall seconds spent, over every process that ran it
            "created_at": float,
            "updated_at": float,
            "owner_pid": int,
            "owner_host": str,
        },
        pk="id",
    )
    table_of(db, "learn_choices").create(
        {
            "id": int,
            "learn_id": int,
            "position": int,  # 1, 2, ... in the record
            "task": str,
            "reason": str,
            "chooser": str,  # builtin, llm:MODEL, person
            "fallback": str,  # why an LLM curriculum's reply was not used ('' when it was)
            "curriculum_tokens": int,
            "curriculum_s": float,
            "session_id": int,
            "status": str,  # running, reached, failed, stopped
            "result": float,
            "result_low": float,
            "result_high": float,
            "result_kind": str,
            "tokens": int,
            "samples": int,
            "wall_s": float,
            "created_at": float,
            "finished_at": float,
        },
        pk="id",
        foreign_keys=[("learn_id", "learn_runs", "id")],
    )
    table_of(db, "learn_choices").create_index(["learn_id", "position"])
    table_of(db, "learn_commands").create(
        {
            "id": int,
            "learn_id": int,
            "kind": str,  # pin, skip, stop, retry
            "task": str,
            "created_at": float,
            "done_at": float,  # when the learn loop took it (NULL: pending)
        },
        pk="id",
        foreign_keys=[("learn_id", "learn_runs", "id")],
    )


def _v10(db: Database) -> None:
    """Each learn choice keeps the facts it stood on (JSON: the task's tries, best fresh
    figure and status, its prerequisites reached, the record's figures), so that a reason
    contradicting them is marked."""
    table_of(db, "learn_choices").add_column("facts", str)


def _v11(db: Database) -> None:
    """Each trained policy counts the calls code made of it as a skill (``ctx.skill``)."""
    table_of(db, "policies").add_column("calls", int)


MIGRATIONS: list[Callable[[Database], None]] = [
    _v1,
    _v2,
    _v3,
    _v4,
    _v5,
    _v6,
    _v7,
    _v8,
    _v9,
    _v10,
    _v11,
]
SCHEMA_VERSION = len(MIGRATIONS)
