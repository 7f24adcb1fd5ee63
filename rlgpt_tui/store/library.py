"""The skill library's SQL: every coded action that validated and ran, across sessions (the
store's side of :class:`~rlgpt_tui.library.storage.SkillStorage`).

Filled from what sessions record, inside the transaction of the event that says so:

- a coded sub-action's inner loop ended with accepted code (``SubActionDone``, mode code:
  it validated and ran in the critic's sample runs), or a person's code edit was applied
  (``EditApplied``, what code): the source becomes a library entry, or an existing one when
  that world already has the same source under that name. A new source for a known name is
  a new version, never an overwrite. Its author comes from the code version that wrote it:
  ``person`` (a human edit), ``builtin library`` (the builtin agent's templates), or the
  agent's label (``llm:MODEL``);
- an evaluation (``EvaluationDone``) adds a use to every skill that took part: the calls,
  steps and call end reasons of the training run it followed (an RL policy's) or of the
  evaluation itself (code alone; a composed plan's steps: the calls that began each), and
  the measured success of the task it served with its 95% interval.

Who wrote what, and what a session's records make of it, are the library's rules
(:mod:`rlgpt_tui.library.provenance`), stated over the rows read here. A session's deletion
keeps the library (its columns are not ``session_id``). Import and export, composition and
what a session is offered are the library's (:class:`~rlgpt_tui.library.SkillLibrary`);
here they are rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from rlgpt_tui.engine import events as ev
from rlgpt_tui.library.compose import is_policy_call
from rlgpt_tui.library.provenance import (
    CodeVersion,
    SkillEntry,
    action_authors,
    imported_skill,
    session_policy,
    session_skill,
)
from rlgpt_tui.library.record import (
    SkillRecord,
    Use,
    evaluation_uses,
    imported_uses,
    policy_calls,
)
from rlgpt_tui.library.shelf import weights_ref
from rlgpt_tui.library.skillfile import SkillFile
from rlgpt_tui.library.storage import (
    LibraryError,
    LibraryPolicy,
    LibrarySkill,
    digest,
)
from rlgpt_tui.rl.policyfile import SavedPolicy
from rlgpt_tui.store.tables import inserted_id, table_of


# -- filling the library from a session's events (inside SessionStore.record's transaction) ----
def project(db: Database, session_id: int, seq: int, event: ev.Event) -> None:
    """Add what ``event`` tells the library (nothing for most kinds)."""
    match event:
        case ev.SubActionDone(mode="code") if event.code:
            _skill_for(db, session_id, event.subaction, event.code, event.iteration, event.agent)
        case ev.EditApplied(what="code") if event.after:
            _skill_for(db, session_id, event.target, event.after, event.iteration, event.agent)
        case ev.EvaluationDone():
            _add_uses(db, session_id, seq, event)
        case ev.PolicyTrained():
            _policy_for(db, session_id, event)


def _session_env(db: Database, session_id: int) -> str:
    row = db.execute("SELECT env FROM sessions WHERE id = ?", [session_id]).fetchone()
    return row[0] if row and row[0] else "craftax"


def _skill_for(
    db: Database, session_id: int, name: str, source: str, iteration: int, agent: str
) -> int | None:
    """The library entry of ``source`` as skill ``name`` in the session's world (made now,
    as the next version of that name, when the library does not hold that source yet;
    ``iteration`` and ``agent``: the event's that accepted it). None for code that only
    calls the policy skill of its own name: the policy is that skill (its calls are
    counted on its row)."""
    if is_policy_call(name, source):
        return None
    world = _session_env(db, session_id)
    row = db.execute(
        "SELECT id FROM skills WHERE world = ? AND name = ? AND digest = ?",
        [world, name, digest(source)],
    ).fetchone()
    if row:
        return row[0]
    described = db.execute(
        "SELECT description FROM subactions WHERE session_id = ? AND name = ? "
        "ORDER BY plan_seq DESC LIMIT 1",
        [session_id, name],
    ).fetchone()
    written = _code_version(db, session_id, name, source)
    description = (described[0] or "") if described else ""
    entry = session_skill(name, world, source, session_id, written, (agent, iteration), description)
    return _insert_skill(db, entry)


def _code_version(
    db: Database, session_id: int, name: str, source: str | None
) -> CodeVersion | None:
    """The session's latest code version of ``name`` (with ``source`` where given)."""
    sql = (
        "SELECT event_seq, source, agent, iteration FROM code_versions WHERE session_id = ? "
        "AND subaction = ?"
    )
    args: list[Any] = [session_id, name]
    if source is not None:
        sql, args = sql + " AND code = ?", [*args, source]
    row = db.execute(sql + " ORDER BY event_seq DESC LIMIT 1", args).fetchone()
    return CodeVersion(*row) if row else None


