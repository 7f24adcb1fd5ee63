"""Sessions in real SQLite files: kill -9 and resume, migrations, concurrent reads, exports."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

from rlgpt_tui.cli import main
from rlgpt_tui.engine import events as ev
from rlgpt_tui.engine.events import event_from_dict
from rlgpt_tui.report.export import export_session
from rlgpt_tui.session import Session
from rlgpt_tui.store import SessionStore, StoreError, UnknownSessionError
from rlgpt_tui.store.schema import MIGRATIONS, SCHEMA_VERSION
from rlgpt_tui.tasks.measure import Measure
from tests.settings import tiny_settings
from tests.waiting import kill_run_when, wait_for

SAMPLES_PER_ITERATION = 16384
RUN_FLAGS = [
    "--task",
    "collect_wood",
    "--iterations",
    "1",  # the killed iteration is the last: the resumed run finishes it, then ends
    "--samples-per-iteration",
    str(SAMPLES_PER_ITERATION),
    "--num-envs",
    "16",
    "--eval-episodes",
    "8",
    "--final-episodes",
    "8",
    "--target",
    "1.0",
]


@pytest.mark.slow
def test_kill_9_during_training_then_resume_continues_from_checkpoint(tmp_path: Path) -> None:
    # killed in iteration 0's training: the one training every run has (a later iteration
    # may never come, since iteration 0 can reach the target on 8 evaluation episodes)
    def training_checkpointed(reader: SessionStore) -> bool:
        events = reader.events(1)
        assert not any(e["kind"] == "iteration_done" for e in events), "kill came too late"
        progress = [e for e in events if e["kind"] == "training_progress"]
        return len(progress) >= 3  # checkpoints every 2 rollouts

    # the reader polls while the engine writes (WAL): no lock errors, growing results
    reader = kill_run_when(
        RUN_FLAGS, tmp_path, training_checkpointed, 240, "iteration 0's training to checkpoint"
    )
    before = reader.events(1)
    assert reader.get(1).status == "interrupted"
    last = [e for e in before if e["kind"] == "training_progress"][-1]
    assert reader.list_sessions()[0].total_samples == last["total_samples"] > 0  # not 0
    assert [e["kind"] for e in before if e["kind"] == "plan_proposed"] == ["plan_proposed"]
    checkpoint = json.loads(
        (tmp_path / "1" / "checkpoints" / "iter0-collect_wood" / "latest.json").read_text()
    )
    assert 0 < checkpoint["samples"] < SAMPLES_PER_ITERATION

    resumed_events: list[ev.Event] = []
    session = Session.resume(SessionStore(tmp_path), 1)
    session.run(resumed_events.append)
    after = reader.events(1)
    assert after[: len(before)] == before  # nothing recorded was lost or changed
    resumed = next(e for e in after if e["kind"] == "session_resumed")
    assert resumed["iteration"] == 0 and resumed["training_samples_done"] == checkpoint["samples"]
    # iteration 0's plan was kept, not proposed again
    assert not any(e.kind == "plan_proposed" and e.iteration == 0 for e in resumed_events)
    progress = [e for e in resumed_events if isinstance(e, ev.TrainingProgress)]
    assert progress[0].metrics.samples > checkpoint["samples"]  # continued, not from zero
    done = [e for e in after if e["kind"] == "iteration_done"]
    assert done[0]["iteration"] == 0
    # one budget, not one and a half
    assert SAMPLES_PER_ITERATION <= done[0]["samples"] < SAMPLES_PER_ITERATION + 1024
    assert [e["iteration"] for e in done] == list(range(len(done)))
    assert reader.get(1).status == "finished"
    assert reader.get(1).iterations == len(done)


@pytest.mark.slow
def test_session_records_tables_and_exports(tmp_path: Path, capsys) -> None:
    store = SessionStore(tmp_path)
    session = Session.create(store, tiny_settings(samples_per_iteration=2048))
    session.run()
    sid = session.id
    summary = store.get(sid)
    assert summary.status == "finished" and summary.agent == "builtin"
    assert summary.iterations == 2 and summary.total_samples >= 4096
    plans = store.rows("plans", sid)
    assert [p["summary"] for p in plans] == [
        "collect_wood (rl)",
        "go_to_tree (code), code_collect_wood (code), collect_wood (rl)",
    ]
    assert store.rows("code_versions", sid)[0]["subaction"] == "go_to_tree"
    assert (store.session_dir(sid) / "code" / "go_to_tree.py").read_text().startswith('"""Walk')
    metrics = store.rows("training_metrics", sid)
    assert len(metrics) >= 2 and all(m["fps"] > 0 for m in metrics)
    verdicts = store.rows("verdicts", sid)
    assert {v["subaction"] for v in verdicts} == {"collect_wood", "go_to_tree", "code_collect_wood"}
    # the coded actions that validated and ran joined the skill library, with their record
    skills = {s.name: s for s in store.skills("craftax")}
    assert set(skills) == {"go_to_tree", "code_collect_wood"}
    assert {s.author for s in skills.values()} == {"builtin library"}
    assert all(s.made_in == f"session {sid}, iteration 2" for s in skills.values())
    assert sum(s.record.calls for s in skills.values()) > 0
    assert skills["go_to_tree"].record.success_text.startswith("collect_wood ")
    # the result is the chosen solution's fresh evaluation, recorded beside the run's own
    chosen = [e for e in store.events(sid) if e["kind"] == "solution_chosen"][-1]
    kinds = {c["kind"] for c in chosen["candidates"]}
    assert kinds == {"RL", "RL + code", "code"}  # pure PPO, RL from the code, the code
    # --final-episodes 8 each, or fewer for one that stopped once it could not win
    for c in chosen["candidates"]:
        assert c.get("planned", c["episodes"]) == 8
        assert ("decision" in c) == (c["episodes"] < 8), c
        assert "decision" not in c or c["decision"].startswith("worse than")
    best_fresh = max(c["value"] for c in chosen["candidates"])
    assert summary.result == chosen["result"]["value"] == best_fresh
    assert summary.result_kind == chosen["result"]["kind"]
    assert summary.best_text.startswith(f"{summary.result:.2f} [")

    report = export_session(store, sid, "md", tmp_path / "out", with_gif=True)
    text = report.read_text()
    rates = [f"{r['value']:.2f}" for r in store.rows("iterations", sid)]
    assert "agent: **builtin**" in text and all(rate in text for rate in rates)
    assert "### `go_to_tree`" in text and "![learning curves](curves.png)" in text
    assert f"**result: success rate {summary.result:.2f}" in text
    # where the time went: a phase table whose shares sum to the wall time, training in it
    phases = store.phase_times(sid)
    assert [it.iteration for it in phases.iterations] == [0, 1]
    shares = phases.as_dict()["shares"]
    assert abs(sum(shares.values()) - 1.0) < 0.01
    assert shares["training"] > 0 and phases.samples == summary.total_samples
    for phase in ("world", "evaluating", "critic runs", "final evaluation"):
        assert shares[phase] > 0, phase  # each had its own PhaseStarted
    table = text.split("## Where the time went")[1].split("\n## ")[0]
    training_row = next(r for r in table.splitlines() if r.startswith("| training |"))
    assert float(training_row.split("|")[-3]) > 0  # its total seconds
    assert "| **wall** |" in table and "it.  2 |" in table and "T" in table  # the bars
    assert main(["sessions", "--sessions-dir", str(tmp_path), "show", str(sid)]) == 0
    shown = capsys.readouterr().out
    assert f"training proper {phases.totals['training']:.1f} s" in shown
    assert f"{phases.wall:.1f} s of wall time" in shown
    from PIL import Image

    with Image.open(tmp_path / "out" / "episode.gif") as gif:
        # one episode of the best policy, which starts from the code: a few steps to a log
        assert gif.n_frames >= 2
    assert Image.open(tmp_path / "out" / "curves.png").size == (900, 360)
    assert "[learning curves (SVG)](curves.svg)" in text
    svg = (tmp_path / "out" / "curves.svg").read_text()  # its text kept as text
    assert len(svg) > 10_000 and svg.lstrip().startswith("<?xml")
    for label in ("samples (all iterations)", "success rate", "training it2 collect_wood"):
        assert f">{label}</text>" in svg, label
    data = json.loads(export_session(store, sid, "json", tmp_path / "out").read_text())
    assert len(data["events"]) == len(store.events(sid))
    assert data["phases"]["seconds"]["training"] == round(phases.totals["training"], 2)
    assert data["session"]["best"] == summary.best


