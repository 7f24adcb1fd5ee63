"""A session's record as plain data: every record table, the event log and where its time
went (the JSON export), and the final code of each coded sub-action."""

from __future__ import annotations

from typing import Any

from rlgpt_tui.engine import events as ev
from rlgpt_tui.store import SessionStore

RECORD_TABLES = (
    "plans",
    "code_versions",
    "training_runs",
    "training_metrics",
    "evaluations",
    "verdicts",
    "iterations",
    "llm_calls",
    "human_edits",
)


def session_record(store: SessionStore, session_id: int) -> dict[str, Any]:
    """The session, every record table, the event log and where its time went (seconds
    per phase), as plain data (JSON export)."""
    summary = store.get(session_id)
    record: dict[str, Any] = {"session": summary.__dict__}
    for table in RECORD_TABLES:
        record[table] = store.rows(table, session_id)
    record["events"] = store.events(session_id)
    record["phases"] = store.phase_times(session_id).as_dict()  # where the time went
    return record


def final_code(store: SessionStore, session_id: int) -> dict[str, str]:
    """Each coded sub-action's last accepted code (or its last valid version)."""
    code: dict[str, str] = {}
    for row in store.rows("code_versions", session_id):
        if row["valid"]:
            code[row["subaction"]] = row["code"]
    for event in ev.events_from_records(store.events(session_id)):
        if isinstance(event, ev.SubActionDone) and event.code:
            code[event.subaction] = event.code
        elif isinstance(event, ev.EditApplied) and event.what == "code":
            code[event.target] = event.after  # swapped in during training
    return code