def _insert_skill(db: Database, entry: SkillEntry, version: int | None = None) -> int:
    """Add ``entry`` (at ``version``; None: the next of its name in its world)."""
    if version is None:
        row = db.execute(
            "SELECT MAX(version) FROM skills WHERE world = ? AND name = ?",
            [entry.world, entry.name],
        ).fetchone()
        version = (row[0] or 0) + 1
    cursor = db.execute(
        "INSERT INTO skills (name, world, version, docstring, source, digest, author, "
        "made_session, made_iteration, code_seq, made_in, origin, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            entry.name,
            entry.world,
            version,
            entry.docstring,
            entry.source,
            digest(entry.source),
            entry.author,
            entry.made_session,
            entry.made_iteration,
            entry.code_seq,
            entry.made_in,
            entry.origin,
            time.time(),
        ],
    )
    return inserted_id(cursor.lastrowid)


def _current_code(db: Database, session_id: int, name: str) -> tuple[str, int, str] | None:
    """The session's latest valid code of ``name``: (source, iteration, agent)."""
    return db.execute(
        "SELECT code, iteration, agent FROM code_versions WHERE session_id = ? AND "
        "subaction = ? AND valid = 1 ORDER BY event_seq DESC LIMIT 1",
        [session_id, name],
    ).fetchone()


def _plan_steps(db: Database, session_id: int, seq: int) -> list[str]:
    """The coded sub-actions of the session's last plan before ``seq`` (the steps a plan of
    code alone composes into one routine)."""
    rows = db.execute(
        "SELECT name FROM subactions WHERE session_id = ? AND mode = 'code' AND plan_seq = "
        "(SELECT MAX(plan_seq) FROM subactions WHERE session_id = ? AND plan_seq < ?) "
        "ORDER BY position",
        [session_id, session_id, seq],
    ).fetchall()
    return [name for (name,) in rows]


def _served_task(db: Database, session_id: int, seq: int) -> str:
    """The task of the engine run that ``seq`` belongs to (a chain's stage, or the session's)."""
    row = db.execute(
        "SELECT data FROM events WHERE session_id = ? AND kind = 'session_started' AND seq < ? "
        "ORDER BY seq DESC LIMIT 1",
        [session_id, seq],
    ).fetchone()
    if row:
        task = json.loads(row[0]).get("task")
        if task:
            return task
    row = db.execute("SELECT task FROM sessions WHERE id = ?", [session_id]).fetchone()
    return row[0] if row else ""


def _add_uses(db: Database, session_id: int, seq: int, event: ev.EvaluationDone) -> None:
    """A use row per skill that took part in this evaluation
    (:func:`~rlgpt_tui.library.record.evaluation_uses`)."""
    uses = evaluation_uses(
        event.subject,
        event.result,
        _served_task(db, session_id, seq),
        lambda: _plan_steps(db, session_id, seq),
    )
    world = _session_env(db, session_id)
    for (name, ref), calls in policy_calls(event.subject, event.result).items():
        _count_policy_calls(db, world, name, ref, calls)
    for name, use in uses.items():
        code = _current_code(db, session_id, name)
        if code is None:  # not a sub-action's code (e.g. a plan's composed routines)
            continue
        source, iteration, agent = code
        skill = _skill_for(db, session_id, name, source, iteration, agent)
        if skill is None:
            continue
        _insert_use(db, skill, use, (session_id, seq, event.iteration, event.subject), event.time)