def test_older_schema_migrates_and_keeps_its_sessions(tmp_path: Path) -> None:
    db = Database(tmp_path / "rlgpt.db")
    db.execute("CREATE TABLE schema_version (version INTEGER)")
    MIGRATIONS[0](db)  # a database written by schema version 1
    db.execute("INSERT INTO schema_version VALUES (1)")
    db["sessions"].insert(
        {
            "id": 1,
            "task": "collect_wood",
            "env": "craftax",
            "agent": "builtin",
            "status": "stopped",
            "best_success": 0.5,
        }
    )
    db["iterations"].insert({"session_id": 1, "event_seq": 3, "iteration": 0, "success_rate": 0.5})
    db["human_edits"].insert(
        {"session_id": 1, "event_seq": 7, "iteration": 0, "what": "plan", "target": ""}
    )
    db.conn.commit()
    db.conn.close()
    store = SessionStore(tmp_path)
    assert store.schema_version() == SCHEMA_VERSION == 11
    assert store.get(1).task == "collect_wood" and store.get(1).status == "stopped"
    # v5: values are in the task's measure; an older session's were success rates
    assert store.get(1).best == 0.5 and store.get(1).measure == Measure.SUCCESS_RATE
    # v6: no fresh result recorded: the run's own figure, said to be that
    assert store.get(1).result is None and store.get(1).best_text == "0.50 (run's own)"
    iteration = store.rows("iterations", 1)[0]
    assert iteration["value"] == 0.5 and iteration["measure"] == "success_rate"
    old = {"kind": "iteration_done", "iteration": 0, "agent": "builtin", "plan": "p"}
    old |= {"samples": 1, "total_samples": 1, "tokens": 0}
    replayed = event_from_dict(old | {"success_rate": 0.5})
    assert replayed.value == 0.5 and replayed.measure == "success_rate"
    scored = event_from_dict(old | {"value": 12.5, "measure": "crafter_score"})
    assert scored.value == 12.5 and scored.measure == "crafter_score"
    assert "owner_pid" in store.db["sessions"].columns_dict
    edit = store.rows("human_edits", 1)[0]  # v3: an old edit was one that was applied
    assert edit["outcome"] == "applied" and edit["edit_id"] is None
    assert {"validated", "repair_round", "mode"} <= set(store.db["llm_calls"].columns_dict)


