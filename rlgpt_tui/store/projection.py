"""Event projection: each recorded event's rows in the typed tables (plans, code versions,
training metrics, evaluations, verdicts, iterations, LLM calls, human edits) and what it
changes in its session's summary row, written inside :meth:`SessionStore.record`'s
transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from rlgpt_tui.agents.schemas import Plan
from rlgpt_tui.engine import events as ev
from rlgpt_tui.store.tables import table_of
from rlgpt_tui.tasks.measure import Measure


def project_event(db: Database, session_id: int, seq: int, event: ev.Event) -> None:
    """The typed rows for ``event`` and the session summary (inside record's transaction)."""
    base = {
        "session_id": session_id,
        "event_seq": seq,
        "iteration": event.iteration,
        "agent": event.agent,
        "time": event.time,
    }
    rows = EVENT_ROWS.get(type(event))
    for table, row in rows(base, event) if rows else []:
        table_of(db, table).insert(row)
    if isinstance(event, ev.CodeValidationFailed):
        # only the code this failure is about: an answer that failed before any code
        # was written leaves the earlier (kept) version valid
        db.execute(
            "UPDATE code_versions SET valid = 0, error = ? WHERE event_seq = (SELECT "
            "MAX(event_seq) FROM code_versions WHERE session_id = ? AND subaction = ?) "
            "AND iteration = ? AND attempt = ?",
            [event.error, session_id, event.subaction, event.iteration, event.attempt],
        )
    summary = {"updated_at": time.time()} | _summary_of(db, session_id, event)
    table_of(db, "sessions").update(session_id, summary)


def _summary_of(db: Database, session_id: int, event: ev.Event) -> dict[str, Any]:
    """What ``event`` changes in the session's summary row."""
    match event:
        case ev.TrainingProgress() if event.total_samples is not None:
            return {"total_samples": event.total_samples}  # right in the list after kill -9
        case ev.EvaluationDone():
            value, measure = event.result.measured_value, event.result.measured_in.value
            return {} if value is None else _best(db, session_id, value, measure)
        case ev.IterationDone():
            return _best(db, session_id, event.value, event.measure) | {
                "total_samples": event.total_samples,
                "tokens": event.tokens,
                "iterations": event.iteration + 1,
            }
        case ev.SolutionChosen():
            low, high = event.result.evaluation.ci95 or (None, None)
            return {
                "result": event.result.value,
                "result_low": low,
                "result_high": high,
                "result_kind": event.result.kind,
            }
        case ev.SessionFinished():  # its samples: every one trained (a cut-off run's too)
            finished: dict[str, Any] = {
                "reason": event.reason,
                "tokens": event.tokens,
                "total_samples": event.total_samples,
            }
            if event.run:
                finished["run_score"] = event.run.score
            return finished
    return {}


def _best(db: Database, session_id: int, value: float, measure: str | None) -> dict[str, Any]:
    """The session's best value so far, with ``value`` (a session judged by Crafter's
    score never takes a success rate as its best: a chain stage's evaluation)."""
    row = db.execute("SELECT best, measure FROM sessions WHERE id = ?", [session_id]).fetchone()
    previous, known = row
    measure = measure or Measure.SUCCESS_RATE.value
    if known is not None and known != measure:
        return {}
    return {"best": max(previous or 0.0, value), "measure": measure}


Row = dict[str, Any]
Rows = list[tuple[str, Row]]


def _plan_rows(base: Row, event: ev.PlanProposed) -> Rows:
    plan = {
        "source": event.source,
        "summary": _plan_summary(event.plan),
        "plan": json.dumps(event.plan.model_dump()),
    }
    subactions = [
        {
            "session_id": base["session_id"],
            "plan_seq": base["event_seq"],
            "position": position,
            "name": sub.name,
            "mode": sub.mode,
            "description": sub.description,
            "reason": sub.reason,
            "high_level_actions": json.dumps(sub.high_level_actions),
        }
        for position, sub in enumerate(event.plan.subactions)
    ]
    return [("plans", base | plan)] + [("subactions", row) for row in subactions]


def _code_rows(base: Row, event: ev.CodeWritten) -> Rows:
    code = {
        "subaction": event.subaction,
        "attempt": event.attempt,
        "source": event.source,
        "code": event.code,
        "valid": 1,
        "error": None,
    }
    return [("code_versions", base | code)]


def _training_rows(base: Row, event: ev.TrainingStarted) -> Rows:
    run = {
        "subaction": event.subaction,
        "config": json.dumps(event.rl_config or event.config),
        "checkpoint_dir": event.checkpoint_dir,
    }
    return [("training_runs", base | run)]


def _progress_rows(base: Row, event: ev.TrainingProgress) -> Rows:
    m = event.metrics
    metrics = {
        "subaction": event.subaction,
        "samples": m.samples,
        "fps": m.fps,
        "success_rate": m.success_rate,
        "value": m.measured_value,
        "ep_return_mean": m.ep_return_mean,
        "ep_length_mean": m.ep_length_mean,
        "coded_decision_share": m.coded_decision_share,
        "metrics": json.dumps(m.to_dict()),
    }
    return [("training_metrics", base | metrics)]


def _evaluation_rows(base: Row, event: ev.EvaluationDone) -> Rows:
    result = event.result
    evaluation = {
        "subject": event.subject,
        "success_rate": result.success_rate,
        "value": result.measured_value,
        "measure": result.measured_in.value,
        "episodes": result.episodes,
        "result": json.dumps(result.to_dict()),
    }
    return [("evaluations", base | evaluation)]


def _verdict_rows(base: Row, event: ev.VerdictGiven) -> Rows:
    verdict = {
        "subaction": event.subaction,
        "success": int(event.success),
        "reason": event.reason,
        "suggestion": event.suggestion,
    }
    return [("verdicts", base | verdict)]


def _iteration_rows(base: Row, event: ev.IterationDone) -> Rows:
    iteration = {
        "plan": event.plan,
        "value": event.value,
        "measure": event.measure,
        "samples": event.samples,
        "total_samples": event.total_samples,
        "tokens": event.tokens,
    }
    return [("iterations", base | iteration)]


def _llm_rows(base: Row, event: ev.LLMCalled) -> Rows:
    call = {
        "role": event.role,
        "model": event.model,
        "prompt": json.dumps(event.prompt),
        "answer": event.answer,
        "prompt_tokens": event.prompt_tokens,
        "completion_tokens": event.completion_tokens,
        "latency_s": event.latency_s,
        "attempts": event.attempts,
        "ok": int(event.ok),
        "error": event.error,
        "validated": None if event.validated is None else int(event.validated),
        "repair_round": event.repair_round,
        "mode": event.mode,
    }
    return [("llm_calls", base | call)]


def _edit_applied_rows(base: Row, event: ev.EditApplied) -> Rows:
    edit = {
        "who": "human",
        "what": event.what,
        "target": event.target,
        "before": event.before,
        "after": event.after,
        "edit_id": event.edit_id,
        "outcome": "applied",
        "detail": event.at,
        "version": event.version,
    }
    return [("human_edits", base | edit)]


def _edit_refused_rows(base: Row, event: ev.EditRefused | ev.EditDiscarded) -> Rows:
    edit = {
        "who": "human",
        "what": event.what,
        "target": event.target,
        "before": "",
        "after": "",
        "edit_id": event.edit_id,
        "outcome": "refused" if isinstance(event, ev.EditRefused) else "discarded",
        "detail": event.reason,
    }
    return [("human_edits", base | edit)]


#: each event type's rows in the typed tables (events without one only go to ``events``)
EVENT_ROWS: dict[type[ev.Event], Callable[[Row, Any], Rows]] = {
    ev.PlanProposed: _plan_rows,
    ev.CodeWritten: _code_rows,
    ev.TrainingStarted: _training_rows,
    ev.TrainingProgress: _progress_rows,
    ev.EvaluationDone: _evaluation_rows,
    ev.VerdictGiven: _verdict_rows,
    ev.IterationDone: _iteration_rows,
    ev.LLMCalled: _llm_rows,
    ev.EditApplied: _edit_applied_rows,
    ev.EditRefused: _edit_refused_rows,
    ev.EditDiscarded: _edit_refused_rows,
}


def _plan_summary(plan: Plan) -> str:
    return ", ".join(f"{s.name} ({s.mode})" for s in plan.subactions)