def _count_policy_calls(db: Database, world: str, name: str, ref: str, calls: int) -> None:
    """Add ``calls`` to the policy skill ``name`` that ran: the library's policy of that
    task whose weights ``ref`` names (the session's shelf chose it), else, for a record
    naming none, its best measured policy of that task."""
    rows = db.execute(
        "SELECT id, weights FROM policies WHERE world = ? AND task = ? "
        "ORDER BY COALESCE(value, -1) DESC, id DESC",
        [world, name],
    ).fetchall()
    found = next((i for i, w in rows if ref and weights_ref(bytes(w)) == ref), None)
    if found is None and not ref and rows:
        found = rows[0][0]
    if found is not None:
        db.execute(
            "UPDATE policies SET calls = COALESCE(calls, 0) + ? WHERE id = ?", [calls, found]
        )


def _insert_use(
    db: Database,
    skill_id: int,
    use: Use,
    where: tuple[int | None, int | None, int | None, str],
    when: float,
) -> None:
    """A ``skill_uses`` row; ``where``: the session, event and iteration, and the subject."""
    session, seq, iteration, subject = where
    db.execute(
        "INSERT INTO skill_uses (skill_id, use_session, event_seq, iteration, subject, "
        "task, measure, value, ci_low, ci_high, episodes, successes, evaluations, calls, "
        "steps, end_reasons, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            skill_id,
            session,
            seq,
            iteration,
            subject,
            use.task,
            use.measure,
            use.value,
            use.ci95[0],
            use.ci95[1],
            use.episodes,
            use.successes,
            use.evaluations,
            use.calls,
            use.steps,
            json.dumps(use.end_reasons),
            when,
        ],
    )


def _policy_for(db: Database, session_id: int, event: ev.PolicyTrained) -> None:
    """The trained policy's library entry; none when its weights file is gone."""
    try:
        weights = Path(event.weights).read_bytes()
    except OSError:
        return
    config = event.rl_config
    authors = action_authors(
        config.get("coded_actions", []),
        lambda name, source: _code_version(db, session_id, name, source),
    )
    policy = session_policy(
        event.subaction,
        config,
        weights,
        event.samples,
        event.result,
        event.deterministic,
        authors,
        world=_session_env(db, session_id),
        made=(session_id, event.iteration),
    )
    insert_policy(
        db, policy, origin="session", session=(session_id, event.iteration), when=event.time
    )


def insert_policy(
    db: Database,
    policy: SavedPolicy,
    origin: str,
    session: tuple[int, int] | None = None,
    when: float | None = None,
) -> None:
    """Add ``policy`` to the library (in the caller's transaction)."""
    low, high = policy.ci95 or (None, None)
    table_of(db, "policies").insert(
        {
            "world": policy.world,
            "task": policy.task,
            "subaction": policy.subaction,
            "rl_config": json.dumps(policy.rl_config),
            "authors": json.dumps(policy.authors),
            "weights": policy.weights,
            "samples": policy.samples,
            "measure": policy.measure,
            "value": policy.value,
            "ci_low": low,
            "ci_high": high,
            "episodes": policy.episodes,
            "deterministic": None if policy.deterministic is None else int(policy.deterministic),
            "made_session": session[0] if session else None,
            "made_iteration": session[1] if session else None,
            "made_in": policy.made_in,
            "origin": origin,
            "created_at": time.time() if when is None else when,
        }
    )