OPEN_AFTER_SIGNAL = """
import sys, time
from pathlib import Path
from rlgpt_tui.store import SessionStore
sessions, ready, go = sys.argv[1:]
Path(ready).touch()
while not Path(go).exists():
    time.sleep(0.001)
print(SessionStore(sessions).schema_version())
"""


@pytest.mark.slow
def test_processes_opening_one_new_database_at_once_all_get_the_schema(tmp_path: Path) -> None:
    # a run and a reader (or two runs) creating the same database: one of them used to fail
    # with 'table "sessions" already exists' (migrations), or "locked" (switching to WAL)
    for trial in range(3):
        sessions, go = tmp_path / f"sessions{trial}", tmp_path / f"go{trial}"
        ready = [tmp_path / f"ready{trial}-{n}" for n in range(4)]
        openers = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AFTER_SIGNAL, str(sessions), str(flag), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for flag in ready
        ]
        wait_for(lambda flags=ready: all(f.exists() for f in flags), 120, "every opener to import")
        go.touch()
        results = [opener.communicate(timeout=60) for opener in openers]
        assert [(out.strip(), err) for out, err in results] == [(str(SCHEMA_VERSION), "")] * 4
        assert (
            SessionStore(sessions).db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]
            == 1
        )


def test_newer_schema_corrupt_file_and_unknown_id_are_one_line_errors(tmp_path, capsys) -> None:
    newer = tmp_path / "newer"
    SessionStore(newer).close()
    conn = sqlite3.connect(newer / "rlgpt.db")
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer than this rlgpt-tui knows .* upgrade"):
        SessionStore(newer)

    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    garbage = b"this is not a database" * 100
    (corrupt / "rlgpt.db").write_bytes(garbage)
    assert main(["sessions", "--sessions-dir", str(corrupt), "list"]) == 2
    err = capsys.readouterr().err
    assert "corrupt" in err and "move it aside" in err and len(err.strip().splitlines()) == 1
    assert (corrupt / "rlgpt.db").read_bytes() == garbage  # reported, not overwritten

    store = SessionStore(tmp_path / "fine")
    with pytest.raises(UnknownSessionError, match="sessions list"):
        store.get(42)
    assert main(["resume", "42", "--sessions-dir", str(tmp_path / "fine")]) == 2
    assert "no session 42" in capsys.readouterr().err


def test_locked_database_is_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", "builtin", {})
    blocker = sqlite3.connect(tmp_path / "rlgpt.db")
    blocker.execute("BEGIN EXCLUSIVE")  # another process holding the write lock
    store.db.execute("PRAGMA busy_timeout = 100")
    try:
        with pytest.raises(StoreError, match="locked by another process"):
            store.record(sid, ev.ControlChanged(iteration=0, agent="builtin", state="paused"))
    finally:
        blocker.rollback()
        blocker.close()
    store.record(sid, ev.ControlChanged(iteration=0, agent="builtin", state="paused"))
    assert [e["kind"] for e in store.events(sid)] == ["control"]


def test_sessions_cli_list_show_delete(tmp_path: Path, capsys) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("place_table", "craftax", "llm:some-model", {"seed": 3})
    store.record(
        sid,
        ev.IterationDone(
            iteration=0,
            agent="llm:some-model",
            plan="p",
            value=0.25,
            samples=100,
            total_samples=100,
            tokens=7,
        ),
    )
    assert main(["sessions", "--sessions-dir", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "place_table" in out and "llm:some-model" in out and "0.25" in out
    assert main(["sessions", "--sessions-dir", str(tmp_path), "show", str(sid)]) == 0
    assert "| 1 | p | 0.25 | 100 | 100 | 7 |" in capsys.readouterr().out
    assert main(["sessions", "--sessions-dir", str(tmp_path), "delete", str(sid)]) == 0
    assert store.list_sessions() == [] and not store.session_dir(sid).exists()


@pytest.mark.slow
def test_llm_session_records_calls_never_the_key_and_resumes_after_outage(
    tmp_path: Path, monkeypatch
) -> None:
    from rlgpt_tui.llm.settings import LLMSettings
    from tests.llm_server import ScriptedLLMServer
    from tests.test_agents_engine import scripted_agent, small_settings

    key = "sk-never-in-the-db-12345"
    monkeypatch.setenv("RLGPT_TEST_KEY", key)
    store = SessionStore(tmp_path)
    with ScriptedLLMServer(responder=scripted_agent) as server:
        llm = LLMSettings.resolve(
            server.base_url, server.model, api_key_env="RLGPT_TEST_KEY", max_retries=1
        )
        session = Session.create(store, small_settings(target=1.01), llm)

        def endpoint_dies(event: ev.Event) -> None:
            if isinstance(event, ev.IterationDone):
                server.stop()

        result = session.run(endpoint_dies)
    assert result.reason.startswith("error: cannot reach the LLM endpoint")
    summary = store.get(session.id)
    assert summary.status == "failed" and summary.agent == "llm:scripted-model"
    assert summary.llm["api_key_env"] == "RLGPT_TEST_KEY" and summary.iterations == 1
    calls = store.rows("llm_calls", session.id)
    assert {c["role"] for c in calls} >= {"slow", "fast", "critic"}
    assert all(c["prompt_tokens"] > 0 for c in calls if c["ok"])
    before = store.events(session.id)

    with ScriptedLLMServer(responder=scripted_agent) as server:  # back, on a new port
        moved = LLMSettings.resolve(
            server.base_url, server.model, api_key_env="RLGPT_TEST_KEY", max_retries=1
        )
        resumed = Session.resume(store, session.id, llm=moved)
        resumed.run()
    after = store.events(session.id)
    assert after[: len(before)] == before
    done = [e for e in after if e["kind"] == "iteration_done"]
    assert [e["iteration"] for e in done] == [0, 1]
    assert done[1]["tokens"] > done[0]["tokens"]  # counted across the resume
    # where the time went: each role's LLM calls, over both segments, apart from its phase
    phases = store.phase_times(session.id)
    assert [it.iteration for it in phases.iterations] == [0, 1]
    for role in ("slow", "fast", "critic"):
        latency = sum(
            c["latency_s"] for c in store.rows("llm_calls", session.id) if c["role"] == role
        )
        assert phases.totals[f"LLM {role}"] == pytest.approx(latency, abs=0.05), role
    export = export_session(store, session.id, "json", tmp_path / "out")
    for path in [*tmp_path.glob("rlgpt.db*"), export, *tmp_path.rglob("*.py")]:
        assert key.encode() not in path.read_bytes(), path


def test_full_disk_is_a_one_line_error_and_keeps_what_was_recorded(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", "builtin", {})
    store.record(sid, ev.ControlChanged(iteration=0, agent="builtin", state="paused"))
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's SQLITE_FULL, as on a full disk
    big = ev.CodeWritten(
        iteration=0, agent="builtin", subaction="x", code="# filler\n" * 20_000, attempt=0
    )
    with pytest.raises(StoreError, match="is full: free some space"):
        store.record(sid, big)
    assert [e["kind"] for e in store.events(sid)] == ["control"]
    assert store.rows("code_versions", sid) == []  # the failed event left nothing half-written


@pytest.mark.slow
def test_chain_session_stopped_mid_chain_resumes_with_finished_stages_kept(tmp_path) -> None:
    store = SessionStore(tmp_path)
    settings = tiny_settings(
        task="place_table", samples_per_iteration=2048, max_samples=20_000, target=0.5
    )
    session = Session.create(store, settings, chain=True)

    def stop_in_second_stage(event: ev.Event) -> None:
        if isinstance(event, ev.SessionStarted) and event.task == "place_table":
            session.control.stop()  # the control plane every stage shares

    outcome = session.run(stop_in_second_stage)
    assert outcome.chain is not None and outcome.chain.stopped_at == "place_table"
    assert store.get(session.id).status == "stopped"
    before = store.events(session.id)
    first_stage = [e for e in before if e["kind"] == "session_finished"][0]
    assert first_stage["reason"] in ("target reached", "iterations used up")

    resumed = Session.resume(store, session.id)
    summary = resumed.run().chain
    assert summary is not None
    after = store.events(session.id)
    assert after[: len(before)] == before
    new = after[len(before) :]
    assert [e["task"] for e in new if e["kind"] == "session_started"] == []  # no stage restarted
    assert any(e["kind"] == "session_resumed" and e["iteration"] == 0 for e in new)
    assert summary.solved_stages == ["collect_wood", "place_table"]
    assert summary.training_samples >= first_stage["total_samples"]
    assert summary.evaluation is not None and summary.evaluation.episodes == 8
    assert 0.0 <= (summary.evaluation.success_rate or 0.0) <= 1.0
    assert store.get(session.id).status == "finished"


def test_code_and_rl_config_validation_failures_touch_only_their_own_records(tmp_path) -> None:
    store = SessionStore(tmp_path)
    sid = store.create_session("collect_wood", "craftax", "builtin", {})
    code = "def act(ctx):\n    yield 0\n"
    store.record(
        sid,
        ev.CodeWritten(
            iteration=0, agent="builtin", subaction="collect_wood", code=code, attempt=0
        ),
    )
    bad_rl = ev.RLConfigValidationFailed(
        iteration=0, agent="builtin", subaction="collect_wood", error="x"
    )
    store.record(sid, bad_rl)
    assert [r["valid"] for r in store.rows("code_versions", sid)] == [1]  # an RL config's failure
    store.record(
        sid,
        ev.CodeValidationFailed(
            iteration=0, agent="builtin", subaction="collect_wood", error="y", attempt=0
        ),
    )
    assert [(r["valid"], r["error"]) for r in store.rows("code_versions", sid)] == [(0, "y")]