def backfill(db: Database) -> None:
    """Fill the library from the events already recorded (the migration that adds it)."""
    rows = db.execute(
        "SELECT seq, session_id, data FROM events WHERE kind IN "
        "('subaction_done', 'edit_applied', 'evaluation') ORDER BY seq"
    ).fetchall()
    for seq, session_id, data in rows:
        try:
            event = ev.event_from_dict(json.loads(data))
        except (TypeError, ValueError, KeyError):
            continue  # a record this version cannot read: left out of the library
        project(db, session_id, seq, event)


# -- reading ---------------------------------------------------------------------------------
SKILL_COLUMNS = (
    "id, name, world, version, docstring, source, author, made_session, made_iteration, "
    "code_seq, made_in, origin, created_at"
)


def list_skills(db: Database, world: str | None = None, name: str | None = None) -> list:
    """Library skills (every version), by world, name and version, each with its record."""
    where, args = [], []
    if world:
        where.append("world = ?")
        args.append(world)
    if name:
        where.append("name = ?")
        args.append(name)
    sql = f"SELECT {SKILL_COLUMNS} FROM skills"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = db.execute(sql + " ORDER BY world, name, version", args).fetchall()
    skills = [LibrarySkill(*row) for row in rows]
    records = _records(db, [s.id for s in skills])
    for skill in skills:
        skill.record = records.get(skill.id, SkillRecord())
    return skills


def _records(db: Database, ids: list[int]) -> dict[int, SkillRecord]:
    records: dict[int, SkillRecord] = {}
    if not ids:
        return records
    rows = db.execute(
        "SELECT skill_id, task, measure, value, episodes, successes, calls, steps, "
        "end_reasons, evaluations FROM skill_uses WHERE skill_id IN "
        f"({', '.join('?' * len(ids))}) ORDER BY id",
        ids,
    ).fetchall()
    for skill_id, task, measure, value, episodes, successes, calls, steps, ends, count in rows:
        use = Use(
            task,
            measure,
            value,
            episodes,
            successes,
            1 if count is None else count,
            calls=calls,
            steps=steps,
            end_reasons=json.loads(ends or "{}"),
        )
        records.setdefault(skill_id, SkillRecord()).add(use)
    return records


POLICY_FIELDS = (
    "id, world, task, subaction, rl_config, authors, samples, measure, value, ci_low, "
    "ci_high, episodes, deterministic, made_in, origin, created_at, calls"
)


def list_policies(db: Database, world: str | None = None) -> list[LibraryPolicy]:
    """The library's trained policies, by world, task and when they were made."""
    where = " WHERE world = ?" if world else ""
    rows = db.execute(
        f"SELECT {POLICY_FIELDS} FROM policies{where} ORDER BY world, task, id",
        [world] if world else [],
    ).fetchall()
    columns = [name.strip() for name in POLICY_FIELDS.split(",")]
    policies = []
    for row in rows:
        values = dict(zip(columns, row, strict=True))
        low, high = values.pop("ci_low"), values.pop("ci_high")
        deterministic = values["deterministic"]
        values |= {
            "rl_config": json.loads(values["rl_config"]),
            "authors": json.loads(values["authors"] or "{}"),
            "ci95": None if low is None else (low, high),
            "deterministic": None if deterministic is None else bool(deterministic),
            "calls": values["calls"] or 0,
        }
        policies.append(LibraryPolicy(**values))
    return policies


def policy_weights(db: Database, policy_id: int) -> bytes:
    row = db.execute("SELECT weights FROM policies WHERE id = ?", [policy_id]).fetchone()
    if row is None:
        raise LibraryError(f"no policy #{policy_id} in the library: see `rlgpt-tui skills list`")
    return bytes(row[0])


# -- sharing -----------------------------------------------------------------------------------
def insert_imported(db: Database, skill: SkillFile, origin: str) -> int:
    """Insert a checked :class:`~rlgpt_tui.library.skillfile.SkillFile` (in the caller's
    transaction)."""
    skill_id = _insert_skill(db, imported_skill(skill, origin), version=skill.version)
    for use in imported_uses(skill.record):
        _insert_use(db, skill_id, use, (None, None, None, "imported"), time.time())
    return skill_id
